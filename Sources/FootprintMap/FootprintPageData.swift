import Foundation
import RegionTables
import TextFormats
import Tracks
import Unlocks

extension Footprint {
    /// A section of the page: a view of the map (a box and the level its regions are shaded at)
    /// with a title and a line of figures. In the order of where the person has been.
    struct View {
        var id: String
        var title: String
        var facts: String
        /// Mercator world units.
        var box: RegionLayers.Box
        /// `auto` (by zoom), `country`, `province`, `city` or `county`.
        var level: String
        /// Explored cells in it, for the order.
        var weight: Int
        /// Ties go to the finer view (a place before China, China before the world).
        var fineness: Int
    }

    /// The page's sections: a close-up of every place (``Cluster``), China by province, city and
    /// county when anything was unlocked there, and the world by country; most explored cells
    /// first, ties to the finer view, so a person who walked only in Paris sees Paris first and no
    /// empty map of China at all.
    func views() -> [View] {
        var views: [View] = []
        let chinaCells = cellsByPlace.filter { $0.key.level != nil && $0.key.level != .country }.values.reduce(0) { $0 + $1.count }
        let m = report.metrics
        views.append(View(id: "world", title: "World by country 世界", facts: "\(plural(m.countryCount, "country", "countries")) · \(fixedText(m.globalAreaKm2, 3)) km² explored",
                          box: Self.box(west: -180, south: -60, east: 180, north: 80), level: "country", weight: cellKeys.count, fineness: 0))
        if !(report.unlocks[.province] ?? []).isEmpty || chinaCells > 0 {
            for (k, (level, title, count, name)) in [(RegionLevel.province, "China by province 省", m.chinaProvinceCount, ("province", "provinces")),
                                                     (.city, "China by city 市", m.cityUnlockCount, ("city", "cities")),
                                                     (.county, "China by county 县", m.countyUnlockCount, ("county", "counties"))].enumerated() {
                views.append(View(id: "china-\(level.name)", title: title, facts: "\(plural(count, name.0, name.1)) · \(fixedText(m.chinaAreaKm2, 3)) km² explored in China",
                                  box: Self.box(west: 73, south: 17.5, east: 135.5, north: 54), level: level.name, weight: chinaCells, fineness: 1 + k))
            }
        }
        for (k, cluster) in clusters.prefix(Self.closeUpLimit).enumerated() {
            views.append(View(id: "place-\(k + 1)", title: title(of: cluster), facts: facts(of: cluster),
                              box: Self.closeUpBox(cluster), level: "auto", weight: cluster.cells, fineness: 4))
        }
        for (k, pin) in pins.prefix(Self.closeUpLimit).enumerated() {
            views.append(View(id: "pin-\(k + 1)", title: "📍 " + pin.title, facts: "a visit without explored cells (a photo or a stop)" + (pin.day.map { " · " + Self.date($0) } ?? ""),
                              box: Self.pinBox(pin), level: "auto", weight: 0, fineness: 4))
        }
        return views.enumerated().sorted { ($1.element.weight, $1.element.fineness, $0.offset) < ($0.element.weight, $0.element.fineness, $1.offset) }.map(\.element)
    }

    /// Where the map opens (and its ⌂ button returns): every place's close-up at once, the
    /// world when nothing was explored.
    func homeBox() -> RegionLayers.Box {
        let boxes = clusters.map(Self.closeUpBox) + pins.map(Self.pinBox)
        guard let first = boxes.first else { return Self.box(west: -180, south: -60, east: 180, north: 80) }
        let all = boxes.dropFirst().reduce(first) { $0.union($1) }
        return all.grown(by: max(all.maxX - all.minX, all.maxY - all.minY) / 12)
    }

    /// A pin's view: about 4 km around it.
    static func pinBox(_ pin: Pin) -> RegionLayers.Box {
        let degrees = 0.02
        return box(west: pin.longitude - degrees / cos(min(80, abs(pin.latitude)) * .pi / 180), south: pin.latitude - degrees,
                   east: pin.longitude + degrees / cos(min(80, abs(pin.latitude)) * .pi / 180), north: pin.latitude + degrees)
    }

