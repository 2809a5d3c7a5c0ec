import ChinaDatum
import RegionTables
import Tracks
import Unlocks

/// One intake over sources: decides for each file (and each archive member) whether it is read
/// and with which reader, or skipped and why; the reader feeds the classifier (on a thread of
/// its own when ``IntakeOptions/overlapsReading``); ``finish()`` waits for it. Every file met
/// leaves a record. What `unlocks classify` does, for an app as for the CLI:
///
/// ```swift
/// var intake = IntakeRun(locator: locator, options: IntakeOptions())
/// try intake.take([.url(folder), .path(zipPath)])
/// let outcome = intake.finish()      // outcome.ledger → ClassifyReport, LedgerState
/// ```
public struct IntakeRun {
    var sink: IntakeSink
    let options: IntakeOptions
    /// For the workers' classifiers (nil: one input after another on this classifier).
    let locator: RegionLocator?
    let events: IntakeEvents
    var progress: ProgressTracker?
    /// Skipped files of this run, by reason.
    var skippedByReason: [SkipReason: Int] = [:]
    var alreadyCounted = 0
    var failedInputs = 0
    /// The export bundles among the walk's files (with Strava's labels).
    var bundles: [ExportBundle] = []

    /// A run that adds to `ledger` (a state's, or empty).
    public init(locator: RegionLocator, options: IntakeOptions, ledger: UnlockLedger = UnlockLedger(), events: IntakeEvents = IntakeEvents()) {
        self.init(classifier: TrackClassifier(locator: locator, options: options.classify, ledger: ledger), options: options,
                  events: events, locator: locator)
    }

    /// A run on a classifier of the caller's (the audit's, which watches its points): one input
    /// after another.
    package init(classifier: TrackClassifier, options: IntakeOptions, events: IntakeEvents, locator: RegionLocator? = nil) {
        self.options = options
        self.locator = locator
        self.events = events
        sink = IntakeSink(classifier: ClassifierFeed(classifier, threaded: options.overlapsReading),
                          messages: RunMessages(deliver: events.message), progress: nil)
    }

    /// A run that reads single inputs for another (`jobs` > 1, ``read(alone:skipping:)``): no
    /// progress, its messages kept for the other run to deliver at the input's turn.
    init(readingFor classifier: TrackClassifier, options: IntakeOptions) {
        self.options = options
        locator = nil
        events = IntakeEvents()
        sink = IntakeSink(classifier: ClassifierFeed(classifier, threaded: options.overlapsReading),
                          messages: RunMessages(deliver: { _ in }, keep: true), progress: nil)
    }

    /// Walks `sources` and takes in every file met, in order (``IntakeOptions/jobs`` at once).
    /// Throws only when a source cannot be walked at all (a path that does not exist).
    public mutating func take(_ sources: [IntakeSource]) throws(IntakeError) {
        take(try Self.walk(sources))
    }

    /// The files met under `sources` (a caller that writes into a folder it reads walks first).
    public static func walk(_ sources: [IntakeSource]) throws(IntakeError) -> [WalkedFile] {
        try InputWalk.files(of: sources)
    }

    /// Takes in every file of a walk, in order (``IntakeOptions/jobs`` at once).
    public mutating func take(_ found: [WalkedFile]) {
        if let report = events.progress {
            progress = ProgressTracker(inputsTotal: found.count, bytesTotal: found.reduce(0) { $0 + $1.size }, report: report)
            sink.progress = progress
        }
        bundles = ExportBundle.recognise(found.filter { !$0.explicit && $0.skipReason == nil }.map(\.path))
        for (index, bundle) in bundles.enumerated() where bundle.kind == .strava {
            guard let table = found.first(where: { $0.path == bundle.root + "activities.csv" }) else { continue }
            (bundles[index].labels, bundles[index].labelProblem) = labels(from: { try Self.open(table) }, path: table.path)
        }
        if options.jobs > 1, let locator {
            take(found, jobs: options.jobs, locator: locator)
        } else {
            for file in found where options.cancellation?.isCancelled != true { take(file) }
        }
    }

    /// The ledger once every input read has been classified, and the run's counts.
    public mutating func finish() -> IntakeOutcome {
        var ledger = sink.classifier.takeLedger()
        Copies.repoint(&ledger)
        return IntakeOutcome(ledger: ledger, skippedByReason: skippedByReason, alreadyInState: alreadyCounted, failedInputs: failedInputs)
    }

