import BoundaryBuild
import RegionTables

#if canImport(Glibc)
import Glibc
#endif

/// Builds the world table alone, printing the build's progress (for working on the world build).
/// `COAST` and `BUFFER` (metres) override the defaults; with `OUT` the table is written there.
enum WorldBuildProbe {
    static func run(_ path: String, coastTolerance: Double?, buffer: Double?, out: String?) throws {
        let archive = try SourceArchive(location: path)
        // ADMINUNLOCKS_COUNTRIES=AUS,NZL builds a world of those countries (and China) only.
        let subset = getenv("ADMINUNLOCKS_COUNTRIES").map { Set(String(cString: $0).split(separator: ",").map(String.init) + ["CHN"]) }
        let catalog = try SourceCatalog(archive, levels: [.country], includeWorld: true, countries: subset)
        let world = try WorldTableBuilder(tolerance: BoundaryBuilder.defaultWorldTolerance,
                                          coastTolerance: coastTolerance ?? BoundaryBuilder.defaultWorldCoastTolerance,
                                          buffer: buffer ?? BoundaryBuilder.defaultWorldBuffer)
            .build(catalog, sourceSHA256: archive.sha256, log: { print($0) })
        print(world.report.bytes, world.report.levels.map { ($0.maximumDeviation, $0.meanDeviation, $0.tableVertices) }, world.report.outlineMaximumDeviation, world.seam)
        if let out {
            guard let file = fopen(out, "wb") else { throw TableError(path: out, reason: "cannot write") }
            defer { fclose(file) }
            _ = world.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        }
    }
}
