import ChinaDatum
import RegionTables
import TextFormats
import BorderAudit


/// The audit's simplification check (`unlocks audit --source`), here beside the build because it
/// runs GEOS on the source: the full-resolution source's answer for an audited point, from
/// GEOS prepared polygons of the source (`SourceReference`), loaded as the episodes reach them:
/// China's levels province by province, countries one by one.
///
/// The candidates for a point are the regions the source could put it in: at the China levels,
/// its province in the table, its province without the datum shift, and the provinces either side
/// of China arcs within `chinaNeighbourMetres` (the table is within 30 m of the source); at the
/// country level, its country, the nearest country, and the countries either side of world arcs
/// within `worldNeighbourMetres` (coasts are simplified at 2 km). Where two loaded countries both
/// claim a point (China's converted line against a neighbour, enclaves), a reference holding
/// exactly those two decides, by the world build's rule.
///
/// The maps show the loaded regions' source borders: county rings (every city and province
/// border is one of them) converted from GCJ-02 to WGS-84, and country rings.
public final class SourceCheck: AuditSource {
    public let locator: RegionLocator
    private let archive: SourceArchive
    private var provinces: [String: SourceReference] = [:]
    private var countries: [String: SourceReference] = [:]
    private var overlaps: [[String]: SourceReference] = [:]
    /// Rings to draw (China's in GCJ-02, countries' in WGS-84) with their bounding boxes.
    private var drawn: [(level: RegionLevel, code: String, gcj: Bool, box: (west: Double, south: Double, east: Double, north: Double), rings: [[Position]])] = []
    static let chinaNeighbourMetres = 100.0
    static let worldNeighbourMetres = 2_100.0

    /// Reads the wheel (checking it is the pinned release) before the run, so that a wrong path
    /// fails at once; the regions are loaded as they are needed.
    public init(wheel: String, locator: RegionLocator) throws {
        archive = try SourceArchive(location: wheel)
        self.locator = locator
    }

    public var note: String {
        "country, province, city and county checked against \(SourceArchive.pinnedRelease) with GEOS"
    }

    /// The source's region codes per level (nil: in no region there); China levels only for
    /// points in the datum's rectangle.
    public func codes(for point: AuditedPoint) throws -> [RegionLevel: String?] {
        var codes: [RegionLevel: String?] = [.country: try country(of: point)]
        guard let gcj = point.gcj02 else { return codes }
        let china = locator.china
        var candidates: [String] = []
        func consider(_ region: Int32?) {
            guard let region else { return }
            let prefix = String(china.region(region).code.prefix(2))
            if !candidates.contains(prefix) { candidates.append(prefix) }
        }
        consider(point.placement.province.region)
        consider(point.unshifted?.province)
        for unit in Self.units(near: gcj, in: china, metres: Self.chinaNeighbourMetres) {
            consider(china.region(ofUnit: unit, at: .province))
        }
        for level in [RegionLevel.province, .city, .county] { codes[level] = String?.none }
        for prefix in candidates {
            let reference = try self.reference(province: prefix)
            for level in [RegionLevel.province, .city, .county] where codes[level]! == nil {
                codes[level] = try reference.region(at: level, longitude: gcj.longitude, latitude: gcj.latitude)
            }
        }
        return codes
    }

    /// The source's country for the point (WGS-84).
    private func country(of point: AuditedPoint) throws -> String? {
        let world = locator.world
        var candidates: [String] = []
        func consider(_ region: Int32?) {
            guard let region else { return }
            let code = world.region(region).code
            if !candidates.contains(code) { candidates.append(code) }
        }
        consider(point.placement.country.region)
        consider(point.nearestCountry?.region)
        let position = Coordinate(latitude: point.point.latitude, longitude: point.point.longitude)
        for unit in Self.units(near: position, in: world, metres: Self.worldNeighbourMetres) {
            consider(world.region(ofUnit: unit, at: .country))
        }
        var claimants: [String] = []
        for code in candidates {
            if try reference(country: [code]).region(at: .country, longitude: position.longitude, latitude: position.latitude) != nil {
                claimants.append(code)
            }
        }
        guard claimants.count > 1 else { return claimants.first }
        return try reference(country: claimants.sorted()).region(at: .country, longitude: position.longitude, latitude: position.latitude)
    }

