import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import TrackArchives
import Tracks
import Unlocks

/// `unlocks classify`: a track archive in, the unlock ledger, explored area and badge metrics out.
enum ClassifyCommand {
    enum Format: String, CaseIterable { case json, text }

    static let spec = CommandSpec(
        name: "classify",
        abstract: "Classify a track archive into unlocks, explored area and badge metrics.",
        usage: "PATH...|- [--out FILE] [--format json|text] [--lenient] [--include-virtual] [--include-plans] [--include-passed-through] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--datum wgs84|gcj02|bd09] [--datum-for GLOB=DATUM]... [--state FILE] [--badges FILE] [--tables DIR] [--jobs N]",
        options: [
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            .value("format", "FORMAT", "json (default) or text (a summary for a terminal)."),
            .flag("lenient", "Count tentative unlocks (edge-only or border-straddling evidence) too."),
            .flag("include-plans", "Count plans (GPX routes, tracks with no time at all), as tentative untimed evidence; by default they are listed as planned and unlock nothing."),
            .flag("include-passed-through", "Count regions only crossed at vehicle speed (listed as passedThrough) as unlocked."),
            .value("explore-max-speed", "KMH", "Fastest leg that explores cells and makes its ends visited places (default 30 km/h: walking, running, cycling)."),
            .value("familiarity-levels", "L,B,G", "Effective passes a cell needs to be lit, bright and gold (default 1,5,20; a pass counts when over 4 h after the last counted one, moving, accuracy under 65 m)."),
            .flag("include-virtual", "Read activities an export labels virtual (Strava VirtualRide, VirtualRun: Zwift and the like), skipped by default."),
            .value("time-zone", "NAME", "IANA zone (e.g. America/New_York, daylight saving included) of days, streaks, printed times and CSV times written without an offset (default: +08:00, China's clock)."),
            .value("utc-offset", "±HH:MM", "A fixed offset instead of --time-zone (no daylight saving; default +08:00)."),
            .value("datum", "DATUM", "Datum of the input coordinates: wgs84 (GPS, default), gcj02 or bd09 (Chinese map apps)."),
            .value("datum-for", "GLOB=DATUM", "Read the inputs whose path matches GLOB in DATUM (repeatable; the first match wins; docs/datum.md)."),
            .value("state", "FILE", "Keep the ledger in FILE between runs: inputs already in it (by a hash of their whole content) are skipped, new ones added. Locked (FILE.lock) while a run updates it: a second run waits. Not the same file as --out."),
            .value("badges", "FILE", "Report each badge of FILE (JSON: id, track, metric, target; docs/badges.md) with its percent, and the highest percent ever reported through --state (for Game Center, which drops lower values)."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default: found next to the executable, in ../share/adminunlocks, or in $ADMINUNLOCKS_TABLES; README)."),
            .value("jobs", "N", "Classify up to N inputs at once, each on a core of its own (default: this machine's active processors; 1 reads one input after another). The report and the state are the same bytes for every N."),
        ],
        discussion: """
        PATH may be files, folders (read recursively, in name order, each file once however many
        links reach it) and .zip or .gz archives (read as streams, never unpacked to disk; a zip
        inside a zip is read too, one level deep). '-' is standard input, copied to a temporary
        file first and recognised by its first bytes (gzip, zip, or a track format by content). Formats: GPX 1.0/1.1, FIT, TCX, KML/KMZ, NMEA 0183, CSV
        (lat,lon[,time][,accuracy] and loggers' dialects; times without an offset are in
        --time-zone), Google Takeout Records.json and Semantic Location History, Google Timeline
        exports, the app backup JSON and GeoJSON (docs/input-formats.md). In folders and archives
        names ending in .gpx, .fit, .tcx, .kml, .nmea, .csv, .json or .geojson (optionally .gz) are
        read, .txt and .log files by their content, .zip and .kmz opened. Strava bulk exports, Garmin
        "Export Your Data" and Apple Health exports are recognised by their layout: their tracks
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
        (daylight saving included; default +08:00, China's clock). Each input is read in --datum
        unless a --datum-for pattern matches its path; a file whose creator names a Chinese map app
        (GCJ-02 or BD-09) gets a note and a datumHint in the report, never a silent switch. Exit
        code 3 when a track file was rejected or read in part, or when no input held a single
        track point; skipped files never fail a run.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "give at least one file, folder or archive to classify") }
        let format = try arguments.choice("format", as: Format.self) ?? .json
        var options = try ruleOptions(arguments)
        options.inputDatum = try arguments.choice("datum", as: Datum.self) ?? .wgs84
        let datums = try DatumPatterns(arguments.values["datum-for"] ?? [], fallback: options.inputDatum)
        let lenient = arguments.flags.contains("lenient")
        // Margins matter for evidence only up to the worst accuracy a kept point may have (50 m),
        // but a wider radius lets consecutive points reuse a lookup for longer (see
        // TrackClassifier.place): 120 m measured fastest on walks (Scripts/bench classify).
        let locator = try RegionLocator(directory: try TableSearch.directory(arguments), marginRadius: 120)
        let badges = try arguments.value("badges").map { try badgeCatalog($0) }

        let statePath = arguments.value("state")
        try refuseSameFile(state: statePath, out: arguments.value("out"))
        // Held from reading the state to replacing it, so a concurrent run waits instead of
        // replacing the state with one that lacks this run's inputs.
        let lock = try statePath.map(StateFile.Lock.init(statePath:))
        let found = try InputWalk.files(under: arguments.positionals)
        let includeVirtual = arguments.flags.contains("include-virtual")
        let jobs = try jobCount(arguments)
        // Reading and classifying overlap on two threads within an input whenever there is a second core.
        let threaded = ProcessInfo.processInfo.activeProcessorCount > 1
        // The state's ledger goes straight into the classifier: a second reference to it would
        // make the first new cell copy every stored one.
        var run = ClassifyRun(classifier: TrackClassifier(locator: locator, options: options,
                                                          ledger: try statePath.flatMap(StateFile.read).map {
                                                              try LedgerState.decode($0, path: statePath!, options: options, tables: locator.tables)
                                                          } ?? UnlockLedger()),
                              threaded: threaded, found: found, includeVirtual: includeVirtual,
                              timeZone: options.timeZone, datums: datums)
        if jobs == 1 {
            for file in found { run.classify(file) }
        } else {
            let state = run.sink.classifier.knownPaths, shown = PointsInFlight()
            run.classify(found, jobs: jobs, inFlight: shown) { job in
                var worker = ClassifyRun(readingFor: TrackClassifier(locator: locator, options: options), threaded: threaded,
                                         includeVirtual: includeVirtual, timeZone: options.timeZone, datums: datums)
                return worker.read(alone: job, skipping: state, counting: shown)
            }
        }
        run.progress.clear()
        var ledger = run.takeLedger()
        var report = try ClassifyReport(ledger: ledger, tables: locator.tables, options: options, lenient: lenient,
                                        includePassedThrough: arguments.flags.contains("include-passed-through"))
        if let badges { report.badges = badges.progress(in: report, reported: &ledger.reportedBadgePercents) }

        if let statePath {
            try AtomicFile.write(LedgerState.encode(ledger, options: options, tables: locator.tables), to: statePath)
        }
        withExtendedLifetime(lock) {}
        try emit(report, format: format, to: arguments.value("out"))
        return run.conclude(ledger, includePlans: options.includePlans)
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

    /// The options that shape the ledger, from the command line (shared with `merge`).
    static func ruleOptions(_ arguments: ParsedArguments) throws -> ClassifyOptions {
        var options = ClassifyOptions()
        options.timeZone = try timeZone(arguments)
        if let text = arguments.value("explore-max-speed") {
            guard let kmh = Double(text), kmh.isFinite, kmh > 0, kmh <= 1000 else {
                throw UsageError(message: "--explore-max-speed '\(text)' is not a speed in km/h between 0 and 1000 (e.g. 30)")
            }
            options.exploreMaxSpeed = kmh / 3.6
        }
        options.includePlans = arguments.flags.contains("include-plans")
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

    /// `--time-zone NAME` or `--utc-offset ±HH:MM` (not both), else +08:00.
    static func timeZone(_ arguments: ParsedArguments) throws -> LocalTimeZone {
        let name = arguments.value("time-zone"), offset = arguments.value("utc-offset")
        if name != nil, offset != nil { throw UsageError(message: "give --time-zone or --utc-offset, not both") }
        if let name {
            guard let zone = LocalTimeZone(identifier: name) else {
                throw UsageError(message: "--time-zone '\(name)' is not a time zone of the tz database (an IANA name such as Europe/Berlin or America/New_York; on Linux install tzdata)")
            }
            return zone
        }
        if let offset {
            guard let minutes = parseOffset(offset) else { throw UsageError(message: "--utc-offset '\(offset)' is not ±HH:MM (e.g. +08:00, -05:30)") }
            return .fixed(minutesEast: minutes)
        }
        return .china
    }

    /// Writes the report as JSON or text to `out` (atomically) or to standard output.
    static func emit(_ report: ClassifyReport, format: Format, to out: String?) throws {
        let text = format == .json ? report.json().rendered() + "\n" : report.text()
        if let out {
            try AtomicFile.write(text, to: out)
        } else {
            let output = BufferedOutput()
            try output.write(text)
            try output.flush()
        }
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

/// The sink readers fill during a run: the classifier, plus progress and the first few
/// unreadable records of each input on standard error.
struct RunSink: TrackSink {
    var classifier: ClassifierFeed
    let progress: ProgressLine
    let messages: RunMessages
    /// A worker's (`classify --jobs`): where it counts its points as it reads, for the
    /// progress line of the run it reads for.
    var pointsInFlight: PointsInFlight?
    /// What this sink has added to ``pointsInFlight``.
    var pointsShown: Int64 = 0
    var points: Int64 = 0
    /// Points (readable or not) of the current input, and of those the unreadable ones.
    var pointsInInput = 0
    var unreadableInInput = 0
    var problemsShown = 0
    static let problemsPerInput = 5

    mutating func segmentBreak() { classifier.segmentBreak() }

    mutating func point(_ point: TrackPoint) {
        classifier.point(point)
        points += 1
        pointsInInput += 1
        if points & 0xFFFF == 0 {
            if progress.enabled { progress.update(points: points) }
            if let pointsInFlight {
                pointsInFlight.add(0x10000)
                pointsShown += 0x10000
            }
        }
    }

    /// The input being read, its datum, and whether its datum hint was shown.
    var inputPath = ""
    var inputDatum = Datum.wgs84
    var hinted = false

    /// Passes the annotation on; a creator naming a Chinese map app is noted on standard error
    /// (the classifier records the same hint in the report).
    mutating func annotate(_ annotation: TrackAnnotation) {
        classifier.annotate(annotation)
        if case let .creator(name) = annotation, !hinted, let hint = DatumHint(creator: name), hint.datum != inputDatum {
            hinted = true
            messages.say("note: \(inputPath): \(hint.reason); read as \(inputDatum.displayName): if its points are \(hint.datum.displayName), classify it with --datum-for '\(inputPath)=\(hint.datum.rawValue)'")
        }
    }

    mutating func unreadablePoint(_ problem: InputError) {
        classifier.unreadablePoint(problem)
        points += 1
        pointsInInput += 1
        unreadableInInput += 1
        problemsShown += 1
        if problemsShown <= Self.problemsPerInput {
            messages.say(problem.description + " (point skipped)")
        }
    }
}

/// One `classify` run over the inputs: decides for each file (and each zip entry) whether it is
/// read and with which reader, or skipped and why; the reader feeds the classifier (on a thread
/// of its own when `threaded`); `takeLedger` waits for it. Every file met leaves a record.
struct ClassifyRun {
    var sink: RunSink
    var progress: ProgressLine { sink.progress }
    /// `--include-virtual`: read activities a bundle labels virtual.
    var includeVirtual = false
    /// Skipped files of this run, by reason (for the note on standard error).
    var skippedByReason: [String: Int] = [:]
    var alreadyCounted = 0
    var failedInputs = 0
    /// The export bundles among the walk's files (with Strava's labels).
    private(set) var bundles: [ExportBundle] = []

    /// What becomes of one file or entry, decided from its name and its bundle.
    enum Plan {
        /// Passed over; the label is kept in its record (a virtual activity's type and name).
        case skip(SkipReason, ActivityLabel? = nil)
        case read(TrackFormat?, ActivityLabel?)
        case archive
    }

    /// `--time-zone`: the zone of CSV times written without an offset.
    let timeZone: LocalTimeZone
    /// `--datum`, `--datum-for`: each input's datum.
    let datums: DatumPatterns

    init(classifier: TrackClassifier, threaded: Bool, found: [InputWalk.Found], includeVirtual: Bool = false, timeZone: LocalTimeZone, datums: DatumPatterns) {
        self.timeZone = timeZone
        self.datums = datums
        let progress = ProgressLine(inputsTotal: found.count, bytesTotal: found.reduce(0) { $0 + $1.size })
        sink = RunSink(classifier: ClassifierFeed(classifier, threaded: threaded), progress: progress, messages: RunMessages(progress: progress))
        self.includeVirtual = includeVirtual
        bundles = ExportBundle.recognise(found.filter { !$0.explicit && $0.skipReason == nil }.map(\.path.display))
        for (index, bundle) in bundles.enumerated() where bundle.kind == .strava {
            guard let table = found.first(where: { $0.path.display == bundle.root + "activities.csv" }) else { continue }
            bundles[index].labels = labels(from: { try table.path.openFile() }, path: table.path.display)
        }
    }

    /// A run that reads single inputs for another (`classify --jobs`, ``read(alone:skipping:)``):
    /// no progress line, its notes kept for the other run to show at the input's turn.
    init(readingFor classifier: TrackClassifier, threaded: Bool, includeVirtual: Bool, timeZone: LocalTimeZone, datums: DatumPatterns) {
        self.timeZone = timeZone
        self.datums = datums
        self.includeVirtual = includeVirtual
        let progress = ProgressLine(inputsTotal: 0, bytesTotal: 0, enabled: false)
        sink = RunSink(classifier: ClassifierFeed(classifier, threaded: threaded), progress: progress, messages: RunMessages(progress: progress, keep: true))
    }

    /// The ledger once every input read has been classified.
    mutating func takeLedger() -> UnlockLedger {
        sink.classifier.takeLedger()
    }

    mutating func classify(_ file: InputWalk.Found) {
        defer { progress.finished(inputBytes: file.size, points: sink.points) }
        let path = file.path.display
        if let reason = file.skipReason {
            return skip(path, reason, duplicateOf: file.duplicateOf)
        }
        let role = file.explicit ? .ordinary : ExportBundle.role(of: path, in: bundles)
        let name = file.formatName ?? path
        switch plan(name: name, role: role, explicit: file.explicit, depth: 0) {
        case let .skip(reason, label):
            skip(path, reason, label: label)
        case .archive:
            classifyArchive(file)
        case let .read(format, label):
            guard let fingerprint = fingerprint(file, format: format?.rawValue ?? "unknown") else { return }
            guard isNew(path, fingerprint: fingerprint) else { return }
            read(file, name: name, fingerprint: fingerprint, format: format, label: label)
        }
    }

    /// Reads a file found in the walk (not an archive) whose fingerprint is new.
    mutating func read(_ file: InputWalk.Found, name: String, fingerprint: String, format: TrackFormat?, label: ActivityLabel?) {
        let path = file.path.display
        do {
            try read(try file.path.openFile(), name: name, path: path, fingerprint: fingerprint, format: format, label: label, explicit: file.explicit)
        } catch {
            record(InputRecord(path: path, fingerprint: fingerprint, format: format?.rawValue ?? "unknown"), failure: Self.inputError(error, path: path))
        }
    }

    /// Decides from the name (lower-cased suffixes) and the bundle's role; `depth` is how many
    /// archives the name is inside.
    func plan(name: String, role: ExportBundle.Role, explicit: Bool, depth: Int) -> Plan {
        let lower = name.lowercased()
        let base = lower.split(separator: "/").last.map(String.init) ?? lower
        if lower.hasPrefix("__macosx/") || lower.contains("/__macosx/") || base.hasPrefix("._") { return .skip(.macResourceFork) }
        var label: ActivityLabel?
        switch role {
        case let .metadata(kind): return .skip(.metadata(kind))
        case .activityTable: return .skip(.metadata(.strava))
        case .plannedRoute: return .skip(.plannedRoute)
        case let .track(given): label = given
        case .ordinary: break
        }
        if let label, label.isVirtual, !includeVirtual { return .skip(.virtualActivity, label) }
        // A KMZ is a zip whose KML documents are its tracks.
        if lower.hasSuffix(".zip") || lower.hasSuffix(".kmz") { return depth >= 2 ? .skip(.nestedTooDeep) : .archive }
        // `.txt` and `.log`: the content decides (CSV, NMEA, or no track).
        if TrackFormat.readsByContent(name) { return .read(nil, label) }
        if let format = TrackFormat(name: name) { return .read(format, label) }
        return explicit ? .read(nil, label) : .skip(.notATrackFormat)
    }

    /// A zip archive: surveyed first (entry names, for the bundles it holds, and Strava's
    /// `activities.csv`), then each entry planned like a file in a folder and read as a stream,
    /// known by the archive's fingerprint and the entry's name (`#2` for a second entry of the
    /// same name). A zip inside it is walked as a stream in turn, one level deep.
    mutating func classifyArchive(_ file: InputWalk.Found) {
        let path = file.path.display
        guard let archiveFingerprint = fingerprint(file, format: "zip") else { return }
        let archive = ZipArchive(fileName: file.path.bytes, path: path)
        var names: [String] = []
        var tables: [String: [String: ActivityLabel]] = [:]
        do {
            try archive.forEachEntry { entry in
                names.append(entry.name)
                if entry.name == "activities.csv" || entry.name.hasSuffix("/activities.csv") {
                    tables[String(entry.name.dropLast("activities.csv".count))] = labels(from: { entry }, path: entry.path)
                }
            }
        } catch {
            return record(InputRecord(path: path, fingerprint: archiveFingerprint, format: "zip"), failure: Self.inputError(error, path: path))
        }
        var bundles = ExportBundle.recognise(names)
        for index in bundles.indices where bundles[index].kind == .strava {
            bundles[index].labels = tables[bundles[index].root] ?? [:]
        }
        walk(archive, fingerprint: archiveFingerprint, depth: 1, bundles: bundles)
    }

    /// Plans and reads each entry of `archive`; a damaged archive is recorded as failed (the
    /// entries read before the damage stay counted).
    mutating func walk(_ archive: ZipArchive, fingerprint archiveFingerprint: String, depth: Int, bundles: [ExportBundle]) {
        do {
            try archive.forEachEntry { entry in
                let fingerprint = archiveFingerprint + ":" + entry.name + (entry.occurrence > 1 ? "#\(entry.occurrence)" : "")
                if entry.hasUnreadableName { return skip(entry.path, .unreadableName) }
                if entry.skipReason != nil {
                    let reason: SkipReason = entry.isEncrypted ? .encrypted : entry.isRegularFile ? .archiveFormatNotRead : .notARegularFile
                    return skip(entry.path, reason)
                }
                switch plan(name: entry.name, role: ExportBundle.role(of: entry.name, in: bundles), explicit: false, depth: depth) {
                case let .skip(reason, label):
                    skip(entry.path, reason, label: label)
                case .archive:
                    walk(ZipArchive(streaming: entry, path: entry.path), fingerprint: fingerprint, depth: depth + 1, bundles: [])
                case let .read(format, label):
                    guard isNew(entry.path, fingerprint: fingerprint) else { return }
                    do {
                        try read(entry, name: entry.name, path: entry.path, fingerprint: fingerprint, format: format, label: label, explicit: false)
                    } catch {
                        record(InputRecord(path: entry.path, fingerprint: fingerprint, format: format?.rawValue ?? "unknown"),
                               failure: Self.inputError(error, path: entry.path))
                    }
                }
            }
        } catch {
            record(InputRecord(path: archive.path, fingerprint: archiveFingerprint, format: "zip"), failure: Self.inputError(error, path: archive.path))
        }
    }

    /// Opens `source` (decompressed when `name` ends in `.gz`), recognises the format when the
    /// name did not (by the first bytes) and the tool's own outputs, and reads it.
    mutating func read<Source: ByteSource>(_ source: Source, name: String, path: String, fingerprint: String,
                                           format: TrackFormat?, label: ActivityLabel?, explicit: Bool) throws {
        if name.lowercased().hasSuffix(".gz") {
            try read(replaying: ReplayingSource(try GzipSource(wrapping: source, path: path)), path: path, fingerprint: fingerprint,
                     format: format, label: label, explicit: explicit)
        } else {
            try read(replaying: ReplayingSource(source), path: path, fingerprint: fingerprint, format: format, label: label, explicit: explicit)
        }
    }

    private mutating func read<Source: ByteSource>(replaying source: ReplayingSource<Source>, path: String, fingerprint: String,
                                                   format: TrackFormat?, label: ActivityLabel?, explicit: Bool) throws {
        if OwnOutput.recognises(source.prefix) { return skip(path, .ownOutput) }
        guard let format = format ?? TrackFormat(name: path, content: source.prefix[...], explicit: explicit) else {
            return skip(path, .notATrackFormat)
        }
        read(source, format: format, path: path, fingerprint: fingerprint, explicit: explicit, label: label)
    }

    /// The file's fingerprint, or nil when it cannot be opened (a dangling link, no permission):
    /// then it is recorded as rejected, by its path.
    mutating func fingerprint(_ file: InputWalk.Found, format: String) -> String? {
        do {
            return try InputWalk.fingerprint(file.path, size: file.size)
        } catch {
            let path = file.path.display
            record(InputRecord(path: path, fingerprint: InputRecord.pathKey(path: path), format: format), failure: Self.inputError(error, path: path))
            return nil
        }
    }

    /// False (and the file accounted) when an input with these bytes is in the ledger already:
    /// from the state at the same path ("already in the state"), else a `duplicate`.
    mutating func isNew(_ path: String, fingerprint: String) -> Bool {
        guard let known = sink.classifier.knownPath(fingerprint) else { return true }
        if known == path {
            alreadyCounted += 1
        } else {
            skip(path, .duplicate, duplicateOf: known)
        }
        return false
    }

    /// The notes on standard error once the report is written, and the exit code: 3 when a
    /// track file of this run was rejected or read in part, or when the report holds no track
    /// point at all (nothing to classify: say why rather than report an empty archive as fine).
    func conclude(_ ledger: UnlockLedger, includePlans: Bool = false) -> ExitCode {
        var parts: [String] = []
        let skipped = skippedByReason.values.reduce(0, +)
        if skipped > 0 {
            parts.append((skipped == 1 ? "1 file skipped (" : "\(skipped) files skipped (")
                         + skippedByReason.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")")
        }
        if alreadyCounted > 0 { parts.append("\(alreadyCounted) input\(alreadyCounted == 1 ? "" : "s") already in the state") }
        let planned = ledger.inputs.values.filter { $0.status == .planned }.count
        if planned > 0 && !includePlans {
            parts.append("\(planned) input\(planned == 1 ? " is a plan" : "s are plans") (a route or no times), unlocking nothing; --include-plans counts \(planned == 1 ? "it" : "them")")
        }
        if !parts.isEmpty { reportError("note: " + parts.joined(separator: ", ")) }
        let inputs = ledger.inputs.values
        if inputs.allSatisfy({ $0.pointsRead == 0 }) {
            let read = inputs.filter { $0.status != .skipped }.count, pins = inputs.reduce(0) { $0 + $1.pins }
            reportError("no track points found in any input (\(read) read, \(inputs.count - read) skipped"
                        + (pins > 0 ? ", \(pins) pins" : "") + "; the report lists every file)")
            return .inputsRejected
        }
        return failedInputs > 0 ? .inputsRejected : .success
    }

    /// Records a file passed over.
    mutating func skip(_ path: String, _ reason: SkipReason, duplicateOf: String? = nil, label: ActivityLabel? = nil) {
        let format = TrackFormat(name: path)?.rawValue
            ?? (path.lowercased().hasSuffix(".zip") ? "zip" : "unknown")
        var record = InputRecord.skipped(path: path, format: format, reason: reason.description, duplicateOf: duplicateOf)
        record.activityType = label?.type
        record.activityName = label?.name
        sink.classifier.recordSkipped(record)
        skippedByReason[reason.description, default: 0] += 1
    }

    /// Strava's labels from the `activities.csv` that `open` gives; a table that cannot be read
    /// is named on standard error and labels nothing.
    private func labels<Source: ByteSource>(from open: () throws -> Source, path: String) -> [String: ActivityLabel] {
        do {
            return try StravaActivityTable.labels(try open(), path: path)
        } catch {
            sink.messages.say("note: \(error)")
            return [:]
        }
    }

    /// Reads one stream with the reader for `format`; an error keeps the points before it.
    ///
    /// A JSON file found in a folder or archive (not named on the command line) whose structure is
    /// none of the track formats is skipped, not rejected: exports such as Google Takeout hold
    /// many JSON files that are not tracks.
    mutating func read<Source: ByteSource>(_ source: Source, format: TrackFormat, path: String, fingerprint: String, explicit: Bool = true, label: ActivityLabel? = nil) {
        var begun = InputRecord(path: path, fingerprint: fingerprint, format: format.rawValue)
        begun.activityType = label?.type
        begun.activityName = label?.name
        begun.datum = datums.datum(for: path)
        sink.classifier.begin(begun)
        sink.inputPath = path
        sink.inputDatum = begun.datum ?? .wgs84
        sink.hinted = false
        sink.problemsShown = 0
        sink.pointsInInput = 0
        sink.unreadableInInput = 0
        var formatName = format.rawValue
        var failed = false
        do {
            switch format {
            case .gpx: try GPXReader.read(source, path: path, into: &sink)
            case .csv: try TrackCSVReader.read(source, path: path, timeZone: timeZone, into: &sink)
            case .json: formatName = try "json/" + JSONTrackReader.read(source, path: path, into: &sink).rawValue
            case .fit: try FITReader.read(source, path: path, into: &sink)
            case .tcx: try TCXReader.read(source, path: path, into: &sink)
            case .kml: try KMLReader.read(source, path: path, into: &sink)
            case .nmea: try NMEAReader.read(source, path: path, into: &sink)
            case .kmz: throw InputError(path: path, reason: "a KMZ is a zip archive: its KML documents are read as the archive's entries")
            }
        } catch {
            if !explicit, let problem = error as? InputError, problem.reason.hasSuffix(JSONTrackReader.unknownStructure),
               sink.pointsInInput == 0 {
                sink.classifier.discard()
                skip(path, .notATrackJSON)
                return
            }
            // The report names the input already; its error says where and what.
            if let problem = error as? InputError {
                sink.classifier.fail((problem.line.map { "line \($0): " } ?? "") + problem.reason)
            } else {
                sink.classifier.fail("\(error)")
            }
            failedInputs += 1
            failed = true
            sink.messages.say("\(error)")
        }
        if sink.problemsShown > RunSink.problemsPerInput {
            sink.messages.say("\(path): \(sink.problemsShown - RunSink.problemsPerInput) more unreadable points")
        }
        if sink.unreadableInInput > 0, sink.unreadableInInput == sink.pointsInInput, !failed {
            // Read to the end, but nothing in it could be used: not a file that was read.
            let reason = "no readable point: \(sink.unreadableInInput) unreadable"
            sink.classifier.fail(reason)
            failedInputs += 1
            sink.messages.say("\(path): \(reason)")
        }
        sink.classifier.setFormat(formatName)
        sink.classifier.finish(fingerprint, path: path)
    }

    /// Readers and sources throw `InputError`; anything else is named after the input all the same.
    static func inputError(_ error: Error, path: String) -> InputError {
        error as? InputError ?? InputError(path: path, reason: "\(error)")
    }

    /// An input that could not even be opened.
    mutating func record(_ record: InputRecord, failure: InputError) {
        sink.classifier.begin(record)
        sink.classifier.fail(failure.reason)
        sink.classifier.finish(record.fingerprint, path: record.path)
        failedInputs += 1
        sink.messages.say(failure.description)
    }
}
