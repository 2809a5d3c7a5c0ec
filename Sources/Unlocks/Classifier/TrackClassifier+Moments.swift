import Tracks

// Tallies by UTC minute (step 7 of the type's doc) and the current input's place palette.

extension TrackClassifier {
    // MARK: Moments

    /// `Int64(x.rounded())` (half away from zero) without a call to `round`, for the x it does not trap on.
    @inline(__always)
    static func rounded(_ x: Double) -> Int64 {
        let t = Int64(x)  // towards zero; the fraction x - t is exact
        let fraction = x - Double(t)
        return fraction >= 0.5 ? t + 1 : fraction <= -0.5 ? t - 1 : t
    }

    /// The whole second of a time in milliseconds (rounded down, before 1970 too).
    static func second(of time: Int64) -> Int64 {
        let q = time / 1000
        return time % 1000 < 0 ? q - 1 : q
    }

    /// The UTC minute of a time (rounded down, before 1970 too).
    static func minute(of time: Int64) -> Int64 {
        let q = time / 60_000
        return time % 60_000 < 0 ? q - 1 : q
    }

    /// Makes `tally` the tally of `minute`.
    @inline(__always)
    mutating func useMinute(_ minute: Int64) {
        if minute != tallyMinute { switchMinute(to: minute) }
    }

    /// Makes `tally` the tally of the minute of `time` (untimed: ``MomentTally/untimedMinute``);
    /// a time inside the minute being written needs no division.
    @inline(__always)
    mutating func useMinute(ofTime time: Int64?) {
        guard let time else { return useMinute(MomentTally.untimedMinute) }
        if time >= tallyStart, time &- tallyStart < 60_000 { return }
        useMinute(Self.minute(of: time))
    }

    mutating func switchMinute(to minute: Int64) {
        foldTally()
        tally = part.moments.removeValue(forKey: minute) ?? MomentTally()
        tallyMinute = minute
        tallyStart = minute == MomentTally.untimedMinute ? .max : minute &* 60_000
    }

    /// Keeps the tally being written. A file whose time runs back over minutes it recorded (the
    /// same walk twice in one file) adds to those minutes again; a minute holds at most a minute
    /// of recording, so its duration is capped at 60 s (the state refuses more).
    mutating func foldTally() {
        if tallyMinute != .min, !tally.isEmpty {
            if tallyMinute != MomentTally.untimedMinute, tally.durationMilliseconds > 60_000 { tally.durationMilliseconds = 60_000 }
            part.moments[tallyMinute] = tally
        }
        tallyMinute = .min
        tallyStart = .max
        tally = MomentTally()
    }

    /// How a leg moved, for the distance it adds (``MomentTally``): human-powered, by vehicle, or in flight.
    enum LegKind {
        case humanPowered, vehicle, flight
    }

    /// Adds `millimetres` of a `kind` leg to the tally being written.
    @inline(__always)
    mutating func addDistance(_ millimetres: Int64, _ kind: LegKind) {
        tally.distanceMillimetres += millimetres
        switch kind {
        case .humanPowered: break
        case .vehicle: tally.vehicleDistanceMillimetres += millimetres
        case .flight: tally.flightDistanceMillimetres += millimetres
        }
    }

    /// Adds a leg's distance and duration to the minutes it spans, split in proportion to time
    /// (the pieces' millimetres add up to the leg's); a leg with an untimed end goes to the
    /// untimed tally, without duration.
    mutating func addLeg(from t0: Int64?, to t1: Int64?, millimetres: Int64, kind: LegKind) {
        guard let t0, let t1 else {
            useMinute(MomentTally.untimedMinute)
            addDistance(millimetres, kind)
            return
        }
        // Most legs lie within the minute being written.
        if t0 >= tallyStart, t1 > t0, t1 <= tallyStart &+ 60_000 {
            addDistance(millimetres, kind)
            tally.durationMilliseconds += t1 - t0
            return
        }
        let first = Self.minute(of: t0), last = t1 > t0 ? Self.minute(of: t1 - 1) : first
        var minute = first, counted: Int64 = 0
        while true {
            let end = minute == last ? t1 : (minute &+ 1) &* 60_000
            let cumulative = minute == last ? millimetres : Int64((Double(millimetres) * Double(end - t0) / Double(t1 - t0)).rounded())
            useMinute(minute)
            addDistance(cumulative - counted, kind)
            tally.durationMilliseconds += max(0, end - max(t0, minute &* 60_000))
            counted = cumulative
            if minute == last { break }
            minute += 1
        }
    }

    /// The palette position of a place, added when new.
    mutating func position(of signature: PlaceSignature) -> Int32 {
        if let last = lastPlace, last.signature == signature { return last.position }
        let position: Int32
        if let known = placePositions[signature] {
            position = known
        } else {
            position = Int32(part.places.count)
            part.places.append(signature)
            placePositions[signature] = position
        }
        lastPlace = (signature, position)
        return position
    }

    /// The palette position of `lookupPlacement` for a reused point: inside and confirming at
    /// every level it has (a lone point marked so), or passed.
    @inline(__always)
    mutating func reusedPlace(been: Bool, lone: Bool = false) -> Int32 {
        if let known = !been ? reusedPlaces.passed : lone ? reusedPlaces.lone : reusedPlaces.been { return known }
        return newReusedPlace(been: been, lone: lone)
    }

    mutating func newReusedPlace(been: Bool, lone: Bool) -> Int32 {
        let p = lookupPlacement
        let regions = PlaceSignature.regions(of: p)
        var kinds: UInt16 = 0, flags: UInt8 = been && lone ? PlaceSignature.loneFlag : 0
        let kind = been ? PlaceSignature.Kind.inside : .passed
        for (position, region) in [regions.0, regions.1, regions.2, regions.3, regions.4].enumerated() where region >= 0 {
            kinds |= UInt16(kind.rawValue) << (2 * UInt16(position))
            if been { flags |= 1 << UInt8(position) }
        }
        let position = position(of: PlaceSignature(regions: regions, kinds: kinds, flags: flags))
        if !been { reusedPlaces.passed = position } else if lone { reusedPlaces.lone = position } else { reusedPlaces.been = position }
        return position
    }
}
