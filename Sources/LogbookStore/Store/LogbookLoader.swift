import Foundation
import RegionTables
import TextFormats
import Unlocks

/// Reads a whole store into memory on opening: its rules (checked against the caller's), regions,
/// inputs with their contributions (every number range-checked), the signature (when signed), and
/// the recording in progress replayed into a live ledger.
enum LogbookLoader {
    struct Loaded {
        var rules: ClassifyOptions
        var isNew: Bool
        var blocks: CellBlocks
        var macs: [String: [UInt8]]
        var origins: [String: String]
        var recording: LogbookStore.RecordingRow?
        var batchChain: [UInt8]
        var live: LiveLedger
    }

    /// The stored form of rules: compact JSON of the state file's rule members.
    static func rulesText(_ options: ClassifyOptions, worldview: Worldview) -> String {
        JSONValue.object(LedgerState.ruleValues(options, worldview: worldview)).compactRendered()
    }

    static func load(_ store: LogbookStore, locator: RegionLocator, rules given: ClassifyOptions?, signer: LogbookSigner?, readOnly: Bool) throws -> Loaded {
        let path = store.path, worldview = locator.tables.worldview
        do {
            var storedRules = store.hasSchema ? try store.metaText("rules") : nil
            if storedRules == nil, !readOnly {
                // A new store: the given rules (or the defaults) become its own, unless another
                // process gave it rules meanwhile (checked in the same write transaction).
                let rules = given ?? ClassifyOptions()
                storedRules = try store.transaction { () throws -> String? in
                    if let other = try store.metaText("rules") { return other }
                    try store.setMeta("rules", .text(rulesText(rules, worldview: worldview)))
                    if let signer {
                        try store.setMeta("signature", .blob(signer.signature(rules: rulesText(rules, worldview: worldview), inputMACs: [:],
                                                                               forgotten: [:], badges: [:], recording: nil, lastBatch: [])))
                    }
                    return nil
                }
            }
            guard let storedRules else {
                let rules = given ?? ClassifyOptions()
                return Loaded(rules: rules, isNew: true, blocks: CellBlocks(), macs: [:], origins: [:],
                              recording: nil, batchChain: [], live: LiveLedger(locator: locator, options: rules, ledger: UnlockLedger()))
            }
            let rules = try self.rules(storedRules, given: given, worldview: worldview, path: path)
            let regions = ContributionCodec.Regions(tables: locator.tables)

            var ledger = UnlockLedger()
            var macs: [String: [UInt8]] = [:], origins: [String: String] = [:]
            for row in try store.inputRows() {
                let record = row.record
                origins[record.fingerprint] = row.origin
                if let bytes = row.contribution {
                    do {
                        ledger.contributions[record.fingerprint] = try ContributionCodec.decode(bytes, regions: regions)
                    } catch {
                        throw LogbookError(error.kind == .unknownRegion ? .unknownRegion : .damaged, path: path, reason: "input \(record.path): \(error)")
                    }
                }
                ledger.inputs[record.fingerprint] = record
                if let signer {
                    guard let mac = row.mac, macsEqual(mac, signer.mac(of: record, contribution: row.contribution)) else {
                        throw tampered(path, "input \(record.path)")
                    }
                    macs[record.fingerprint] = mac
                }
            }
            guard let exclusions = try store.metaText(StoredExclusions.metaKey).map(StoredExclusions.parse) ?? [] else {
                throw LogbookError(.damaged, path: path, reason: "the areas and periods it forgot are damaged")
            }
            ledger.forgotten = try store.forgotten()
            ledger.reportedBadgePercents = try store.badgesReported()
            let recording = try store.recording()
            let batches = try store.recordingBatches()

            var chain: [UInt8] = []
            if let signer {
                guard let signature = try store.metaBlob("signature") else {
                    throw LogbookError(.notSigned, path: path, reason: "this logbook is not signed, and a key was given; open it without the key, or import its tracks into a new logbook made with the key")
                }
                for batch in batches {
                    guard let mac = batch.mac, macsEqual(mac, signer.mac(ofBatch: batch.points, after: chain)) else { throw tampered(path, "the recording in progress") }
                    chain = mac
                }
                let expected = signer.signature(rules: StoredExclusions.signedRules(storedRules, exclusions), inputMACs: macs, forgotten: ledger.forgotten,
                                                badges: ledger.reportedBadgePercents, recording: recording, lastBatch: chain)
                guard macsEqual(signature, expected) else { throw tampered(path, "its key figures") }
            } else if try store.metaBlob("signature") != nil {
                throw LogbookError(.keyRequired, path: path, reason: "this logbook is signed: open it with its key (--state-key FILE)")
            }
            do {
                _ = try ledger.combined()
            } catch {
                throw LogbookError(.overflow, path: path, reason: "\(error)")
            }

            var classifying = rules
            classifying.exclusions = exclusions
            var live = LiveLedger(locator: locator, options: classifying, ledger: ledger)
            if let recording { try replay(recording, batches.map(\.points), into: &live, path: path) }
            return Loaded(rules: rules, isNew: false, blocks: try store.cellBlocks(), macs: macs, origins: origins,
                          recording: recording, batchChain: chain, live: live)
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            throw store.failure(error)
        }
    }

