import Foundation
import RegionTables
import Tracks
import Unlocks

extension Footprint {
    /// Drawing tolerance of outlines and borders: 0.6 pixel (in SVG units).
    static let drawTolerance = 6.0
    /// Width of every map, pixels.
    static let mapWidth = 900

    /// The page: one self-contained HTML file (inline SVG and CSS, a few lines of inline script,
    /// nothing fetched): China shaded by unlock and explored share at the province, city and
    /// county levels, the world by country, a close-up of the most explored place, the daily
    /// growth and a table of every unlock, names in Chinese and English.
    public func html() -> String {
        var out = """
        <!DOCTYPE html>
        <html lang="zh-Hans"><head><meta charset="utf-8"><title>Footprint 足迹</title>
        <style>
        body{font:14px/1.4 system-ui,"Noto Sans CJK SC",sans-serif;margin:16px;color:#222;max-width:940px}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}
        svg.map{display:block;background:#cfe3f1;border:1px solid #999;max-width:100%;height:auto}
        svg.map use{stroke:none}.b1{fill:none;stroke:#555;stroke-width:9}.b2{fill:none;stroke:#777;stroke-width:5}.b3{fill:none;stroke:#999;stroke-width:2.5}
        .x{fill:#d7263d}.t{fill:#f5a62326;stroke:#f5a623;stroke-width:4}.sq{fill:none;stroke:#1f6feb;stroke-width:10}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-2px;border:1px solid #888}
        .f0{fill:#7a7a7a}.f1{fill:#d7263d}.f2{fill:#ff8c1a}.f3{fill:#f2c200}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-2px;border:1px solid #888}
        table{border-collapse:collapse;font-size:12px;margin-bottom:8px}td,th{padding:1px 6px;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}
        </style></head><body>

        """
        let m = report.metrics
        out += "<h1>Footprint 足迹</h1>\n<p>\(fixedText(m.globalAreaKm2, 3)) km² explored (\(m.exploredCellCount) cells of 25 m), \(fixedText(m.chinaAreaKm2, 3)) km² in China; "
        out += "\(m.countryCount) countries, \(m.chinaProvinceCount) provinces, \(m.cityUnlockCount) cities, \(m.countyUnlockCount) counties unlocked; "
        out += "\(fixedText(m.totalDistanceKilometers, 1)) km over \(m.recordedDays) days.</p>\n"
        out += "<p class=\"legend\">Unlocked, by % explored<span style=\"background:\(Self.colour(percent: 0.0001))\"></span>0.0001%"
        out += "<span style=\"background:\(Self.colour(percent: 1))\"></span>1%<span style=\"background:\(Self.colour(percent: 100))\"></span>100%"
        out += "<span style=\"background:\(Self.tentativeColour)\"></span>tentative<span style=\"background:\(Self.passedColour)\"></span>passed through"
        out += "<span style=\"background:\(Self.noneColour)\"></span>not yet</p>\n"
        let f = m.familiarCells, levels = report.options.familiarityLevels
        out += "<p class=\"legend\" id=\"familiarity\">Explored cells 格子<span style=\"background:#7a7a7a\"></span>gray 未熟悉 \(m.exploredCellCount - f.lit)"
        out += "<span style=\"background:#d7263d\"></span>lit 已踏足 (≥\(levels.lit) passes) \(f.lit - f.bright)"
        out += "<span style=\"background:#ff8c1a\"></span>bright 熟悉 (≥\(levels.bright)) \(f.bright - f.gold)"
        out += "<span style=\"background:#f2c200\"></span>gold 精通 (≥\(levels.gold)) \(f.gold); a pass counts 4 h after the last counted one, moving, accuracy &lt; 65 m</p>\n"

        let chinaFrame = MapFrame(west: 73, east: 135.5, south: 17.5, north: 54, width: Self.mapWidth)
        let worldFrame = MapFrame(west: -180, east: 180, south: -58, north: 84, width: Self.mapWidth)
        // Unit shapes, defined once and shaded by each map.
        out += "<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs>\n"
        out += unitDefinitions(china, prefix: "c", frame: chinaFrame)
        out += unitDefinitions(world, prefix: "w", frame: worldFrame)
        out += "</defs></svg>\n"
        let chinaCells = explored(in: chinaFrame, pixel: 2)
        for (level, title) in [(RegionLevel.province, "China by province 省"), (.city, "China by city 市"), (.county, "China by county 县")] {
            out += "<h2>\(title)</h2>\n<svg class=\"map\" id=\"china-\(level.name)\" width=\"\(chinaFrame.width)\" height=\"\(chinaFrame.height)\" viewBox=\"\(chinaFrame.viewBox)\">\n"
            out += shading(china, prefix: "c", level: level)
            out += borders(china, frame: chinaFrame, finest: level)
            out += chinaCells + "</svg>\n"
        }
        out += "<h2>World by country 世界</h2>\n<svg class=\"map\" id=\"world\" width=\"\(worldFrame.width)\" height=\"\(worldFrame.height)\" viewBox=\"\(worldFrame.viewBox)\">\n"
        out += shading(world, prefix: "w", level: .country)
        out += borders(world, frame: worldFrame, finest: .country)
        out += explored(in: worldFrame, pixel: 2) + "</svg>\n"
        out += closeUp()
        out += growthChart()
        out += regionTables()
        out += "<script>document.querySelectorAll('svg.map').forEach(function(m){m.setAttribute('data-ready','1')});</script>\n</body></html>\n"
        return out
    }

