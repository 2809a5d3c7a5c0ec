import Dispatch
import Foundation
import RegionTables
import TextFormats

#if canImport(Glibc)
import Glibc
#endif

/// `unlocks build`: the whole rebuild, from the source to `Data/regions/`.
///
/// Tables are first written next to their final names and renamed into place only when every
/// table has been built, manifest last, so a failed or interrupted rebuild leaves the previous
/// tables untouched.
public struct BoundaryBuilder {
    public static let defaultTolerance = 30.0
    public static let defaultBuffer = 100.0
    /// World table: land borders within 100 m of the source (20 m pre-simplification + 80 m).
    public static let defaultWorldTolerance = 100.0
    /// World table coastlines (and islands, which may shrink to a speck or go where this is
    /// enough): the World Bank coasts and their ~67,000 islands are most of the source's vertices,
    /// and a country lookup needs far less to fit in 2 MB; the world buffer covers the difference,
    /// so land is never farther than the buffer from its country's stored outline.
    public static let defaultWorldCoastTolerance = 2_000.0
    public static let defaultWorldBuffer = 2_000.0

    public var source: String
    public var outputDirectory: String
    public var tolerance: Double
    public var buffer: Double
    public var worldTolerance = defaultWorldTolerance
    public var allowUnpinned = false
    /// The English names of the Chinese regions (``EnglishNames``).
    public var englishNamesPath = EnglishNames.defaultPath
    /// The international worldview's source (``NaturalEarthSource``): when given, `international.bin`
    /// is built from it too.
    public var naturalEarth: String?

    public init(source: String, outputDirectory: String, tolerance: Double = defaultTolerance, buffer: Double = defaultBuffer) {
        self.source = source
        self.outputDirectory = outputDirectory
        self.tolerance = tolerance
        self.buffer = buffer
    }

    /// Runs the build; returns the manifest it wrote.
    @discardableResult
    public func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> JSONValue {
        let started = Stopwatch.seconds()
        let archive = try SourceArchive(location: source, allowUnpinned: allowUnpinned)
        log("source: \(source) (sha256 \(archive.sha256))")
        var catalog = try SourceCatalog(archive, includeWorld: true)
        let englishNames = try EnglishNames(contentsOf: englishNamesPath)
        try englishNames.apply(to: &catalog)
        log("catalog: \(catalog.china.count) Chinese regions, \(catalog.countries.count) countries (\(rounded(Stopwatch.seconds() - started, 1)) s)")
        let international = try naturalEarth.map { try NaturalEarthSource(location: $0, allowUnpinned: allowUnpinned) }
        if let international { log("international: \(international.location) (sha256 \(international.sha256)), \(international.countries.count) countries") }
        // The tables are independent: build them side by side (each with its own GEOS context).
        let results = Results()
        let worldBuilder = WorldTableBuilder(tolerance: worldTolerance, coastTolerance: Self.defaultWorldCoastTolerance, buffer: Self.defaultWorldBuffer)
        DispatchQueue.concurrentPerform(iterations: international == nil ? 2 : 3) { job in
            do {
                if job == 0 {
                    results.china = try ChinaTableBuilder(tolerance: tolerance, buffer: buffer).build(catalog, sourceSHA256: archive.sha256, log: log)
                } else if job == 1 {
                    results.world = try worldBuilder.build(catalog, sourceSHA256: archive.sha256, log: log)
                } else if let international {
                    // Natural Earth's borders share their vertices: no pre-simplification (``WorldTableBuilder/preTolerance``).
                    let builder = WorldTableBuilder(tolerance: worldTolerance, coastTolerance: Self.defaultWorldCoastTolerance, buffer: Self.defaultWorldBuffer,
                                                    preTolerance: 0)
                    let built = try builder.build(countries: international.countries, seamCountry: nil, name: "international",
                                                       sourceSHA256: international.sha256, log: log)
                    results.international = (built.bytes, built.report)
                }
            } catch {
                results.fail(error)
            }
        }
        if let error = results.error { throw error }
        let china = results.china!, world = results.world!
        var report = china.report
        report.file = "china.bin"
        var worldReport = world.report
        worldReport.file = "world.bin"
        var internationalReport = results.international?.report
        internationalReport?.file = "international.bin"

        // Check what we wrote by reading it back exactly as an app would.
        _ = try RegionTable(bytes: china.bytes, path: report.file)
        _ = try RegionTable(bytes: world.bytes, path: worldReport.file)
        if let built = results.international { _ = try RegionTable(bytes: built.bytes, path: "international.bin") }

        let manifest = JSONValue.object([
            ("format", .string("AdminUnlocks region tables, format version \(TableFormat.version) (docs/region-table-format.md)")),
            ("source", .object([
                ("release", .string(SourceArchive.pinnedRelease)),
                ("sha256", .string(archive.sha256)),
                ("chinaEnglishNamesSHA256", .string(englishNames.sha256)),
            ] + (international.map { [("internationalRelease", .string(NaturalEarthSource.pinnedRelease)), ("internationalSHA256", .string($0.sha256))] } ?? []))),
            ("parameters", .object([
                ("toleranceMetres", .number(tolerance)),
                ("worldToleranceMetres", .number(worldTolerance)),
                ("worldCoastToleranceMetres", .number(Self.defaultWorldCoastTolerance)),
                ("worldBufferMetres", .number(Self.defaultWorldBuffer)),
                ("bufferMetres", .number(buffer)),
                ("chinaProjection", .string(ChinaTableBuilder.projection)),
                ("quantumDegrees", .number(TableFormat.quantum)),
            ])),
            ("tables", .array([Self.json(report), Self.json(worldReport)] + (internationalReport.map { [Self.json($0)] } ?? []))),
            ("datumSeamBeforeRepair", .object(world.seam.keys.sorted().map { ($0, .number(rounded(world.seam[$0]!, 2))) })),
            ("buildSeconds", .number(rounded(Stopwatch.seconds() - started, 1))),
        ])
        try Self.writeAtomically([(report.file, china.bytes), (worldReport.file, world.bytes)]
                                 + (results.international.map { [("international.bin", $0.bytes)] } ?? [])
                                 + [("manifest.json", Array((manifest.rendered() + "\n").utf8))], to: outputDirectory)
        return manifest
    }

