import Tracks
import Unlocks

/// Feeds the classifier what the readers find: directly, or (`threaded`) on a thread of its own,
/// in order, so that parsing and classifying overlap. Steps then go across in batches
/// (`WorkerQueue`, bounded); the classifier sees exactly the calls a direct run would make, in
/// the same order, so the ledger is the same either way. What the reading side needs to decide
/// (is this input already in the ledger?) it keeps itself.
final class ClassifierFeed {
    /// One call on the classifier.
    private enum Step {
        case point(TrackPoint)
        case segmentBreak
        case unreadable(InputError)
        indirect case begin(InputRecord)
        case setFormat(String)
        case fail(String)
        case discard
        case finish
    }

    private var classifier: TrackClassifier
    private var worker: WorkerQueue<[Step]>?
    private var batch: [Step] = []
    /// Fingerprints of the inputs in the ledger (from the state) or finished in this run.
    private var known: Set<String>
    static let batchSize = 4096

    init(_ classifier: TrackClassifier, threaded: Bool) {
        self.classifier = classifier
        known = Set(classifier.ledger.inputs.keys)
        guard threaded else { return }
        batch.reserveCapacity(Self.batchSize)
        worker = WorkerQueue(name: "classify", capacity: 16) { [unowned self] steps in
            for step in steps { self.apply(step) }
        }
    }

    /// Runs on the worker thread only, when there is one.
    private func apply(_ step: Step) {
        switch step {
        case let .point(point): classifier.point(point)
        case .segmentBreak: classifier.segmentBreak()
        case let .unreadable(problem): classifier.unreadablePoint(problem)
        case let .begin(record): classifier.begin(record)
        case let .setFormat(format): classifier.setFormat(format)
        case let .fail(error): classifier.fail(error)
        case .discard: classifier.discard()
        case .finish: classifier.finish()
        }
    }

    private func send(_ step: Step) {
        guard let worker else { return apply(step) }
        batch.append(step)
        if batch.count == Self.batchSize {
            worker.send(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// True when an input with this fingerprint is in the ledger already (state or this run).
    func knows(_ fingerprint: String) -> Bool { known.contains(fingerprint) }

    func begin(_ record: InputRecord) { send(.begin(record)) }
    func point(_ point: TrackPoint) { send(.point(point)) }
    func segmentBreak() { send(.segmentBreak) }
    func unreadablePoint(_ problem: InputError) { send(.unreadable(problem)) }
    func setFormat(_ format: String) { send(.setFormat(format)) }
    func fail(_ error: String) { send(.fail(error)) }
    func discard() { send(.discard) }

    /// Ends the input that began with `fingerprint`.
    func finish(_ fingerprint: String) {
        known.insert(fingerprint)
        send(.finish)
    }

    /// Waits for every step to be applied (the thread has ended) and hands the ledger over.
    func takeLedger() -> UnlockLedger {
        if let worker {
            worker.send(batch)
            batch = []
            try? worker.finish()  // `apply` throws nothing
        }
        return classifier.takeLedger()
    }
}
