import Foundation
import Tracks
import Unlocks

/// A file for a worker of `classify --jobs` to read: found in the walk, planned by the run (its
/// name, format and activity label decided from the walk alone).
struct InputJob {
    let file: InputWalk.Found
    /// The name the format was decided by (standard input's `-`, `-.gz`, or the path).
    let name: String
    let format: TrackFormat?
    let label: ActivityLabel?
}

/// What a worker made of one ``InputJob``: the ledger of that input alone, the run's counts and
/// the notes for standard error, handed back to the run to be added at the input's turn.
struct InputOutcome {
    /// Nil when the file could not even be opened (then ``ledger`` records it as rejected).
    var fingerprint: String?
    /// The input is in the state already: not read, the run accounts for it.
    var inState = false
    var ledger = UnlockLedger()
    var skippedByReason: [String: Int] = [:]
    var failedInputs = 0
    var notes: [String] = []
    var points: Int64 = 0
    /// Of ``points``, those counted in ``PointsInFlight`` while the worker read.
    var pointsShown: Int64 = 0
}

/// The points workers have read of inputs not yet added, for the progress line (a lock, as
/// workers add to it every 65,536 points).
final class PointsInFlight {
    private let lock = NSLock()
    private var count: Int64 = 0

    func add(_ points: Int64) {
        lock.lock()
        count += points
        lock.unlock()
    }

    var value: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

extension ClassifyRun {
    /// `--jobs N` (N ≥ 2): the files to read go to `jobs` workers (each reads and classifies one
    /// input at a time with a classifier of its own, `read(alone:skipping:)` in `worker`), while
    /// this run takes their outcomes back in input order and adds each at its turn, exactly where
    /// a run with one job would have read it: duplicates and inputs already in the state are
    /// decided then, and a worker's outcome for them is let go. Files passed over and archives
    /// are handled here at their turn (an archive's entries in order, as with one job). At most
    /// `2 × jobs` inputs are in flight, so memory is bounded by what those hold.
    mutating func classify(_ found: [InputWalk.Found], jobs: Int, inFlight shown: PointsInFlight, worker: @escaping (InputJob) -> InputOutcome) {
        let workers = OrderedWorkers<InputJob, InputOutcome>(name: "classify", count: jobs, work: worker)
        defer { workers.close() }
        enum Turn {
            case here(InputWalk.Found)
            case sent(InputJob, ticket: Int)
        }
        var turns: [Turn] = []
        var first = 0, inFlight = 0
        let limit = 2 * jobs
        func takeTurn() {
            switch turns[first] {
            case let .here(file):
                classify(file)
            case let .sent(job, ticket):
                // While the oldest input is read, the progress line counts what the workers read.
                var outcome = workers.result(ticket, waitingAtMost: 0.2)
                while outcome == nil {
                    if progress.enabled { progress.update(points: sink.points + shown.value) }
                    outcome = workers.result(ticket, waitingAtMost: 0.2)
                }
                shown.add(-outcome!.pointsShown)
                settle(job, outcome!)
                inFlight -= 1
            }
            first += 1
        }
        for file in found {
            if let job = job(for: file) {
                while inFlight >= limit { takeTurn() }
                turns.append(.sent(job, ticket: workers.send(job)))
                inFlight += 1
            } else {
                turns.append(.here(file))
            }
            // Whatever is ready at the head now, so that files passed over and finished inputs are
            // added (and shown in the progress line) as they come.
            while first < turns.count {
                if case let .sent(_, ticket) = turns[first], !workers.isReady(ticket) { break }
                takeTurn()
            }
        }
        while first < turns.count { takeTurn() }
    }

    /// The job for a worker when `file` is to be read (not passed over, not an archive), else nil.
    func job(for file: InputWalk.Found) -> InputJob? {
        guard file.skipReason == nil else { return nil }
        let role = file.explicit ? .ordinary : ExportBundle.role(of: file.path.display, in: bundles)
        let name = file.formatName ?? file.path.display
        guard case let .read(format, label) = plan(name: name, role: role, explicit: file.explicit, depth: 0) else { return nil }
        return InputJob(file: file, name: name, format: format, label: label)
    }

    /// A worker's side: fingerprints and reads the job's file into this run's (empty) ledger,
    /// unless `state` (the fingerprints of the state's inputs) has it. The outcome takes the
    /// ledger, the counts and the notes.
    mutating func read(alone job: InputJob, skipping state: [String: String], counting shown: PointsInFlight? = nil) -> InputOutcome {
        sink.pointsInFlight = shown
        var outcome = InputOutcome()
        outcome.fingerprint = fingerprint(job.file, format: job.format?.rawValue ?? "unknown")
        if let fingerprint = outcome.fingerprint {
            if state[fingerprint] != nil {
                outcome.inState = true
                return outcome
            }
            read(job.file, name: job.name, fingerprint: fingerprint, format: job.format, label: job.label)
        }
        outcome.ledger = takeLedger()
        outcome.skippedByReason = skippedByReason
        outcome.failedInputs = failedInputs
        outcome.notes = sink.messages.takeKept()
        outcome.points = sink.points
        outcome.pointsShown = sink.pointsShown
        return outcome
    }

    /// Adds a worker's outcome at the input's turn: as `classify(_:)` would have read the file
    /// here (a duplicate or an input in the state is accounted as such, its outcome let go).
    private mutating func settle(_ job: InputJob, _ outcome: InputOutcome) {
        defer { progress.finished(inputBytes: job.file.size, points: sink.points) }
        if let fingerprint = outcome.fingerprint, !isNew(job.file.path.display, fingerprint: fingerprint) { return }
        for note in outcome.notes { sink.messages.say(note) }
        sink.classifier.append(outcome.ledger)
        skippedByReason.merge(outcome.skippedByReason, uniquingKeysWith: +)
        failedInputs += outcome.failedInputs
        sink.points += outcome.points
    }
}

/// Where a run's notes and errors go: to standard error as they come (the progress line cleared
/// first), or kept (a worker of `classify --jobs`) until the input's turn, so standard error
/// reads the same whatever the number of jobs.
final class RunMessages {
    private let progress: ProgressLine
    private var kept: [String]?

    init(progress: ProgressLine, keep: Bool = false) {
        self.progress = progress
        kept = keep ? [] : nil
    }

    func say(_ message: String) {
        if kept != nil {
            kept!.append(message)
        } else {
            progress.clear()
            reportError(message)
        }
    }

    /// The messages kept so far (none when they are not kept).
    func takeKept() -> [String] {
        defer { if kept != nil { kept = [] } }
        return kept ?? []
    }
}