    /// Feeds the recording in progress, as its batches keep it, into `live`.
    static func replay(_ recording: LogbookStore.RecordingRow, _ batches: [[UInt8]], into live: inout LiveLedger, path: String) throws {
        do {
            try live.beginRecording(id: recording.id, name: recording.name, activityType: recording.activityType, datum: recording.datum)
            for batch in batches {
                guard let events = RecordingBatch.decode(batch) else { throw LogbookError(.damaged, path: path, reason: "a batch of the recording in progress is damaged") }
                for event in events {
                    switch event {
                    case let .point(point): _ = try live.feed(point)
                    case .segmentBreak: try live.breakSegment()
                    }
                }
            }
        } catch let error as LogbookError {
            throw error
        } catch {
            throw LogbookError(.damaged, path: path, reason: "the recording in progress cannot be replayed: \(error)")
        }
    }

    /// The store's rules as options; refused when they are another version's, another worldview's,
    /// or differ from the rules the caller gave.
    static func rules(_ text: String, given: ClassifyOptions?, worldview: Worldview, path: String) throws -> ClassifyOptions {
        guard let stored = try? JSONParser.parse(Array(text.utf8)) else { throw LogbookError(.damaged, path: path, reason: "its rules are not JSON") }
        guard let (options, storedView) = LedgerState.options(fromRules: stored) else {
            throw LogbookError(.rulesDiffer, path: path, reason: LedgerState.ruleMismatch(stored, given ?? ClassifyOptions(), worldview: worldview).replacingOccurrences(of: "the state", with: "the logbook"))
        }
        guard storedView == worldview else {
            throw LogbookError(.worldviewDiffers, path: path, reason: "made in the \(storedView.rawValue) worldview; these tables are the \(worldview.rawValue) worldview's: open it with the \(storedView.rawValue) worldview's tables, or use a new logbook")
        }
        if let given, rulesText(given, worldview: worldview) != text {
            throw LogbookError(.rulesDiffer, path: path, reason: LedgerState.ruleMismatch(stored, given, worldview: worldview).replacingOccurrences(of: "the state", with: "the logbook"))
        }
        var result = options
        if let given { result.inputDatum = given.inputDatum; result.since = given.since; result.until = given.until }
        return result
    }

    static func tampered(_ path: String, _ what: String) -> LogbookError {
        LogbookError(.signatureMismatch, path: path, reason: "\(what) changed without the logbook's key; its figures cannot be trusted. Move it aside and import your tracks into a new logbook with the key")
    }
}
