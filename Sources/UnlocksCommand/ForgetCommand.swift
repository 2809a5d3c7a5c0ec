#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Intake
import LogbookStore
import RegionTables
import Unlocks

/// `unlocks forget`: removes inputs, or the points of an area or a period, from a logbook, leaving
/// the logbook and report a run without them would have made (the library's `Logbook.forget`).
enum ForgetCommand {
    static let spec = CommandSpec(
        name: "forget",
        abstract: "Remove inputs, or every point of an area or a period, from a logbook, as if never read.",
        usage: "(INPUT... | --area LAT,LON,RADIUS_M | --since DATE --until DATE) --state FILE [--undo] [--keep-unreadable] [--out FILE] [--format json|text] [--language CODE] [--lenient] [--include-passed-through] [--include-plans] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--tables DIR] [--worldview NAME]",
        options: [
            .value("state", "FILE", "The logbook to edit (required); changed in one transaction."),
            LogbookAccess.keyOption,
            .value("area", "LAT,LON,RADIUS_M", "Forget every point within RADIUS_M metres of LAT,LON (WGS-84): home, or a bad GPS jump."),
            .value("since", "DATE", "Forget every point from local day DATE (YYYY-MM-DD, in the logbook's zone) on; with --until, up to it."),
            .value("until", "DATE", "Forget every point up to local day DATE (inclusive)."),
            .flag("keep-unreadable", "With --area or --since/--until: inputs whose file is gone or changed keep their points (default: refuse, nothing changed)."),
            .flag("undo", "Bring forgotten inputs back (the next classify --state reads them again), or the points of an area or period forgotten (named as they were)."),
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            ReportFiles.formatOption,
            ReportFiles.languageOption,
            .flag("lenient", "Count tentative unlocks too."),
            .value("time-zone", "NAME", "The IANA zone the state was made with (default: the state's)."),
            .value("utc-offset", "±HH:MM", "The fixed offset the state was made with (default: the state's)."),
            .flag("include-passed-through", "Count regions only crossed at vehicle speed too."),
            .flag("include-plans", "The state was made with --include-plans."),
            .value("explore-max-speed", "KMH", "The --explore-max-speed the state was made with (default 30)."),
            .value("familiarity-levels", "L,B,G", "The --familiarity-levels the state was made with (default 1,5,20)."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            TableSearch.worldviewOption,
        ],
        discussion: """
        Each INPUT names inputs of the state: by their path as the report lists it (an archive's
        path names all its members, 'archive.zip:member' one of them; a path read twice, such as a
        file that grew, both readings), or by a file whose content is an input's (the same
        whole-content hash classify keeps: that reading only; an archive's members with it).
        The state and the report are then exactly what 'unlocks classify --state' over the other
        inputs gives: each input's contribution is kept apart in the state, so where the forgotten
        input stood for minutes other inputs recorded too, or first reached a cell or a region, the
        others take over. Files skipped as duplicates of a forgotten input are forgotten with it (a
        note names them). What was read stays forgotten: a later classify --state that meets the
        same content, at any path, skips it as forgotten. With --undo, each INPUT names forgotten
        inputs (by the path they were read at, or by content) and brings them back: classify them
        again to count them. An INPUT that matches nothing is an error (exit 1) and the state is
        left as it was.

        With --area or --since/--until instead of INPUTs, every point inside is forgotten: the area
        or period is kept in the logbook (later imports and recordings drop the same points, counted
        as 'forgotten' among the dropped points), and the inputs that may hold such points are read
        again from the files they were read from, their share replaced in one transaction. The
        report's changes say what was removed. An input whose file is gone or no longer holds the
        content read (or that was recorded live, or imported as bytes) cannot be read again: the
        command names each and exits 1 with the logbook unchanged; --keep-unreadable keeps those
        inputs as they were (their points in the area still count) and reads the others. With
        --undo, the same --area or --since/--until brings the points back.
        """
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let forgetsPoints = arguments.value("area") != nil || arguments.value("since") != nil || arguments.value("until") != nil
        if forgetsPoints, !arguments.positionals.isEmpty {
            throw UsageError(message: "forget inputs or the points of an area or period, one at a time (INPUTs with --area/--since/--until)")
        }
        guard forgetsPoints || !arguments.positionals.isEmpty else {
            throw UsageError(message: "name the inputs to forget (paths as the report lists them, files or folders), or --area LAT,LON,RADIUS_M, or --since/--until DATE")
        }
        if !forgetsPoints, arguments.flags.contains("keep-unreadable") { throw UsageError(message: "--keep-unreadable goes with --area or --since/--until") }
        guard let statePath = arguments.value("state") else { throw UsageError(message: "give the logbook to edit with --state FILE") }
        let points = forgetsPoints ? try PointsToForget(arguments) : nil
        let format = try ReportFiles.format(arguments)
        try ReportFiles.refuseSameFile(state: statePath, out: arguments.value("out"))
        try ReportFiles.refuseInputs([("--out", arguments.value("out"))], named: arguments.positionals)
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        // Here --since/--until name what to forget, not the moments a run selects.
        var rules = arguments
        rules.values["since"] = nil
        rules.values["until"] = nil
        let logbook = try LogbookAccess.open(statePath, rules, locator: locator, create: false)
        let options = ReportOptions(lenient: arguments.flags.contains("lenient"), includePassedThrough: arguments.flags.contains("include-passed-through"))
        let undo = arguments.flags.contains("undo")
        if let points {
            return try await forget(points, arguments, logbook: logbook, options: options, undo: undo, format: format)
        }
        let targets = arguments.positionals.map(ForgetTarget.path)
        let result = undo ? try await logbook.unforget(targets, report: options) : try await logbook.forget(targets, report: options)
        for duplicate in result.duplicates {
            reportError("note: \(duplicate.path) was skipped as a duplicate of \(duplicate.duplicateOf ?? "?"): forgotten with it")
        }
        let count = result.inputs.count + result.duplicates.count
        let inputs = "\(count) input\(count == 1 ? "" : "s")"
        reportError(undo ? "note: brought back \(inputs); classify \(count == 1 ? "it" : "them") again with --state to count \(count == 1 ? "it" : "them")"
                         : "note: forgot \(inputs); a later classify --state skips the same content ('unlocks forget --undo' brings it back)")
        try ReportFiles.emit(result.report, format: format, to: arguments.value("out"), arguments: arguments)
        return .success
    }

    /// `--area` and `--since/--until` as given (the days become a period in the logbook's zone).
    struct PointsToForget {
        var area: PointExclusion?
        var since: Int64?
        var until: Int64?

        init(_ arguments: ParsedArguments) throws {
            if let text = arguments.value("area") {
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 3, let latitude = parts[0], let longitude = parts[1], let radius = parts[2],
                      PointExclusion.area(latitude: latitude, longitude: longitude, radiusMetres: radius).isValid else {
                    throw UsageError(message: "--area '\(text)' is not LAT,LON,RADIUS_M (degrees WGS-84 and metres above 0, e.g. 31.2304,121.4737,300)")
                }
                area = .area(latitude: latitude, longitude: longitude, radiusMetres: radius)
            }
            since = try RuleOptions.day(arguments, "since")
            until = try RuleOptions.day(arguments, "until")
            if let since, let until, since > until {
                throw UsageError(message: "--since \(arguments.value("since")!) is after --until \(arguments.value("until")!)")
            }
        }
    }

    /// `--area` and `--since/--until`: the library reads the inputs again; this reports it.
    static func forget(_ points: PointsToForget, _ arguments: ParsedArguments, logbook: Logbook, options: ReportOptions, undo: Bool,
                       format: ReportFiles.Format) async throws -> ExitCode {
        var exclusions = points.area.map { [$0] } ?? []
        if points.since != nil || points.until != nil { exclusions.append(.days(since: points.since, until: points.until, in: logbook.rules.timeZone)) }
        let unreadable: UnreadableInputs = arguments.flags.contains("keep-unreadable") ? .keepAsTheyAre : .refuse
        let result = undo ? try await logbook.unforget(points: exclusions, unreadable: unreadable, report: options)
                          : try await logbook.forget(points: exclusions, unreadable: unreadable, report: options)
        for input in result.keptAsTheyWere {
            reportError("note: \(input.path) could not be read again: kept as it was")
        }
        let count = result.reread.count
        let what = logbook.describe(exclusions)
        reportError("note: \(undo ? "brought back the points of" : "forgot every point of") \(what): read \(count) input\(count == 1 ? "" : "s") again")
        try ReportFiles.emit(result.report, format: format, to: arguments.value("out"), arguments: arguments)
        return .success
    }
}