    // MARK: Shading

    static let noneColour = "#ebe8e1", tentativeColour = "#f3d27a", passedColour = "#c3cfdc"

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

    /// `<path id>` of every unit of `table` in `frame`, simplified for drawing.
    func unitDefinitions(_ table: RegionTable, prefix: String, frame: MapFrame) -> String {
        var out = ""
        for unit in 0..<Int32(table.unitCount) {
            var d = ""
            for polygon in table.unitPolygons(unit) {
                for ring in polygon {
                    let points = ring.map { frame.project(longitude: Double($0.x) * TableFormat.quantum, latitude: Double($0.y) * TableFormat.quantum) }
                    if let simple = LineSimplifier.simplifyRing(points, tolerance: Self.drawTolerance) { d += MapFrame.path(simple, closed: true) }
                }
            }
            if !d.isEmpty { out += "<path id=\"\(prefix)\(unit)\" fill-rule=\"evenodd\" d=\"\(d)\"/>\n" }
        }
        return out
    }

    /// One `<use>` per unit, filled with its region's colour at `level`; unlocked ones titled.
    func shading(_ table: RegionTable, prefix: String, level: RegionLevel) -> String {
        var byRegion: [Int32: ClassifyReport.Unlock] = [:]
        var indexByCode: [String: Int32] = [:]
        for region in table.regions where region.level == level { indexByCode[region.code] = region.index }
        for unlock in report.unlocks[level] ?? [] { if let i = indexByCode[unlock.code] { byRegion[i] = unlock } }
        var out = "<g>"
        for unit in 0..<Int32(table.unitCount) {
            let region = table.region(ofUnit: unit, at: level)
            let unlock = region.flatMap { byRegion[$0] }
            out += "<use href=\"#\(prefix)\(unit)\" fill=\"\(colour(of: unlock))\""
            if let unlock, let region {
                let r = table.region(region)
                out += "><title>\(Self.escaped(r.name)) \(Self.escaped(r.englishName)): \(unlock.evidence), \(fixedText((unlock.exploredPercent ?? 0), 4))% explored</title></use>"
            } else {
                out += "/>"
            }
        }
        return out + "</g>\n"
    }

