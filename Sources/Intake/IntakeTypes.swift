import ChinaDatum
import Foundation
import Tracks
import Unlocks

/// What an app or the CLI hands the intake: paths (files, folders, archives, export bundles) or
/// bytes it holds.
public struct IntakeSource: Sendable {
    enum Kind: Sendable {
        /// A file or folder; `name` decides the format when the path does not (standard input's copy).
        case path(InputPath, name: String?)
        case memory(name: String, bytes: [UInt8])
    }
    let kind: Kind

    /// A file or folder by the path the user gave.
    public static func path(_ path: String) -> IntakeSource { IntakeSource(kind: .path(InputPath(path), name: nil)) }

    /// A file or folder by its path's bytes (a name that is not UTF-8, shown escaped).
    public static func path(bytes: [UInt8]) -> IntakeSource { IntakeSource(kind: .path(InputPath(bytes: bytes), name: nil)) }

    /// A file URL (a folder or a file an app was handed).
    public static func url(_ url: URL) -> IntakeSource { .path(url.path) }

    /// Bytes the app holds, named like a file (`walk.gpx`, `export.zip`: the name's extension
    /// decides the format as a file's would, else its content).
    public static func memory(name: String, bytes: [UInt8]) -> IntakeSource { IntakeSource(kind: .memory(name: name, bytes: bytes)) }

    /// A file opened by one path and shown by another, its format decided by `name` (or its
    /// content): standard input's copy, shown as `-`.
    public static func file(_ path: InputPath, name: String) -> IntakeSource { IntakeSource(kind: .path(path, name: name)) }
}

/// How the intake reads: the classification rules, each input's datum, and the workers.
public struct IntakeOptions: Sendable {
    /// The rules of the ledger (time zone, thresholds, `inputDatum` as the default datum).
    public var classify: ClassifyOptions
    /// `--datum-for`: the datum of inputs by path.
    public var datums: DatumRules
    /// Read activities a bundle labels virtual (Strava's VirtualRide …), skipped by default.
    public var includeVirtual = false
    /// Inputs read and classified at once (1: one after another). Every number gives the same bytes.
    public var jobs = 1
    /// Reading and classifying one input overlap on two threads (the ledger is the same either way).
    public var overlapsReading = ProcessInfo.processInfo.activeProcessorCount > 1
    /// Set from another thread to stop the run before its next file (the ledger is then partial:
    /// the caller discards it).
    public var cancellation: IntakeCancellation?

    public init(classify: ClassifyOptions = ClassifyOptions(), datums: DatumRules? = nil) {
        self.classify = classify
        self.datums = datums ?? DatumRules(fallback: classify.inputDatum)
    }
}

/// An error that stops the intake itself (a path that does not exist, a folder that cannot be
/// listed): an input's own problems are accounted in the ledger instead.
public struct IntakeError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        case notFound
        case cannotList
    }
    public let kind: Kind
    public let path: String
    public let reason: String

    public var description: String { "\(path): \(reason)" }
}

/// What the caller sees while the intake runs, on the thread that runs it: notes and errors in
/// input order (the CLI's standard error), and progress.
public struct IntakeEvents {
    /// An input's error, an unusable point, a datum hint (``IntakeMessage``).
    public var message: (IntakeMessage) -> Void
    /// Called as inputs finish and every 65,536 points.
    public var progress: ((IntakeProgress) -> Void)?

    public init(message: @escaping (IntakeMessage) -> Void = { _ in }, progress: ((IntakeProgress) -> Void)? = nil) {
        self.message = message
        self.progress = progress
    }
}

public struct IntakeProgress: Sendable {
    public var inputsDone = 0
    public var inputsTotal = 0
    public var bytesDone: Int64 = 0
    public var bytesTotal: Int64 = 0
    public var points: Int64 = 0
}

/// The intake's result: the ledger (with the state it began from), and what the run counted.
public struct IntakeOutcome: Sendable {
    public var ledger: UnlockLedger
    /// This run's skipped files, by reason (the text of ``SkipReason/description``).
    public var skippedByReason: [SkipReason: Int]
    /// Inputs met again at the path the state has them by: not read again.
    public var alreadyInState: Int
    /// Inputs of this run rejected or read in part.
    public var failedInputs: Int
}

/// A flag another thread sets to stop an intake between files (a cancelled import).
public final class IntakeCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }
}
