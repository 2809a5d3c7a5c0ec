import RegionTables
import TextFormats
import Unlocks

extension Footprint {
    /// Tolerance of the outlines in the GeoJSON, degrees, by level: each fine enough for the
    /// scale a phone shows that level at (a county's streets at about 50 m, a country at about
    /// 1 km), a fraction of the tables' own vertices.
    public static func outlineTolerance(_ level: RegionLevel) -> Double {
        switch level {
        case .country: return 0.01
        case .province, .subdivision: return 0.002
        case .city: return 0.001
        default: return 0.0005
        }
    }

    /// A GeoJSON FeatureCollection (RFC 7946, WGS-84): for every place with explored cells one
    /// `explored` feature per familiarity level its cells reached (`familiarity`: gray, lit,
    /// bright or gold), the cells merged into polygons (``CellPolygons``); for every unlock one
    /// `outline` feature, its region's pieces simplified for display. Coordinates to 7 decimals.
    public func geoJSON() -> String {
        var out = "{\"type\":\"FeatureCollection\",\"generator\":\"adminunlocks-map\",\"features\":["
        var first = true
        func feature(_ properties: [(String, JSONValue)], _ polygons: [CellPolygons.Polygon]) {
            out += first ? "\n" : ",\n"
            first = false
            out += "{\"type\":\"Feature\",\"properties\":"
            out += JSONValue.object(properties.map { (key: $0.0, value: $0.1) }).compactRendered()
            out += ",\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":["
            for (p, polygon) in polygons.enumerated() {
                out += p == 0 ? "[" : ",["
                for (r, ring) in polygon.enumerated() {
                    out += r == 0 ? "[" : ",["
                    for (k, point) in ring.enumerated() {
                        out += k == 0 ? "[" : ",["
                        out += Self.decimal(point.longitude) + "," + Self.decimal(point.latitude) + "]"
                    }
                    out += "]"
                }
                out += "]"
            }
            out += "]}}"
        }
        for place in cellsByPlace.keys.sorted() {
            let all = cellsByPlace[place]!, levels = levelsByPlace[place]!
            for level in FamiliarityLevel.allCases {
                let keys = all.indices.filter { levels[$0] == level }.map { all[$0] }
                guard !keys.isEmpty else { continue }
                let area = keys.reduce(0.0) { $0 + ExploredGrid.cellArea(row: ExploredGrid.cell(ofKey: $1).row) }
                feature([("kind", .string("explored"))] + properties(place.level, place.index)
                        + [("familiarity", .string(level.name)), ("cells", .number(Double(keys.count))), ("cellsKm2", .number(rounded(area / 1e6, 6)))],
                        CellPolygons.polygons(of: keys))
            }
        }
        let worldUnits = Self.units(of: world), chinaUnits = Self.units(of: china), subdivisionUnits = subdivisions.map(Self.units(of:)) ?? [:]
        for level in RegionLevel.reported.map(\.level) {
            // The subdivision table holds its units as provinces under their countries.
            let stored: RegionLevel = level == .subdivision ? .province : level
            let units = level == .country ? worldUnits : level == .subdivision ? subdivisionUnits : chinaUnits
            for unlock in report.unlocks[level] ?? [] {
                let table = self.table(level)
                guard let index = table.regions.first(where: { $0.level == stored && $0.code == unlock.code })?.index else { continue }
                let pieces = (units[index] ?? []).flatMap { outline(table, unit: $0, tolerance: Self.outlineTolerance(level)) }
                feature([("kind", .string("outline"))] + properties(level, index), pieces)
            }
        }
        out += "\n]}\n"
        return out
    }

    /// Styling properties of a region: level, code, names, whether its unlock is confirmed, its
    /// explored percent (null when not unlocked or of no area).
    func properties(_ level: RegionLevel?, _ index: Int32) -> [(String, JSONValue)] {
        guard let level else {
            return [("level", .null), ("code", .null), ("name", .null), ("englishName", .null), ("evidence", .null), ("exploredPercent", .null)]
        }
        let region = table(level).region(index)
        let unlock = self.unlock(level, code: region.code)
        return [("level", .string(level.name)), ("code", .string(region.code)), ("name", .string(region.name)),
                ("englishName", .string(region.englishName)),
                ("evidence", unlock.map { .string($0.evidence.name) } ?? .null),
                ("exploredPercent", unlock?.exploredPercent.map { .number(rounded($0, 6)) } ?? .null)]
    }

    /// One unit's polygons in WGS-84, each ring simplified to `tolerance` degrees and wound as
    /// RFC 7946 asks (outer counterclockwise, holes clockwise); rings that vanish are dropped.
    func outline(_ table: RegionTable, unit: Int32, tolerance: Double) -> [CellPolygons.Polygon] {
        table.unitPolygons(unit).compactMap { polygon in
            var rings: CellPolygons.Polygon = []
            for (k, ring) in polygon.enumerated() {
                let points = ring.map { Self.wgs84(table, $0.x, $0.y) }.map { (x: $0.longitude, y: $0.latitude) }
                guard let simple = LineSimplifier.simplifyRing(points, tolerance: tolerance) else {
                    if k == 0 { return nil } else { continue }
                }
                var lonLat = simple.map { (longitude: $0.x, latitude: $0.y) }
                if (CellPolygons.signedArea(lonLat) > 0) != (k == 0) { lonLat.reverse() }
                rings.append(lonLat)
            }
            return rings
        }
    }

    /// `value` rounded to 7 decimals, without trailing zeros.
    static func decimal(_ value: Double) -> String {
        let scaled = Int64((value * 1e7).rounded())
        let negative = scaled < 0
        let magnitude = scaled.magnitude
        var text = String(magnitude / 10_000_000)
        let fraction = magnitude % 10_000_000
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 7 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return negative ? "-" + text : text
    }
}
