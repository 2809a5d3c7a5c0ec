import ChinaDatum

/// How a point relates to a region at one level.
public enum PlacementStatus: String, Sendable {
    /// Inside the region's (simplified) polygon.
    case inside
    /// Inside no polygon, but within the table's buffer of this region's outer boundary.
    case edge
    /// Neither.
    case outside
}

/// The answer at one level: the region (an index into the level's table), how the point relates
/// to it, and its margin: signed metres to the region's border (positive inside), when a border
/// is within the locator's margin radius.
public struct LevelPlacement: Equatable, Sendable {
    public var region: Int32?
    public var status: PlacementStatus
    public var marginMetres: Double?

    public static let outside = LevelPlacement(region: nil, status: .outside, marginMetres: nil)
}

/// Where a WGS-84 point falls, at every level at once.
public struct Placement: Equatable, Sendable {
    public var country = LevelPlacement.outside
    public var province = LevelPlacement.outside
    public var city = LevelPlacement.outside
    public var county = LevelPlacement.outside
    /// The GCJ-02 position used against the China table, when the point is in or at China.
    public var gcj02: Coordinate?
}

/// Why a point cannot be located.
public struct LocatorError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// Assigns WGS-84 points to country, province, city and county over the world and China tables.
///
/// The datum gate is the world table's own China polygon: only a point that the world table puts
/// in (or at the edge of) China is shifted to GCJ-02 and tested against the China table, so
/// Manila, Seoul and Thimphu are never shifted, while Hong Kong and Macau (GCJ-02 in the source,
/// see docs/boundaries.md) are.
public final class RegionLocator: @unchecked Sendable {
    public let world: RegionTable
    public let china: RegionTable
    /// Margins are computed when a border is within this many metres; 0 turns them off (the
    /// regions and statuses are the same, and a lookup costs a fraction: no nearby-arc search).
    public let marginRadius: Double
    private let chinaCountry: Int32
    private let worldBorder: [Bool]
    private let chinaBorder: [[Bool]]

    public init(world: RegionTable, china: RegionTable, marginRadius: Double = 300) throws {
        guard world.datum == .wgs84, world.levels == [.country] else {
            throw LocatorError(reason: "\(world.path): expected a WGS-84 country table")
        }
        guard china.datum == .gcj02, china.levels == [.province, .city, .county] else {
            throw LocatorError(reason: "\(china.path): expected a GCJ-02 province/city/county table")
        }
        guard let chinaCountry = world.regions.first(where: { $0.code == "CHN" })?.index else {
            throw LocatorError(reason: "\(world.path): no CHN region")
        }
        self.world = world
        self.china = china
        self.marginRadius = marginRadius
        self.chinaCountry = chinaCountry
        worldBorder = (0..<world.arcCount).map { !world.borderLevels(ofArc: $0).isEmpty }
        let chinaArcLevels = (0..<china.arcCount).map { china.borderLevels(ofArc: $0) }
        chinaBorder = RegionLevel.allCases.map { level in chinaArcLevels.map { $0.contains(level) } }
    }

    /// Loads `world.bin` and `china.bin` from a directory.
    public convenience init(directory: String, marginRadius: Double = 300) throws {
        try self.init(world: try RegionTable(contentsOf: directory + "/world.bin"),
                      china: try RegionTable(contentsOf: directory + "/china.bin"), marginRadius: marginRadius)
    }

    /// Locates a WGS-84 point. Latitudes beyond ±90 and longitudes beyond ±180 are rejected, not
    /// wrapped: in GPS data they are corruption, and wrapping would place them confidently wrong.
    public func locate(latitude: Double, longitude: Double) throws -> Placement {
        guard latitude.isFinite, longitude.isFinite else { throw LocatorError(reason: "coordinate is not a finite number") }
        guard abs(latitude) <= 90 else { throw LocatorError(reason: "latitude \(latitude) is outside -90…90") }
        guard abs(longitude) <= 180 else { throw LocatorError(reason: "longitude \(longitude) is outside -180…180") }
        var placement = Placement()
        placement.country = place(in: world, x: quantise(longitude), y: quantise(latitude), levels: [.country], borders: [worldBorder])[0]
        guard placement.country.region == chinaCountry else { return placement }
        let gcj = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
        placement.gcj02 = gcj
        let levels = place(in: china, x: quantise(gcj.longitude), y: quantise(gcj.latitude), levels: [.province, .city, .county],
                           borders: [1, 2, 3].map { chinaBorder[$0] })
        placement.province = levels[0]
        placement.city = levels[1]
        placement.county = levels[2]
        return placement
    }

    private func quantise(_ degrees: Double) -> Int64 {
        Int64((degrees / TableFormat.quantum).rounded())
    }

    /// The placements of one point in one table, at each of `levels` (`borders[k][arc]`: the arc
    /// is a border at level k). One unit lookup and at most one segment search serve all levels.
    private func place(in table: RegionTable, x: Int64, y: Int64, levels: [RegionLevel], borders: [[Bool]]) -> [LevelPlacement] {
        let metresPerQuantum = 111_320 * TableFormat.quantum
        let found = table.unitAndClearance(atX: x, y: y)
        if let unit = found.unit {
            let regions = levels.map { table.region(ofUnit: unit, at: $0) }
            let radius = Int64((marginRadius / metresPerQuantum).rounded(.up))
            // A uniform cell with the point well inside it: no border within the radius.
            let cosine = cosineOfLatitude(Double(y) * TableFormat.quantum)
            let near = radius <= 0 || (Double(found.clearanceX) * cosine >= Double(radius) && found.clearanceY >= radius)
                ? [] : table.arcsNear(x: x, y: y, radius: radius)
            return levels.indices.map { k in
                guard let region = regions[k] else { return .outside }
                let margin = near.filter { borders[k][$0.arc] && touches(table, arc: $0.arc, region: region, level: levels[k]) }.map(\.metres).min()
                return LevelPlacement(region: region, status: .inside, marginMetres: margin)
            }
        }
        // Outside every unit: the edge zone is the buffer around arcs with nothing on one side.
        let radius = Int64((table.buffer / metresPerQuantum).rounded(.up))
        guard let nearest = table.nearestSegment(toX: x, y: y, radius: radius, accept: { table.arcLeft[$0] < 0 || table.arcRight[$0] < 0 }) else {
            return levels.map { _ in .outside }
        }
        let unit = max(table.arcLeft[nearest.arc], table.arcRight[nearest.arc])
        return levels.map { level in
            guard let region = table.region(ofUnit: unit, at: level) else { return .outside }
            return LevelPlacement(region: region, status: .edge, marginMetres: -nearest.metres)
        }
    }

    /// True when `arc` bounds `region` at `level` (one of its sides belongs to it).
    private func touches(_ table: RegionTable, arc: Int, region: Int32, level: RegionLevel) -> Bool {
        let left = table.arcLeft[arc], right = table.arcRight[arc]
        return (left >= 0 && table.region(ofUnit: left, at: level) == region) || (right >= 0 && table.region(ofUnit: right, at: level) == region)
    }
}
