import Foundation
import Intake
import RegionTables
import TextFormats
import Tracks
import Unlocks

/// A person's footprint: every history imported and every recording made, what they unlocked and
/// explored, kept in one SQLite file (the *store*). The one type an app and every command of
/// `unlocks` use:
///
/// ```swift
/// let logbook = try Logbook(at: url, locator: try .bundled())        // created when missing
/// let result = try await logbook.importSources([.url(folder), .url(zip)])
/// let report = try await logbook.report(ReportOptions(badges: catalog))
/// try await logbook.beginRecording(id: "live/\(UUID())")
/// let changes = try await logbook.record(points)                      // one transaction per call
/// let cells = try await logbook.cells(in: viewport)                    // the map's R-tree
/// ```
///
/// **What is kept.** Each input (a file, an archive member, a recording) is a row known by a hash
/// of its whole content, with its record (status, reason, counts) and its contribution (regions'
/// visits, minutes, cells, tiles, pass candidates, days); what was forgotten; the badge percents
/// reported; the recording in progress as its points in batches. From them the report is
/// computed (``report(_:)``), so one run, several imports, recordings and merged logbooks give the
/// same report; the map's cell blocks (with their R-tree), the unlocks and the days are written
/// beside them for readers that do not compute.
///
/// **Rules.** A logbook keeps the rules it was made with (``rules``: time zone, explore speed,
/// plans, familiarity levels, worldview); opening it with other rules is refused
/// (``LogbookError/Kind/rulesDiffer``), since days and evidence would be counted two ways.
///
/// **Transactions.** Every change is one SQLite transaction (WAL): a killed process leaves the
/// store as it was before or after the change, never between; a live batch costs one small
/// transaction. Two processes may share a store: SQLite's own locking orders their writes, and an
/// import that finds the store changed by another process merges into what is there, as shards
/// merge (``merge(contentsOf:)``).
///
/// **Signing.** Given a key (``Configuration/key``), each input's row and the store's key figures
/// are HMAC-SHA256 signed; a store changed without the key is refused on opening
/// (``LogbookError/Kind/signatureMismatch``).
public actor Logbook {
    /// How to open a logbook.
    public struct Configuration: Sendable {
        /// The rules of a new logbook; for an existing one nil takes its own, and other rules are refused.
        public var rules: ClassifyOptions?
        /// The signing key (any bytes; 32 random bytes kept in the keychain is typical); nil: unsigned.
        public var key: [UInt8]?
        /// Opened for reading only: nothing is written, not even a migration.
        public var readOnly = false
        /// Whether a missing store is created.
        public var createIfMissing = true

        public init(rules: ClassifyOptions? = nil, key: [UInt8]? = nil, readOnly: Bool = false, createIfMissing: Bool = true) {
            self.rules = rules
            self.key = key
            self.readOnly = readOnly
            self.createIfMissing = createIfMissing
        }
    }

    /// Where the store is.
    public nonisolated let url: URL
    public nonisolated let locator: RegionLocator
    /// The rules every input of this logbook was classified with.
    public nonisolated let rules: ClassifyOptions
    /// Whether the store was created by this open (it did not exist, or held nothing).
    public nonisolated let isNew: Bool
    /// The state file of the previous format this open migrated, kept beside the store
    /// (`STORE.austate4`); nil when nothing was migrated.
    public nonisolated let migratedFrom: URL?

    let store: LogbookStore
    let signer: LogbookSigner?
    let readOnly: Bool
    /// The ledger (every finished input) and the recording in progress.
    var live: LiveLedger
    /// The cell blocks as stored (to write only those that change).
    var blocks: CellBlocks
    /// Each input's MAC as stored (signed stores).
    var macs: [String: [UInt8]] = [:]
    /// Where each input was read from (``LogbookStore/InputRow/origin``), by key.
    var origins: [String: String] = [:]
    /// The last batch's MAC of the recording in progress (signed stores).
    var batchChain: [UInt8] = []
    /// The recording in progress as stored.
    var recordingRow: LogbookStore.RecordingRow?
    /// SQLite's `data_version` when this connection last wrote or read: another process's commit changes it.
    var seenVersion: Int64 = 0
    /// Whether the derived tables (cell blocks, unlocks, days) lag the rows: a logbook in memory
    /// writes them only when asked for (no other reader can see them), a file with every change.
    var derivedAreStale = false
    /// A logbook in memory (``init(inMemoryWith:rules:)``).
    let inMemory: Bool

    /// Opens the logbook at `url` (a file path), creating it when missing; a `--state` file of the
    /// previous format (`AUSTATE4`) is migrated to a store in its place, the old file kept beside it.
    public init(at url: URL, locator: RegionLocator, configuration: Configuration = Configuration()) throws {
        try self.init(storePath: url.path, url: url, locator: locator, configuration: configuration)
    }

    /// A logbook kept in memory only (SQLite's `:memory:` database): the same rules and answers,
    /// gone when released. What `unlocks classify` without `--state` runs on.
    public init(inMemoryWith locator: RegionLocator, rules: ClassifyOptions = ClassifyOptions()) throws {
        try self.init(storePath: ":memory:", url: URL(fileURLWithPath: "/dev/null"), locator: locator, configuration: Configuration(rules: rules))
    }

    private init(storePath path: String, url: URL, locator: RegionLocator, configuration: Configuration) throws {
        self.url = url
        self.path = path == ":memory:" ? "(in memory)" : path
        inMemory = path == ":memory:"
        self.locator = locator
        readOnly = configuration.readOnly
        var migrated: URL?
        if let legacy = try StateMigration.legacyState(at: path) {
            guard !configuration.readOnly else {
                throw LogbookError(.unmigratableState, path: path, reason: "a state of the previous format; open it once for writing to migrate it to a logbook")
            }
            migrated = try StateMigration.migrate(legacy, at: path, locator: locator, rules: configuration.rules, key: configuration.key)
        }
        migratedFrom = migrated
        let exists = path == ":memory:" || FileManager.default.fileExists(atPath: path)
        guard exists || configuration.createIfMissing else {
            throw LogbookError(.notALogbook, path: path, reason: "no such logbook")
        }
        store = try LogbookStore.open(path: path, create: configuration.createIfMissing, readOnly: configuration.readOnly)
        signer = configuration.key.map(LogbookSigner.init(key:))

        let loaded = try LogbookLoader.load(store, locator: locator, rules: configuration.rules, signer: signer, readOnly: configuration.readOnly)
        rules = loaded.rules
        isNew = loaded.isNew
        blocks = loaded.blocks
        macs = loaded.macs
        origins = loaded.origins
        recordingRow = loaded.recording
        batchChain = loaded.batchChain
        live = loaded.live
        seenVersion = (try? store.dataVersion()) ?? 0
    }

    /// The worldview the logbook answers countries in (the locator's).
    public nonisolated var worldview: Worldview { locator.tables.worldview }

    /// The store's path as errors name it.
    nonisolated let path: String

    /// The rules the logbook or state file at `url` was made with, without opening it for use;
    /// nil when there is none yet. For a caller that keeps a store's rules and changes one.
    public static func storedRules(at url: URL, locator: RegionLocator) throws -> ClassifyOptions? {
        let path = url.path
        if let legacy = try StateMigration.legacyState(at: path) {
            if let problem = LedgerState.headerProblem(Array(legacy.prefix(8))) { throw LogbookError(.unmigratableState, path: path, reason: problem) }
            guard let rules = LedgerState.rules(of: legacy) else { throw LogbookError(.damaged, path: path, reason: "a state file without readable rules") }
            return try LogbookLoader.rules(rules.compactRendered(), given: nil, worldview: locator.tables.worldview, path: path)
        }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let store = try LogbookStore.open(path: path, create: false, readOnly: true)
        let text: String?
        do { text = store.hasSchema ? try store.metaText("rules") : nil } catch { throw store.failure(error) }
        return try text.map { try LogbookLoader.rules($0, given: nil, worldview: locator.tables.worldview, path: path) }
    }

    /// The ledger: every finished input, and the recording in progress as if it ended now.
    public var ledger: UnlockLedger { live.ledger }

    /// Every input, as the report lists them.
    public var inputs: [InputRecord] { live.finished.inputs.values.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) } }

    /// SQLite's own check of the whole file (`PRAGMA integrity_check`): `["ok"]` when sound.
    public func integrityCheck() throws -> [String] {
        do { return try store.integrityCheck() } catch { throw store.failure(error) }
    }
}