    /// What becomes of one file or member, decided from its name and its bundle.
    enum Plan {
        /// Passed over; the label is kept in its record (a virtual activity's type and name).
        case skip(SkipReason, ActivityLabel? = nil)
        /// A track: its format decided when it is opened (by its name, or content for `.txt`, `.log`).
        case read(ActivityLabel?)
        /// Named by the caller, its name saying nothing: an archive, gzip or a track by content.
        case sniff(ActivityLabel?)
        case container(ContainerKind)
        /// Rejected with the error: Strava's `activities.csv` whose labels could not be read.
        case reject(InputError)
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
        case let .activityTable(problem): return problem.map { .reject($0) } ?? .skip(.metadata(.strava))
        case .plannedRoute: return .skip(.plannedRoute)
        case let .track(given): label = given
        case .ordinary: break
        }
        if let label, label.isVirtual, !options.includeVirtual { return .skip(.virtualActivity, label) }
        if let kind = ContainerKind(name: name) { return depth >= 2 ? .skip(.nestedTooDeep) : .container(kind) }
        if depth > 0, ContainerKind.otherArchiveSuffixes.contains(where: { lower.hasSuffix($0) }) { return .skip(.archiveFormatNotRead) }
        if FormatTable.nameDecides(name) { return .read(label) }
        return explicit ? .sniff(label) : .skip(.notATrackFormat)
    }

    /// Takes in one file of the walk.
    mutating func take(_ file: WalkedFile) {
        defer { progress?.finished(inputBytes: file.size, points: sink.points) }
        if let reason = file.skipReason {
            return skip(file.path, reason, duplicateOf: file.duplicateOf)
        }
        let role = file.explicit ? .ordinary : ExportBundle.role(of: file.path, in: bundles)
        switch plan(name: file.name, role: role, explicit: file.explicit, depth: 0) {
        case let .skip(reason, label):
            skip(file.path, reason, label: label)
        case let .reject(problem):
            record(InputRecord(path: file.path, fingerprint: InputRecord.pathKey(path: file.path), format: "csv"), failure: problem)
        case let .container(kind):
            takeArchive(file, kind: kind)
        case let .read(label):
            takeTrack(file, label: label)
        case let .sniff(label):
            switch sniff(file) {
            case let .container(kind): takeArchive(file, kind: kind)
            case let .gzip(tar) where tar: takeArchive(file, kind: .gzippedTar)
            case .gzip: takeTrack(file, label: label, gzip: true)
            case .none: takeTrack(file, label: label)
            }
        }
    }

    /// What a file named by the caller holds, by its first bytes.
    enum Sniffed {
        case container(ContainerKind)
        /// gzip; true when what it holds is a tar.
        case gzip(Bool)
    }

    func sniff(_ file: WalkedFile) -> Sniffed? {
        guard let head = try? ReplayingSource(AnySource(try Self.open(file)), lookahead: 512) else { return nil }
        if let kind = ContainerKind(content: head.prefix) { return .container(kind) }
        guard ContainerKind.isGzip(head.prefix) else { return nil }
        let inner = try? ReplayingSource(AnySource(try GzipStream(wrapping: try Self.open(file), path: file.path)), lookahead: 512)
        return .gzip(inner.map { ContainerKind(content: $0.prefix) == .tar } ?? false)
    }

    /// The file's bytes as a stream.
    static func open(_ file: WalkedFile) throws -> any ByteSource {
        switch file.origin {
        case let .file(path): return try path.openFile()
        case let .memory(bytes): return MemorySource(bytes)
        }
    }

    /// Records a file passed over.
    mutating func skip(_ path: String, _ reason: SkipReason, duplicateOf: String? = nil, label: ActivityLabel? = nil) {
        var record = InputRecord.skipped(path: path, format: FormatTable.recordFormat(of: path), reason: reason, duplicateOf: duplicateOf)
        record.activityType = label?.type
        record.activityName = label?.name
        sink.classifier.recordSkipped(record)
        skippedByReason[reason, default: 0] += 1
    }

    /// Strava's labels from the `activities.csv` that `open` gives; a table that cannot be read
    /// labels nothing and gives the error, for which the table is rejected when its turn comes.
    func labels(from open: () throws -> any ByteSource, path: String) -> ([String: ActivityLabel], InputError?) {
        do {
            return (try StravaActivityTable.labels(AnySource(try open()), path: path), nil)
        } catch {
            return ([:], Self.inputError(error, path: path))
        }
    }

    /// Readers and sources throw `InputError`; anything else is named after the input all the same.
    static func inputError(_ error: Error, path: String) -> InputError {
        error as? InputError ?? InputError(path: path, reason: "\(error)")
    }

    /// An input that could not be read at all (or, `replacing`, a copy read in place of another).
    mutating func record(_ record: InputRecord, failure: InputError, replacing: String? = nil) {
        sink.classifier.begin(record)
        sink.classifier.fail(failure.reason)
        finishInput(record.fingerprint, path: record.path, replacing: replacing)
        failedInputs += 1
        sink.messages.say(.inputFailed(failure))
    }
}
