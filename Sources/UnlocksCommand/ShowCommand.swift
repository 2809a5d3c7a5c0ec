import Foundation
import LogbookStore
import RegionTables
import Tracks
import Unlocks

/// `unlocks show`: the report of a saved logbook, without reading any input again.
enum ShowCommand {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Print the report of a logbook made by classify --state, without the inputs.",
        usage: "STATE [--since DATE] [--until DATE] [--out FILE] [--format json|text] [--language CODE] [--lenient] [--include-passed-through] [--badges FILE] [--state-key FILE] [--tables DIR] [--worldview NAME]",
        options: [
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            .value("since", "DATE", "Show the period from local day DATE (YYYY-MM-DD, in the logbook's zone) on instead of the whole report."),
            .value("until", "DATE", "Show the period up to local day DATE (inclusive) instead of the whole report."),
            ReportFiles.formatOption,
            ReportFiles.languageOption,
            .flag("lenient", "Count tentative unlocks too."),
            .flag("include-passed-through", "Count regions only crossed at vehicle speed too."),
            .value("badges", "FILE", "Report each badge of FILE as classify --badges does (the percents reported are kept in the logbook)."),
            LogbookAccess.keyOption,
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            TableSearch.worldviewOption,
        ],
        discussion: """
        STATE is a logbook (or a state file of the previous format, which is migrated first). The
        report is the one the last classify --state printed, apart from 'changes': every input
        with its status, the unlocks, metrics, days, years, progress and explorer figures, in the
        logbook's own rules (its time zone, explore speed, plans, familiarity levels and
        worldview). Nothing is read but the logbook.

        With --since and/or --until, the period instead (docs/report-format.md, "A period"): its
        recorded days, the distance and time counted on them, what was first visited in it
        (unlocks, cells, tiles), every region with days in it (new or not), and its days.
        """
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.count == 1 else { throw UsageError(message: "give one logbook to show (a file made by classify --state)") }
        let path = arguments.positionals[0]
        let format = try ReportFiles.format(arguments)
        try ReportFiles.refuseSameFile(state: path, out: arguments.value("out"))
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let badges = try arguments.value("badges").map { try ReportFiles.badgeCatalog($0) }
        let since = try RuleOptions.day(arguments, "since"), until = try RuleOptions.day(arguments, "until")
        if let since, let until, since > until {
            throw UsageError(message: "--since \(arguments.value("since")!) is after --until \(arguments.value("until")!)")
        }
        let logbook = try LogbookAccess.open(path, arguments, locator: locator, create: false)
        let report = try await logbook.report(ReportOptions(lenient: arguments.flags.contains("lenient"),
                                                            includePassedThrough: arguments.flags.contains("include-passed-through"), badges: badges))
        if since != nil || until != nil {
            let period = report.period(since: since, until: until)
            try ReportFiles.write(format == .json ? period.json().rendered() + "\n" : EscapedName.printable(period.text(countryNames: try ReportFiles.countryNames(arguments)), keep: ["\t", "\n"]),
                                  to: arguments.value("out"))
            return .success
        }
        try ReportFiles.emit(report, format: format, to: arguments.value("out"), arguments: arguments)
        return .success
    }
}
