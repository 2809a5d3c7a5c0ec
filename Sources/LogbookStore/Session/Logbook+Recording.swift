import ChinaDatum
import Tracks
import Unlocks

// Recording live: the points an app receives, classified as they come by the same rules as a
// file (``LiveLedger``), each batch saved in one small transaction.

extension Logbook {
    /// The id of the recording in progress, nil between recordings.
    public var recordingID: String? { live.recordingID }

    /// Starts a recording: one new input of the logbook, `id` its key and its path in the report
    /// (unique, e.g. `live/<UUID>`), `name` its activity name, `datum` the datum of the
    /// coordinates fed (GCJ-02 for a Chinese map SDK's).
    public func beginRecording(id: String, name: String? = nil, activityType: String? = nil, datum: Datum? = nil) throws {
        try commit(derive: false) { next in
            do {
                try next.beginRecording(id: id, name: name, activityType: activityType, datum: datum)
            } catch {
                throw recordingError(error)
            }
            var delta = Delta()
            delta.recording = .some(LogbookStore.RecordingRow(id: id, name: name, activityType: activityType, datum: datum))
            return delta
        }
    }

    /// Classifies `points` of the recording in order and keeps them (one transaction), returning
    /// what they changed in the whole logbook: regions whose standing rose, cells new to it.
    public func record(_ points: [TrackPoint]) throws -> LiveChanges {
        try recordEvents(points.map { .point($0) })
    }

    /// Marks a gap the app knows of (tracking paused, the fix lost): no leg joins the points on
    /// either side.
    public func breakSegment() throws {
        _ = try recordEvents([.segmentBreak])
    }

    /// Ends the recording: what was still open is decided, and the recording becomes an input
    /// of the logbook like an imported file. Returns the last changes.
    @discardableResult
    public func endRecording() throws -> LiveChanges {
        var changes = LiveChanges()
        try commit { next in
            guard let id = next.recordingID else { throw recordingError(LiveLedgerError.noRecording) }
            do { changes = try next.endRecording() } catch { throw recordingError(error) }
            var delta = Delta()
            delta.changed = [id]
            delta.recording = .some(nil)
            return delta
        }
        return changes
    }

    /// Feeds events to a copy of the live ledger and saves them as one batch.
    func recordEvents(_ events: [RecordingEvent]) throws -> LiveChanges {
        guard !readOnly else { throw LogbookError(.storage, path: path, reason: "opened for reading only") }
        guard live.recordingID != nil else { throw recordingError(LiveLedgerError.noRecording) }
        func feed(_ ledger: LiveLedger) throws -> (LiveLedger, LiveChanges) {
            var next = ledger, changes = LiveChanges()
            do {
                for event in events {
                    switch event {
                    case let .point(point): changes.absorb(try next.feed(point))
                    case .segmentBreak: try next.breakSegment()
                    }
                }
            } catch {
                throw recordingError(error)
            }
            return (next, changes)
        }
        var (next, changes) = try feed(live)
        let bytes = RecordingBatch.encode(events)
        do {
            let mac = try store.transaction { () throws -> [UInt8]? in
                if try store.dataVersion() != seenVersion {
                    // Another process wrote meanwhile: read it (the recording is replayed from its batches) and feed again.
                    try reload()
                    guard live.recordingID != nil else { throw recordingError(LiveLedgerError.noRecording) }
                    (next, changes) = try feed(live)
                }
                let mac = signer?.mac(ofBatch: bytes, after: batchChain)
                try store.appendBatch(bytes, mac: mac)
                if let mac {
                    try LogbookWriter.sign(store, signer: signer, rules: StoredExclusions.signedRules(LogbookLoader.rulesText(rules, worldview: worldview), live.options.exclusions), macs: macs,
                                           forgotten: live.finished.forgotten, badges: live.finished.reportedBadgePercents, recording: recordingRow, lastBatch: mac)
                }
                return mac
            }
            live = next
            if let mac { batchChain = mac }
            seenVersion = try store.dataVersion()
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            throw store.failure(error)
        }
        return changes
    }

    func recordingError(_ error: Error) -> LogbookError {
        switch error {
        case let error as LogbookError: return error
        case let error as LiveLedgerError:
            switch error {
            case .noRecording: return LogbookError(.recording(.noRecording), path: path, reason: "no recording in progress: call beginRecording(id:) first")
            case let .recordingInProgress(id): return LogbookError(.recording(.inProgress(id: id)), path: path, reason: "recording '\(id)' is in progress: end it before beginning another")
            case let .duplicateID(id): return LogbookError(.recording(.duplicateID(id)), path: path, reason: "the logbook already has an input '\(id)': give each recording a new id")
            case .emptyID: return LogbookError(.recording(.emptyID), path: path, reason: "a recording needs a non-empty id")
            case let .overflow(overflow): return LogbookError(.overflow, path: path, reason: "\(overflow)")
            }
        default: return LogbookError(.storage, path: path, reason: "\(error)")
        }
    }
}

extension LiveChanges {
    /// Adds what a later call changed: a region raised twice keeps its latest standing.
    mutating func absorb(_ later: LiveChanges) {
        for change in later.regions {
            if let index = regions.firstIndex(where: { $0.key == change.key }) {
                let previous = regions[index].previous
                regions[index] = change
                regions[index].previous = previous
            } else {
                regions.append(change)
            }
        }
        newCells += later.newCells
    }
}
