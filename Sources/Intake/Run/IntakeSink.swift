import ChinaDatum
import Foundation
import Tracks
import Unlocks

/// The sink readers fill during a run: the classifier (through its feed), plus progress and the
/// first few unreadable records of each input as messages.
struct IntakeSink: TrackSink {
    var classifier: ClassifierFeed
    let messages: RunMessages
    /// Progress, when the caller watches it.
    var progress: ProgressTracker?
    /// A worker's (`jobs` > 1): where it counts its points as it reads, for the progress of the
    /// run it reads for.
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
            progress?.update(points: points)
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
    /// The activity type the input says it records when it is virtual (a FIT's sub-sport
    /// `virtual_activity`: "virtual cycling"), for the run's `includeVirtual` rule.
    var virtualActivity: String?

    /// Passes the annotation on; a creator naming a Chinese map app is noted (the classifier
    /// records the same hint, by the same rule, in the report).
    mutating func annotate(_ annotation: TrackAnnotation) {
        classifier.annotate(annotation)
        if case let .activityType(type) = annotation, virtualActivity == nil, type.lowercased().hasPrefix("virtual") {
            virtualActivity = type
        }
        if case let .creator(name) = annotation, !hinted, let hint = DatumHint.hint(creator: name, readIn: inputDatum) {
            hinted = true
            messages.say(.datumHint(path: inputPath, hint: hint, readAs: inputDatum))
        }
    }

    mutating func unreadablePoint(_ problem: InputError) {
        classifier.unreadablePoint(problem)
        points += 1
        pointsInInput += 1
        unreadableInInput += 1
        problemsShown += 1
        if problemsShown <= Self.problemsPerInput {
            messages.say(.unreadablePoint(problem))
        }
    }
}

/// Where a run's notes and errors go: to the caller as they come, or kept (a worker, when
/// `jobs` > 1) until the input's turn, so the messages read the same whatever the number of jobs.
final class RunMessages {
    private let deliver: (IntakeMessage) -> Void
    private var kept: [IntakeMessage]?

    init(deliver: @escaping (IntakeMessage) -> Void, keep: Bool = false) {
        self.deliver = deliver
        kept = keep ? [] : nil
    }

    func say(_ message: IntakeMessage) {
        if kept != nil {
            kept!.append(message)
        } else {
            deliver(message)
        }
    }

    /// The messages kept so far (none when they are not kept).
    func takeKept() -> [IntakeMessage] {
        defer { if kept != nil { kept = [] } }
        return kept ?? []
    }
}

/// The run's progress as the caller sees it (inputs done in order, points as read).
final class ProgressTracker {
    private var state: IntakeProgress
    private let report: (IntakeProgress) -> Void

    init(inputsTotal: Int, bytesTotal: Int64, report: @escaping (IntakeProgress) -> Void) {
        state = IntakeProgress(inputsTotal: inputsTotal, bytesTotal: bytesTotal)
        self.report = report
    }

    func finished(inputBytes: Int64, points: Int64) {
        state.inputsDone += 1
        state.bytesDone += inputBytes
        update(points: points)
    }

    func update(points: Int64) {
        state.points = points
        report(state)
    }
}

/// The points workers have read of inputs not yet added, for the progress (a lock, as workers
/// add to it every 65,536 points).
final class PointsInFlight: @unchecked Sendable {
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
