import ChinaDatum
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RegionTables
import TextFormats
import Unlocks

/// The rows of a logbook file: opening (or creating) it with its schema, and reading and writing
/// the inputs, their contributions, what was forgotten, the badge percents reported, the
/// recording in progress and the map's cell blocks. The ``Logbook`` decides what to write; this
/// is only the mapping to SQL. Every method but ``open(path:create:)`` runs inside the caller's
/// transaction.
package final class LogbookStore {
    package let path: String
    let database: SQLiteDatabase

    /// A store opened or created at `path`, in WAL mode (readers never wait for a writer; a
    /// killed writer leaves the last committed state). Fails when the file is not a logbook or
    /// of a newer format.
    package static func open(path: String, create: Bool = true, readOnly: Bool = false) throws(LogbookError) -> LogbookStore {
        if create, !readOnly, path != ":memory:" { removeOrphanedJournals(of: path) }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, readOnly: readOnly, create: create)
        } catch {
            throw LogbookError(.storage, path: path, reason: "cannot open: \(error.message)")
        }
        let store = LogbookStore(path: path, database: database)
        try store.prepare(readOnly: readOnly)
        return store
    }

    /// Creates the store's file when it does not exist (exclusively: this process made it) and
    /// then removes a write-ahead log or journal left beside it by a deleted database, which SQLite
    /// would otherwise replay into the new one.
    private static func removeOrphanedJournals(of path: String) {
        #if canImport(Glibc)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        #else
        let descriptor = Darwin.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        #endif
        guard descriptor >= 0 else { return }
        close(descriptor)
        for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    private init(path: String, database: SQLiteDatabase) {
        self.path = path
        self.database = database
    }

    /// Checks the file's identity and format, creating the schema in a new (empty) file. The
    /// check and the creation are one write transaction, so two processes opening a new file at
    /// once create it once.
    private func prepare(readOnly: Bool) throws(LogbookError) {
        do {
            if !readOnly { try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL") }
            func identify() throws -> Bool {
                let application = try database.pragmaInteger("application_id")
                let format = try database.pragmaInteger("user_version")
                let tables = try database.rows("SELECT count(*) FROM sqlite_schema") { $0.int64(0) }.first ?? 0
                if application == 0 && format == 0 && tables == 0 { return false }
                guard application == LogbookSchema.applicationID else {
                    throw LogbookError(.notALogbook, path: path, reason: "an SQLite database that is not a logbook (application id \(application))")
                }
                guard format <= LogbookSchema.format else {
                    throw LogbookError(.newerFormat, path: path, reason: "a logbook of format \(format), newer than this unlocks reads (format \(LogbookSchema.format)); use the unlocks that wrote it, or a newer one")
                }
                guard format >= 1 else { throw LogbookError(.damaged, path: path, reason: "a logbook without a format number") }
                return true
            }
            // An empty file read-only is a logbook with nothing in it yet (another process is creating it).
            if readOnly {
                _ = try identify()
                return
            }
            if try identify() { return }
            try database.transaction {
                guard try !identify() else { return }
                try database.execute(LogbookSchema.statements)
                try database.execute("PRAGMA application_id = \(LogbookSchema.applicationID); PRAGMA user_version = \(LogbookSchema.format)")
            }
        } catch let error as LogbookError {
            throw error
        } catch let error as SQLiteError {
            if error.code == 26 {  // SQLITE_NOTADB
                throw LogbookError(.notALogbook, path: path, reason: "not a logbook (an AdminUnlocks SQLite store) nor a state file of the previous format")
            }
            throw failure(error)
        } catch {
            throw LogbookError(.storage, path: path, reason: "\(error)")
        }
    }

    /// Whether the store has its schema (an empty file opened read-only has none yet).
    package var hasSchema: Bool {
        ((try? database.rows("SELECT count(*) FROM sqlite_schema WHERE name = 'meta'") { $0.int64(0) })?.first ?? 0) > 0
    }

    /// An SQLite error as the logbook's: damage named as such, the rest a storage failure.
    package func failure(_ error: SQLiteError) -> LogbookError {
        if error.extendedCode == 1032 {  // SQLITE_READONLY_DBMOVED
            return LogbookError(.storage, path: path, reason: "the logbook was moved, replaced or deleted while this run used it; nothing was written there. Put it back (or start a new one) and run again")
        }
        if error.isCorruption {
            return LogbookError(.damaged, path: path, reason: "the store is damaged (\(error.message)); rebuild it from your tracks")
        }
        return LogbookError(.storage, path: path, reason: error.description)
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T { try database.transaction(body) }

    // MARK: Meta

    package func meta(_ key: String) throws(SQLiteError) -> SQLiteValue? {
        let statement = try database.statement("SELECT value FROM meta WHERE key = ?")
        defer { statement.reset() }
        try statement.bind([.text(key)])
        guard try statement.step() else { return nil }
        return statement.value(0)
    }

    package func metaText(_ key: String) throws(SQLiteError) -> String? {
        if case let .text(value)? = try meta(key) { return value }
        return nil
    }

    package func metaBlob(_ key: String) throws(SQLiteError) -> [UInt8]? {
        if case let .blob(value)? = try meta(key) { return value }
        return nil
    }

    package func setMeta(_ key: String, _ value: SQLiteValue) throws(SQLiteError) {
        try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", .text(key), value)
    }

    package func removeMeta(_ key: String) throws(SQLiteError) {
        try database.run("DELETE FROM meta WHERE key = ?", .text(key))
    }

    // MARK: Inputs

    /// One stored input: its record, its contribution's bytes (nil: it contributed nothing), its
    /// MAC, and where it was read from (the absolute path of the file or the archive member, so
    /// that `forget` matches it from any folder; nil for bytes an app handed over).
    package struct InputRow {
        package var record: InputRecord
        package var contribution: [UInt8]?
        package var mac: [UInt8]?
        package var origin: String?
    }

    package func inputRows() throws -> [InputRow] {
        let sql = """
        SELECT key, path, format, status, error, skip_reason, duplicate_of, activity_type, activity_name, datum, datum_hint, datum_hint_reason,
               pins, points_read, points_kept, points_in_flight, points_planned, dropped, contribution, mac, origin FROM inputs ORDER BY key
        """
        return try database.rows(sql) { row throws -> InputRow in
            let key = row.text(0) ?? "", path = row.text(1) ?? ""
            func fail(_ reason: String) -> LogbookError { LogbookError(.damaged, path: self.path, reason: "input \(path): \(reason)") }
            guard let status = row.text(3).flatMap(InputRecord.Status.init(rawValue:)) else { throw fail("bad status") }
            var record = InputRecord(path: path, fingerprint: key, format: row.text(2) ?? "", status: status, error: row.text(4))
            record.skipReason = row.text(5).map(SkipReason.init(description:))
            record.duplicateOf = row.text(6)
            record.activityType = row.text(7)
            record.activityName = row.text(8)
            if let datum = row.text(9) {
                guard let value = Datum(rawValue: datum) else { throw fail("bad datum \(datum)") }
                record.datum = value
            }
            if let hint = row.text(10) {
                guard let datum = Datum(rawValue: hint) else { throw fail("bad datum hint \(hint)") }
                record.datumHint = DatumHint(datum: datum, reason: row.text(11) ?? "")
            }
            let largest = Int64(1) << 53
            func count(_ column: Int32, _ what: String) throws -> Int64 {
                let value = row.int64(column)
                guard value >= 0, value <= largest else { throw fail("\(what) \(value) is not in 0...2^53") }
                return value
            }
            record.pins = try count(12, "pins")
            record.pointsRead = try count(13, "points read")
            record.pointsKept = try count(14, "points kept")
            record.pointsInFlight = try count(15, "points in flight")
            record.pointsPlanned = try count(16, "planned points")
            guard case let .object(members)? = try? JSONParser.parse(Array((row.text(17) ?? "").utf8)) else { throw fail("bad dropped counts") }
            for (name, value) in members {
                guard let reason = DropReason(rawValue: name), record.dropped[reason] == nil, let n = value.numberValue,
                      n == n.rounded(), n >= 0, n <= Double(largest) else { throw fail("bad dropped count \(name)") }
                record.dropped[reason] = Int64(n)
            }
            guard record.pointsInFlight <= record.pointsKept, record.pointsPlanned <= record.pointsKept,
                  record.dropped.values.reduce(record.pointsKept, +) == record.pointsRead else {
                throw fail("read \(record.pointsRead) points but keeps \(record.pointsKept) and drops \(record.dropped.values.reduce(0, +)): every point read is kept or dropped")
            }
            return InputRow(record: record, contribution: row.isNull(18) ? nil : row.blob(18), mac: row.isNull(19) ? nil : row.blob(19), origin: row.text(20))
        }
    }

    package func upsert(_ row: InputRow) throws(SQLiteError) {
        let r = row.record
        let dropped = JSONValue.object(DropReason.allCases.compactMap { reason in r.dropped[reason].map { (reason.rawValue, .number(Double($0))) } }).compactRendered()
        let sql = """
        INSERT OR REPLACE INTO inputs(key, path, format, status, error, skip_reason, duplicate_of, activity_type, activity_name, datum, datum_hint,
               datum_hint_reason, pins, points_read, points_kept, points_in_flight, points_planned, dropped, contribution, mac, origin)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
        let statement = try database.statement(sql)
        try statement.bind([.text(r.fingerprint), .text(r.path), .text(r.format), .text(r.status.rawValue), .optional(r.error), .optional(r.skipReason?.description),
                            .optional(r.duplicateOf), .optional(r.activityType), .optional(r.activityName),
                            r.datum.flatMap { $0 == .wgs84 ? nil : SQLiteValue.text($0.rawValue) } ?? .null,
                            .optional(r.datumHint?.datum.rawValue), .optional(r.datumHint?.reason),
                            .integer(r.pins), .integer(r.pointsRead), .integer(r.pointsKept), .integer(r.pointsInFlight), .integer(r.pointsPlanned),
                            .text(dropped), row.contribution.map { .blob($0) } ?? .null, row.mac.map { .blob($0) } ?? .null, .optional(row.origin)])
        while try statement.step() {}
    }

    package func deleteInput(_ key: String) throws(SQLiteError) {
        try database.run("DELETE FROM inputs WHERE key = ?", .text(key))
    }

    // MARK: Forgotten, badges

    package func forgotten() throws -> [String: String] {
        Dictionary(try database.rows("SELECT key, path FROM forgotten") { ($0.text(0) ?? "", $0.text(1) ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    package func replaceForgotten(_ forgotten: [String: String]) throws(SQLiteError) {
        try database.run("DELETE FROM forgotten")
        for (key, path) in forgotten.sorted(by: { $0.key < $1.key }) {
            try database.run("INSERT INTO forgotten(key, path) VALUES (?, ?)", .text(key), .text(path))
        }
    }

    package func badgesReported() throws -> [String: Int] {
        var result: [String: Int] = [:]
        for (id, percent) in try database.rows("SELECT id, percent FROM badges_reported", row: { ($0.text(0) ?? "", $0.int64(1)) }) {
            guard !id.isEmpty, (0...100).contains(percent) else {
                throw LogbookError(.damaged, path: path, reason: "badge \(id) reported at \(percent)%: a whole percent 0–100 per badge id")
            }
            result[id] = Int(percent)
        }
        return result
    }

    package func replaceBadges(_ badges: [String: Int]) throws(SQLiteError) {
        try database.run("DELETE FROM badges_reported")
        for (id, percent) in badges.sorted(by: { $0.key < $1.key }) {
            try database.run("INSERT INTO badges_reported(id, percent) VALUES (?, ?)", .text(id), .integer(Int64(percent)))
        }
    }

    // MARK: The recording in progress

    package struct RecordingRow: Equatable, Sendable {
        package var id: String
        package var name: String?
        package var activityType: String?
        package var datum: Datum?
    }

    package func recording() throws -> RecordingRow? {
        try database.rows("SELECT id, name, activity_type, datum FROM recording") { row throws -> RecordingRow in
            var datum: Datum?
            if let text = row.text(3) {
                guard let value = Datum(rawValue: text) else { throw LogbookError(.damaged, path: path, reason: "the recording's datum \(text)") }
                datum = value
            }
            return RecordingRow(id: row.text(0) ?? "", name: row.text(1), activityType: row.text(2), datum: datum)
        }.first
    }

    package func setRecording(_ row: RecordingRow?) throws(SQLiteError) {
        try database.run("DELETE FROM recording")
        try database.run("DELETE FROM recording_batches")
        guard let row else { return }
        try database.run("INSERT INTO recording(id, name, activity_type, datum) VALUES (?, ?, ?, ?)",
                         .text(row.id), .optional(row.name), .optional(row.activityType), .optional(row.datum?.rawValue))
    }

    package func recordingBatches() throws -> [(points: [UInt8], mac: [UInt8]?)] {
        try database.rows("SELECT points, mac FROM recording_batches ORDER BY sequence") { ($0.blob(0), $0.isNull(1) ? nil : $0.blob(1)) }
    }

    package func appendBatch(_ points: [UInt8], mac: [UInt8]?) throws(SQLiteError) {
        try database.run("INSERT INTO recording_batches(points, mac) VALUES (?, ?)", .blob(points), mac.map { .blob($0) } ?? .null)
    }

    // MARK: Checks

    /// `PRAGMA quick_check`: nil when SQLite finds nothing wrong, else its first finding.
    package func quickCheck() throws(SQLiteError) -> String? {
        let statement = try database.statement("PRAGMA quick_check(1)")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let line = statement.text(0) ?? ""
        return line == "ok" ? nil : line
    }

    package func integrityCheck() throws(SQLiteError) -> [String] { try database.integrityCheck() }

    /// Changes other connections committed since this one last looked (SQLite's `data_version`).
    package func dataVersion() throws(SQLiteError) -> Int64 { try database.pragmaInteger("data_version") }
}
