import Unlocks

// The unlocks and days of the last report, as plain rows for readers that do not compute: the
// `sqlite3` shell, a widget, a script.

extension LogbookStore {
    package func replaceUnlocks(_ report: ClassifyReport) throws(SQLiteError) {
        try database.run("DELETE FROM unlocks")
        let sql = """
        INSERT INTO unlocks(level, code, name, english_name, evidence, counted, first_visit, latitude, longitude, visit_days, last_visit_day, explored_km2)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
        for level in report.unlocks.keys.sorted() {
            for unlock in report.unlocks[level]! {
                try database.run(sql, .text(level.name), .text(unlock.code), .text(unlock.name), .text(unlock.englishName), .text(unlock.evidence.name),
                                 .integer(unlock.counts(lenient: report.lenient, includePassedThrough: report.includePassedThrough) ? 1 : 0),
                                 unlock.firstVisit.time.map { .integer($0) } ?? .null, .real(unlock.firstVisit.latitude), .real(unlock.firstVisit.longitude),
                                 .integer(Int64(unlock.visitDays)), .optional(unlock.lastVisitDay.map(ClassifyReport.dateText)),
                                 .real(unlock.exploredSquareMetres / 1e6))
            }
        }
    }

    package func replaceDays(_ report: ClassifyReport) throws(SQLiteError) {
        try database.run("DELETE FROM days")
        for day in report.days {
            try database.run("INSERT INTO days(day, new_cells, new_km2, distance_km, duration_hours) VALUES (?, ?, ?, ?, ?)",
                             .text(ClassifyReport.dateText(day.day)), .integer(Int64(day.newCells)), .real(day.newSquareMetres / 1e6),
                             .real(Double(day.distanceMillimetres) / 1e6), .real(Double(day.durationMilliseconds) / 3.6e6))
        }
    }
}

extension LogbookStore {
    /// Keeps `figures` as the logbook's at `time` (milliseconds since 1970), and thins the older
    /// ones: everything of the last 48 hours, before that the last of each UTC day.
    package func addRevision(_ figures: String, at time: Int64) throws(SQLiteError) {
        try database.run("INSERT OR REPLACE INTO revisions(time, figures) VALUES (?, ?)", .integer(time), .text(figures))
        try database.run("""
            DELETE FROM revisions WHERE time < ?1 AND time NOT IN (SELECT max(time) FROM revisions WHERE time < ?1 GROUP BY time / 86400000)
            """, .integer(time - 48 * 3_600_000))
    }

    /// The figures kept at or before `time`, nil when the logbook had none then.
    package func revision(atOrBefore time: Int64) throws -> String? {
        try database.rows("SELECT figures FROM revisions WHERE time <= ? ORDER BY time DESC LIMIT 1", .integer(time)) { $0.text(0) ?? "" }.first
    }
}
