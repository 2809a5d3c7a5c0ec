import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import Tracks
import Unlocks

/// The audit as one self-contained HTML page: no scripts, fonts, images or network; every map is
/// an inline SVG drawn at its pixel size with lines thinned to what a pixel can show, so a
/// thousand episodes stay within a few megabytes.
extension AuditReport {
    /// Map size in CSS pixels.
    static let mapWidth = 560.0, mapHeight = 380.0

    /// Point colours, most telling first: a point gets the colour of its first category here.
    static let palette: [(AuditCategory, String)] = [
        (.datumFlip, "#dc2626"), (.simplificationFlip, "#db2777"), (.outside, "#111827"), (.edgeOnly, "#f59e0b"),
        (.accuracyStraddle, "#7c3aed"), (.crossing, "#059669"), (.nearBorder, "#38bdf8"),
    ]

    /// The palette entry of each flag byte: its first category in the palette (the last entry for none).
    static let colourIndex: [Int] = (0..<128).map { flags in
        palette.firstIndex { UInt8(flags) & $0.0.bit != 0 } ?? palette.count - 1
    }

    /// Border line styles: CSS class, description.
    static let lineStyles: [(String, String)] = [
        ("ls", "source, full resolution"), ("lw", "world table (country, WGS-84)"), ("l1", "province"), ("l2", "city"), ("l3", "county"), ("lc", "China table coast / national border"),
    ]

    /// Each line style's swatch in the legend beneath a map (a CSS border, as the line is drawn).
    static let lineSwatches: [String: String] = [
        "ls": "1px solid #db2777", "lw": "2px dashed #ea580c", "l1": "2px solid #111827", "l2": "2px solid #4b5563", "l3": "1px dashed #9ca3af", "lc": "2px solid #0369a1",
    ]