    /// The units either side of the table's arcs within `metres` of a position (in the table's datum), in arc order.
    private static func units(near position: Coordinate, in table: RegionTable, metres: Double) -> [Int32] {
        let quantum = TableFormat.quantum
        let radius = Int64((metres / (111_320 * quantum)).rounded(.up))
        var units: [Int32] = []
        for (arc, _) in table.arcsNear(x: Int64((position.longitude / quantum).rounded()), y: Int64((position.latitude / quantum).rounded()), radius: radius).sorted(by: { $0.arc < $1.arc }) {
            for unit in [table.arcLeft[arc], table.arcRight[arc]] where unit >= 0 { units.append(unit) }
        }
        return units
    }

    private func reference(province prefix: String) throws -> SourceReference {
        if let loaded = provinces[prefix] { return loaded }
        let catalog = try SourceCatalog(archive, levels: [.province, .city, .county], includeWorld: false, provinces: [prefix])
        let reference = try SourceReference(catalog)
        provinces[prefix] = reference
        for region in catalog.china where region.level == .county { draw(region, gcj: true) }
        return reference
    }

    /// The country level of the given countries (one, or the claimants of an overlap).
    private func reference(country codes: [String]) throws -> SourceReference {
        if codes.count == 1, let loaded = countries[codes[0]] { return loaded }
        if let loaded = overlaps[codes] { return loaded }
        let catalog = try SourceCatalog(archive, levels: [], includeWorld: true, provinces: [], countries: Set(codes))
        let reference = try SourceReference(catalog)
        if codes.count == 1 {
            countries[codes[0]] = reference
            for region in WorldTableBuilder.sourceCountries(catalog) { draw(region, gcj: false) }
        } else {
            overlaps[codes] = reference
        }
        return reference
    }

    private func draw(_ region: SourceRegion, gcj: Bool) {
        let rings = region.polygons.flatMap(\.rings)
        var box = (west: Double.infinity, south: Double.infinity, east: -Double.infinity, north: -Double.infinity)
        for ring in rings {
            for p in ring {
                box = (min(box.west, p.x), min(box.south, p.y), max(box.east, p.x), max(box.north, p.y))
            }
        }
        drawn.append((region.level, region.code, gcj, box, rings))
    }

    /// How far beyond the box a China ring is kept (metres), for the GCJ-02 shift's change across it.
    static let shiftSlackMetres = 50.0

    public func borders(south: Double, west: Double, north: Double, east: Double) throws -> [SourceBorder] {
        // The box in GCJ-02: shifted by the offset at its centre, with a little slack.
        let centre = Coordinate(latitude: (south + north) / 2, longitude: (west + east) / 2)
        let shifted = GCJ02.fromWGS84(centre)
        let slack = Self.shiftSlackMetres / 111_320
        let dLat = shifted.latitude - centre.latitude, dLon = shifted.longitude - centre.longitude
        var borders: [SourceBorder] = []
        for region in drawn.sorted(by: { ($0.level, $0.code) < ($1.level, $1.code) }) {
            let b = region.gcj ? (west: west + dLon - slack, south: south + dLat - slack, east: east + dLon + slack, north: north + dLat + slack)
                               : (west: west, south: south, east: east, north: north)
            guard region.box.west <= b.east, region.box.east >= b.west, region.box.south <= b.north, region.box.north >= b.south else { continue }
            func inBox(_ p: Position) -> Bool { p.x >= b.west && p.x <= b.east && p.y >= b.south && p.y <= b.north }
            var runs: [[(latitude: Double, longitude: Double)]] = []
            for ring in region.rings {
                var run: [(latitude: Double, longitude: Double)] = []
                for (i, p) in ring.enumerated() {
                    // A vertex is kept when it or a neighbour is in the box, so segments crossing its edge are drawn.
                    let keep = inBox(p) || (i > 0 && inBox(ring[i - 1])) || (i + 1 < ring.count && inBox(ring[i + 1]))
                    if keep {
                        let w = region.gcj ? GCJ02.toWGS84(Coordinate(latitude: p.y, longitude: p.x)) : Coordinate(latitude: p.y, longitude: p.x)
                        run.append((w.latitude, w.longitude))
                    } else if !run.isEmpty {
                        if run.count > 1 { runs.append(run) }
                        run = []
                    }
                }
                if run.count > 1 { runs.append(run) }
            }
            if !runs.isEmpty { borders.append(SourceBorder(level: region.level, code: region.code, runs: runs)) }
        }
        return borders
    }
}
