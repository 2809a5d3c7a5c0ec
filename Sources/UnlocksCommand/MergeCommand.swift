import Intake
import RegionTables
import Unlocks

/// `unlocks merge`: combines state files of shards classified separately into one state and report.
enum MergeCommand {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Merge classify state files of shards (overlapping or not) into one state and report.",
        usage: "STATE... [--state FILE] [--out FILE] [--format json|text] [--lenient] [--include-passed-through] [--include-plans] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--badges FILE] [--tables DIR] [--worldview NAME]",
        options: [
            .value("state", "FILE", "Write the merged state to FILE (atomically)."),
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            ReportFiles.formatOption,
            .flag("lenient", "Count tentative unlocks too."),
            .value("time-zone", "NAME", "The IANA zone the states were made with (default: the first state's)."),
            .value("utc-offset", "±HH:MM", "The fixed offset the states were made with (default: the first state's)."),
            .flag("include-passed-through", "Count regions only crossed at vehicle speed too."),
            .flag("include-plans", "The states were made with --include-plans."),
            .value("explore-max-speed", "KMH", "The --explore-max-speed the states were made with (default 30)."),
            .value("badges", "FILE", "Report each badge of FILE as classify --badges does; the merged state keeps the highest percent any state reported."),
            .value("familiarity-levels", "L,B,G", "The --familiarity-levels the states were made with (default 1,5,20)."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            TableSearch.worldviewOption,
        ],
        discussion: """
        Each STATE is a file written by 'unlocks classify --state'. Merging is associative and
        order-free (the union of the inputs, each with its own contribution; the report is computed
        from them), so it equals the one a single run over all the shards' inputs would give,
        overlapping inputs in different shards counted once. An input in two states counts once
        when both read it alike (a shard given twice); at one path but read differently (another
        datum) it is refused, naming both; copies at two paths follow classify's rule (the path
        first in byte order is read, the other is its duplicate). Each STATE
        must be a regular file of this state version with numbers in range (docs/report-format.md,
        "State and shards"); sums that would overflow are refused. --state and --out must differ. Every state
        must have been made with the zone given, by default the first state's (days are local days): a
        state made in another zone is an error naming both.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "give the state files to merge") }
        let format = try ReportFiles.format(arguments)
        var options = try RuleOptions.parse(arguments)
        try ReportFiles.refuseSameFile(state: arguments.value("state"), out: arguments.value("out"))
        try ReportFiles.refuseInputs([("--out", arguments.value("out")), ("--state", arguments.value("state"))], named: arguments.positionals)
        // The state written is locked as classify locks it, so a classify run on it waits.
        let lock = try arguments.value("state").map({ try StateFile.Lock(statePath: $0, waiting: reportError) })
        let tables = try TableSearch.tables(arguments)
        let badges = try arguments.value("badges").map { try ReportFiles.badgeCatalog($0) }
        var merged = UnlockLedger()
        var owner: [String: String] = [:]
        for path in arguments.positionals {
            guard let bytes = try StateFile.read(path) else { throw StateError(path: path, reason: "no such file") }
            if path == arguments.positionals.first { RuleOptions.takeZone(of: bytes, into: &options, arguments) }
            let ledger = try LedgerState.decode(bytes, path: path, options: options, tables: tables)
            // An input in two states at one path counts once when both read it alike (a shard
            // given twice, shards that overlap); read differently (another datum, other rules) the
            // result would depend on the order of the states, so it is refused. At two paths (a
            // copy in each shard), the copies rule decides, as one run over both would.
            for (fingerprint, input) in ledger.inputs where input.status != .skipped {
                guard let ours = merged.inputs[fingerprint], ours.status != .skipped, ours.path == input.path else { continue }
                if ours != input || merged.contributions[fingerprint] != ledger.contributions[fingerprint] {
                    throw StateError(path: path, reason: "input \(input.path) is also in \(owner[fingerprint] ?? "another state"), read differently there (datum or rules); shards must agree on a shared input")
                }
            }
            Copies.merge(ledger, into: &merged)
            for (fingerprint, input) in ledger.inputs where input.status != .skipped { owner[fingerprint] = owner[fingerprint] ?? path }
        }
        var report: ClassifyReport
        do {
            report = try ClassifyReport(ledger: merged, tables: tables, options: options, lenient: arguments.flags.contains("lenient"),
                                        includePassedThrough: arguments.flags.contains("include-passed-through"))
        } catch {
            throw StateError(path: arguments.positionals.joined(separator: ", "), reason: "\(error) (the states' numbers are too large to add)")
        }
        if let badges { report.badges = badges.progress(in: report, reported: &merged.reportedBadgePercents) }
        if let statePath = arguments.value("state") {
            try AtomicFile.write(LedgerState.encode(merged, options: options, tables: tables), to: statePath)
        }
        withExtendedLifetime(lock) {}
        try ReportFiles.emit(report, format: format, to: arguments.value("out"))
        return .success
    }
}
