/// The SQLite schema of a logbook (format 1). What a person's footprint is made of lives in rows
/// (`inputs` with their content hashes and contributions, `forgotten`, `badges_reported`, the
/// `recording` in progress and its point batches); what is computed from them for a map or an
/// outside reader (`cell_blocks` with their R-tree, `unlocks`, `days`) is rewritten with them;
/// `revisions` keeps the report's figures after each change (the last two days in full, then the
/// last of each day) for the changes since a moment.
enum LogbookSchema {
    /// `PRAGMA application_id`: "AULB", so `file(1)` and this library tell a logbook from any database.
    static let applicationID: Int64 = 0x4155_4C42
    /// `PRAGMA user_version`: the format. A later format is refused by name, never misread.
    static let format: Int64 = 1

    static let statements = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
    CREATE TABLE inputs(
        key TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        format TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        skip_reason TEXT,
        duplicate_of TEXT,
        activity_type TEXT,
        activity_name TEXT,
        datum TEXT,
        datum_hint TEXT,
        datum_hint_reason TEXT,
        pins INTEGER NOT NULL,
        points_read INTEGER NOT NULL,
        points_kept INTEGER NOT NULL,
        points_in_flight INTEGER NOT NULL,
        points_planned INTEGER NOT NULL,
        dropped TEXT NOT NULL,
        contribution BLOB,
        mac BLOB,
        origin TEXT
    ) WITHOUT ROWID;
    CREATE INDEX inputs_by_path ON inputs(path);
    CREATE TABLE forgotten(key TEXT PRIMARY KEY, path TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE badges_reported(id TEXT PRIMARY KEY, percent INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE recording(id TEXT PRIMARY KEY, name TEXT, activity_type TEXT, datum TEXT) WITHOUT ROWID;
    CREATE TABLE recording_batches(sequence INTEGER PRIMARY KEY, points BLOB NOT NULL, mac BLOB);
    CREATE TABLE cell_blocks(block INTEGER PRIMARY KEY, cells BLOB NOT NULL);
    CREATE VIRTUAL TABLE cell_index USING rtree(block, south, north, west, east);
    CREATE TABLE unlocks(
        level TEXT NOT NULL,
        code TEXT NOT NULL,
        name TEXT NOT NULL,
        english_name TEXT NOT NULL,
        evidence TEXT NOT NULL,
        counted INTEGER NOT NULL,
        first_visit INTEGER,
        latitude REAL NOT NULL,
        longitude REAL NOT NULL,
        visit_days INTEGER NOT NULL,
        last_visit_day TEXT,
        explored_km2 REAL NOT NULL,
        PRIMARY KEY(level, code)
    ) WITHOUT ROWID;
    CREATE TABLE revisions(time INTEGER PRIMARY KEY, figures TEXT NOT NULL);
    CREATE TABLE days(day TEXT PRIMARY KEY, new_cells INTEGER NOT NULL, new_km2 REAL NOT NULL,
                      distance_km REAL NOT NULL, duration_hours REAL NOT NULL) WITHOUT ROWID;
    """
}
