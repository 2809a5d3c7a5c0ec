import Tracks
import Unlocks

/// Feeds the classifier what the readers find: directly, or (`threaded`) on a thread of its own,
/// in order, so that parsing and classifying overlap. Steps then go across in batches
/// (`WorkerQueue`, bounded); the classifier sees exactly the calls a direct run would make, in
/// the same order, so the ledger is the same either way. What the reading side needs to decide
/// (is this input already in the ledger?) it keeps itself.
struct ClassifierFeed {
    /// One call on the classifier.
    private enum Step {
        case point(TrackPoint)
        case segmentBreak
        case unreadable(InputError)
        case annotate(TrackAnnotation)
        indirect case begin(InputRecord)
        indirect case skipped(InputRecord)
        case setFormat(String)
        case fail(String)
        case discard
        case finish
        indirect case append(UnlockLedger)
        case forget(String)
    }

    /// The classifier the worker thread owns (nil once handed back).
    /// Unchecked `Sendable`: the classifier is used by the worker thread alone until
    /// ``takeLedger()`` has waited for that thread to end.
    private final class Owned: @unchecked Sendable {
        var classifier: TrackClassifier?
        init(_ classifier: TrackClassifier) { self.classifier = classifier }
    }

    /// The classifier, when it is fed directly.
    private var direct: TrackClassifier?
    private var owned: Owned?
    private var worker: WorkerQueue<[Step]>?
    private var batch: [Step] = []
    /// Paths of the inputs in the ledger (from the state) or finished in this run, by fingerprint.
    private var known: [String: String]
    /// The fingerprints the state has forgotten for good (``UnlockLedger/forgotten``).
    let forgotten: Set<String>
    /// Inputs of the state recorded before subdivisions were located
    /// (``InputContribution/recordedBeforeSubdivisions``): met again, they are read again.
    private(set) var recordedBeforeSubdivisions: Set<String>
    static let batchSize = 4096

    init(_ classifier: TrackClassifier, threaded: Bool) {
        known = classifier.ledger.inputs.filter { $0.value.status != .skipped }.mapValues(\.path)
        forgotten = Set(classifier.ledger.forgotten.keys)
        recordedBeforeSubdivisions = classifier.locator.tables.subdivisions == nil ? [] :
            Set(classifier.ledger.contributions.filter { $0.value.recordedBeforeSubdivisions && !$0.value.isEmpty }.keys)
        guard threaded else {
            direct = classifier
            return
        }
        let owned = Owned(classifier)
        self.owned = owned
        batch.reserveCapacity(Self.batchSize)
        // The worker holds the classifier, not this feed: were the feed dropped early (an error
        // ending the run), the worker would still be applying steps to a live classifier.
        worker = WorkerQueue(name: "classify", capacity: 16) { steps in
            // Moved out for the batch: one exclusive access, not one per step.
            var classifier = owned.classifier.take()!
            for step in steps { Self.apply(step, to: &classifier) }
            owned.classifier = classifier
        }
    }

    private static func apply(_ step: Step, to classifier: inout TrackClassifier) {
        switch step {
        case let .point(point): classifier.point(point)
        case .segmentBreak: classifier.segmentBreak()
        case let .unreadable(problem): classifier.unreadablePoint(problem)
        case let .annotate(annotation): classifier.annotate(annotation)
        case let .begin(record): classifier.begin(record)
        case let .skipped(record): classifier.recordSkipped(record)
        case let .setFormat(format): classifier.setFormat(format)
        case let .fail(error): classifier.fail(error)
        case .discard: classifier.discard()
        case .finish: classifier.finish()
        case let .append(later): classifier.append(later)
        case let .forget(fingerprint): classifier.forgetInput(fingerprint)
        }
    }

    private mutating func send(_ step: Step) {
        guard let worker else { return Self.apply(step, to: &direct!) }
        batch.append(step)
        if batch.count == Self.batchSize {
            worker.send(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// The path of the input with this fingerprint when it is in the ledger already (state or
    /// this run), else nil.
    func knownPath(_ fingerprint: String) -> String? { known[fingerprint] }

    mutating func begin(_ record: InputRecord) { send(.begin(record)) }
    mutating func point(_ point: TrackPoint) { send(.point(point)) }
    mutating func segmentBreak() { send(.segmentBreak) }
    mutating func unreadablePoint(_ problem: InputError) { send(.unreadable(problem)) }
    mutating func annotate(_ annotation: TrackAnnotation) { send(.annotate(annotation)) }
    mutating func recordSkipped(_ record: InputRecord) { send(.skipped(record)) }
    mutating func setFormat(_ format: String) { send(.setFormat(format)) }
    mutating func fail(_ error: String) { send(.fail(error)) }
    mutating func discard() { send(.discard) }

    /// The paths of the inputs in the ledger so far, by fingerprint.
    var knownPaths: [String: String] { known }

    /// Adds the ledger another classifier made of the inputs that come next (`classify --jobs`),
    /// as if this one had read them.
    mutating func append(_ later: UnlockLedger) {
        for (fingerprint, record) in later.inputs where record.status != .skipped { known[fingerprint] = record.path }
        send(.append(later))
    }

    /// Removes an input from the ledger: another copy of it is read in its place.
    mutating func forgetInput(_ fingerprint: String) {
        known[fingerprint] = nil
        recordedBeforeSubdivisions.remove(fingerprint)
        send(.forget(fingerprint))
    }

    /// Ends the input that began with `fingerprint` at `path`.
    mutating func finish(_ fingerprint: String, path: String) {
        known[fingerprint] = path
        send(.finish)
    }

    /// Waits for every step to be applied (the thread has ended) and hands the ledger over.
    mutating func takeLedger() -> UnlockLedger {
        if let worker, let owned {
            worker.send(batch)
            batch = []
            try? worker.finish()  // the steps throw nothing
            self.worker = nil
            return owned.classifier!.takeLedger()
        }
        return direct!.takeLedger()
    }
}