    /// Border lines of `table` at `finest` and every coarser level, thicker for coarser ones.
    func borders(_ table: RegionTable, frame: MapFrame, finest: RegionLevel) -> String {
        let levels = table.levels.filter { $0.rawValue <= finest.rawValue }
        var paths = [String](repeating: "", count: levels.count)
        for arc in 0..<table.arcCount {
            let on = table.borderLevels(ofArc: arc)
            guard let coarsest = levels.firstIndex(where: on.contains) else { continue }
            let points = table.arcVertices(arc).map { frame.project(longitude: Double($0.x) * TableFormat.quantum, latitude: Double($0.y) * TableFormat.quantum) }
            let simple = LineSimplifier.simplify(points, tolerance: Self.drawTolerance)
            let d = MapFrame.path(simple, closed: false)
            if d.contains("l") { paths[coarsest] += d }
        }
        var out = ""
        for (k, d) in paths.enumerated().reversed() where !d.isEmpty {
            let tier = levels[k] == .county || (levels[k] == .city && finest == .county) ? 3 : levels[k] == .city ? 2 : 1
            out += "<path class=\"b\(tier)\" d=\"\(d)\"/>\n"
        }
        return out
    }

    // MARK: Explored cells

    /// The explored cells as pixels of `pixel` × `pixel` px at their centres, merged into runs
    /// along each pixel row: as many shapes as lit pixels at most, however many cells. A pixel
    /// takes the highest familiarity level of its cells, one path (`f0`…`f3`) per level.
    func explored(in frame: MapFrame, pixel: Int) -> String {
        var lit: [Int64: FamiliarityLevel] = [:]
        let columns = Int64(frame.width / pixel + 1), rows = Int64(frame.height / pixel + 1)
        var rowCentre: [Int64: (latitude: Double, columns: Int64)] = [:]
        for (place, keys) in cellsByPlace {
            let levels = levelsByPlace[place]!
            for (key, level) in zip(keys, levels) {
                let (row, column) = ExploredGrid.cell(ofKey: key)
                let info = rowCentre[row] ?? (ExploredGrid.centreLatitude(row: row), ExploredGrid.columnCount(row: row))
                rowCentre[row] = info
                let longitude = (Double(column) + 0.5) * 360 / Double(info.columns) - 180
                let p = frame.project(longitude: longitude, latitude: info.latitude)
                let px = Int64((p.x / MapFrame.unitsPerPixel / Double(pixel)).rounded(.down))
                let py = Int64((p.y / MapFrame.unitsPerPixel / Double(pixel)).rounded(.down))
                guard px >= 0, py >= 0, px < columns, py < rows else { continue }
                let pixelKey = py * columns + px
                if let known = lit[pixelKey], known >= level { continue }
                lit[pixelKey] = level
            }
        }
        let size = pixel * Int(MapFrame.unitsPerPixel)
        var out = ""
        for level in FamiliarityLevel.allCases {
            var d = ""
            var sorted = lit.filter { $0.value == level }.keys.sorted()[...]
            while let first = sorted.popFirst() {
                var length = 1
                while let next = sorted.first, next == first + Int64(length), next / columns == first / columns {
                    length += 1
                    sorted.removeFirst()
                }
                d += "M\(Int(first % columns) * size) \(Int(first / columns) * size)h\(length * size)v\(size)h-\(length * size)z"
            }
            if !d.isEmpty { out += "<path class=\"f\(level.rawValue)\" d=\"\(d)\"/>\n" }
        }
        return out
    }

