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
public struct BoundaryBuilder: Sendable {
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
    /// The subdivision level's sources (``SubdivisionSource``): when both are given (with
    /// ``naturalEarth``, whose codes the units' countries take), `subdivisions.bin` is built too.
    public var orangeGeo: String?
    public var superset: String?
    /// CLDR's names (the subdivisions' English names and their names in their country's language;
    /// copied beside the tables for the run-time), continents, and each country's language (a
    /// build input only), written by `Scripts/fixtures/make-cldr-data`.
    public var cldrNamesPath = "Data/names/" + RegionNames.fileName
    public var continentsPath = "Data/names/" + Continents.fileName
    public var languagesPath = "Data/names/languages.tsv"
    /// Build only `subdivisions.bin` (and the CLDR files), for working on it: no manifest.
    public var onlySubdivisions = false

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
        var named = try SourceCatalog(archive, includeWorld: true)
        let englishNames = try EnglishNames(contentsOf: englishNamesPath)
        try englishNames.apply(to: &named)
        let catalog = named
        log("catalog: \(catalog.china.count) Chinese regions, \(catalog.countries.count) countries (\(rounded(Stopwatch.seconds() - started, 1)) s)")
        let international = try naturalEarth.map { try NaturalEarthSource(location: $0, allowUnpinned: allowUnpinned) }
        if let international { log("international: \(international.location) (sha256 \(international.sha256)), \(international.countries.count) countries") }
        // The tables are independent: build them side by side (each with its own GEOS context).
        let subdivisionSource: SubdivisionSource?
        let cldr: (names: [UInt8], continents: [UInt8], english: LocalizedNames)?
        var languagesSHA256 = ""
        if let orangeGeo, let superset, let international {
            var source = try SubdivisionSource(orange: orangeGeo, superset: superset, codeByADM0A3: international.codeByADM0A3,
                                               codeByAlpha2: international.codeByAlpha2, allowUnpinned: allowUnpinned)
            let names = try RegionNames(contentsOf: cldrNamesPath)
            let english = names.localized("en")
            source.applyEnglishNames(Dictionary(uniqueKeysWithValues: source.units.compactMap { unit in english.name(of: unit.code).map { (unit.code, $0) } }))
            let languages = try CountryLanguages(contentsOf: languagesPath)
            source.applyOwnNames(Dictionary(uniqueKeysWithValues: source.units.compactMap { unit in
                languages.language(of: unit.parentCode).flatMap { names.localized($0).name(of: unit.code) }.map { (unit.code, $0) }
            }))
            _ = try Continents(contentsOf: continentsPath)
            cldr = (try SourceArchive.readFile(cldrNamesPath), try SourceArchive.readFile(continentsPath), english)
            languagesSHA256 = languages.sha256
            subdivisionSource = source
            log("subdivisions: \(source.units.count) units (\(source.uncoded.values.reduce(0) { $0 + $1.count }) without an ISO code)")
        } else if onlySubdivisions {
            throw SourceError(path: source, reason: "building the subdivisions needs --international, --orange-geo and --superset")
        } else {
            subdivisionSource = nil
            cldr = nil
        }
        let results = Results()
        let worldBuilder = WorldTableBuilder(tolerance: worldTolerance, coastTolerance: Self.defaultWorldCoastTolerance, buffer: Self.defaultWorldBuffer)
        let jobs = onlySubdivisions ? [3] : [0, 1] + (international == nil ? [] : [2]) + (subdivisionSource == nil ? [] : [3])
        DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
            let job = jobs[k]
            do {
                if job == 3, let subdivisionSource, let international {
                    var countries = international.countries
                    if let english = cldr?.english {
                        for k in countries.indices { countries[k].englishName = english.name(of: countries[k].code) ?? countries[k].englishName }
                    }
                    let builder = SubdivisionTableBuilder(tolerance: worldTolerance, coastTolerance: Self.defaultWorldCoastTolerance, buffer: Self.defaultWorldBuffer)
                    let built = try builder.build(subdivisionSource, countries: countries, chinaProvinces: catalog.china.filter { $0.level == .province },
                                                  sourceSHA256: subdivisionSource.orangeSHA256, log: log)
                    results.update { $0.subdivisions = built }
                } else if job == 0 {
                    let built = try ChinaTableBuilder(tolerance: tolerance, buffer: buffer).build(catalog, sourceSHA256: archive.sha256, log: log)
                    results.update { $0.china = built }
                } else if job == 1 {
                    let built = try worldBuilder.build(catalog, sourceSHA256: archive.sha256, log: log)
                    results.update { $0.world = built }
                } else if let international {
                    // Natural Earth's borders share their vertices: no pre-simplification (``WorldTableBuilder/preTolerance``).
                    let builder = WorldTableBuilder(tolerance: worldTolerance, coastTolerance: Self.defaultWorldCoastTolerance, buffer: Self.defaultWorldBuffer,
                                                    preTolerance: 0)
                    let built = try builder.build(countries: international.countries, seamCountry: nil, name: "international",
                                                       sourceSHA256: international.sha256, log: log)
                    results.update { $0.international = (built.bytes, built.report) }
                }
            } catch {
                results.update { if $0.error == nil { $0.error = error } }
            }
        }
        let finished = results.current
        if let error = finished.error { throw error }
        var subdivisionReport = finished.subdivisions?.report
        subdivisionReport?.file = "subdivisions.bin"
        let subdivisionFiles: [(String, [UInt8])] = finished.subdivisions.map { built in
            [("subdivisions.bin", built.bytes), (RegionNames.fileName, cldr!.names), (Continents.fileName, cldr!.continents)]
        } ?? []
        if let built = finished.subdivisions { _ = try RegionTable(bytes: built.bytes, path: "subdivisions.bin") }
        if onlySubdivisions {
            try Self.writeAtomically(subdivisionFiles, to: outputDirectory)
            return .object([("tables", .array(subdivisionReport.map { [Self.json($0)] } ?? []))])
        }
        let china = finished.china!, world = finished.world!
        var report = china.report
        report.file = "china.bin"
        var worldReport = world.report
        worldReport.file = "world.bin"
        var internationalReport = finished.international?.report
        internationalReport?.file = "international.bin"

        // Check what we wrote by reading it back exactly as an app would.
        _ = try RegionTable(bytes: china.bytes, path: report.file)
        _ = try RegionTable(bytes: world.bytes, path: worldReport.file)
        if let built = finished.international { _ = try RegionTable(bytes: built.bytes, path: "international.bin") }

        let manifest = JSONValue.object([
            ("format", .string("AdminUnlocks region tables, format version \(TableFormat.version) (docs/region-table-format.md)")),
            ("source", .object([
                ("release", .string(SourceArchive.pinnedRelease)),
                ("sha256", .string(archive.sha256)),
                ("chinaEnglishNamesSHA256", .string(englishNames.sha256)),
            ] + (international.map { [("internationalRelease", .string(NaturalEarthSource.pinnedRelease)), ("internationalSHA256", .string($0.sha256))] } ?? [])
              + (subdivisionSource.map { [
                ("subdivisionGeometryRelease", .string(SubdivisionSource.orangeRelease)), ("subdivisionGeometrySHA256", .string($0.orangeSHA256)),
                ("subdivisionCodesRelease", .string(SubdivisionSource.supersetRelease)), ("subdivisionCodesSHA256", .string($0.supersetSHA256)),
                ("cldrNamesSHA256", .string(SHA256.hex(cldr!.names))), ("continentsSHA256", .string(SHA256.hex(cldr!.continents))),
                ("languagesSHA256", .string(languagesSHA256)),
              ] } ?? []))),
            ("parameters", .object([
                ("toleranceMetres", .number(tolerance)),
                ("worldToleranceMetres", .number(worldTolerance)),
                ("worldCoastToleranceMetres", .number(Self.defaultWorldCoastTolerance)),
                ("worldBufferMetres", .number(Self.defaultWorldBuffer)),
                ("bufferMetres", .number(buffer)),
                ("chinaProjection", .string(ChinaTableBuilder.projection)),
                ("quantumDegrees", .number(TableFormat.quantum)),
            ])),
            ("tables", .array([Self.json(report), Self.json(worldReport)] + (internationalReport.map { [Self.json($0)] } ?? [])
                              + (subdivisionReport.map { [Self.json($0)] } ?? []))),
            ("subdivisions", subdivisionSource.map(Self.subdivisionsJSON) ?? .null),
            ("datumSeamBeforeRepair", .object(world.seam.keys.sorted().map { ($0, .number(rounded(world.seam[$0]!, 2))) })),
            ("buildSeconds", .number(rounded(Stopwatch.seconds() - started, 1))),
        ])
        try Self.writeAtomically([(report.file, china.bytes), (worldReport.file, world.bytes)]
                                 + (finished.international.map { [("international.bin", $0.bytes)] } ?? []) + subdivisionFiles
                                 + [("manifest.json", Array((manifest.rendered() + "\n").utf8))], to: outputDirectory)
        return manifest
    }

    /// Where the concurrent table builds leave their results (the first error, if any), only
    /// touched under `lock`.
    private final class Results: @unchecked Sendable {
        struct Built: Sendable {
            var china: (bytes: [UInt8], report: TableReport)?
            var world: (bytes: [UInt8], report: TableReport, seam: [String: Double])?
            var international: (bytes: [UInt8], report: TableReport)?
            var subdivisions: (bytes: [UInt8], report: TableReport)?
            var error: Error?
        }
        private let lock = NSLock()
        private var built = Built()
        func update(_ body: (inout Built) -> Void) {
            lock.lock(); defer { lock.unlock() }
            body(&built)
        }
        var current: Built {
            lock.lock(); defer { lock.unlock() }
            return built
        }
    }

    /// The subdivision source's decisions, for the manifest (docs/boundaries.md, "Subdivisions").
    static func subdivisionsJSON(_ source: SubdivisionSource) -> JSONValue {
        .object([
            ("geometry", .string("Natural Earth 10 m admin-1 (public domain) as \(SubdivisionSource.orangeRelease) ships it (mapshaper-simplified, one topology, all 251 countries); "
                                 + "the package is GPL-3.0, its data Natural Earth's: the table keeps coordinates only (docs/boundaries.md, \"Subdivisions: sources and licences\")")),
            ("codes", .string("ISO 3166-2 from \(SubdivisionSource.supersetRelease) (Apache-2.0): a unit takes the code of the Superset feature holding its label point "
                              + "(of its own country, but Crimea's and Sevastopol's, ISO 3166-2's UA-43 and UA-40; then the file with the most features); Natural Earth units sharing a code are one region; "
                              + "a unit with none keeps Natural Earth's adm1_code")),
            ("noISOCode", .object(source.uncoded.keys.sorted().map { ($0, .array(source.uncoded[$0]!.map { .string($0) })) })),
            ("mergedUnderOneCode", .object(source.merged.keys.sorted().map { ($0, .array(source.merged[$0]!.map { .string($0) })) })),
        ])
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