    /// The page up to the episodes' sections: styles, summary, shaky unlocks.
    func htmlHead() -> String {
        var out = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>AdminUnlocks border audit</title>
        <style>
        *{box-sizing:border-box}html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
        body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1f2937;background:#fff}
        .scroll{overflow-x:auto;max-width:100%}.scroll table{white-space:nowrap}
        h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
        h3{font-size:15px;margin:0 0 8px}.sub{color:#6b7280;margin:0 0 16px}
        table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #f1f5f9;text-align:left;vertical-align:top}
        th{background:#f8fafc;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        .sw{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;vertical-align:-1px}
        section.ep{margin:18px 0;padding:14px;border:1px solid #e5e7eb;border-radius:8px;break-inside:avoid}
        .row{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}
        figure.map{margin:0;flex:none;max-width:100%}
        svg{display:block;border:1px solid #cbd5e1;border-radius:4px;background:#f8fafc;max-width:100%;height:auto}
        .key{display:flex;flex-wrap:wrap;gap:2px 14px;max-width:560px;margin-top:6px;font-size:12px;color:#374151}
        .key i{display:inline-block;width:18px;height:0;margin-right:5px;vertical-align:middle}.key i.kg{width:8px;height:8px;border:1px solid #dc2626;border-radius:50%}
        svg path{fill:none;stroke-linejoin:round;stroke-linecap:round}
        .lw{stroke:#ea580c;stroke-width:2;stroke-dasharray:6 3}.l1{stroke:#111827;stroke-width:2.4}.l2{stroke:#4b5563;stroke-width:1.5}
        .l3{stroke:#9ca3af;stroke-width:1;stroke-dasharray:4 3}.lc{stroke:#0369a1;stroke-width:2}.ls{stroke:#db2777;stroke-width:1;stroke-opacity:.8}
        svg text{font:12px system-ui,sans-serif;fill:#1f2937}.lg{fill:#fff;fill-opacity:.88;stroke:#cbd5e1}
        svg circle.g{fill:none;stroke:#dc2626;stroke-width:.9}
        \(Self.palette.enumerated().map { ".r\($0.offset){stroke:\($0.element.1);stroke-width:5}" }.joined())
        .facts{flex:1;min-width:min(320px,100%)}.facts td{overflow-wrap:anywhere}.facts td:first-child{color:#6b7280;white-space:nowrap}.tag{display:inline-block;padding:0 6px;margin:1px;border-radius:9px;color:#fff;font-size:12px}
        @media (max-width:600px){body{margin:12px auto;padding:0 10px}section.ep{padding:10px}h3{overflow-wrap:anywhere}svg text{font-size:20px}}
        </style></head><body>
        <h1>Border audit</h1>

        """
        out += "<p class=\"sub\">\(groundPoints) ground points, \(flaggedPoints) flagged in \(episodeCount) episodes; near-border means within \(fixed(within, 0)) m; times in \(options.timeZone.fixedMinutes.map { "UTC" + LocalTimeZone.offsetText($0) } ?? escape(options.timeZone.description)). "
        out += "Simplification-flip: \(escape(simplification.note))."
        out += "</p>\n<h2>Summary</h2>\n<div class=\"scroll\"><table><tr><th>category</th><th class=\"n\">points</th><th class=\"n\">episodes</th>"
        out += RegionLevel.tableLevels.map { "<th class=\"n\">\($0.name)</th>" }.joined() + "</tr>\n"
        for (category, colour) in Self.palette {
            let c = count(category)
            out += "<tr><td><span class=\"sw\" style=\"background:\(colour)\"></span>\(category.rawValue)</td><td class=\"n\">\(c.points)</td><td class=\"n\">\(c.episodes)</td>"
            out += c.byLevel.map { "<td class=\"n\">\($0)</td>" }.joined() + "</tr>\n"
        }
        out += "</table></div>\n"
        if !findings.isEmpty {
            out += "<h2>Shaky unlocks</h2>\n<div class=\"scroll\"><table><tr><th>kind</th><th>level</th><th>region</th><th class=\"n\">inside</th><th class=\"n\">edge</th><th>evidence</th><th>episodes</th></tr>\n"
            for f in findings {
                let visit = f.evidence.confirmedBy ?? f.evidence.tentativeBy
                out += "<tr><td>\(f.kind.rawValue)</td><td>\(f.key.level.name)</td><td>\(escape(label(f.key.level, f.key.index)))</td>"
                out += "<td class=\"n\">\(f.evidence.insidePoints)</td><td class=\"n\">\(f.evidence.edgePoints)</td>"
                out += "<td>\(visit.map { escape(timeText($0.time) ?? "untimed") + " at " + fixed($0.latitude, 5) + ", " + fixed($0.longitude, 5) } ?? "")</td>"
                out += "<td>\(f.episodes.prefix(8).map { "<a href=\"#e\($0)\">#\($0)</a>" }.joined(separator: " "))</td></tr>\n"
            }
            out += "</table></div>\n"
        }
        out += "<h2>Episodes</h2>\n"
        if episodeCount == 0 { out += "<p>No point needs a second look.</p>\n" }
        return out
    }

    /// One episode: its map and its facts.
    func section(_ e: AuditEpisode, frame: (south: Double, west: Double, north: Double, east: Double), lines: [BorderLine], sourceLines: [SourceBorder]) -> String {
        let categories = AuditCategory.decode(e.flags)
        let tags = Self.palette.filter { categories.contains($0.0) }.map { "<span class=\"tag\" style=\"background:\($0.1)\">\($0.0.rawValue)</span>" }.joined()
        var out = "<section class=\"ep\" id=\"e\(e.id)\"><h3>#\(e.id) · \(escape(shortTime(e.points.first?.point.time))) · \(e.points.count) points \(tags)</h3><div class=\"row\">"
        out += map(e, frame: frame, lines: lines, sourceLines: sourceLines)
        out += facts(e)
        out += "</div></section>\n"
        return out
    }

    /// The episode's map: border lines, the track, points coloured by category, legend, scale bar.
    private func map(_ e: AuditEpisode, frame f: (south: Double, west: Double, north: Double, east: Double), lines: [BorderLine], sourceLines: [SourceBorder]) -> String {
        let midLat = (f.south + f.north) / 2
        let metresPerDegreeLat = 111_320.0, metresPerDegreeLon = 111_320.0 * cosine(midLat)
        let widthMetres = (f.east - f.west) * metresPerDegreeLon, heightMetres = (f.north - f.south) * metresPerDegreeLat
        let pxPerMetre = min(Self.mapWidth / widthMetres, Self.mapHeight / heightMetres)
        let offsetX = (Self.mapWidth - widthMetres * pxPerMetre) / 2, offsetY = (Self.mapHeight - heightMetres * pxPerMetre) / 2
        func project(_ lat: Double, _ lon: Double) -> (Double, Double) {
            (offsetX + (lon - f.west) * metresPerDegreeLon * pxPerMetre, offsetY + (f.north - lat) * metresPerDegreeLat * pxPerMetre)
        }
        var out = "<figure class=\"map\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.mapWidth))\" height=\"\(Int(Self.mapHeight))\" viewBox=\"0 0 \(Int(Self.mapWidth)) \(Int(Self.mapHeight))\">"
        var styles = Set<String>()
        // The source's borders first, under the table's (drawn over them, so where the two agree
        // the table's line shows and the source's peeks out where they part).
        for border in sourceLines {
            styles.insert("ls")
            out += "<path class=\"ls\" d=\"\(border.runs.map { Self.pathData($0.map { project($0.latitude, $0.longitude) }) }.joined())\"/>"
        }
        for line in lines {
            let style = line.table == "world" ? "lw" : line.coast ? "lc" : "l\(line.level.rawValue)"
            styles.insert(style)
            let d = line.runs.map { Self.pathData($0.map { project($0.latitude, $0.longitude) }) }.joined()
            out += "<path class=\"\(style)\" d=\"\(d)\"/>"
        }
        // The track, coloured by category: runs of consecutive points of one colour as thick
        // lines (a lone point is a dot), each run starting where the previous ended.
        var runs: [(colour: Int, points: [(Double, Double)])] = []
        for p in e.points {
            let k = Self.colourIndex[Int(p.flags)]
            let xy = project(p.point.latitude, p.point.longitude)
            if runs.last?.colour == k {
                runs[runs.count - 1].points.append(xy)
            } else {
                runs.append((k, (runs.last?.points.last.map { [$0] } ?? []) + [xy]))
            }
        }
        for run in runs {
            let points = run.points.count == 1 ? run.points + [(run.points[0].0 + 0.1, run.points[0].1)] : run.points
            out += "<path class=\"r\(run.colour)\" d=\"\(Self.pathData(points, tolerance: 3))\"/>"
        }
        let used = Set(runs.map(\.colour))
        let spacing = 6.0
        let ghosts = e.points.compactMap { $0.unshiftedPosition.map { project($0.latitude, $0.longitude) } }
        // Datum-flip points where they would be without the shift (hollow).
        var hollow = Self.thin(ghosts.map { (0, $0.0, $0.1) }, spacing: spacing)
        if hollow.count > Self.maximumCircles { hollow = stride(from: 0, to: hollow.count, by: hollow.count / Self.maximumCircles + 1).map { hollow[$0] } }
        for (_, x, y) in hollow { out += "<circle class=\"g\" cx=\"\(Self.px(x))\" cy=\"\(Self.px(y))\" r=\"3\"/>" }
        // Legend (beneath the map, in the page's text, so a phone's shrunk map leaves it legible):
        // the colours and line styles on this map.
        // Each entry: its swatch (a CSS border, or the hollow circle's class) and its description.
        let entries = Self.palette.indices.filter { used.contains($0) }.map { ("style=\"border-top:5px solid \(Self.palette[$0].1)\"", Self.palette[$0].0.rawValue) }
            + (hollow.isEmpty ? [] : [("class=\"kg\"", "datum-flip point without the shift")])
            + Self.lineStyles.filter { styles.contains($0.0) }.map { ("style=\"border-top:\(Self.lineSwatches[$0.0] ?? "1px solid")\"", $0.1) }
        let key = entries.map { "<span><i \($0.0)></i>\(escape($0.1))</span>" }.joined()
        // Scale bar (bottom left): a round length near a quarter of the width.
        let target = Self.mapWidth / 4 / pxPerMetre
        let magnitude = pow(10, floor(log10(target)))
        let length = [5.0, 2, 1].map { $0 * magnitude }.first { $0 <= target } ?? magnitude
        let barPx = length * pxPerMetre
        let label = length >= 1000 ? "\(fixed(length / 1000, length >= 10_000 ? 0 : 1)) km" : "\(Int(length)) m"
        let y = Self.mapHeight - 14
        out += "<rect class=\"lg\" x=\"6\" y=\"\(Int(y - 22))\" width=\"\(Int(barPx + 92))\" height=\"30\" rx=\"4\"/>"
        out += "<path d=\"M12 \(Int(y - 4))v6h\(Self.px(barPx))v-6\" style=\"stroke:#111827;stroke-width:1.5\"/>"
        out += "<text x=\"\(Int(barPx + 18))\" y=\"\(Int(y + 2))\">\(label)</text>"
        out += "</svg><figcaption class=\"key\">" + key + "</figcaption></figure>"
        return out
    }

    /// The facts beside a map.
    private func facts(_ e: AuditEpisode) -> String {
        var rows: [(String, String)] = [("input", escape(e.input)), ("segment", "\(e.segment)")]
        if let previous = e.continues { rows.append(("continues", "<a href=\"#e\(previous)\">#\(previous)</a> (a long run along a border is cut into episodes)")) }
        let start = shortTime(e.points.first?.point.time), end = shortTime(e.points.last?.point.time)
        rows.append(("time", escape(start == end ? start : "\(start) – \(end.hasPrefix(start.prefix(11)) ? String(end.dropFirst(11)) : end)")))
        var perCategory: [AuditCategory: Int] = [:]
        var bitCounts = [Int](repeating: 0, count: AuditCategory.allCases.count)
        for p in e.points {
            var flags = p.flags
            while flags != 0 {
                bitCounts[flags.trailingZeroBitCount] += 1
                flags &= flags - 1
            }
        }
        for category in AuditCategory.allCases where bitCounts[AuditCategory.index(of: category)] > 0 {
            perCategory[category] = bitCounts[AuditCategory.index(of: category)]
        }
        rows.append(("points", "\(e.points.count): " + AuditCategory.allCases.compactMap { c in perCategory[c].map { "\(c.rawValue) \($0)" } }.joined(separator: ", ")))
        for level in RegionLevel.tableLevels {
            let regions = self.regions(of: e, at: level)
            guard !regions.isEmpty else { continue }
            rows.append((level.name, regions.prefix(4).map { escape(label(level, $0)) }.joined(separator: "<br>")))
        }
        for c in e.crossings.prefix(4) {
            let from = c.from.map { code(c.level, $0)! } ?? "none", to = c.to.map { code(c.level, $0)! } ?? "none"
            rows.append(("crossing", "\(c.level.name) \(from) → \(to) at \(escape(shortTime(c.time))), \(fixed(c.latitude, 5)), \(fixed(c.longitude, 5))"))
        }
        if e.crossings.count > 4 { rows.append(("crossings", "\(e.crossings.count) in all")) }
        let margins = e.points.flatMap { p in RegionLevel.tableLevels.compactMap { p.placement.level($0).marginMetres } }
        if let closest = margins.min(by: { abs($0) < abs($1) }) { rows.append(("closest margin", "\(fixed(closest, 1)) m")) }
        let accuracies = e.points.compactMap(\.point.accuracy)
        if let worst = accuracies.max() { rows.append(("worst accuracy", "\(fixed(worst, 0)) m")) }
        if let p = e.points.first(where: { $0.unshifted != nil }), let unshifted = p.unshifted {
            let text = [RegionLevel.province, .city, .county].map { level in "\(level.name) \(code(level, unshifted.region(level)) ?? "none")" }.joined(separator: ", ")
            rows.append(("without datum shift", text))
        }
        if e.points.contains(where: \.inDatumSeam) { rows.append(("datum seam", "within the datum shift of China's land border in the world table")) }
        if let p = e.points.first(where: { $0.nearestCountry != nil }), let nearest = p.nearestCountry {
            rows.append(("nearest country", "\(escape(label(.country, nearest.region))) at \(fixed(nearest.metres, 0)) m"))
        }
        if let first = e.sourceCodes.keys.min(), let source = e.sourceCodes[first] {
            rows.append(("source says", source.sorted { $0.key < $1.key }.map { "\($0.key.name) \($0.value.isEmpty ? "none" : $0.value)" }.joined(separator: ", ")))
        }
        return "<table class=\"facts\">" + rows.map { "<tr><td>\($0.0)</td><td>\($0.1)</td></tr>" }.joined() + "</table>"
    }

    /// Local time as `YYYY-MM-DD HH:MM:SS` (the offset is in the page's header), or "untimed".
    func shortTime(_ time: Int64?) -> String {
        timeText(time).map { String($0.prefix(19)).replacingOccurrences(of: "T", with: " ") } ?? "untimed"
    }

    /// Most hollow circles one map draws.
    static let maximumCircles = 30

    /// The points (colour index, x, y) with those within `spacing` px of the last kept one of
    /// their colour dropped.
    static func thin(_ points: [(Int, Double, Double)], spacing: Double) -> [(Int, Double, Double)] {
        var last: [Int: (Double, Double)] = [:]
        return points.filter { k, x, y in
            if let l = last[k], (l.0 - x) * (l.0 - x) + (l.1 - y) * (l.1 - y) < spacing * spacing { return false }
            last[k] = (x, y)
            return true
        }
    }

    /// SVG path data for a polyline, dropping vertices within `tolerance` px of the last one kept.
    static func pathData(_ points: [(Double, Double)], tolerance: Double = 1.5) -> String {
        guard let first = points.first else { return "" }
        var d = "M\(px(first.0)) \(px(first.1))"
        var last = first
        for (i, p) in points.enumerated().dropFirst() {
            let dx = p.0 - last.0, dy = p.1 - last.1
            guard dx * dx + dy * dy >= tolerance * tolerance || i == points.count - 1 else { continue }
            d += "L\(px(p.0)) \(px(p.1))"
            last = p
        }
        return d
    }

    /// A pixel coordinate with one decimal (no trailing ".0").
    static func px(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(Double(tenths) / 10)"
    }
}

/// Escapes text for HTML.
func escape(_ text: String) -> String {
    var out = ""
    for c in text {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }
    return out
}