    /// A close-up of the place with the most explored cells: the regions around it and its
    /// explored pixels at (at least) one cell per pixel.
    func closeUp() -> String {
        guard let (place, keys) = cellsByPlace.filter({ $0.key.level != nil }).max(by: { ($0.value.count, $1.key) < ($1.value.count, $0.key) }),
              let level = place.level else { return "" }
        var south = 90.0, north = -90.0, west = 180.0, east = -180.0
        for key in keys {
            let (row, column) = ExploredGrid.cell(ofKey: key)
            let latitude = ExploredGrid.centreLatitude(row: row)
            let longitude = (Double(column) + 0.5) * 360 / Double(ExploredGrid.columnCount(row: row)) - 180
            south = min(south, latitude); north = max(north, latitude)
            west = min(west, longitude); east = max(east, longitude)
        }
        let padLatitude = max(0.01, (north - south) * 0.15), padLongitude = max(0.01, (east - west) * 0.15)
        let frame = MapFrame(west: west - padLongitude, east: east + padLongitude, south: south - padLatitude, north: north + padLatitude,
                             width: Self.mapWidth, maximumHeight: 560)
        let table = self.table(level)
        let region = table.region(place.index)
        var out = "<h2>Close-up: \(Self.escaped(region.name)) \(Self.escaped(region.englishName))</h2>\n"
        out += "<svg class=\"map\" id=\"close-up\" width=\"\(frame.width)\" height=\"\(frame.height)\" viewBox=\"\(frame.viewBox)\">\n"
        // Units of the finest level whose box meets the frame, drawn in WGS-84.
        // (Boxes are in the table's datum: 0.02° covers GCJ-02's shift.)
        func quanta(_ degrees: Double) -> Int32 { Int32((degrees / TableFormat.quantum).rounded()) }
        let boxWest = quanta(west - padLongitude - 0.02), boxEast = quanta(east + padLongitude + 0.02)
        let boxSouth = quanta(south - padLatitude - 0.02), boxNorth = quanta(north + padLatitude + 0.02)
        let finest = table.levels.last!
        let near = Set(table.regions.filter { $0.level == finest && $0.boundingBox.minX <= boxEast && $0.boundingBox.maxX >= boxWest
            && $0.boundingBox.minY <= boxNorth && $0.boundingBox.maxY >= boxSouth }.map(\.index))
        var d = ""
        for unit in 0..<Int32(table.unitCount) where table.region(ofUnit: unit, at: finest).map(near.contains) ?? false {
            for polygon in table.unitPolygons(unit) {
                for ring in polygon {
                    let points = ring.map { Self.wgs84(table, $0.x, $0.y) }.map { frame.project(longitude: $0.longitude, latitude: $0.latitude) }
                    if let simple = LineSimplifier.simplifyRing(points, tolerance: Self.drawTolerance) { d += MapFrame.path(simple, closed: true) }
                }
            }
        }
        out += "<path fill=\"\(Self.noneColour)\" stroke=\"#777\" stroke-width=\"6\" fill-rule=\"evenodd\" d=\"\(d)\"/>\n"
        let cellPixels = ExploredGrid.cellSize / 111_000 * frame.pixelsPerDegree
        out += tiles(in: frame)
        out += explored(in: frame, pixel: max(1, Int(cellPixels.rounded(.up)))) + "</svg>\n"
        return out
    }

    /// The visited z14 explorer tiles that meet the frame, outlined under the explored cells, and
    /// the z14 max square's outline.
    func tiles(in frame: MapFrame) -> String {
        let zoom = 14
        let east = frame.west + Double(frame.width) / frame.pixelsPerLongitude, south = frame.north - Double(frame.height) / frame.pixelsPerDegree
        func rectangle(_ x0: Int64, _ y0: Int64, _ x1: Int64, _ y1: Int64) -> String? {
            let nw = SlippyTile.bounds(x: x0, y: y0, zoom: zoom), se = SlippyTile.bounds(x: x1, y: y1, zoom: zoom)
            guard se.east >= frame.west, nw.west <= east, nw.north >= south, se.south <= frame.north else { return nil }
            let a = frame.project(longitude: nw.west, latitude: nw.north), b = frame.project(longitude: se.east, latitude: se.south)
            return MapFrame.path([(a.x, a.y), (b.x, a.y), (b.x, b.y), (a.x, b.y)], closed: true)
        }
        var d = ""
        for key in report.visitedTiles[zoom]?.keys ?? [] {
            let (x, y) = SlippyTile.tile(ofKey: key, zoom: zoom)
            d += rectangle(x, y, x, y) ?? ""
        }
        var out = d.isEmpty ? "" : "<path class=\"t\" d=\"\(d)\"/>\n"
        if let square = report.tiles.first(where: { $0.zoom == zoom }), let origin = square.maxSquareOrigin,
           let outline = rectangle(origin.x, origin.y, origin.x + Int64(square.maxSquare) - 1, origin.y + Int64(square.maxSquare) - 1) {
            out += "<path class=\"sq\" d=\"\(outline)\"/>\n"
        }
        return out
    }

