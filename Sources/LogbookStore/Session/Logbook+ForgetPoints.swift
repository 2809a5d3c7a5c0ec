import ChinaDatum
import Foundation
import Intake
import RegionTables
import TextFormats
import Tracks
import Unlocks

/// An input that a forget of points (or its undo) could not read again, and why.
public struct UnreadableInput: Equatable, Sendable {
    public enum Problem: Equatable, Sendable {
        /// The logbook keeps nowhere to read it from: bytes an app handed over, or a recording
        /// (its points are not kept once it ends).
        case noOrigin
        /// Its file, or the archive holding it, is gone.
        case missing
        /// Its file is there, but its content is no longer the content read (another hash).
        case changed
    }

    /// Its path as the report lists it.
    public var path: String
    /// Where it was read from (absolute), when known.
    public var origin: String?
    public var problem: Problem
}

/// What a forget of points does with an input it cannot read again.
public enum UnreadableInputs: Sendable {
    /// Nothing is changed; the error (``LogbookError/Kind/unreadableInputs(_:)``) names them.
    case refuse
    /// They keep what they recorded (the forgotten points in them still count); the others are read again.
    case keepAsTheyAre
}

/// What a forget of an area or a period (or its undo) did.
public struct ForgetPointsResult: Sendable {
    /// Every area and period the logbook forgets now.
    public var exclusions: [PointExclusion]
    /// The inputs read again from their files, as they are now, by path.
    public var reread: [InputRecord]
    /// Inputs that could not be read again and were kept as they were (``UnreadableInputs/keepAsTheyAre``).
    public var keptAsTheyWere: [UnreadableInput]
    /// The report after it, with ``ClassifyReport/changes`` against the logbook before: what was removed.
    public var report: ClassifyReport
}

extension Logbook {
    /// The areas and periods this logbook forgot, in the order they were: every import and
    /// recording drops the points inside them (``DropReason/forgotten``).
    public var exclusions: [PointExclusion] { live.options.exclusions }

    /// Forgets every point inside the areas and periods given (a bad GPS jump, home): they are
    /// kept with the logbook, so later imports and recordings drop the same points, and the inputs
    /// that may hold such points are read again from the files they were read from, their
    /// contributions replaced in one transaction. The logbook is then what importing the files
    /// with those points removed gives. An input that cannot be read again (its file gone or
    /// changed, bytes an app handed over, a recording already ended) is refused by default
    /// (``LogbookError/Kind/unreadableInputs(_:)``, naming each; nothing changed), or kept as it
    /// was with ``UnreadableInputs/keepAsTheyAre``. Undone by ``unforget(points:unreadable:report:)``.
    public func forget(points given: [PointExclusion], unreadable: UnreadableInputs = .refuse,
                       report options: ReportOptions = ReportOptions()) async throws -> ForgetPointsResult {
        try checkExclusions(given)
        var after = exclusions
        for exclusion in given where !after.contains(exclusion) { after.append(exclusion) }
        let added = after.filter { !exclusions.contains($0) }
        let candidates = live.finished.inputs.values.filter { record in
            guard let contribution = live.finished.contributions[record.fingerprint], !contribution.isEmpty else { return false }
            return added.contains { Self.mayHold(contribution, $0) }
        }
        return try await reread(candidates, exclusions: after, unreadable: unreadable, options)
    }

    /// Brings back the points of areas and periods forgotten (each named exactly as it was
    /// forgotten): the inputs with forgotten points are read again with the others still applied.
    /// One not forgotten is an error (``LogbookError/Kind/nothingMatched``) and nothing is changed.
    public func unforget(points given: [PointExclusion], unreadable: UnreadableInputs = .refuse,
                         report options: ReportOptions = ReportOptions()) async throws -> ForgetPointsResult {
        try checkExclusions(given)
        for exclusion in given where !exclusions.contains(exclusion) {
            throw LogbookError(.nothingMatched, path: path, reason: "the logbook has not forgotten \(describe([exclusion])) (it forgot \(describe(exclusions))); nothing was changed")
        }
        let after = exclusions.filter { !given.contains($0) }
        let candidates = live.finished.inputs.values.filter { ($0.dropped[.forgotten] ?? 0) > 0 }
        return try await reread(candidates, exclusions: after, unreadable: unreadable, options)
    }

    func checkExclusions(_ given: [PointExclusion]) throws {
        guard !given.isEmpty else { throw LogbookError(.invalidExclusion, path: path, reason: "no area or period given") }
        for exclusion in given where !exclusion.isValid {
            throw LogbookError(.invalidExclusion, path: path, reason: "\(exclusion) is not an area on the globe with a positive radius, nor a period that ends after it begins")
        }
    }

