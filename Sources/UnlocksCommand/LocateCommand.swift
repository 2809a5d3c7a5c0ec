import ChinaDatum
import RegionTables
import TextFormats
import Tracks

/// `unlocks locate`: CSV `lat,lon` in, the country / province / city / county of each point out.
enum LocateCommand {
    enum Format: String, CaseIterable { case csv, jsonl }
    enum InputDatum: String, CaseIterable { case wgs84, gcj02 }

    static let spec = CommandSpec(
        name: "locate",
        abstract: "Assign lat,lon points to country, province, city and county.",
        usage: "[--datum wgs84|gcj02] [--tables DIR] [--worldview NAME] [--format csv|jsonl] [--language CODE] [FILE|-]",
        options: [
            .value("datum", "DATUM", "Datum of the input: wgs84 (GPS, default) or gcj02 (Chinese map apps)."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            TableSearch.worldviewOption,
            .value("format", "FORMAT", "csv (codes; default) or jsonl (adds names, statuses and margins)."),
            .value("language", "CODE", "jsonl: also name countries and subdivisions in this language (a BCP 47 or CLDR locale: ja, de, fr, zh-Hant, pt-BR), from Unicode CLDR, else in English."),
        ],
        discussion: """
        Reads FILE (or standard input): one 'lat,lon' per line, an optional header line naming the
        columns (lat and lon, or latitude and longitude, in any order: 'lon,lat', 'name,lat,lon';
        a header naming neither is an error). CSV output
        has the header lat,lon,country,province,city,county,status,subdivision: region codes (empty
        where none), the status of the finest of country, province, city and county found: inside,
        edge (within the table's buffer of a coast or national border) or outside, and the state or
        province of the country (ISO 3166-2 where one exists, else Natural Earth's code; in China's
        view China's are its provinces, CN-BJ…CN-TW, CN-HK, CN-MO).

        A point is shifted to GCJ-02 for the China table only when the world table puts it in
        China (its real polygon, not the published rectangle). A bad line is reported as
        'unlocks: FILE:LINE: reason' and skipped; the exit code is then 3.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let datum = try arguments.choice("datum", as: InputDatum.self) ?? .wgs84
        let format = try arguments.choice("format", as: Format.self) ?? .csv
        guard arguments.positionals.count <= 1 else {
            throw UsageError(message: "expected at most one input file, got \(arguments.positionals.count)")
        }
        let path = arguments.positionals.first ?? "-"
        let displayName = path == "-" ? "<stdin>" : path
        let source = try FileSource(path: path)
        // Margins only appear in JSON Lines: CSV output skips their search. The leaves' grids are
        // built lazily, as lines reach them (the default).
        let tables = try TableSearch.tables(arguments)
        let locator = try RegionLocator(tables: tables, marginRadius: format == .jsonl ? 300 : 0)
        var names: LocalizedNames?
        if let language = arguments.value("language") {
            guard format == .jsonl else { throw UsageError(message: "--language names regions in the jsonl format: add --format jsonl") }
            let directory = try TableSearch.directory(arguments)
            names = try RegionNames(contentsOf: directory + "/" + RegionNames.fileName).localized(language)
        }
        let output = BufferedOutput()
        if format == .csv { try output.write("lat,lon,country,province,city,county,status,subdivision\n") }
        var rejected = 0, antarctic = 0  // points south of 60°S in no country: Antarctica (docs/report-format.md)
        var reader = LineReader(source, path: displayName)
        defer { reader.close() }
        var columns = CoordinateColumns()
        try reader.forEachLine(overlong: { number in
            rejected += 1
            reportError(InputError(path: displayName, line: number, reason: "line longer than \(LineReader<FileSource>.maximumLineLength) bytes (skipped)").description)
        }) { line, number in
            if line.isEmpty { return }
            if number == 1, CoordinateCSV.isHeader(line) {
                columns = try ConvertCommand.columns(header: line, path: displayName)
                return
            }
            do {
                let parsed = try CoordinateCSV.parse(line, columns: columns)
                var wgs = Coordinate(latitude: parsed.latitude, longitude: parsed.longitude)
                if datum == .gcj02 { wgs = DatumConverter().wgs84(fromGCJ02: wgs) }
                let placement = try locator.locate(latitude: wgs.latitude, longitude: wgs.longitude)
                antarctic += placement.country.region == nil && wgs.latitude < -60 ? 1 : 0
                switch format {
                case .csv: try writeCSV(parsed, placement, locator, to: output)
                case .jsonl: try output.write(json(parsed, placement, locator, names: names).compactRendered() + "\n")
                }
            } catch let error as CoordinateCSV.LineError {
                rejected += 1
                reportError(InputError(path: displayName, line: number, reason: error.description).description)
            } catch let error as LocatorError {
                rejected += 1
                reportError(InputError(path: displayName, line: number, reason: error.reason).description)
            }
        }
        try output.flush()
        if antarctic > 0 { reportError("note: \(antarctic) point\(antarctic == 1 ? " is" : "s are") in Antarctica, south of 60°S, which is in no country (the boundary source draws none there)") }
        return rejected > 0 ? .inputsRejected : .success
    }

    static func levels(_ p: Placement, _ locator: RegionLocator) -> [(String, LevelPlacement, RegionTable)] {
        [("country", p.country, locator.world), ("province", p.province, locator.china),
         ("city", p.city, locator.china), ("county", p.county, locator.china)]
    }

    static func writeCSV(_ line: CoordinateLine, _ p: Placement, _ locator: RegionLocator, to output: BufferedOutput) throws {
        var text = "\(line.latitude),\(line.longitude)"
        var status = PlacementStatus.outside
        for (_, level, table) in levels(p, locator) {
            text += "," + (level.region.map { table.region($0).code } ?? "")
            if level.region != nil { status = level.status }
        }
        var subdivision = ""
        if let region = p.subdivision.region, let table = locator.tables.subdivisions { subdivision = table.region(region).code }
        try output.write(text + ",\(status.rawValue),\(subdivision)\n")
    }

    static func json(_ line: CoordinateLine, _ p: Placement, _ locator: RegionLocator, names: LocalizedNames? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("lat", .number(line.latitude)), ("lon", .number(line.longitude))]
        var all = levels(p, locator)
        if let subdivisions = locator.tables.subdivisions { all.append(("subdivision", p.subdivision, subdivisions)) }
        for (name, level, table) in all {
            guard let index = level.region else { members.append((name, .null)); continue }
            let region = table.region(index)
            var fields: [(key: String, value: JSONValue)] = [("code", .string(region.code)), ("name", .string(region.name)), ("englishName", .string(region.englishName))]
            // Countries and subdivisions in the language asked for (CLDR; English where it has none).
            if let names, name == "country" || name == "subdivision" {
                fields.append(("localizedName", .string(names.name(of: region.code) ?? region.englishName)))
            }
            if name == "subdivision", let country = region.parent { fields.append(("country", .string(table.region(country).code))) }
            members.append((name, .object(fields + [
                ("status", .string(level.status.rawValue)),
                ("marginMetres", level.marginMetres.map { .number(rounded($0, 1)) } ?? .null),
            ])))
        }
        if let g = p.gcj02 { members.append(("gcj02", .array([.number(rounded(g.latitude, 9)), .number(rounded(g.longitude, 9))]))) }
        return .object(members)
    }
}
