import Foundation
import RegionTables
import Unlocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--state` file of the previous release (`AUSTATE4`, one binary file rewritten whole) read
/// and moved into a logbook with nothing lost: every input's record and contribution, what was
/// forgotten, the badge percents reported, the rules. The store takes the state's place; the
/// state is kept beside it as `STATE.austate4`.
enum StateMigration {
    static let backupSuffix = ".austate4"

    /// The bytes of the state file at `path` when it is one (its first bytes `AUSTATE`); nil for
    /// anything else (a logbook, a missing file, another file: opening says what it is).
    static func legacyState(at path: String) throws -> [UInt8]? {
        guard path != ":memory:", let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 7), head == Data("AUSTATE".utf8) else { return nil }
        try handle.seek(toOffset: 0)
        guard let all = try handle.readToEnd() else { return nil }
        return [UInt8](all)
    }

    /// The ledger of a state file and the rules it was made with (which must be `rules` when given).
    static func ledger(of bytes: [UInt8], path: String, locator: RegionLocator, rules given: ClassifyOptions?) throws -> (UnlockLedger, ClassifyOptions) {
        if let problem = LedgerState.headerProblem(Array(bytes.prefix(8))) {
            throw LogbookError(.unmigratableState, path: path, reason: problem)
        }
        guard let stored = LedgerState.rules(of: bytes) else { throw LogbookError(.damaged, path: path, reason: "a state file without readable rules") }
        let rules = try LogbookLoader.rules(stored.compactRendered(), given: given, worldview: locator.tables.worldview, path: path)
        do {
            return (try LedgerState.decode(bytes, path: path, options: rules, tables: locator.tables), rules)
        } catch let error as StateError {
            throw LogbookError(.damaged, path: path, reason: error.reason)
        }
    }

    /// Writes the state's ledger into a new store beside it, then puts the store in its place and
    /// the state beside it (`STATE.austate4`). Killed at any moment, `path` holds the state or the
    /// finished store, never a half-made one. Returns the kept state's URL.
    static func migrate(_ bytes: [UInt8], at path: String, locator: RegionLocator, rules given: ClassifyOptions?, key: [UInt8]?) throws -> URL {
        let (ledger, rules) = try ledger(of: bytes, path: path, locator: locator, rules: given)
        let staging = path + ".migrating-\(getpid())"
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(staging + suffix) }
        do {
            let store = try LogbookStore.open(path: staging, create: true)
            let signer = key.map(LogbookSigner.init(key:))
            try store.transaction {
                let rulesText = LogbookLoader.rulesText(rules, worldview: locator.tables.worldview)
                try store.setMeta("rules", .text(rulesText))
                var rows = LogbookWriter.Rows(macs: [:], origins: [:])
                try LogbookWriter.writeInputs(store, ledger: ledger, changed: Set(ledger.inputs.keys), removed: [], rows: &rows, signer: signer, tables: locator.tables)
                _ = try LogbookWriter.writeDerived(store, ledger: ledger, locator: locator, rules: rules, replacing: CellBlocks())
                try LogbookWriter.sign(store, signer: signer, rules: rulesText, macs: rows.macs, forgotten: ledger.forgotten,
                                       badges: ledger.reportedBadgePercents, recording: nil, lastBatch: [])
            }
            // One file, no write-ahead log beside it, before it is moved into place.
            try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
        } catch let error as SQLiteError {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(staging + suffix) }
            throw LogbookError(.storage, path: path, reason: "cannot migrate the state: \(error.message)")
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(staging + suffix) }
            throw error
        }
        let backup = path + backupSuffix
        unlink(backup)
        guard link(path, backup) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staging)
            throw LogbookError(.storage, path: path, reason: "cannot keep the state as \(backup): \(reason)")
        }
        guard rename(staging, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staging)
            throw LogbookError(.storage, path: path, reason: "cannot put the migrated logbook in place: \(reason)")
        }
        return URL(fileURLWithPath: backup)
    }
}
