import Tracks

/// Step 7 of ``TrackClassifier``: the current input's points, places and legs tallied by UTC
/// minute (``MomentTally``), a leg split between the minutes it spans in proportion to time. The
/// minute being written is held apart and folded in when another is written.
struct MinuteTallies {
    /// The minutes written and folded so far.
    private(set) var moments: [Int64: MomentTally] = [:]
    private var minute = Int64.min
    /// The first millisecond of `minute` (a time inside it needs no division).
    private var start = Int64.max
    private var tally = MomentTally()

    /// How a leg moved, for the distance it adds: human-powered, by vehicle, or in flight.
    enum LegKind {
        case humanPowered, vehicle, flight
    }

    /// One kept point at `time` (untimed: nil), in flight or not.
    @inline(__always)
    mutating func countPoint(at time: Int64?, inFlight: Bool = false) {
        use(time)
        tally.points += 1
        if inFlight { tally.inFlight += 1 }
    }

    /// One point weighed at `time` in the input's `place` (its palette position).
    @inline(__always)
    mutating func count(place: Int32, at time: Int64?) {
        use(time)
        tally.count(place: place)
    }

    /// Adds a leg's distance and duration to the minutes it spans, split in proportion to time
    /// (the pieces' millimetres add up to the leg's); a leg with an untimed end goes to the
    /// untimed tally, without duration.
    mutating func addLeg(from t0: Int64?, to t1: Int64?, millimetres: Int64, kind: LegKind) {
        guard let t0, let t1 else {
            use(minute: MomentTally.untimedMinute)
            addDistance(millimetres, kind)
            return
        }
        // Most legs lie within the minute being written.
        if t0 >= start, t1 > t0, t1 <= start &+ 60_000 {
            addDistance(millimetres, kind)
            tally.durationMilliseconds += t1 - t0
            return
        }
        let first = Self.minute(of: t0), last = t1 > t0 ? Self.minute(of: t1 - 1) : first
        var minute = first, counted: Int64 = 0
        while true {
            let end = minute == last ? t1 : (minute &+ 1) &* 60_000
            let cumulative = minute == last ? millimetres : Int64((Double(millimetres) * Double(end - t0) / Double(t1 - t0)).rounded())
            use(minute: minute)
            addDistance(cumulative - counted, kind)
            tally.durationMilliseconds += max(0, end - max(t0, minute &* 60_000))
            counted = cumulative
            if minute == last { break }
            minute += 1
        }
    }

    /// Keeps the tally being written. A file whose time runs back over minutes it recorded (the
    /// same walk twice in one file) adds to those minutes again; a minute holds at most a minute
    /// of recording, so its duration is capped at 60 s (the state refuses more).
    mutating func fold() {
        if minute != .min, !tally.isEmpty {
            if minute != MomentTally.untimedMinute, tally.durationMilliseconds > 60_000 { tally.durationMilliseconds = 60_000 }
            moments[minute] = tally
        }
        minute = .min
        start = .max
        tally = MomentTally()
    }

    /// Folds the tally being written and hands over every minute, leaving none.
    mutating func take() -> [Int64: MomentTally] {
        fold()
        defer { moments = [:] }
        return moments
    }

    /// Makes `tally` the tally of the minute of `time` (untimed: ``MomentTally/untimedMinute``).
    @inline(__always)
    private mutating func use(_ time: Int64?) {
        guard let time else { return use(minute: MomentTally.untimedMinute) }
        if time >= start, time &- start < 60_000 { return }
        use(minute: Self.minute(of: time))
    }

    @inline(__always)
    private mutating func use(minute: Int64) {
        if minute != self.minute { switchMinute(to: minute) }
    }

    private mutating func switchMinute(to minute: Int64) {
        fold()
        tally = moments.removeValue(forKey: minute) ?? MomentTally()
        self.minute = minute
        start = minute == MomentTally.untimedMinute ? .max : minute &* 60_000
    }

    /// Adds `millimetres` of a `kind` leg to the tally being written.
    @inline(__always)
    private mutating func addDistance(_ millimetres: Int64, _ kind: LegKind) {
        tally.distanceMillimetres += millimetres
        switch kind {
        case .humanPowered: break
        case .vehicle: tally.vehicleDistanceMillimetres += millimetres
        case .flight: tally.flightDistanceMillimetres += millimetres
        }
    }

    /// The UTC minute of a time (rounded down, before 1970 too).
    static func minute(of time: Int64) -> Int64 {
        let q = time / 60_000
        return time % 60_000 < 0 ? q - 1 : q
    }

    /// `Int64(x.rounded())` (half away from zero) without a call to `round`, for the x it does not
    /// trap on: a leg's millimetres.
    @inline(__always)
    static func rounded(_ x: Double) -> Int64 {
        let t = Int64(x)  // towards zero; the fraction x - t is exact
        let fraction = x - Double(t)
        return fraction >= 0.5 ? t + 1 : fraction <= -0.5 ? t - 1 : t
    }
}