    /// Places with a close-up (a section and detailed outlines), the most explored first: the
    /// page's size stays bounded however many places a life of walks holds.
    static let closeUpLimit = 40

    static func box(west: Double, south: Double, east: Double, north: Double) -> RegionLayers.Box {
        RegionLayers.Box(minX: WebMercator.x(west), minY: WebMercator.y(north), maxX: WebMercator.x(east), maxY: WebMercator.y(south))
    }

    /// A place's view: its cells' bounds with a quarter of their size around them, and at least
    /// about a kilometre.
    static func closeUpBox(_ c: Cluster) -> RegionLayers.Box {
        let b = box(west: c.west, south: c.south, east: c.east, north: c.north)
        let pad = max((b.maxX - b.minX), (b.maxY - b.minY)) / 4
        let minimum = 1.0 / 40_000 / 2 / cos(min(80, abs(c.north + c.south) / 2) * .pi / 180)  // ≈ 1 km in world units
        return b.grown(by: max(pad, minimum))
    }

    /// The box a place's detail covers: its view squared up and grown by half, so the view shows
    /// detail on a wide screen and on a tall one.
    static func detailBox(_ view: RegionLayers.Box) -> RegionLayers.Box {
        let side = max(view.maxX - view.minX, view.maxY - view.minY) * 1.5
        let cx = (view.minX + view.maxX) / 2, cy = (view.minY + view.maxY) / 2
        return RegionLayers.Box(minX: cx - side / 2, minY: cy - side / 2, maxX: cx + side / 2, maxY: cy + side / 2)
    }

    func regionName(_ place: Place) -> String {
        guard let level = place.level else { return "at sea 海上" }
        let r = table(level).region(place.index)
        return Self.label(level: level, code: r.code, name: r.name, englishName: r.englishName, names: names)
    }

    func title(of cluster: Cluster) -> String {
        let names = cluster.places.prefix(2).map { regionName($0.place) }
        var title = names.joined(separator: ", ")
        if cluster.places.count > 2 { title += " +\(cluster.places.count - 2)" }
        // A foreign country is one region: its places are told apart by where they are.
        if cluster.places.count == 1, cluster.places[0].place.level == .country || cluster.places[0].place.level == nil {
            let latitude = (cluster.south + cluster.north) / 2, longitude = (cluster.west + cluster.east) / 2
            title += " · " + fixedText(abs(latitude), 2) + (latitude < 0 ? "° S " : "° N ") + fixedText(abs(longitude), 2) + (longitude < 0 ? "° W" : "° E")
        }
        return title
    }

    func facts(of cluster: Cluster) -> String {
        "\(plural(cluster.cells, "cell", "cells")) · \(fixedText(Double(cluster.cells) * 625 / 1e6, 3)) km²"
            + (cluster.places.count > 1 ? " · \(cluster.places.count) regions" : "")
    }

    // MARK: Data

