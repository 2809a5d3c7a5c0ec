import ChinaDatum
import Foundation
import Intake
import RegionTables
import Unlocks

/// How an import reads (the rules are the logbook's own).
public struct ImportOptions: Sendable {
    /// The datum of the inputs' coordinates unless a rule of ``datums`` names another.
    public var datum: Datum = .wgs84
    /// `--datum-for`: the datum of inputs by path (nil: every input in ``datum``).
    public var datums: DatumRules?
    /// Read activities an export labels virtual (Strava's VirtualRide …), skipped by default.
    public var includeVirtual = false
    /// Inputs read and classified at once (every number gives the same logbook).
    public var jobs = 1

    public init(datum: Datum = .wgs84, datums: DatumRules? = nil, includeVirtual: Bool = false, jobs: Int = 1) {
        self.datum = datum
        self.datums = datums
        self.includeVirtual = includeVirtual
        self.jobs = jobs
    }
}

/// What an import reports while it runs, in input order, on the thread that reads.
public enum ImportEvent: Sendable {
    /// Inputs done and points read so far.
    case progress(IntakeProgress)
    /// An input's error, a point it could not use, a datum its metadata suggests.
    case message(IntakeMessage)
}

/// What an import did.
public struct ImportResult: Sendable {
    /// The inputs it added or changed (skipped files included), by path.
    public var inputs: [InputRecord]
    /// Its skipped files by reason.
    public var skippedByReason: [SkipReason: Int]
    /// Inputs met again at the path the logbook has them by: not read again.
    public var alreadyInLogbook: Int
    /// Inputs rejected or read in part.
    public var failedInputs: Int
    /// The report after the import, with ``ClassifyReport/changes`` against the logbook before it.
    public var report: ClassifyReport
}

extension Logbook {
    /// Imports files, folders, archives, export bundles or bytes, as `unlocks classify` reads
    /// them: each new input classified and kept; one the logbook has (by content) passed over;
    /// one forgotten skipped. Runs on threads of its own (``ImportOptions/jobs``), so the logbook
    /// answers other calls meanwhile; cancelling the task stops it before the next file and
    /// leaves the logbook as it was. `report` shapes the result's report.
    public func importSources(_ sources: [IntakeSource], options: ImportOptions = ImportOptions(), report: ReportOptions = ReportOptions(),
                              events: (@Sendable (ImportEvent) -> Void)? = nil) async throws -> ImportResult {
        let files: [WalkedFile]
        do { files = try IntakeRun.walk(sources) } catch { throw error }
        return try await importFiles(files, options: options, report: report, events: events)
    }

    /// Imports the files of a walk (``IntakeRun/walk(_:)``): for a caller that checks them first
    /// (the command line refuses an output that is among its inputs).
    public func importFiles(_ files: [WalkedFile], options: ImportOptions = ImportOptions(), report reportOptions: ReportOptions = ReportOptions(),
                            events: (@Sendable (ImportEvent) -> Void)? = nil) async throws -> ImportResult {
        let snapshot = live.finished
        var intakeOptions = IntakeOptions(classify: live.options, datums: options.datums ?? DatumRules(fallback: options.datum))
        intakeOptions.classify.inputDatum = options.datum
        intakeOptions.includeVirtual = options.includeVirtual
        intakeOptions.jobs = max(1, options.jobs)
        let cancellation = IntakeCancellation()
        intakeOptions.cancellation = cancellation
        let before = try baseline(reportOptions)
        let locator = self.locator, readOptions = intakeOptions
        let outcome = try await withTaskCancellationHandler {
            try await Self.offActor {
                var run = IntakeRun(locator: locator, options: readOptions, ledger: snapshot,
                                    events: IntakeEvents(message: { message in events?(.message(message)) },
                                                         progress: events.map { deliver in { deliver(.progress($0)) } }))
                run.take(files)
                return run.finish()
            }
        } onCancel: {
            cancellation.cancel()
        }
        try Task.checkCancellation()
        var added: [InputRecord] = []
        let origins = Self.origins(of: files)
        let committed = try commit { next in
            var delta = Delta()
            for (key, record) in outcome.ledger.inputs where snapshot.inputs[key] != record { delta.changed.insert(key) }
            // Inputs recorded before subdivisions and read again (the same record, a new share).
            for (key, part) in snapshot.contributions where part.recordedBeforeSubdivisions && outcome.ledger.contributions[key]?.recordedBeforeSubdivisions == false {
                delta.changed.insert(key)
            }
            delta.removed = Set(snapshot.inputs.keys.filter { outcome.ledger.inputs[$0] == nil })
            if next.finished == snapshot {
                try next.updateFinished { $0 = outcome.ledger }
            } else {
                // The logbook changed while the files were read (a recording, another process):
                // this import's inputs join what is there now, as a later step of the same run.
                var later = UnlockLedger()
                for key in delta.changed {
                    later.inputs[key] = outcome.ledger.inputs[key]
                    later.contributions[key] = outcome.ledger.contributions[key]
                }
                try next.updateFinished { ledger in
                    ledger.forget(delta.removed)
                    ledger.append(later)
                    Copies.repoint(&ledger)
                }
            }
            for key in delta.changed {
                if let path = outcome.ledger.inputs[key]?.path, let origin = Self.origin(of: path, in: origins) { delta.origins[key] = origin }
            }
            added = delta.changed.compactMap { next.finished.inputs[$0] }.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
            return delta
        }
        var report = try self.report(reportOptions, reusing: committed)
        report.changes = ClassifyReport.Changes(from: before, to: report)
        return ImportResult(inputs: added, skippedByReason: outcome.skippedByReason, alreadyInLogbook: outcome.alreadyInState,
                            failedInputs: outcome.failedInputs, report: report)
    }

    /// The absolute path of each walked file on disk, by the path reports show.
    static func origins(of files: [WalkedFile]) -> [String: String] {
        let folder = FileManager.default.currentDirectoryPath
        var result: [String: String] = [:]
        for file in files where file.isOnDisk {
            result[file.path] = absolutePath(file.path, from: folder)
        }
        return result
    }

    /// The origin of a reported path: its file's, or for an archive member (`archive.zip:member`)
    /// the archive's followed by the member (the longest prefix before a `:` that is a file walked).
    static func origin(of path: String, in origins: [String: String]) -> String? {
        if let origin = origins[path] { return origin }
        var end = path.endIndex
        while let colon = path[..<end].lastIndex(of: ":") {
            if let origin = origins[String(path[..<colon])] { return origin + path[colon...] }
            end = colon
        }
        return nil
    }

    /// `path` made absolute from `folder`, its `.` and `..` segments and repeated slashes resolved
    /// lexically (a link is not followed: the path a person typed is the one matched).
    static func absolutePath(_ path: String, from folder: String) -> String {
        let whole = path.hasPrefix("/") ? path : folder + "/" + path
        var parts: [Substring] = []
        for part in whole.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Runs `work` on a thread of its own and awaits it: an intake blocks while it reads, and
    /// must not hold one of the few threads Swift's tasks share.
    static func offActor<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
