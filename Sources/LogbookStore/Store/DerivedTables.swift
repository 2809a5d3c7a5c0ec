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
                try database.run(sql, .text(level.name), .text(unlock.code), .text(unlock.name), .text(unlock.englishName), .text(unlock.evidence),
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