    /// The page's data: a JSON head (tables' regions with their unlocks, the views, the explorer
    /// tiles' squares) and the binary layers, deflated and in base64 (docs/footprint-format.md).
    func pageData(views: [View]) -> (bytes: Int, base64: String) {
        let shown = shownSubdivisions
        var meta: [(key: String, value: JSONValue)] = [
            ("quantum", .number(RegionLayers.quantum)), ("overviewQuantum", .number(RegionLayers.overviewQuantum)),
            ("detailFrom", .number(RegionLayers.detailFrom)),
            ("tables", .array(shadedTables.map { tableJSON($0.table, name: $0.name, shownSubdivisions: shown) })),
            ("views", .array(views.map { v in
                .object([("id", .string(v.id)), ("title", .string(v.title)), ("level", .string(v.level)),
                         ("box", .array([v.box.minX, v.box.minY, v.box.maxX, v.box.maxY].map { .number(($0 * 1e9).rounded() / 1e9) }))])
            })),
            ("home", .array([homeBox()].flatMap { [$0.minX, $0.minY, $0.maxX, $0.maxY] }.map { .number(($0 * 1e9).rounded() / 1e9) })),
            ("cells", .number(Double(cellKeys.count))),
        ]
        var tiles: [JSONValue] = []
        for zoom in SlippyTile.reportedZooms {
            let metric = report.tiles.first { $0.zoom == zoom }
            var entry: [(key: String, value: JSONValue)] = [("zoom", .number(Double(zoom))), ("visited", .number(Double(metric?.visited ?? 0)))]
            if let metric, let origin = metric.maxSquareOrigin, metric.maxSquare > 0 {
                entry.append(("square", .array([.number(Double(origin.x)), .number(Double(origin.y)), .number(Double(metric.maxSquare))])))
            }
            if let visited = report.visitedTiles[zoom], let next = SquareFrontier(tiles: visited, zoom: zoom) {
                entry.append(("next", .array([.number(Double(next.origin.x)), .number(Double(next.origin.y)), .number(Double(next.side))])))
                entry.append(("missing", .array(next.missing.map { .array([.number(Double($0.x)), .number(Double($0.y))]) })))
            }
            tiles.append(.object(entry))
        }
        meta.append(("tiles", .array(tiles)))
        // Pins: world units (Mercator x, y, 9 decimals) and a title.
        meta.append(("pins", .array(pins.map { pin in
            .array([.number((WebMercator.x(pin.longitude) * 1e9).rounded() / 1e9), .number((WebMercator.y(pin.latitude) * 1e9).rounded() / 1e9), .string(pin.title)])
        })))

        var w = PageDataWriter()
        for shaded in shadedTables {
            RegionLayers.writeOverview(shaded.table, zoom: shaded.overviewZoom, includes: { shaded.table !== subdivisions || shown.contains($0) }, into: &w)
        }
        let boxes = RegionLayers.merged(views.filter { $0.id.hasPrefix("place-") || $0.id.hasPrefix("pin-") }.map { Self.detailBox($0.box) })
        w.unsigned(boxes.count)
        for box in boxes { RegionLayers.writeDetail(box, tables: shadedTables.map(\.table), into: &w) }
        writeCells(into: &w)
        for zoom in SlippyTile.reportedZooms { writeTiles(report.visitedTiles[zoom]?.keys ?? [], into: &w) }

        let head = Array(JSONValue.object(meta).compactRendered().utf8)
        var blob = PageDataWriter()
        blob.unsigned(head.count)
        blob.append(head)
        blob.append(w)
        return (blob.bytes.count, RawDeflate.compress(blob.bytes).base64())
    }

    /// The subdivision table's units the page carries: those of the countries the person has been
    /// in (a counted or tentative country, or a subdivision), so a walk in three countries does
    /// not carry the whole world's states and provinces.
    var shownSubdivisions: Set<Int32> {
        guard let table = subdivisions else { return [] }
        let countries = Set((report.unlocks[.country] ?? []).map(\.code) + (report.unlocks[.subdivision] ?? []).compactMap(\.parentCode))
        return Set((0..<Int32(table.unitCount)).filter { unit in
            guard let region = table.region(ofUnit: unit, at: .province), let parent = table.region(region).parent else { return false }
            return countries.contains(table.region(parent).code)
        })
    }

    /// The tables the page shades, in drawing order: the countries, the world's states and
    /// provinces (when the tables have them), then China's table on top; each with its name on the
    /// page and the zoom its overview is simplified for.
    var shadedTables: [(table: RegionTable, name: String, overviewZoom: Double)] {
        [(world, "world", RegionLayers.overviewZoom[0])] + (subdivisions.map { [($0, "subdivisions", RegionLayers.overviewZoom[0])] } ?? [])
            + [(china, "china", RegionLayers.overviewZoom[1])]
    }