    // MARK: Growth and tables

    func growthChart() -> String {
        guard let firstDay = growth.first?.day, let lastDay = growth.last?.day else { return "" }
        let width = Self.mapWidth, height = 180, left = 60.0, bottom = 160.0, plotWidth = Double(width) - left - 10
        let total = growth.reduce(0.0) { $0 + $1.newSquareMetres } / 1e6
        let span = Double(max(1, lastDay - firstDay))
        let biggest = growth.map(\.newSquareMetres).max()! / 1e6
        var out = "<h2>Growth 每日新探索</h2>\n<svg class=\"chart\" id=\"growth\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        out += "<rect x=\"\(Int(left))\" y=\"10\" width=\"\(Int(plotWidth))\" height=\"\(Int(bottom) - 10)\" fill=\"#f6f6f2\"/>\n"
        var bars = "", line = "", cumulative = 0.0
        let barWidth = max(1, plotWidth / (span + 1) * 0.8)
        for day in growth {
            let x = left + Double(day.day - firstDay) / span * (plotWidth - barWidth)
            let h = day.newSquareMetres / 1e6 / max(biggest, 1e-12) * (bottom - 20)
            bars += "M\(fixedText(x, 1)) \(fixedText(bottom, 1))v-\(fixedText(h, 1))h\(fixedText(barWidth, 1))v\(fixedText(h, 1))z"
            cumulative += day.newSquareMetres / 1e6
            let y = bottom - cumulative / max(total, 1e-12) * (bottom - 20)
            line += (line.isEmpty ? "M" : "L") + "\(fixedText(x + barWidth / 2, 1)) \(fixedText(y, 1))"
        }
        out += "<path fill=\"#e39aa5\" d=\"\(bars)\"/>\n<path fill=\"none\" stroke=\"#d7263d\" stroke-width=\"2\" d=\"\(line)\"/>\n"
        out += "<text x=\"4\" y=\"24\" font-size=\"11\">\(fixedText(total, 3)) km²</text><text x=\"4\" y=\"\(Int(bottom))\" font-size=\"11\">0</text>\n"
        out += "<text x=\"\(Int(left))\" y=\"176\" font-size=\"11\">\(Self.date(firstDay))</text>"
        out += "<text x=\"\(width - 10)\" y=\"176\" font-size=\"11\" text-anchor=\"end\">\(Self.date(lastDay))</text>\n"
        out += "</svg>\n<p>Bars: km² first explored each day (largest \(fixedText(biggest, 4)) km²); line: the total so far.</p>\n"
        return out
    }

    func regionTables() -> String {
        var out = ""
        for (level, title) in [(RegionLevel.country, "Countries 国家"), (.province, "Provinces 省"), (.city, "Cities 市"), (.county, "Counties 县")] {
            let rows = report.unlocks[level] ?? []
            guard !rows.isEmpty else { continue }
            out += "<h2>\(title)</h2>\n<table><tr><th>Code</th><th>名称</th><th>Name</th><th>Evidence</th><th>First visit</th><th>Explored km²</th><th>Area km²</th><th>Explored</th><th>Cells lit / bright / gold</th></tr>\n"
            for u in rows {
                let time = u.firstVisit.time.map { String(Timestamp.format($0, offsetMinutes: report.options.timeZone.offsetMinutes(at: $0)).prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed"
                out += "<tr><td>\(Self.escaped(u.code))</td><td>\(Self.escaped(u.name))</td><td>\(Self.escaped(u.englishName))</td><td>\(u.evidence)</td><td>\(time)</td>"
                out += "<td class=\"n\">\(fixedText(u.exploredSquareMetres / 1e6, 4))</td><td class=\"n\">\(fixedText(u.areaSquareMetres / 1e6, 1))</td>"
                out += "<td class=\"n\">\(u.exploredPercent.map { fixedText($0, 4) + "%" } ?? "–")</td>"
                out += "<td class=\"n\">\(u.familiarCells.lit) / \(u.familiarCells.bright) / \(u.familiarCells.gold)</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out
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
