import CSQLite
import Foundation

/// An error SQLite reported: its primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …), the
/// extended code and its message. The logbook turns these into ``LogbookError`` kinds.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    package let code: Int32
    package let extendedCode: Int32
    package let message: String

    package var description: String { "\(message) (SQLite \(extendedCode))" }

    /// The database file is damaged or not a database at all.
    package var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
}

/// One connection to an SQLite database file, owned by one thread at a time (the logbook's actor).
/// Thin: statements are prepared, bound and stepped by ``SQLiteStatement``; transactions are
/// ``transaction(_:)``.
package final class SQLiteDatabase {
    let handle: OpaquePointer
    package let path: String
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (or, with `create`, creates) the database at `path`. A database that another process
    /// holds locked is waited for (`busyTimeout` milliseconds) rather than failed at once.
    package init(path: String, readOnly: Bool = false, create: Bool = true, busyTimeout: Int32 = 60_000) throws(SQLiteError) {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // No links followed to the database itself, one connection per thread (the actor).
        flags |= SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let error = SQLiteError(code: status & 0xFF, extendedCode: db.map(sqlite3_extended_errcode) ?? status,
                                    message: db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status)))
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xFF, extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs SQL that returns no rows (several statements allowed).
    package func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// A prepared statement, cached by its text for the connection's lifetime.
    package func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else { throw error(status) }
        let statement = SQLiteStatement(raw, database: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` bound in order, stepping it to the end.
    package func run(_ sql: String, _ values: SQLiteValue...) throws(SQLiteError) {
        let statement = try statement(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// The rows of `sql` with `values` bound, each read by `row`.
    package func rows<T>(_ sql: String, _ values: SQLiteValue..., row: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var result: [T] = []
        while try statement.step() { result.append(try row(statement)) }
        return result
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock taken at once, so two
    /// processes wait in SQLite's busy handler instead of failing half-way), committed when it
    /// returns and rolled back when it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `PRAGMA name` as an integer.
    package func pragmaInteger(_ name: String) throws(SQLiteError) -> Int64 {
        let statement = try statement("PRAGMA \(name)")
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// The first problems `PRAGMA integrity_check` finds ("ok" alone when there are none).
    package func integrityCheck() throws(SQLiteError) -> [String] {
        let statement = try statement("PRAGMA integrity_check")
        defer { statement.reset() }
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0) ?? "") }
        return lines
    }

    /// The rowid of the last row inserted.
    package var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows the last statement changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A value bound to a statement's parameter.
package enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package static func optional(_ text: String?) -> SQLiteValue { text.map { .text($0) } ?? .null }
}

/// A prepared statement of a ``SQLiteDatabase``.
package final class SQLiteStatement {
    let raw: OpaquePointer
    unowned let database: SQLiteDatabase

    init(_ raw: OpaquePointer, database: SQLiteDatabase) {
        self.raw = raw
        self.database = database
    }

    deinit { sqlite3_finalize(raw) }

    /// Ends a use of the statement: a statement left on a row would hold its read transaction open.
    package func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    package func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1), status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(raw, index)
            case let .integer(n): status = sqlite3_bind_int64(raw, index, n)
            case let .real(x): status = sqlite3_bind_double(raw, index, x)
            case let .text(s): status = sqlite3_bind_text(raw, index, s, -1, SQLiteStatement.transient)
            case let .blob(b):
                status = b.withUnsafeBytes { sqlite3_bind_blob64(raw, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), SQLiteStatement.transient) }
            }
            guard status == SQLITE_OK else { throw database.error(status) }
        }
    }

    /// Steps once: true when a row is ready, false when done.
    package func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(raw)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.error(status)
    }

    /// The column's value, as the type SQLite stored it with.
    package func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(raw, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .text(text(column) ?? "")
        }
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    package func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }

    package func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(raw, column) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let bytes = sqlite3_column_blob(raw, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// SQLite copies a bound value at once (`SQLITE_TRANSIENT`), so Swift's buffer may go.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