    /// Per region: level index, parent (−1 none), code, name, English name, then for an unlock its
    /// evidence (1 confirmed, 2 tentative, 3 passed through), % explored, explored km² and first visit.
    /// The subdivision table's units (stored as provinces) are the report's subdivisions.
    func tableJSON(_ table: RegionTable, name: String, shownSubdivisions: Set<Int32>) -> JSONValue {
        let isSubdivisions = table === subdivisions
        func reported(_ level: RegionLevel) -> RegionLevel { isSubdivisions && level == .province ? .subdivision : level }
        var unlocks: [String: ClassifyReport.Unlock] = [:]
        for level in table.levels { for u in report.unlocks[reported(level)] ?? [] { unlocks["\(level.rawValue)/\(u.code)"] = u } }
        // The subdivision table's regions of countries the page does not draw go without names.
        let named: Set<Int32>? = isSubdivisions ? Set(shownSubdivisions.compactMap { table.region(ofUnit: $0, at: .province) }) : nil
        let regions: [JSONValue] = table.regions.map { r in
            let hidden = r.level == .province && named.map { !$0.contains(r.index) } == true
            // Countries and subdivisions in the person's language, when asked for.
            let level = reported(r.level), local = level == .country || level == .subdivision ? names?.name(of: r.code) : nil
            var row: [JSONValue] = [.number(Double(table.levels.firstIndex(of: r.level) ?? 0)), .number(Double(r.parent ?? -1)),
                                    .string(hidden ? "" : r.code), .string(hidden ? "" : local ?? r.name), .string(hidden || local != nil ? "" : r.englishName)]
            if let u = unlocks["\(r.level.rawValue)/\(r.code)"] {
                row += [.number(u.confirmed ? 1 : u.passedThrough ? 3 : 2), u.exploredPercent.map { .number(Double(fixedText($0, 6))!) } ?? .null,
                        .number(Double(fixedText(u.exploredSquareMetres / 1e6, 4))!), .string(firstVisitText(u))]
            }
            return .array(row)
        }
        return .object([("name", .string(name)), ("levels", .array(table.levels.map { .string(reported($0).name) })), ("regions", .array(regions))])
    }

    func firstVisitText(_ u: ClassifyReport.Unlock) -> String {
        guard let time = u.firstVisit.time else { return "untimed" }
        return String(Timestamp.format(time, offsetMinutes: report.options.timeZone.offsetMinutes(at: time)).prefix(10))
    }

    /// Cells by row: row count; per row the row (delta), its column count (delta), its run count,
    /// per run the gap from the previous run's end and its length − 1; then one familiarity byte
    /// per cell in key order.
    func writeCells(into w: inout PageDataWriter) {
        var rows: [(row: Int64, runs: [(first: Int64, length: Int64)])] = []
        for key in cellKeys {
            let (row, column) = ExploredGrid.cell(ofKey: key)
            if rows.last?.row != row { rows.append((row, [])) }
            if let run = rows[rows.count - 1].runs.last, run.first + run.length == column {
                rows[rows.count - 1].runs[rows[rows.count - 1].runs.count - 1].length += 1
            } else {
                rows[rows.count - 1].runs.append((column, 1))
            }
        }
        w.unsigned(rows.count)
        var previousRow: Int64 = 0, previousColumns: Int64 = 0
        for (row, runs) in rows {
            let columns = ExploredGrid.columnCount(row: row)
            w.signed(row - previousRow)
            w.signed(columns - previousColumns)
            previousRow = row
            previousColumns = columns
            w.unsigned(runs.count)
            var end: Int64 = 0
            for run in runs {
                w.unsigned(run.first - end)
                w.unsigned(run.length - 1)
                end = run.first + run.length
            }
        }
        w.append(cellLevels.map { UInt8($0.rawValue) })
    }

    /// Tile keys (sorted) as runs: run count; per run the gap from the previous run's end and its length − 1.
    func writeTiles(_ keys: [Int64], into w: inout PageDataWriter) {
        var runs: [(first: Int64, length: Int64)] = []
        for key in keys {
            if let last = runs.last, last.first + last.length == key { runs[runs.count - 1].length += 1 } else { runs.append((key, 1)) }
        }
        w.unsigned(runs.count)
        var end: Int64 = 0
        for run in runs {
            w.unsigned(run.first - end)
            w.unsigned(run.length - 1)
            end = run.first + run.length
        }
    }
}

func plural(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

extension Array where Element == UInt8 {
    func base64() -> String { Data(self).base64EncodedString() }
}
