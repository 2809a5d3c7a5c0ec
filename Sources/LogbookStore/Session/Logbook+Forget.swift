import Foundation
import Intake
import Unlocks

/// What `forget` names.
public enum ForgetTarget: Sendable, Equatable {
    /// A path: as the report lists it (an archive's path names its members, a folder's path every
    /// input under it), the same relative to any folder (matched by where each input was read
    /// from), or a file or folder on disk whose files' contents inputs have.
    case path(String)
    /// An input by its key (a content hash, a recording's id).
    case key(String)
}

/// What a forget (or its undo) did.
public struct ForgetResult: Sendable {
    /// The inputs forgotten (or brought back), by path.
    public var inputs: [InputRecord]
    /// Files skipped as duplicates of a forgotten input, forgotten with it.
    public var duplicates: [InputRecord]
    /// The report after it, with ``ClassifyReport/changes`` against the logbook before.
    public var report: ClassifyReport
}

extension Logbook {
    /// Removes inputs as if they had never been read: the logbook and its report are then exactly
    /// what importing the other inputs gives (each input's contribution is kept apart, so where a
    /// forgotten input stood for minutes, cells or regions others recorded too, those take over).
    /// Files skipped as its duplicates go with it. What was read stays forgotten: an import that
    /// meets the same content skips it, until ``unforget(_:report:)``. A target that matches
    /// nothing is an error (``LogbookError/Kind/nothingMatched``), and nothing is changed.
    public func forget(_ targets: [ForgetTarget], report options: ReportOptions = ReportOptions()) throws -> ForgetResult {
        let before = try baseline(options)
        var keys = Set<String>()
        let inputs = live.finished.inputs
        for target in targets {
            let matched = try matches(target, paths: inputs.mapValues(\.path))
            guard !matched.isEmpty else { throw nothingMatched(target, forgotten: false) }
            keys.formUnion(matched)
        }
        let paths = Set(keys.compactMap { inputs[$0]?.path })
        let duplicates = inputs.filter { $0.value.duplicateOf.map(paths.contains) == true && !keys.contains($0.key) }
        keys.formUnion(duplicates.keys)
        let records = keys.compactMap { inputs[$0] }
        let committed = try commit { next in
            if let recording = next.recordingID, keys.contains(recording) { _ = try next.forget(ids: [recording]) }
            try next.updateFinished { $0.forgetForGood(keys) }
            var delta = Delta()
            delta.removed = keys
            return delta
        }
        var report = try self.report(options, reusing: committed)
        report.changes = ClassifyReport.Changes(from: before, to: report)
        let duplicateKeys = Set(duplicates.keys)
        return ForgetResult(inputs: records.filter { !duplicateKeys.contains($0.fingerprint) }.sorted { $0.path < $1.path },
                            duplicates: duplicates.values.sorted { $0.path < $1.path }, report: report)
    }

    /// Brings forgotten inputs back (named by the path they were read at, or by content): the
    /// next import that meets them reads them again.
    public func unforget(_ targets: [ForgetTarget], report options: ReportOptions = ReportOptions()) throws -> ForgetResult {
        let before = try baseline(options)
        var keys = Set<String>()
        let forgotten = live.finished.forgotten
        for target in targets {
            let matched = try matches(target, paths: forgotten)
            guard !matched.isEmpty else { throw nothingMatched(target, forgotten: true) }
            keys.formUnion(matched)
        }
        let records = keys.map { InputRecord(path: forgotten[$0] ?? $0, fingerprint: $0, format: "") }
        let committed = try commit { next in
            let removed = Set(next.finished.inputs.filter { $0.value.skipReason == .forgotten && keys.compactMap({ forgotten[$0] }).contains($0.value.path) }.keys)
            try next.updateFinished { $0.unforget(keys) }
            var delta = Delta()
            delta.removed = removed
            return delta
        }
        var report = try self.report(options, reusing: committed)
        report.changes = ClassifyReport.Changes(from: before, to: report)
        return ForgetResult(inputs: records.sorted { $0.path < $1.path }, duplicates: [], report: report)
    }

    /// The keys of `paths` (path by key) that `target` names.
    func matches(_ target: ForgetTarget, paths: [String: String]) throws -> Set<String> {
        switch target {
        case let .key(key):
            return paths[key] == nil ? [] : [key]
        case let .path(given):
            var name = given
            while name.count > 1, name.hasSuffix("/") { name.removeLast() }
            if name.hasPrefix("./") { name.removeFirst(2) }
            func under(_ path: String, _ root: String) -> Bool { path == root || path.hasPrefix(root + ":") || path.hasPrefix(root + "/") }
            var keys = Set(paths.filter { under($0.value, name) }.keys)
            // Where each input was read from, for a path typed from another folder.
            let absolute = Self.absolutePath(name, from: FileManager.default.currentDirectoryPath)
            keys.formUnion(paths.keys.filter { key in origins[key].map { under($0, absolute) } ?? false })
            // A file or folder on disk: the inputs with its files' contents (an archive's members keyed under it).
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: name, isDirectory: &isFolder) {
                let files = (try? IntakeRun.walk([.path(name)])) ?? []
                for file in files where file.isOnDisk && file.skipReason == nil {
                    guard let content = try? file.contentKey() else { continue }
                    keys.formUnion(paths.keys.filter { $0 == content || $0.hasPrefix(content + ":") })
                }
            }
            return keys
        }
    }

    func nothingMatched(_ target: ForgetTarget, forgotten: Bool) -> LogbookError {
        let what: String
        switch target {
        case let .path(name): what = "the path or the content of '\(name)'"
        case let .key(key): what = "the key '\(key)'"
        }
        return LogbookError(.nothingMatched, path: path, reason: "\(forgotten ? "no forgotten input has" : "no input has") \(what) (the report lists the inputs' paths); nothing was changed")
    }
}
