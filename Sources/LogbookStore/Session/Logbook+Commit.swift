import Foundation
import RegionTables
import Unlocks

// Every change is one transaction: the rows it changed, the derived tables, the signature.

extension Logbook {
    /// What a change did to the inputs: rows to write and rows to delete.
    struct Delta {
        var changed: Set<String> = []
        var removed: Set<String> = []
        /// The recording begun (a row) or ended (nil); absent: unchanged. Either clears its batches.
        var recording: LogbookStore.RecordingRow??
        /// Where new inputs were read from, by key.
        var origins: [String: String] = [:]
    }

    /// Applies a change in one transaction. `apply` runs inside it on a copy of the live ledger,
    /// after the store is known to hold what this logbook holds (another process's commit since
    /// this one last looked is read first); the copy becomes the logbook's only once committed.
    /// `derive`: also rewrite the map's cell blocks, the unlocks and the days (every change but a
    /// recording's batch). Returns the report the derived tables were made from (nil without `derive`).
    @discardableResult
    func commit(derive: Bool = true, _ apply: (inout LiveLedger) throws -> Delta) throws -> ClassifyReport? {
        guard !readOnly else { throw LogbookError(.storage, path: path, reason: "opened for reading only") }
        struct Outcome {
            var live: LiveLedger
            var rows: LogbookWriter.Rows
            var derived: (report: ClassifyReport, blocks: CellBlocks)?
            var recording: LogbookStore.RecordingRow?
            var chain: [UInt8]
        }
        do {
            let outcome = try store.transaction { () throws -> Outcome in
                if try store.dataVersion() != seenVersion { try reload() }
                var next = live
                let delta = try apply(&next)
                var rows = LogbookWriter.Rows(macs: macs, origins: origins)
                rows.origins.merge(delta.origins) { _, new in new }
                let ledger = next.finished
                try LogbookWriter.writeInputs(store, ledger: ledger, changed: delta.changed, removed: delta.removed, rows: &rows, signer: signer, tables: locator.tables)
                var recording = recordingRow, chain = batchChain
                if let change = delta.recording {
                    try store.setRecording(change)
                    (recording, chain) = (change, [])
                }
                let writesDerived = derive && !inMemory
                let derived = writesDerived ? try LogbookWriter.writeDerived(store, ledger: next.ledger, locator: locator, rules: rules, replacing: blocks) : nil
                if let report = derived?.report {
                    var figures = ClassifyReport.Baseline(report)
                    figures.badges = ledger.reportedBadgePercents
                    try store.addRevision(figures.json().compactRendered(), at: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
                }
                try LogbookWriter.sign(store, signer: signer, rules: StoredExclusions.signedRules(LogbookLoader.rulesText(rules, worldview: worldview), next.options.exclusions), macs: rows.macs,
                                       forgotten: ledger.forgotten, badges: ledger.reportedBadgePercents, recording: recording, lastBatch: chain)
                return Outcome(live: next, rows: rows, derived: derived, recording: recording, chain: chain)
            }
            // Committed: only now does the logbook take the result.
            live = outcome.live
            (macs, origins) = (outcome.rows.macs, outcome.rows.origins)
            (recordingRow, batchChain) = (outcome.recording, outcome.chain)
            if let derived = outcome.derived { blocks = derived.blocks }
            if derive && inMemory { derivedAreStale = true }
            seenVersion = try store.dataVersion()
            return outcome.derived?.report
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            throw store.failure(error)
        }
    }

    /// Writes the derived tables of a logbook in memory, when a change left them behind.
    func refreshDerived() throws {
        guard derivedAreStale else { return }
        do {
            let derived = try store.transaction {
                try LogbookWriter.writeDerived(store, ledger: live.ledger, locator: locator, rules: rules, replacing: blocks)
            }
            blocks = derived.blocks
            derivedAreStale = false
        } catch let error as SQLiteError {
            throw store.failure(error)
        }
    }

    /// Re-reads the store (another process committed to it).
    func reload() throws {
        let loaded = try LogbookLoader.load(store, locator: locator, rules: rules, signer: signer, readOnly: readOnly)
        blocks = loaded.blocks
        macs = loaded.macs
        origins = loaded.origins
        recordingRow = loaded.recording
        batchChain = loaded.batchChain
        live = loaded.live
        seenVersion = try store.dataVersion()
    }
}

/// Writing a ledger's rows, shared by a logbook's changes and the migration of a state file.
enum LogbookWriter {
    /// What a store's input rows keep beside the ledger: MACs, origins.
    struct Rows {
        var macs: [String: [UInt8]]
        var origins: [String: String]
    }

    /// Deletes the `removed` inputs' rows and writes the `changed` ones (each contribution
    /// self-contained: ``ContributionCodec``, its regions by code), what was forgotten and the
    /// badge percents reported.
    static func writeInputs(_ store: LogbookStore, ledger: UnlockLedger, changed: Set<String>, removed: Set<String>, rows: inout Rows,
                            signer: LogbookSigner?, tables: TableSet) throws {
        for key in removed.sorted() {
            try store.deleteInput(key)
            rows.macs[key] = nil
            rows.origins[key] = nil
        }
        for key in changed.sorted() {
            guard let record = ledger.inputs[key] else { continue }
            let bytes = ledger.contributions[key].map { ContributionCodec.encode($0, tables: tables) }
            let mac = signer?.mac(of: record, contribution: bytes)
            try store.upsert(LogbookStore.InputRow(record: record, contribution: bytes, mac: mac, origin: rows.origins[key]))
            rows.macs[key] = mac
        }
        try store.replaceForgotten(ledger.forgotten)
        try store.replaceBadges(ledger.reportedBadgePercents)
    }

    /// The map's cell blocks, the unlocks and the days of `ledger`, written over the old ones.
    static func writeDerived(_ store: LogbookStore, ledger: UnlockLedger, locator: RegionLocator, rules: ClassifyOptions,
                             replacing old: CellBlocks) throws -> (report: ClassifyReport, blocks: CellBlocks) {
        let combined: CombinedLedger, report: ClassifyReport
        do {
            combined = try ledger.combined()
            report = try ClassifyReport(ledger: ledger, combined: combined, tables: locator.tables, options: rules, lenient: false)
        } catch {
            throw LogbookError(.overflow, path: store.path, reason: "\(error)")
        }
        let levels = combined.cellPasses.map { rules.familiarityLevels.level(passes: $0) }
        let blocks = CellBlocks(cells: combined.cells, levels: levels)
        try store.writeCellBlocks(blocks, replacing: old)
        try store.replaceUnlocks(report)
        try store.replaceDays(report)
        return (report, blocks)
    }

    /// Rewrites the signature over the store's rows (signed stores only).
    static func sign(_ store: LogbookStore, signer: LogbookSigner?, rules: String, macs: [String: [UInt8]], forgotten: [String: String],
                     badges: [String: Int], recording: LogbookStore.RecordingRow?, lastBatch: [UInt8]) throws {
        guard let signer else { return }
        let signature = signer.signature(rules: rules, inputMACs: macs, forgotten: forgotten, badges: badges,
                                         recording: recording, lastBatch: lastBatch)
        try store.setMeta("signature", .blob(signature))
    }
}
