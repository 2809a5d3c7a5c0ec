import Foundation
import RegionTables
import Tracks
import Unlocks

/// A file for a worker to read: found in the walk, planned by the run (its label decided from
/// the walk alone).
struct InputJob: Sendable {
    let file: WalkedFile
    let label: ActivityLabel?
}

/// What a worker made of one ``InputJob``: the ledger of that input alone, the run's counts and
/// the messages, handed back to the run to be added at the input's turn.
struct InputOutcome: Sendable {
    /// Nil when the file could not even be opened (then ``ledger`` records it as rejected).
    var fingerprint: String?
    /// Not read: the state has it at this path, or at a path first in byte order.
    var passedOver = false
    var ledger = UnlockLedger()
    var skippedByReason: [SkipReason: Int] = [:]
    var failedInputs = 0
    var notes: [IntakeMessage] = []
    var points: Int64 = 0
    /// Of ``points``, those counted in ``PointsInFlight`` while the worker read.
    var pointsShown: Int64 = 0
}

extension IntakeRun {
    /// `jobs` ≥ 2: the files to read go to `jobs` workers (each reads and classifies one input
    /// at a time with a classifier of its own), while this run takes their outcomes back in input
    /// order and adds each at its turn, exactly where a run with one job would have read it:
    /// copies and inputs already in the state are decided then, and a worker's outcome for them is
    /// let go. Files passed over and archives are handled here at their turn (an archive's members
    /// in order, as with one job). At most `2 × jobs` inputs are in flight, so memory is bounded
    /// by what those hold.
    mutating func take(_ found: [WalkedFile], jobs: Int, locator: RegionLocator) {
        // Forgotten content goes to the workers as known at "" (before every path): they pass it
        // over unread, and its turn here skips it as forgotten.
        // Workers pass over what the state has (but what it recorded before subdivisions: read again).
        let state = sink.classifier.knownPaths.filter { !sink.classifier.recordedBeforeSubdivisions.contains($0.key) }
            .merging(sink.classifier.forgotten.map { ($0, "") }) { _, forgotten in forgotten }
        let shown = PointsInFlight()
        let options = options
        let workers = OrderedWorkers<InputJob, InputOutcome>(name: "classify", count: jobs) { job in
            var worker = IntakeRun(readingFor: TrackClassifier(locator: locator, options: options.classify), options: options)
            return worker.read(alone: job, skipping: state, counting: shown)
        }
        defer { workers.close() }
        enum Turn {
            case here(WalkedFile)
            case sent(InputJob, ticket: Int)
        }
        var turns: [Turn] = []
        var first = 0, inFlight = 0
        let limit = 2 * jobs
        func takeTurn() {
            switch turns[first] {
            case let .here(file):
                take(file)
            case let .sent(job, ticket):
                // While the oldest input is read, the progress counts what the workers read.
                var outcome = workers.result(ticket, waitingAtMost: 0.2)
                while outcome == nil {
                    progress?.update(points: sink.points + shown.value)
                    outcome = workers.result(ticket, waitingAtMost: 0.2)
                }
                shown.add(-outcome!.pointsShown)
                settle(job, outcome!)
                inFlight -= 1
            }
            first += 1
        }
        for file in found {
            if options.cancellation?.isCancelled == true { break }
            if let job = job(for: file) {
                while inFlight >= limit { takeTurn() }
                turns.append(.sent(job, ticket: workers.send(job)))
                inFlight += 1
            } else {
                turns.append(.here(file))
            }
            // Whatever is ready at the head now, so that files passed over and finished inputs are
            // added (and shown in the progress) as they come.
            while first < turns.count {
                if case let .sent(_, ticket) = turns[first], !workers.isReady(ticket) { break }
                takeTurn()
            }
        }
        // Cancelled: what is in flight is let go with the workers (the caller discards the run).
        if options.cancellation?.isCancelled == true { return }
        while first < turns.count { takeTurn() }
    }

    /// The job for a worker when `file` is a track to read (not passed over, not an archive, not
    /// one whose content must say what it is), else nil.
    func job(for file: WalkedFile) -> InputJob? {
        guard file.skipReason == nil else { return nil }
        let role = file.explicit ? .ordinary : ExportBundle.role(of: file.path, in: bundles)
        guard case let .read(label) = plan(name: file.name, role: role, explicit: file.explicit, depth: 0) else { return nil }
        return InputJob(file: file, label: label)
    }

    /// A worker's side: fingerprints and reads the job's file into this run's (empty) ledger,
    /// unless `state` (the paths of the state's inputs by fingerprint) has it at this path or at
    /// a path first in byte order. The outcome takes the ledger, the counts and the messages.
    mutating func read(alone job: InputJob, skipping state: [String: String], counting shown: PointsInFlight? = nil) -> InputOutcome {
        sink.pointsInFlight = shown
        var outcome = InputOutcome()
        let path = job.file.path
        do {
            let print = try Fingerprint.of(job.file)
            if print.size == 0 {
                // Empty: skipped by its path, never a copy of anything (no fingerprint to admit).
                skip(path, .empty, label: job.label)
            } else if let known = state[print.key], !path.precedesInBytes(known) {
                outcome.fingerprint = print.key
                outcome.passedOver = true
                return outcome
            } else {
                outcome.fingerprint = print.key
                do {
                    try read(try Self.open(job.file), name: job.file.name, path: path, fingerprint: print.key, label: job.label, explicit: job.file.explicit)
                } catch {
                    record(InputRecord(path: path, fingerprint: print.key, format: Self.plannedFormat(job.file.name)), failure: Self.inputError(error, path: path))
                }
            }
        } catch {
            record(InputRecord(path: path, fingerprint: InputRecord.pathKey(path: path), format: Self.plannedFormat(job.file.name)),
                   failure: Self.inputError(error, path: path))
        }
        outcome.ledger = sink.classifier.takeLedger()
        outcome.skippedByReason = skippedByReason
        outcome.failedInputs = failedInputs
        outcome.notes = sink.messages.takeKept()
        outcome.points = sink.points
        outcome.pointsShown = sink.pointsShown
        return outcome
    }

    /// Adds a worker's outcome at the input's turn, as `take(_:)` would have read the file here
    /// (a copy or an input in the state is accounted as such, its outcome let go).
    private mutating func settle(_ job: InputJob, _ outcome: InputOutcome) {
        defer { progress?.finished(inputBytes: job.file.size, points: sink.points) }
        var replacing: String?
        if let fingerprint = outcome.fingerprint {
            guard case let .read(replaces) = admit(job.file.path, fingerprint), !outcome.passedOver else { return }
            // A copy read in place of another replaces it only once read (not when it was skipped).
            if replaces != nil, outcome.ledger.inputs[fingerprint] != nil {
                replacing = replaces
                sink.classifier.forgetInput(fingerprint)
            }
        }
        for note in outcome.notes { sink.messages.say(note) }
        sink.classifier.append(outcome.ledger)
        if let replacing { skip(replacing, .duplicate, duplicateOf: job.file.path) }
        skippedByReason.merge(outcome.skippedByReason, uniquingKeysWith: +)
        failedInputs += outcome.failedInputs
        sink.points += outcome.points
    }
}
