import BoundaryBuild
import RegionTables

/// Builds the world table alone, printing the build's progress (for working on the world build).
enum WorldBuildProbe {
    static func run(_ path: String) throws {
        let archive = try SourceArchive(location: path)
        let catalog = try SourceCatalog(archive, levels: [.country], includeWorld: true)
        let world = try WorldTableBuilder(tolerance: BoundaryBuilder.defaultWorldTolerance, coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance,
                                      buffer: BoundaryBuilder.defaultWorldBuffer)
            .build(catalog, sourceSHA256: archive.sha256, log: { print($0) })
        print(world.report.bytes, world.report.levels.map { ($0.maximumDeviation, $0.meanDeviation, $0.tableVertices) }, world.report.outlineMaximumDeviation, world.seam)
    }
}
