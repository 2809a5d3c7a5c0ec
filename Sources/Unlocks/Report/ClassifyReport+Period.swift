import Foundation
import RegionTables
import TextFormats
import Tracks

// "What did I do in May": a stretch of local days of a report, from what a logbook keeps.

extension ClassifyReport {
    /// The report's local days from `since` through `until` (days since 1970-01-01 in the
    /// report's zone; nil: open): what was new in them, what was counted on them, and the regions
    /// the person spent days in. Built from the report alone (a logbook's figures), so it answers
    /// without reading the inputs again; ``Period`` says how it differs from classifying only
    /// the period's moments.
    public func period(since: Int64?, until: Int64?) -> Period {
        let inRange = { (day: Int64) in (since.map { day >= $0 } ?? true) && (until.map { day <= $0 } ?? true) }
        let selected = days.filter { inRange($0.day) }
        var period = Period(since: since, until: until, days: selected)
        for level in RegionLevel.allCases {
            let regions = (unlocks[level] ?? []).filter { $0.counts(lenient: lenient, includePassedThrough: includePassedThrough) }
            let visited = regions.compactMap { u -> Period.Region? in
                let days = u.stays.reduce(0) { sum, stay in
                    let from = max(stay.from, since ?? stay.from), to = min(stay.to, until ?? stay.to)
                    return sum + Int(max(0, to - from + 1))
                }
                guard days > 0 else { return nil }
                let firstDay = u.firstVisit.time.map { clockDay($0) }
                return Period.Region(code: u.code, name: u.name, englishName: u.englishName, days: days,
                                     firstVisitInPeriod: firstDay.map(inRange) ?? false)
            }
            if !visited.isEmpty { period.visited[level] = visited.sorted { ($0.days, $1.code) > ($1.days, $0.code) } }
        }
        return period
    }

    /// The local day of an instant in the report's zone.
    func clockDay(_ time: Int64) -> Int64 {
        var clock = LocalDayClock(zone: options.timeZone)
        return clock.day(of: time)
    }

    /// A stretch of local days (``ClassifyReport/period(since:until:)``). Its figures are the
    /// report's days summed: the distance and time counted on them, and what was *first*
    /// visited on them (cells, tiles, unlocks); a region it lists had days in the period (its
    /// stays), whenever it was first visited. Classifying only the period's moments
    /// (`classify --since --until`) instead counts as new what the period visited again.
    public struct Period: Equatable, Sendable {
        public var since: Int64?
        public var until: Int64?
        /// The report's days in the period, in order.
        public var days: [Day]
        /// Regions with days in the period (counted unlocks, by their stays), most days first.
        public var visited: [RegionLevel: [Region]] = [:]

        public struct Region: Equatable, Sendable {
            public var code: String
            public var name: String
            public var englishName: String
            /// Its days within the period.
            public var days: Int
            /// Whether its first visit falls in the period (a new unlock then).
            public var firstVisitInPeriod: Bool
        }

        public var recordedDays: Int { days.filter(\.recorded).count }
        public var distanceMillimetres: Int64 { days.reduce(0) { $0 + $1.distanceMillimetres } }
        public var durationMilliseconds: Int64 { days.reduce(0) { $0 + $1.durationMilliseconds } }
        public var newCells: Int { days.reduce(0) { $0 + $1.newCells } }
        public var newSquareMetres: Double { days.reduce(0) { $0 + $1.newSquareMetres } }
        public func newUnlocks(_ level: RegionLevel) -> Int { days.reduce(0) { $0 + ($1.newUnlocks[level] ?? 0) } }
        public func newTiles(zoom: Int) -> Int { days.reduce(0) { $0 + ($1.newTiles[zoom] ?? 0) } }

        /// The period as JSON (docs/report-format.md, "A period").
        public func json() -> JSONValue {
            func date(_ day: Int64?) -> JSONValue { day.map { .string(ClassifyReport.dateText($0)) } ?? .null }
            let newUnlocks: [(key: String, value: JSONValue)] = RegionLevel.reported.map { ($0.0, .number(Double(self.newUnlocks($0.1)))) }
            let newTiles: [(key: String, value: JSONValue)] = SlippyTile.reportedZooms.map { (String($0), .number(Double(self.newTiles(zoom: $0)))) }
            return .object([
                ("period", .object([("since", date(since)), ("until", date(until))])),
                ("recordedDays", .number(Double(recordedDays))),
                ("distanceKilometers", .number(rounded(Double(distanceMillimetres) / 1e6, 3))),
                ("durationHours", .number(rounded(Double(durationMilliseconds) / 3.6e6, 3))),
                ("newUnlocks", .object(newUnlocks)),
                ("newCells", .number(Double(newCells))),
                ("newKm2", .number(rounded(newSquareMetres / 1e6, 4))),
                ("newTiles", .object(newTiles)),
                ("visited", .object(RegionLevel.reported.map { name, level in (name, .array((visited[level] ?? []).map(Self.json))) })),
                ("days", .array(days.map(Self.json))),
            ])
        }

        static func json(_ r: Region) -> JSONValue {
            .object([("code", .string(r.code)), ("name", .string(r.name)), ("englishName", .string(r.englishName)),
                     ("days", .number(Double(r.days))), ("new", .bool(r.firstVisitInPeriod))])
        }

        static func json(_ d: Day) -> JSONValue {
            let unlocks: [(key: String, value: JSONValue)] = RegionLevel.reported.map { name, level in (name, .number(Double(d.newUnlocks[level] ?? 0))) }
            return .object([
                ("date", .string(ClassifyReport.dateText(d.day))),
                ("recorded", .bool(d.recorded)),
                ("newCells", .number(Double(d.newCells))),
                ("newKm2", .number(rounded(d.newSquareMetres / 1e6, 4))),
                ("newUnlocks", .object(unlocks)),
                ("distanceKilometers", .number(rounded(Double(d.distanceMillimetres) / 1e6, 3))),
                ("durationHours", .number(rounded(Double(d.durationMilliseconds) / 3.6e6, 3))),
            ])
        }

        /// The period for a terminal; `countryNames` names its countries in a person's language
        /// (as ``ClassifyReport/text(countryNames:)`` does).
        public func text(countryNames: LocalizedNames? = nil) -> String {
            let from = since.map(ClassifyReport.dateText) ?? "the first day", to = until.map(ClassifyReport.dateText) ?? "the last day"
            var out = "From \(from) to \(to): \(recordedDays) recorded day\(recordedDays == 1 ? "" : "s")\n"
            out += "Distance: \(fixed(Double(distanceMillimetres) / 1e6, 1)) km on foot or by bike; \(fixed(Double(durationMilliseconds) / 3.6e6, 1)) h recorded\n"
            out += "New: " + RegionLevel.reported.map { name, level in "\(newUnlocks(level)) \(newUnlocks(level) == 1 ? level.singular : name)" }.joined(separator: ", ")
                + "; \(fixed(newSquareMetres / 1e6, 3)) km² explored (\(newCells) cells)\n"
            for (name, level) in RegionLevel.reported {
                guard let list = visited[level] else { continue }
                out += "\(name.prefix(1).uppercased() + name.dropFirst()) with days in the period:\n"
                for r in list {
                    let local = level == .country || level == .subdivision ? countryNames?.name(of: r.code) : nil
                    let label = local ?? (r.englishName.isEmpty || r.englishName == r.name ? r.name : "\(r.name) \(r.englishName)")
                    out += "  \(label): \(r.days) d" + (r.firstVisitInPeriod ? " (new)" : "") + "\n"
                }
            }
            return out
        }
    }
}
