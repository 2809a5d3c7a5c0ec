import Foundation
import Intake
import LogbookStore
import RegionTables
import Tracks
import Unlocks

/// `unlocks classify`: a track archive in, the unlock ledger, explored area and badge metrics out.
/// The intake (`Intake`) does the work; this is the command line around it.
enum ClassifyCommand {
    static let spec = CommandSpec(
        name: "classify",
        abstract: "Classify a track archive into unlocks, explored area and badge metrics.",
        usage: "PATH...|- [--out FILE] [--format json|text] [--language CODE] [--lenient] [--include-virtual] [--include-plans] [--include-passed-through] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--since DATE] [--until DATE] [--datum wgs84|gcj02|bd09] [--datum-for GLOB=DATUM]... [--state FILE] [--badges FILE] [--tables DIR] [--worldview NAME] [--jobs N]",
        options: RuleOptions.classifyOptionSpecs,
        discussion: """
        PATH may be files, folders (read recursively, in name order, each file once however many
        links reach it) and .zip, .gz, .tar or .tgz archives (read as streams, never unpacked to
        disk; an archive inside an archive is read too, one level deep). '-' is standard input,
        copied to a temporary file first and recognised by its first bytes (gzip, zip, tar, or a
        track format by content). Of byte-identical copies, the path first in byte order is read. Formats: GPX 1.0/1.1, FIT, TCX, KML/KMZ, NMEA 0183, CSV
        (lat,lon[,time][,accuracy] and loggers' dialects; times without an offset are in
        --time-zone), Google Takeout Records.json and Semantic Location History, Google Timeline
        exports, the app backup JSON and GeoJSON (docs/input-formats.md). In folders and archives
        names ending in .gpx, .fit, .tcx, .kml, .nmea, .csv, .json or .geojson (optionally .gz) are
        read, .txt and .log files by their content (a .txt without coordinates is skipped as text), .zip,
        .kmz, .tar and .tgz opened. Strava bulk exports, Garmin "Export Your Data", Apple Health
        exports and Google Takeout are recognised by their layout: their tracks
        are read (Strava's labelled from activities.csv, virtual activities skipped), their
        metadata files skipped. Every other file is listed as skipped with the reason; the tool's
        own outputs (audit folders, reports, states) are recognised by content and skipped.

        Points are filtered (accuracy > 50 m, invalid, (0,0), duplicate times), split into
        segments at gaps over 5 minutes, flights removed, then located at every level. Only legs
        at human-powered speed (up to --explore-max-speed, 30 km/h) explore cells; a region
        whose points were all between faster legs (a car, a train) is listed as passedThrough,
        not unlocked, while the start and end of a segment and every slow leg are places
        visited. A leg with an untimed end is drawn and counted only up to 200 m and never adds
        time or days; untimed points are tentative. GPX routes and files with no time at all
        are plans: listed as planned, their points counted, unlocking nothing. The
        report (docs/report-format.md) lists every file met (read, partial, rejected, skipped or planned,
        with the reason), points kept and dropped by reason, unlocks per level with first visit
        and evidence, and the badge metrics. A file that cannot be read, or none of whose points
        is readable, is reported as 'unlocks: FILE:LINE: reason' (the points before an error are
        kept); every other file is still read. Days, streaks and printed times are in --time-zone
        (daylight saving included; default: the state's zone, else the system's, printed in the
        report). Each input is read in --datum
        unless a --datum-for pattern matches its path; a file whose creator names a Chinese map app
        (GCJ-02 or BD-09) gets a note and a datumHint in the report, never a silent switch. Exit
        code 3 when a track file was rejected or read in part, or when no input held a single
        track point; skipped files never fail a run.

        A run through --state reports first what it added to the state ('changes': regions
        newly unlocked and newly confirmed, explored area, tiles, familiar cells, badges). Each
        unlock has visitDays (local days with a ground point there; flights and vehicle
        crossings count none), lastVisit, stays (runs of consecutive days) and days per year
        (marked at 183); 'years' sums the days per year; 'progress' ranks regions by explored
        share, counts children unlocked and names the nearest city and county not unlocked
        (saying when the way crosses the sea). --since/--until DATE count only those local days'
        moments. Distance is split by movement: totalDistanceKilometers on foot or by bike,
        vehicleDistanceKilometers by car, train or boat, flightDistanceKilometers flown. A moment
        several inputs recorded counts once, evidence included, with the movement of the input
        that stands for it; Google's activity labels (IN_TRAIN, WALKING, FLYING) decide where
        given. The report is text on a terminal and JSON to a file, a pipe or --out.
        """
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard !arguments.positionals.isEmpty else {
            throw UsageError(message: "give at least one file, folder or archive to classify" + (arguments.value("state").map { " (to print the report of the logbook \($0) alone: unlocks show \($0))" } ?? ""))
        }
        for path in arguments.positionals where LogbookAccess.isLogbook(path) {
            reportError("note: \(path) is a logbook, not a track: 'unlocks show \(path)' prints its report, 'unlocks classify TRACKS --state \(path)' adds to it")
        }
        let format = try ReportFiles.format(arguments)
        // Margins matter for evidence only up to the worst accuracy a kept point may have (50 m),
        // but a wider radius lets consecutive points reuse a lookup for longer (see
        // LookupCache): 120 m measured fastest on walks (Scripts/bench classify).
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let badges = try arguments.value("badges").map { try ReportFiles.badgeCatalog($0) }
        let statePath = arguments.value("state")
        try ReportFiles.refuseSameFile(state: statePath, out: arguments.value("out"))
        let files = try CommandIntake.walk(arguments.positionals, outputs: [("--out", arguments.value("out")), ("--state", statePath)])
        let logbook = try LogbookAccess.open(statePath, arguments, locator: locator)
        let reportOptions = ReportOptions(lenient: arguments.flags.contains("lenient"),
                                          includePassedThrough: arguments.flags.contains("include-passed-through"), badges: badges)
        // A logbook or state of an earlier release: its inputs read again, so their states and provinces unlock.
        if statePath != nil, let upgraded = try await logbook.readAgainRecordedBeforeSubdivisions(report: reportOptions), !upgraded.reread.isEmpty {
            let added = upgraded.report.changes?.unlocked[.subdivision]?.count ?? 0
            reportError("read again \(upgraded.reread.count) input\(upgraded.reread.count == 1 ? "" : "s") recorded before states and provinces were unlocked: "
                        + "\(added) subdivision\(added == 1 ? "" : "s") unlocked" + (upgraded.keptAsTheyWere.isEmpty ? "" : "; \(upgraded.keptAsTheyWere.count) could not be read again and keep none"))
        }
        let result = try await CommandIntake.take(files, into: logbook, arguments: arguments, report: reportOptions)
        var report = result.report
        // `changes` is what a run through a state added; a run without one adds to nothing.
        if statePath == nil { report.changes = nil }
        try ReportFiles.emit(report, format: format, to: arguments.value("out"), arguments: arguments)
        return CommandIntake.conclude(result, includePlans: logbook.rules.includePlans)
    }
}
