#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Intake
import RegionTables
import Unlocks

/// `unlocks forget`: removes inputs from a state, leaving the state and report a run without them
/// would have made.
enum ForgetCommand {
    static let spec = CommandSpec(
        name: "forget",
        abstract: "Remove inputs from a classify state, as if they had never been read.",
        usage: "INPUT... --state FILE [--undo] [--out FILE] [--format json|text] [--lenient] [--include-passed-through] [--include-plans] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--tables DIR] [--worldview NAME]",
        options: [
            .value("state", "FILE", "The state to edit (required); replaced atomically, under its lock (FILE.lock)."),
            .flag("undo", "Bring forgotten inputs back: the next classify --state reads them again."),
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            ReportFiles.formatOption,
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

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "name the inputs to forget (paths as the report lists them, or files)") }
        guard let statePath = arguments.value("state") else { throw UsageError(message: "give the state to edit with --state FILE") }
        let format = try ReportFiles.format(arguments)
        var options = try RuleOptions.parse(arguments)
        try ReportFiles.refuseSameFile(state: statePath, out: arguments.value("out"))
        try ReportFiles.refuseInputs([("--out", arguments.value("out"))], named: arguments.positionals)
        let lock = try StateFile.Lock(statePath: statePath, waiting: reportError)
        let tables = try TableSearch.tables(arguments)
        guard let bytes = try StateFile.read(statePath) else { throw StateError(path: statePath, reason: "no such file") }
        RuleOptions.takeZone(of: bytes, into: &options, arguments)
        var ledger = try LedgerState.decode(bytes, path: statePath, options: options, tables: tables)

        let undo = arguments.flags.contains("undo")
        var forgotten = Set<String>()
        for name in arguments.positionals {
            let matched = try matches(name, in: undo ? ledger.forgotten : ledger.inputs.mapValues(\.path))
            guard !matched.isEmpty else {
                let what = undo ? "no forgotten input has" : "no input has"
                throw StateError(path: statePath, reason: "\(what) the path or the content of '\(name)' (the report lists the inputs' paths); nothing was changed")
            }
            forgotten.formUnion(matched)
        }
        if undo {
            ledger.unforget(forgotten)
        } else {
            let paths = Set(forgotten.compactMap { ledger.inputs[$0]?.path })
            let duplicates = ledger.inputs.filter { $0.value.duplicateOf.map(paths.contains) == true && !forgotten.contains($0.key) }
            for (key, record) in duplicates.sorted(by: { $0.value.path < $1.value.path }) {
                forgotten.insert(key)
                reportError("note: \(record.path) was skipped as a duplicate of \(record.duplicateOf!): forgotten with it")
            }
            ledger.forgetForGood(forgotten)
        }
        let report: ClassifyReport
        do {
            report = try ClassifyReport(ledger: ledger, tables: tables, options: options, lenient: arguments.flags.contains("lenient"),
                                        includePassedThrough: arguments.flags.contains("include-passed-through"))
        } catch {
            throw StateError(path: statePath, reason: "\(error)")
        }
        try AtomicFile.write(LedgerState.encode(ledger, options: options, tables: tables), to: statePath)
        withExtendedLifetime(lock) {}
        let inputs = "\(forgotten.count) input\(forgotten.count == 1 ? "" : "s")"
        reportError(undo ? "note: brought back \(inputs); classify \(forgotten.count == 1 ? "it" : "them") again with --state to count \(forgotten.count == 1 ? "it" : "them")"
                         : "note: forgot \(inputs); a later classify --state skips the same content ('unlocks forget --undo' brings it back)")
        try ReportFiles.emit(report, format: format, to: arguments.value("out"))
        return .success
    }

    /// The keys of `paths` (path by key) that `name` names: by path (an archive's path names its
    /// members too), and, when `name` is a regular file, by its content's fingerprint (an
    /// archive's members keyed under it too).
    static func matches(_ name: String, in paths: [String: String]) throws -> Set<String> {
        var keys = Set(paths.filter { $0.value == name || $0.value.hasPrefix(name + ":") }.keys)
        var status = stat()
        if stat(name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            let fingerprint = try Fingerprint.of(InputPath(name)).key
            keys.formUnion(paths.keys.filter { $0 == fingerprint || $0.hasPrefix(fingerprint + ":") })
        }
        return keys
    }
}
