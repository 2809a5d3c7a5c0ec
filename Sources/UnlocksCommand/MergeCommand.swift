import Foundation
import Intake
import LogbookStore
import RegionTables
import Unlocks

/// `unlocks merge`: combines state files of shards classified separately into one state and report.
enum MergeCommand {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Merge classify state files of shards (overlapping or not) into one state and report.",
        usage: "STATE... [--state FILE] [--out FILE] [--format json|text] [--language CODE] [--lenient] [--include-passed-through] [--include-plans] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--badges FILE] [--tables DIR] [--worldview NAME]",
        options: [
            .value("state", "FILE", "Merge into the logbook FILE (created when missing), each shard in one transaction."),
            LogbookAccess.keyOption,
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            ReportFiles.formatOption,
            ReportFiles.languageOption,
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

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "give the logbooks (or state files) to merge") }
        let format = try ReportFiles.format(arguments)
        let statePath = arguments.value("state")
        try ReportFiles.refuseSameFile(state: statePath, out: arguments.value("out"))
        try ReportFiles.refuseInputs([("--out", arguments.value("out")), ("--state", statePath)], named: arguments.positionals)
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let badges = try arguments.value("badges").map { try ReportFiles.badgeCatalog($0) }
        // The rules: the merged logbook's own, else the first shard's, with those given over them.
        let first = try Logbook.storedRules(at: URL(fileURLWithPath: arguments.positionals[0]), locator: locator)
        let logbook: Logbook
        if let statePath, try Logbook.storedRules(at: URL(fileURLWithPath: statePath), locator: locator) != nil {
            logbook = try LogbookAccess.open(statePath, arguments, locator: locator)
        } else {
            let rules = try RuleOptions.parse(arguments, base: first ?? ClassifyOptions())
            logbook = statePath == nil ? try Logbook(inMemoryWith: locator, rules: rules)
                : try Logbook(at: URL(fileURLWithPath: try LogbookAccess.resolve(statePath!)), locator: locator,
                              configuration: Logbook.Configuration(rules: rules, key: try LogbookAccess.key(arguments)))
        }
        let options = ReportOptions(lenient: arguments.flags.contains("lenient"), includePassedThrough: arguments.flags.contains("include-passed-through"))
        for path in arguments.positionals {
            guard FileManager.default.fileExists(atPath: path) else { throw LogbookError(.notALogbook, path: path, reason: "no such file") }
            try await logbook.merge(contentsOf: URL(fileURLWithPath: path), report: options)
        }
        var reportOptions = options
        reportOptions.badges = badges
        var report = try await logbook.report(reportOptions)
        report.changes = nil
        try ReportFiles.emit(report, format: format, to: arguments.value("out"), arguments: arguments)
        return .success
    }
}
