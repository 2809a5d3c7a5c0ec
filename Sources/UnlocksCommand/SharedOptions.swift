import Foundation
import ChinaDatum
import Intake
import RegionTables
import Tracks
import Unlocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The options of the ledger's rules, shared by classify, map, audit, merge and forget.
enum RuleOptions {
    /// Classify's options (map takes those that shape the ledger).
    static let classifyOptionSpecs: [OptionSpec] = [
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            ReportFiles.formatOption,
            ReportFiles.languageOption,
            .flag("lenient", "Count tentative unlocks (edge-only or border-straddling evidence) too."),
            .flag("include-plans", "Count plans (GPX routes, tracks with no time at all), as tentative untimed evidence; by default they are listed as planned and unlock nothing."),
            .flag("include-passed-through", "Count regions only crossed at vehicle speed (listed as passedThrough) as unlocked."),
            .value("explore-max-speed", "KMH", "Fastest leg that explores cells and makes its ends visited places (default 30 km/h: walking, running, cycling)."),
            .value("familiarity-levels", "L,B,G", "Effective passes a cell needs to be lit, bright and gold (default 1,5,20; a pass counts when over 4 h after the last counted one, moving, accuracy under 65 m)."),
            .flag("include-virtual", "Read activities an export labels virtual (Strava VirtualRide, VirtualRun: Zwift and the like), skipped by default."),
            .value("time-zone", "NAME", "IANA zone (e.g. America/New_York, daylight saving included) of days, streaks, printed times and CSV times written without an offset (default: the state's zone with --state, else the system's: TZ, else its setting, else UTC)."),
            .value("utc-offset", "±HH:MM", "A fixed offset instead of --time-zone (no daylight saving)."),
            .value("since", "DATE", "Count only the moments from local day DATE (YYYY-MM-DD, in the run's zone) on; untimed points are left out. Not with --state (a state keeps every moment)."),
            .value("until", "DATE", "Count only the moments up to local day DATE (YYYY-MM-DD, inclusive) in the run's zone; untimed points are left out. Not with --state."),
            .value("datum", "DATUM", "Datum of the input coordinates: wgs84 (GPS, default), gcj02 or bd09 (Chinese map apps)."),
            .value("datum-for", "GLOB=DATUM", "Read the inputs whose path matches GLOB in DATUM (repeatable; the first match wins; docs/datum.md)."),
            .value("state", "FILE", "Keep the ledger in FILE between runs: inputs already in it (by a hash of their whole content) are skipped, new ones added, and content forgotten from it ('unlocks forget') stays skipped. Locked (FILE.lock) while a run updates it: a second run waits. Not the same file as --out."),
            .value("badges", "FILE", "Report each badge of FILE (JSON: id, track, metric, target; docs/badges.md) with its percent, and the highest percent ever reported through --state (for Game Center, which drops lower values)."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            TableSearch.worldviewOption,
            .value("jobs", "N", "Classify up to N inputs at once, each on a core of its own (default: this machine's active processors; 1 reads one input after another). The report and the state are the same bytes for every N."),
        ]

    /// The options that shape the ledger: those given on the command line over `base` (a
    /// logbook's own rules, or the defaults).
    static func parse(_ arguments: ParsedArguments, base: ClassifyOptions = ClassifyOptions()) throws -> ClassifyOptions {
        var options = base
        // The run's datum, which its report names (a logbook keeps no datum: each input has its own).
        options.inputDatum = try arguments.choice("datum", as: Datum.self) ?? .wgs84
        if let zone = try timeZone(arguments) { options.timeZone = zone }
        if let text = arguments.value("explore-max-speed") {
            guard let kmh = Double(text), kmh.isFinite, kmh > 0, kmh <= 1000 else {
                throw UsageError(message: "--explore-max-speed '\(text)' is not a speed in km/h between 0 and 1000 (e.g. 30)")
            }
            options.exploreMaxSpeed = kmh / 3.6
        }
        if arguments.flags.contains("include-plans") { options.includePlans = true }
        options.since = try day(arguments, "since")
        options.until = try day(arguments, "until")
        if let since = options.since, let until = options.until, since > until {
            throw UsageError(message: "--since \(arguments.value("since")!) is after --until \(arguments.value("until")!)")
        }
        if options.selectsDates, arguments.value("state") != nil {
            throw UsageError(message: "--since and --until select the moments of this run's inputs; a logbook keeps every moment of its inputs: give the tracks without --state")
        }
        if let text = arguments.value("familiarity-levels") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int32($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3, let lit = parts[0], let bright = parts[1], let gold = parts[2],
                  let levels = FamiliarityLevels(lit: lit, bright: bright, gold: gold) else {
                throw UsageError(message: "--familiarity-levels '\(text)' is not three whole numbers LIT,BRIGHT,GOLD with 1 ≤ LIT ≤ BRIGHT ≤ GOLD (e.g. 1,5,20)")
            }
            options.familiarityLevels = levels
        }
        return options
    }

    /// `--jobs N`: how many inputs are classified at once; by default one per active processor
    /// (laptops have 8 to 16), capped at 256 (each job holds one input).
    static func jobCount(_ arguments: ParsedArguments) throws -> Int {
        guard let text = arguments.value("jobs") else { return min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 256) }
        guard let jobs = Int(text), jobs >= 1, jobs <= 256 else {
            throw UsageError(message: "--jobs '\(text)' is not a number of jobs from 1 to 256 (e.g. --jobs 4; by default one per processor)")
        }
        return jobs
    }