    /// Where the two concurrent table builds leave their results.
    private final class Results: @unchecked Sendable {
        var china: (bytes: [UInt8], report: TableReport)?
        var world: (bytes: [UInt8], report: TableReport, seam: [String: Double])?
        var international: (bytes: [UInt8], report: TableReport)?
        private(set) var error: Error?
        private let lock = NSLock()
        func fail(_ error: Error) {
            lock.lock(); defer { lock.unlock() }
            if self.error == nil { self.error = error }
        }
    }

    static func json(_ r: TableReport) -> JSONValue {
        .object([
            ("file", .string(r.file)),
            ("bytes", .number(Double(r.bytes))),
            ("sha256", .string(r.sha256)),
            ("units", .number(Double(r.units))),
            ("arcs", .number(Double(r.arcs))),
            ("levels", .array(r.levels.map { f in
                .object([
                    ("level", .string(f.level.name)),
                    ("regions", .number(Double(f.regions))),
                    ("sourceVertices", .number(Double(f.sourceVertices))),
                    ("tableVertices", .number(Double(f.tableVertices))),
                    ("maximumDeviationMetres", .number(rounded(f.maximumDeviation, 2))),
                    ("meanDeviationMetres", .number(rounded(f.meanDeviation, 2))),
                    ("areaChangePercent", .number(rounded(f.areaChangePercent, 4))),
                    ("overlapKm2", .number(rounded(f.overlapKm2, 6))),
                    ("gapKm2", .number(rounded(f.gapKm2, 6))),
                ])
            })),
            ("outlineMaximumDeviationMetres", .number(rounded(r.outlineMaximumDeviation, 2))),
            ("collapsedRingsKept", .number(Double(r.collapsedRingsKept))),
            ("geometryRepair", r.geometryRepair.map { g in .object([
                ("rounds", .number(Double(g.rounds))), ("refinedArcs", .number(Double(g.refinedArcs))),
                ("speckedRings", .number(Double(g.speckedRings))), ("loopsCut", .number(Double(g.loopsCut))),
                ("islandsFreed", .number(Double(g.islandsFreed))),
                ("invariants", .string("every stored ring winds as its arcs' sides say; no two stored segments cross")),
            ]) } ?? .null),
            ("gridScan", r.gridScan.map { g in .object([
                ("latitudeStepDegrees", .number(g.latitudeStep)), ("longitudeStepDegrees", .number(g.longitudeStep)),
                ("points", .number(Double(g.points))), ("insidePoints", .number(Double(g.insidePoints))),
                ("misassignedKm2", .number(rounded(g.misassignedKm2, 1))),
                ("clusters", .array(g.clusters.map { .string($0.description) })),
            ]) } ?? .null),
            ("invalidUnits", .number(Double(r.invalidUnits))),
            ("invalidReasons", .array(r.invalidReasons.map { .string($0) })),
            ("notes", .array(r.notes.map { .string($0) })),
            ("uncoveredPieces", .number(Double(r.uncoveredPieces))),
            ("buildSeconds", .number(rounded(r.buildSeconds, 1))),
        ])
    }

    /// Writes every file to a temporary name in `directory`, then renames each into place.
    static func writeAtomically(_ files: [(String, [UInt8])], to directory: String) throws {
        mkdir(directory, 0o755)
        var temporary: [(String, String)] = []
        defer { for (path, _) in temporary { unlink(path) } }
        for (name, bytes) in files {
            let final = directory + "/" + name
            let path = final + ".tmp-\(getpid())"
            guard let file = fopen(path, "wb") else { throw SourceError(path: path, reason: "cannot write: \(String(cString: strerror(errno)))") }
            let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            let flushed = fflush(file) == 0 && fsync(fileno(file)) == 0
            fclose(file)
            guard written == bytes.count, flushed else { throw SourceError(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
            temporary.append((path, final))
        }
        for (path, final) in temporary {
            guard rename(path, final) == 0 else { throw SourceError(path: final, reason: "cannot rename into place: \(String(cString: strerror(errno)))") }
        }
        temporary.removeAll()
    }
}