    /// Whether an input with `contribution` may hold a point inside `exclusion`. A period: its
    /// timed minutes span it (every kept timed point is in a minute; a point dropped after the
    /// filter, as a duplicate time or a glitch, lies between kept ones). An area: any input that
    /// kept a point (its place is not kept).
    static func mayHold(_ contribution: InputContribution, _ exclusion: PointExclusion) -> Bool {
        switch exclusion {
        case .area:
            return true
        case let .period(from, until):
            let minutes = contribution.moments.keys.filter { $0 != MomentTally.untimedMinute }
            guard let first = minutes.min(), let last = minutes.max() else { return false }
            return first.multipliedReportingOverflow(by: 60_000).partialValue < until && (last + 1).multipliedReportingOverflow(by: 60_000).partialValue > from
        }
    }

    /// Reads `candidates` again with `exclusions`, and commits their new records and contributions
    /// with the exclusions (the recording in progress replayed with them) in one transaction.
    func reread(_ candidates: [InputRecord], exclusions after: [PointExclusion], unreadable policy: UnreadableInputs,
                _ options: ReportOptions) async throws -> ForgetPointsResult {
        guard !readOnly else { throw LogbookError(.storage, path: path, reason: "opened for reading only") }
        let before = try baseline(options)
        var classify = live.options
        classify.exclusions = after
        let wanted = candidates.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }.map { ($0, origins[$0.fingerprint]) }
        let locator = self.locator, reading = classify
        let (read, unreadable) = try await Self.offActor { Self.readAgain(wanted, options: reading, locator: locator) }
        try Task.checkCancellation()
        if !unreadable.isEmpty, policy == .refuse {
            let changing = after.filter { !exclusions.contains($0) } + exclusions.filter { !after.contains($0) }
            let names = unreadable.map { input -> String in
                switch input.problem {
                case .noOrigin: return "\(input.path) (imported as bytes or recorded: nothing to read it from)"
                case .missing: return "\(input.path) (\(input.origin ?? input.path) is gone)"
                case .changed: return "\(input.path) (\(input.origin ?? input.path) no longer holds the content read)"
                }
            }
            throw LogbookError(.unreadableInputs(unreadable), path: path,
                               reason: "cannot read again \(unreadable.count == 1 ? "an input" : "\(unreadable.count) inputs") that may hold points of \(describe(changing)): \(names.joined(separator: ", ")); nothing was changed")
        }
        let snapshot = Dictionary(uniqueKeysWithValues: wanted.map { ($0.0.fingerprint, $0.0) })
        var rereadRecords: [InputRecord] = []
        let committed = try commit { next in
            var ledger = next.finished
            for (key, old) in snapshot where ledger.inputs[key] != old {
                throw LogbookError(.storage, path: path, reason: "input \(old.path) changed in the logbook while it was read again (another process); nothing was changed: run again")
            }
            var delta = Delta()
            for (key, fresh) in read {
                ledger.inputs[key] = fresh.record
                ledger.contributions[key] = fresh.contribution
                delta.changed.insert(key)
            }
            if after.isEmpty { try store.removeMeta(StoredExclusions.metaKey) } else { try store.setMeta(StoredExclusions.metaKey, .text(StoredExclusions.text(after))) }
            var rebuilt = LiveLedger(locator: locator, options: reading, ledger: ledger)
            if let recording = recordingRow {
                try LogbookLoader.replay(recording, try store.recordingBatches().map(\.points), into: &rebuilt, path: path)
            }
            next = rebuilt
            rereadRecords = read.values.map(\.record).sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
            return delta
        }
        var report = try self.report(options, reusing: committed)
        report.changes = ClassifyReport.Changes(from: before, to: report)
        return ForgetPointsResult(exclusions: after, reread: rereadRecords, keptAsTheyWere: unreadable, report: report)
    }

    /// Reads each input again from its origin, keeping only readings of the same content (by key).
    /// Inputs of one file (an archive's members) and one datum are read in one run.
    static func readAgain(_ inputs: [(InputRecord, String?)], options: ClassifyOptions, locator: RegionLocator)
        -> (read: [String: (record: InputRecord, contribution: InputContribution?)], unreadable: [UnreadableInput]) {
        var unreadable: [UnreadableInput] = []
        struct Group: Hashable { var file: String; var datum: Datum }
        var groups: [Group: [InputRecord]] = [:]
        for (record, origin) in inputs {
            guard let origin else { unreadable.append(UnreadableInput(path: record.path, origin: nil, problem: .noOrigin)); continue }
            guard let file = fileOnDisk(origin) else { unreadable.append(UnreadableInput(path: record.path, origin: origin, problem: .missing)); continue }
            groups[Group(file: file, datum: record.datum ?? .wgs84), default: []].append(record)
        }
        var read: [String: (record: InputRecord, contribution: InputContribution?)] = [:]
        for (group, records) in groups.sorted(by: { ($0.key.file, $0.key.datum.rawValue) < ($1.key.file, $1.key.datum.rawValue) }) {
            var intake = IntakeOptions(classify: options, datums: DatumRules(fallback: group.datum))
            intake.classify.inputDatum = group.datum
            intake.includeVirtual = true
            var run = IntakeRun(locator: locator, options: intake)
            let outcome: IntakeOutcome?
            do {
                try run.take([.path(group.file)])
                outcome = run.finish()
            } catch {
                outcome = nil
            }
            for old in records {
                guard var fresh = outcome?.ledger.inputs[old.fingerprint], fresh.status != .skipped else {
                    unreadable.append(UnreadableInput(path: old.path, origin: group.file, problem: .changed))
                    continue
                }
                // What the walk that first read it gave beside the content: its path, an export's labels.
                fresh.path = old.path
                fresh.activityType = old.activityType ?? fresh.activityType
                fresh.activityName = old.activityName ?? fresh.activityName
                fresh.duplicateOf = old.duplicateOf
                fresh.datum = old.datum
                read[old.fingerprint] = (fresh, outcome?.ledger.contributions[old.fingerprint])
            }
        }
        return (read, unreadable.sorted { $0.path < $1.path })
    }

    /// The file on disk an origin names: the origin itself, or for an archive member
    /// (`/…/archive.zip:member`) the longest prefix before a `:` that is a regular file.
    static func fileOnDisk(_ origin: String) -> String? {
        func isFile(_ path: String) -> Bool {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && !folder.boolValue
        }
        if isFile(origin) { return origin }
        var end = origin.endIndex
        while let colon = origin[..<end].lastIndex(of: ":") {
            let prefix = String(origin[..<colon])
            if isFile(prefix) { return prefix }
            end = colon
        }
        return nil
    }

    /// Areas and periods as a person reads them (moments in the logbook's zone).
    public nonisolated func describe(_ exclusions: [PointExclusion]) -> String {
        Self.describe(exclusions, zone: rules.timeZone)
    }

    static func describe(_ exclusions: [PointExclusion], zone: LocalTimeZone) -> String {
        func moment(_ ms: Int64) -> String { Timestamp.format(ms, offsetMinutes: zone.offsetMinutes(at: ms)) }
        func number(_ value: Double) -> String { JSONValue.number(value).compactRendered() }
        if exclusions.isEmpty { return "no area or period" }
        return exclusions.map { exclusion in
            switch exclusion {
            case let .area(latitude, longitude, radius):
                return "the area within \(number(radius)) m of \(number(latitude)),\(number(longitude))"
            case let .period(from, until):
                switch (from == .min, until == .max) {
                case (true, true): return "all time"
                case (true, false): return "the time before \(moment(until))"
                case (false, true): return "the time from \(moment(from))"
                case (false, false): return "the time from \(moment(from)) to \(moment(until))"
                }
            }
        }.joined(separator: ", ")
    }
}

extension Logbook {
    /// Reads again, from the files they were read from, the inputs recorded before subdivisions
    /// were located (a state or logbook of an earlier release, migrated), so that their states and
    /// provinces unlock; the report's `changes` says what that added. Inputs that cannot be read
    /// again keep what they recorded (and are tried again next time); inputs with no file known (a
    /// migrated state's) are read again only when an import meets them. Nil when there is none
    /// to read, or the tables have no subdivision table. `unlocks classify --state` calls it before importing.
    public func readAgainRecordedBeforeSubdivisions(report options: ReportOptions = ReportOptions()) async throws -> ForgetPointsResult? {
        guard locator.tables.subdivisions != nil, !readOnly else { return nil }
        let candidates = live.finished.inputs.values.filter { record in
            guard let contribution = live.finished.contributions[record.fingerprint] else { return false }
            return contribution.recordedBeforeSubdivisions && !contribution.isEmpty && origins[record.fingerprint] != nil
        }
        guard !candidates.isEmpty else { return nil }
        return try await reread(candidates, exclusions: exclusions, unreadable: .keepAsTheyAre, options)
    }
}