    /// `--time-zone NAME` or `--utc-offset ±HH:MM` (not both); nil when neither is given.
    static func timeZone(_ arguments: ParsedArguments) throws -> LocalTimeZone? {
        let name = arguments.value("time-zone"), offset = arguments.value("utc-offset")
        if name != nil, offset != nil { throw UsageError(message: "give --time-zone or --utc-offset, not both") }
        if let name {
            guard let zone = LocalTimeZone(identifier: name) else {
                throw UsageError(message: "--time-zone '\(name)' is not a time zone of the tz database (a name such as Europe/Berlin, America/New_York or GB; not an abbreviation such as PST; on Linux install tzdata)")
            }
            return zone
        }
        if let offset {
            guard let minutes = parseOffset(offset) else { throw UsageError(message: "--utc-offset '\(offset)' is not ±HH:MM (e.g. +08:00, -05:30)") }
            return .fixed(minutesEast: minutes)
        }
        // The system's zone (or a logbook's) then: a TZ that names no zone is said, not replaced.
        if let problem = LocalTimeZone.systemProblem(environment: ProcessInfo.processInfo.environment) { reportError("note: " + problem) }
        return nil
    }

    /// `--NAME YYYY-MM-DD` as days since 1970-01-01; nil when not given.
    static func day(_ arguments: ParsedArguments, _ name: String) throws -> Int64? {
        guard let text = arguments.value(name) else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]), (1...12).contains(month),
              day >= 1, day <= Timestamp.daysIn(month: month, year: year)
        else { throw UsageError(message: "--\(name) '\(text)' is not a date YYYY-MM-DD (e.g. 2024-05-01)") }
        return Timestamp.daysSinceEpoch(year: year, month: month, day: day)
    }

    /// `±HH:MM`, `±HHMM` or `±HH` → minutes east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") else { return nil }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              bytes.count == 3 || (bytes.count == 5 && !bytes.contains(UInt8(ascii: ":"))) || (bytes.count == 6 && bytes[3] == UInt8(ascii: ":"))
        else { return nil }
        let value = digits.map { Int($0) - 48 }
        let hours = value[0] * 10 + value[1], minutes = digits.count == 4 ? value[2] * 10 + value[3] : 0
        guard hours <= 14, minutes < 60 else { return nil }
        return (bytes[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }
}

/// The report, the state and the badge catalog: the files classify, merge and forget share.
enum ReportFiles {
    enum Format: String, CaseIterable { case json, text }

    /// `--format`, as every command that prints the report documents it.
    static let formatOption = OptionSpec.value("format", "FORMAT",
        "text (a summary to read) or json (docs/report-format.md). Default: text when standard output is a terminal, json when it is a file or a pipe or --out is given (as gh, ls and git choose).")

