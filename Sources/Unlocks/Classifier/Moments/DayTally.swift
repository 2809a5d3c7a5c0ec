import Tracks

/// The local days (in ``ClassifyOptions/timeZone``) the current input has points on.
struct DayTally {
    private var clock: LocalDayClock
    /// The day last counted (consecutive points share it).
    private var last = Int64.min
    private(set) var days: Set<Int64> = []

    init(zone: LocalTimeZone) {
        clock = LocalDayClock(zone: zone)
    }

    /// Starts an input (the clock keeps its cached offset).
    mutating func begin() {
        last = .min
        days = []
    }

    /// Counts the local day of `time` (milliseconds since 1970 UTC).
    @inline(__always)
    mutating func count(_ time: Int64) {
        let day = clock.day(of: time)
        if day != last {
            days.insert(day)
            last = day
        }
    }

    /// Hands over the days, leaving none.
    mutating func take() -> Set<Int64> {
        defer { days = [] }
        return days
    }
}
