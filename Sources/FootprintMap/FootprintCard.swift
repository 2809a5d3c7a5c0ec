import Foundation
import RegionTables
import Unlocks

extension Footprint {
    /// Card size (the 1.91 : 1 of link previews) and the map's panel on it.
    static let cardWidth = 1200, cardHeight = 630
    static let cardMap = Panel(x: 600, y: 30, width: 570, height: 570)
    /// The story card's size (9 : 16, what Instagram, WeChat Moments and WhatsApp stories take
    /// whole) and its map's panel.
    public static let storyWidth = 1080, storyHeight = 1920
    static let storyMap = Panel(x: 60, y: 230, width: 960, height: 960)

    /// A square of the card the map is drawn in.
    struct Panel {
        var x: Double, y: Double, width: Double, height: Double
    }

    /// The card's headline figures: the number and what it counts.
    func cardFigures() -> [(String, String)] {
        let m = report.metrics
        var lines: [(String, String)] = [
            (fixedText(m.globalAreaKm2, m.globalAreaKm2 < 10 ? 2 : 1) + " km²", "explored in 25 m cells"),
            ("\(m.countryCount) · \(m.subdivisionCount)", "countries · states and provinces"),
            ("\(m.chinaProvinceCount) · \(m.cityUnlockCount) · \(m.countyUnlockCount)", "provinces · cities · counties"),
            (fixedText(m.totalDistanceKilometers, 0) + " km", "on foot or by bike, over \(plural(m.recordedDays, "day", "days"))"),
        ]
        if let square = report.tiles.first(where: { $0.zoom == 14 }), square.maxSquare > 0 {
            lines.append(("\(square.maxSquare) × \(square.maxSquare)", "max square of explorer tiles"))
        }
        return lines
    }

    /// The days the card's "over N days" counts: the first and the last recorded day.
    func cardSpan() -> String? {
        report.recordedSpan.map { Self.date($0.first) + ($0.last > $0.first ? " – " + Self.date($0.last) : "") }
    }

    static let cardFonts = "font-family=\"system-ui,-apple-system,'Segoe UI','PingFang SC','Noto Sans CJK SC','WenQuanYi Micro Hei',sans-serif\""