    /// `--language CODE`: the text report's country names in a person's language.
    static let languageOption = OptionSpec.value("language", "CODE",
        "Name the countries of the text report in this language (a BCP 47 or CLDR locale: ja, de, fr, zh-Hant, pt-BR), from Unicode CLDR, else in English; China's provinces, cities and counties keep Chinese and English, and JSON keeps the tables' names.")

    /// The names of `--language` (nil without it), from the CLDR names beside the tables.
    static func countryNames(_ arguments: ParsedArguments) throws -> LocalizedNames? {
        guard let language = arguments.value("language") else { return nil }
        return try RegionNames(contentsOf: try TableSearch.directory(arguments) + "/" + RegionNames.fileName).localized(language)
    }

    /// The report's format: `--format`, else text for a person at a terminal and JSON for a
    /// program (standard output a file or a pipe, or `--out FILE`): the convention of `gh`, `ls`
    /// and `git`, so `unlocks classify x` reads well and `unlocks classify x | jq` still works.
    static func format(_ arguments: ParsedArguments) throws -> Format {
        if let chosen = try arguments.choice("format", as: Format.self) { return chosen }
        return arguments.value("out") == nil && isatty(1) == 1 ? .text : .json
    }

    /// The `--badges` catalog: a regular file of at most 4 MiB holding a valid catalog whose
    /// every metric is a number of the report (``BadgeCatalog`` checks, before any input is read).
    static func badgeCatalog(_ path: String) throws -> BadgeCatalog {
        let catalog: BadgeCatalog
        do {
            guard let file = try RegularFile(path: path, kind: "a badge catalog is a JSON file (docs/badges.md)") else {
                throw BadgeCatalogError(path: path, reason: "no such file")
            }
            guard file.size <= 4 << 20 else { throw BadgeCatalogError(path: path, reason: "\(file.size) bytes; a badge catalog is at most 4 MiB") }
            try file.fill(to: file.size)
            catalog = try BadgeCatalog(json: file.bytes, path: path)
        } catch let problem as RegularFile.Problem {
            throw BadgeCatalogError(path: path, reason: problem.reason)
        }
        return catalog
    }

    /// `--state` and `--out` naming one file would replace the state with the report: a usage
    /// error. Paths are compared by their folder's real path and their name, so `./s` and `s`,
    /// or a link to the folder, are the same file; an existing file also by device and inode.
    static func refuseSameFile(state: String?, out: String?) throws {
        guard let state, let out else { return }
        func place(_ path: String) -> String {
            let slash = path.lastIndex(of: "/")
            let folder = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            guard let real = realpath(folder, nil) else { return path }
            defer { free(real) }
            return String(cString: real) + "/" + name
        }
        var a = stat(), b = stat()
        let sameInode = stat(state, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
        if sameInode || place(state) == place(out) {
            throw UsageError(message: "--state and --out name the same file (\(out)): the report would replace the state")
        }
    }

    /// Refuses outputs (option, path) that are inputs (``OutputClash``): a usage error, nothing written.
    static func refuseInputs(_ outputs: [(String, String?)], files: [WalkedFile] = [], named: [String] = []) throws {
        do { try OutputClash.check(outputs, files: files, named: named) } catch { throw UsageError(message: error.description) }
    }

    /// Writes the report as JSON or text to `out` (atomically) or to standard output.
    static func emit(_ report: ClassifyReport, format: Format, to out: String?, arguments: ParsedArguments) throws {
        // The text report names files and their errors: control characters from them escaped.
        let text = format == .json ? report.json().rendered() + "\n"
            : EscapedName.printable(report.text(countryNames: try countryNames(arguments)), keep: ["\t", "\n"])
        try write(text, to: out)
    }

    /// Writes `text` to `out` (atomically) or to standard output.
    static func write(_ text: String, to out: String?) throws {
        if let out {
            try AtomicFile.write(text, to: out)
        } else {
            let output = BufferedOutput()
            try output.write(text)
            try output.flush()
        }
    }

}
