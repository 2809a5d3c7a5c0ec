import RegionTables
import Tracks

extension ClassifyReport {
    /// The per-day series as it is accumulated: every local day with a recorded point, a new
    /// cell, a new unlock, a new tile or a counted minute.
    struct DaySeries {
        private var clock: LocalDayClock
        /// Cells and tiles come in no order of time, which the clock's cache wants: in a zone
        /// with daylight saving their days are kept by minute; a fixed offset needs no cache.
        private var dayOfMinute: [Int64: Int64] = [:]
        private let fixedOffset: Int64?
        private var series: [Int64: Day] = [:]

        /// Starts with the recorded days (``CombinedLedger/days``), empty.
        init(zone: LocalTimeZone, days: Set<Int64>) {
            clock = LocalDayClock(zone: zone)
            fixedOffset = zone.fixedMinutes.map { Int64($0) * 60_000 }
            for day in days {
                series[day] = Day(day: day)
                series[day]!.recorded = true
            }
        }

        /// The days in order.
        var days: [Day] { series.values.sorted { $0.day < $1.day } }

        /// The local day of an instant met out of time order (through the per-minute cache).
        private mutating func dayByMinute(_ time: Int64) -> Int64 {
            let minute = time / 60_000 - (time % 60_000 < 0 ? 1 : 0)
            if let known = dayOfMinute[minute] { return known }
            let day = clock.day(of: minute &* 60_000)
            dayOfMinute[minute] = day
            return day
        }

        mutating func addCell(firstVisit time: Int64, squareMetres: Double) {
            let day: Int64
            if let fixed = fixedOffset {
                let local = time &+ fixed
                day = local / 86_400_000 - (local % 86_400_000 < 0 ? 1 : 0)
            } else {
                day = dayByMinute(time)
            }
            series[day, default: Day(day: day)].newCells += 1
            series[day, default: Day(day: day)].newSquareMetres += squareMetres
        }

        /// A counted unlock on the day of its first visit (none when untimed).
        mutating func addUnlock(at time: Int64?, level: RegionLevel) {
            guard let time else { return }
            let day = clock.day(of: time)
            series[day, default: Day(day: day)].newUnlocks[level, default: 0] += 1
        }

        /// Each timed tile of `list` on the day of its first visit.
        mutating func addTiles(_ list: TileList, zoom: Int) {
            for time in list.times where time != Int64.max {
                let day = dayByMinute(time)
                series[day, default: Day(day: day)].newTiles[zoom, default: 0] += 1
            }
        }

        /// The human-powered distance and the duration of the counted minutes, on their days.
        mutating func addCountedMinutes(_ minutes: [CountedMinute]) {
            for counted in minutes {
                let day = clock.day(of: counted.minute &* 60_000)
                series[day, default: Day(day: day)].distanceMillimetres += counted.humanDistanceMillimetres
                series[day, default: Day(day: day)].durationMilliseconds += counted.durationMilliseconds
            }
        }

        /// The per-year table: the series' days summed by their year, recorded days counted.
        static func years(_ days: [Day], recorded: Set<Int64>) -> [Year] {
            var years: [Int64: Year] = [:]
            for d in days {
                let year = Timestamp.civilDate(daysSinceEpoch: d.day).year
                var y = years[year] ?? Year(year: year)
                if recorded.contains(d.day) { y.recordedDays += 1 }
                y.distanceMillimetres += d.distanceMillimetres
                y.newCells += d.newCells
                y.newSquareMetres += d.newSquareMetres
                for (level, n) in d.newUnlocks { y.newUnlocks[level, default: 0] += n }
                years[year] = y
            }
            return years.values.sorted { $0.year < $1.year }
        }

        /// The longest run of consecutive days, and the run that ends on the last day.
        static func streaks(_ days: Set<Int64>) -> (longest: Int, current: Int) {
            let sorted = days.sorted()
            var longest = 0, current = 0
            for (i, day) in sorted.enumerated() {
                current = i > 0 && sorted[i - 1] == day - 1 ? current + 1 : 1
                longest = max(longest, current)
            }
            return (longest, current)
        }
    }
}
