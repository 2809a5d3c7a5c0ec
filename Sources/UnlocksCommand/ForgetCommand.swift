#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Intake
import LogbookStore
import RegionTables
import Unlocks

/// `unlocks forget`: removes inputs from a state, leaving the state and report a run without them
/// would have made.
enum ForgetCommand {
    static let spec = CommandSpec(
        name: "forget",
        abstract: "Remove inputs from a classify state, as if they had never been read.",
        usage: "INPUT... --state FILE [--undo] [--out FILE] [--format json|text] [--language CODE] [--lenient] [--include-passed-through] [--include-plans] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--tables DIR] [--worldview NAME]",
        options: [
            .value("state", "FILE", "The logbook to edit (required); changed in one transaction."),
            LogbookAccess.keyOption,
            .flag("undo", "Bring forgotten inputs back: the next classify --state reads them again."),
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
        """
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "name the inputs to forget (paths as the report lists them, files or folders)") }
        guard let statePath = arguments.value("state") else { throw UsageError(message: "give the logbook to edit with --state FILE") }
        let format = try ReportFiles.format(arguments)
        try ReportFiles.refuseSameFile(state: statePath, out: arguments.value("out"))
        try ReportFiles.refuseInputs([("--out", arguments.value("out"))], named: arguments.positionals)
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let logbook = try LogbookAccess.open(statePath, arguments, locator: locator, create: false)
        let options = ReportOptions(lenient: arguments.flags.contains("lenient"), includePassedThrough: arguments.flags.contains("include-passed-through"))
        let targets = arguments.positionals.map(ForgetTarget.path)
        let undo = arguments.flags.contains("undo")
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
}
