/// The region tables one run answers with: the world table (countries, WGS-84) and the China
/// table (provinces, cities and counties, GCJ-02). Passed as one value wherever both are needed,
/// so a caller never pairs a world table with the wrong China table.
public struct TableSet: Sendable {
    /// Countries and disputed areas, WGS-84.
    public let world: RegionTable
    /// China's provinces, cities and counties, GCJ-02.
    public let china: RegionTable

    public init(world: RegionTable, china: RegionTable) {
        self.world = world
        self.china = china
    }

    /// Opens `world.bin` and `china.bin` in a folder (memory-mapped, checksummed, validated).
    public init(directory: String) throws {
        self.init(world: try RegionTable(contentsOf: directory + "/world.bin"),
                  china: try RegionTable(contentsOf: directory + "/china.bin"))
    }
}