    /// A card to post: one 1200 × 630 SVG file (nothing fetched, system fonts) with the headline
    /// figures and a map of where the person has been: the box of every explored cell, regions
    /// shaded by unlock (China's at the level the box's size suits), cells by familiarity.
    public func card() -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.cardWidth)\" height=\"\(Self.cardHeight)\" viewBox=\"0 0 \(Self.cardWidth) \(Self.cardHeight)\" "
        out += Self.cardFonts + ">\n"
        out += "<rect width=\"\(Self.cardWidth)\" height=\"\(Self.cardHeight)\" fill=\"#f7f7f4\"/>\n"
        out += "<text x=\"48\" y=\"92\" font-size=\"46\" font-weight=\"700\" fill=\"#1d232b\">Footprint 足迹</text>\n"
        for (k, line) in cardFigures().enumerated() {
            let y = 180 + k * 78
            out += "<text x=\"48\" y=\"\(y)\" font-size=\"40\" font-weight=\"700\" fill=\"#106b32\">\(Self.escaped(line.0))</text>"
            out += "<text x=\"48\" y=\"\(y + 26)\" font-size=\"20\" fill=\"#59606a\">\(Self.escaped(line.1))</text>\n"
        }
        if let span = cardSpan() {
            out += "<text x=\"48\" y=\"600\" font-size=\"18\" fill=\"#59606a\">\(Self.escaped(span))</text>\n"
        }
        out += cardMap(Self.cardMap)
        return out + "</svg>\n"
    }

    /// The card at story size: one 1080 × 1920 SVG (9 : 16, a phone's screen, what social apps'
    /// stories take without cropping): the title, a 960 × 960 map of where the person has been
    /// (as ``card()``'s), the headline figures under it and the days they count. `unlocks map`
    /// renders it as `footprint-card.png` with librsvg; an app renders it with the platform's
    /// own SVG renderer (docs/embedding.md).
    public func storyCard() -> String {
        let w = Self.storyWidth, h = Self.storyHeight
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" " + Self.cardFonts + ">\n"
        out += "<rect width=\"\(w)\" height=\"\(h)\" fill=\"#f7f7f4\"/>\n"
        out += "<text x=\"60\" y=\"150\" font-size=\"84\" font-weight=\"700\" fill=\"#1d232b\">Footprint 足迹</text>\n"
        out += cardMap(Self.storyMap)
        let figures = cardFigures()
        for (k, line) in figures.enumerated() {
            // Two columns of figures under the map.
            let x = k % 2 == 0 ? 60 : 560, y = 1300 + (k / 2) * 150
            out += "<text x=\"\(x)\" y=\"\(y)\" font-size=\"64\" font-weight=\"700\" fill=\"#106b32\">\(Self.escaped(line.0))</text>"
            out += "<text x=\"\(x)\" y=\"\(y + 44)\" font-size=\"30\" fill=\"#59606a\">\(Self.escaped(line.1))</text>\n"
        }
        if let span = cardSpan() {
            let y = 1300 + ((figures.count + 1) / 2) * 150 + 20
            out += "<text x=\"60\" y=\"\(y)\" font-size=\"36\" fill=\"#59606a\">\(Self.escaped(span))</text>\n"
        }
        return out + "</svg>\n"
    }

    /// The box the card shows (Mercator): every explored cell with a fifth around it, at least
    /// about 3 km, squared to the panel; the world when nothing was explored.
    func cardBox() -> RegionLayers.Box {
        let boxes = clusters.map { Self.box(west: $0.west, south: $0.south, east: $0.east, north: $0.north) } + pins.map(Self.pinBox)
        guard let first = boxes.first else { return Self.box(west: -180, south: -60, east: 180, north: 80) }
        let b = boxes.dropFirst().reduce(first) { $0.union($1) }
        let latitude = Self.latitude(ofY: (b.minY + b.maxY) / 2)
        // At most the world's width, and kept within it (no empty sea beyond ±180°).
        let side = min(1, max(max(b.maxX - b.minX, b.maxY - b.minY) * 1.4, 3.0 / 40_000 / cos(min(80, abs(latitude)) * .pi / 180)))
        let cx = min(1 - side / 2, max(side / 2, (b.minX + b.maxX) / 2)), cy = (b.minY + b.maxY) / 2
        return RegionLayers.Box(minX: cx - side / 2, minY: cy - side / 2, maxX: cx + side / 2, maxY: cy + side / 2)
    }

    func cardMap(_ panel: Panel) -> String {
        let box = cardBox()
        let scale = panel.width / (box.maxX - box.minX)
        func pixel(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) { ((p.x - box.minX) * scale, (p.y - box.minY) * scale) }
        var out = "<defs><clipPath id=\"panel\"><rect width=\"\(Int(panel.width))\" height=\"\(Int(panel.height))\" rx=\"16\"/></clipPath></defs>\n"
        out += "<g transform=\"translate(\(Int(panel.x)) \(Int(panel.y)))\" clip-path=\"url(#panel)\">\n"
        out += "<rect width=\"\(Int(panel.width))\" height=\"\(Int(panel.height))\" fill=\"\(Self.seaColour)\"/>\n"
        // Regions: the world's countries, then China's regions at a level the box's size suits.
        let degrees = (box.maxX - box.minX) * 360
        let chinaLevel: RegionLevel = degrees > 20 ? .province : degrees > 4 ? .city : .county
        let clip = box.grown(by: (box.maxX - box.minX) / 50)
        for (table, level) in [(world, RegionLevel.country), (china, chinaLevel)] {
            var unlocks: [String: ClassifyReport.Unlock] = [:]
            for u in report.unlocks[level] ?? [] { unlocks[u.code] = u }
            var byColour: [String: String] = [:]
            for unit in unitsMeeting(clip, in: table) {
                let fill = table.region(ofUnit: unit, at: level).map { colour(of: unlocks[table.region($0).code]) } ?? Self.noneColour
                for polygon in table.unitPolygons(unit) {
                    for ring in polygon {
                        let points = ring.map { RegionLayers.mercator(table, $0) }
                        let clipped = PolygonClipping.clip(points, to: clip).map(pixel)
                        guard clipped.count >= 3 else { continue }
                        let simple = LineSimplifier.simplifyRing(clipped.map { (x: $0.x * 10, y: $0.y * 10) } + [(x: clipped[0].x * 10, y: clipped[0].y * 10)], tolerance: 4) ?? []
                        byColour[fill, default: ""] += SVGPathData.path(simple, closed: true)
                    }
                }
            }
            out += "<g transform=\"scale(0.1)\" stroke=\"#fff\" stroke-width=\"\(table === world ? 12 : 6)\" fill-rule=\"evenodd\">"
            for colour in byColour.keys.sorted() { out += "<path fill=\"\(colour)\" d=\"\(byColour[colour]!)\"/>" }
            out += "</g>\n"
        }
        out += cardCells(box: box, scale: scale, panel: panel)
        // Places known without cells (a photo): a pin each.
        for pin in pins {
            let p = pixel((WebMercator.x(pin.longitude), WebMercator.y(pin.latitude)))
            guard p.x >= 0, p.y >= 0, p.x <= panel.width, p.y <= panel.height else { continue }
            let r = max(6, panel.width / 60)
            out += "<path fill=\"#d7263d\" stroke=\"#fff\" stroke-width=\"\(fixedText(r / 4, 1))\" d=\"M\(fixedText(p.x, 1)) \(fixedText(p.y, 1))l\(fixedText(-r, 1)) \(fixedText(-1.6 * r, 1))a\(fixedText(r, 1)) \(fixedText(r, 1)) 0 1 1 \(fixedText(2 * r, 1)) 0z\"/>\n"
        }
        return out + "</g>\n<rect x=\"\(Int(panel.x))\" y=\"\(Int(panel.y))\" width=\"\(Int(panel.width))\" height=\"\(Int(panel.height))\" rx=\"16\" fill=\"none\" stroke=\"#b5c2cc\"/>\n"
    }

    /// Units of `table` whose finest region's box meets `box` (quanta in the table's datum, with
    /// 0.02° for GCJ-02's shift).
    func unitsMeeting(_ box: RegionLayers.Box, in table: RegionTable) -> [Int32] {
        let margin = Int32(0.02 / TableFormat.quantum)
        func longitude(_ x: Double) -> Int32 { Int32(max(-180, min(180, x * 360 - 180)) / TableFormat.quantum) }
        func latitude(_ y: Double) -> Int32 { Int32(atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi / TableFormat.quantum) }
        let west = longitude(box.minX) - margin, east = longitude(box.maxX) + margin
        let south = latitude(box.maxY) - margin, north = latitude(box.minY) + margin
        let finest = table.levels.last!
        let near = Set(table.regions.filter {
            $0.level == finest && $0.boundingBox.minX <= east && $0.boundingBox.maxX >= west && $0.boundingBox.minY <= north && $0.boundingBox.maxY >= south
        }.map(\.index))
        return (0..<Int32(table.unitCount)).filter { table.region(ofUnit: $0, at: finest).map(near.contains) ?? false }
    }

    /// The explored cells on the card: a dot of at least 3 px per pixel block, the block's
    /// highest familiarity level, merged into runs along each row of blocks.
    func cardCells(box: RegionLayers.Box, scale: Double, panel: Panel) -> String {
        let rowCellPixels = ExploredGrid.cellSize / 40_075_016.686 * scale / cos(min(85, abs(Self.latitude(ofY: (box.minY + box.maxY) / 2))) * .pi / 180)
        let dot = max(3.0, rowCellPixels), columns = Int(panel.width / dot) + 1, rows = Int(panel.height / dot) + 1
        var blocks = [Int8](repeating: -1, count: columns * rows)
        var row: Int64 = .min, y = 0.0, count: Int64 = 1
        for (key, level) in zip(cellKeys, cellLevels) {
            let (r, column) = ExploredGrid.cell(ofKey: key)
            if r != row {
                row = r
                y = (WebMercator.y(ExploredGrid.centreLatitude(row: r)) - box.minY) * scale
                count = ExploredGrid.columnCount(row: r)
            }
            let x = ((Double(column) + 0.5) / Double(count) - box.minX) * scale
            let bx = Int((x / dot).rounded(.down)), by = Int((y / dot).rounded(.down))
            guard bx >= 0, by >= 0, bx < columns, by < rows else { continue }
            blocks[by * columns + bx] = max(blocks[by * columns + bx], Int8(level.rawValue))
        }
        var paths = [String](repeating: "", count: FamiliarityLevel.allCases.count)
        for by in 0..<rows {
            var bx = 0
            while bx < columns {
                let level = blocks[by * columns + bx]
                guard level >= 0 else { bx += 1; continue }
                var end = bx + 1
                while end < columns, blocks[by * columns + end] == level { end += 1 }
                paths[Int(level)] += "M\(fixedText(Double(bx) * dot, 1)) \(fixedText(Double(by) * dot, 1))h\(fixedText(Double(end - bx) * dot, 1))v\(fixedText(dot, 1))h-\(fixedText(Double(end - bx) * dot, 1))z"
                bx = end
            }
        }
        let colours = ["#7a7a7a", "#d7263d", "#ff8c1a", "#f2c200"]
        return paths.enumerated().filter { !$0.element.isEmpty }.map { "<path fill=\"\(colours[$0.offset])\" d=\"\($0.element)\"/>\n" }.joined()
    }

    static func latitude(ofY y: Double) -> Double { atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi }
}
