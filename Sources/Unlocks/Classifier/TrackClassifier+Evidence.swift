import RegionTables
import Tracks

// Placing ground points and weighing their evidence (the rules of docs/report-format.md,
// "Evidence"): the reused lookup, the pending point, per-level evidence.

extension TrackClassifier {
    /// Weighs the pending point (the anchor) now that its outgoing leg is known (or there is none:
    /// `afterGap` is then the input's next point, after a gap, if any).
    @inline(__always)
    mutating func resolvePending(outgoingAtHumanSpeed: Bool, successor: TrackPoint? = nil, afterGap: TrackPoint? = nil) {
        guard pendingActive else { return }
        pendingActive = false
        var been = pendingBeen || outgoingAtHumanSpeed
        if !been, pendingHasPredecessor, let b = successor, let t0 = pendingPredecessor.time, let t1 = b.time, t1 > t0 {
            been = scale.metres(from: pendingPredecessor, to: b) <= options.exploreMaxSpeed * (Double(t1 - t0) / 1000)
        }
        // A labelled stretch is what its label says; an unlabelled point with no leg on either
        // side says nothing of how the person moved (lone: see ``PlaceSignature/flags``).
        switch pendingMovement {
        case .vehicle?, .flight?: been = false
        case .humanPowered?: been = true
        case nil: break
        }
        var lone = pendingMovement == nil && !pendingHasPredecessor && successor == nil
        // A point been there only because it starts or ends its segment at a gap (no leg at
        // human speed on either side): when the input's points on either side, across the gap,
        // leave no time for a stop there, it was carried on, in a vehicle.
        let outgoingHuman = successor != nil && outgoingAtHumanSpeed
        if been, pendingMovement == nil, !pendingIncomingHuman, !outgoingHuman, !pendingHasPredecessor || successor == nil,
           let a = pendingHasPredecessor ? pendingPredecessor : pendingBeforeGap, let b = successor ?? afterGap,
           !couldStop(anchor.point, between: a, and: b) {
            been = false
            lone = false
        }
        if anchorReused {
            let time = anchor.point.time
            let visit = Visit(time: time, latitude: anchor.point.latitude, longitude: anchor.point.longitude)
            if !been {
                passedReuseCount += 1
                passedReuseFirst = earliest(passedReuseFirst, visit)
            } else if lone {
                loneReuseCount += 1
                loneReuseFirst = earliest(loneReuseFirst, visit)
            } else {
                reuseCount += 1
                reuseFirst = earliest(reuseFirst, visit)
            }
            let place = reusedPlace(been: been, lone: lone)
            useMinute(ofTime: time)
            tally.count(place: place)
        } else {
            weigh(been: been, lone: lone)
        }
    }

    /// Whether a point `p` at a gap, between the input's points `a` and `b` on either side of it,
    /// leaves time for a stop of a segment gap (5 minutes) there, travelling the rest at the
    /// speed of a fast leg (``ClassifyOptions/fastSpeed``, 200 km/h: beyond a car, a high-speed
    /// train's cruise average). Fixes a train ride's export kept minutes apart leave none; a stop
    /// between two drives an hour apart does. Untimed or backwards times: it could.
    mutating func couldStop(_ p: TrackPoint, between a: TrackPoint, and b: TrackPoint) -> Bool {
        guard let ta = a.time, let tp = p.time, let tb = b.time, ta < tp, tp < tb else { return true }
        let travelling = (scale.metres(from: a, to: p) + scale.metres(from: p, to: b)) / options.fastSpeed
        return Double(tb - ta) / 1000 - travelling >= Double(options.segmentGap) / 1000
    }

    /// Places a ground point: true when it reuses the last lookup's placement (`lookupPlacement`),
    /// false when it was located afresh (the placement is then put in `anchorPlacement`), nil
    /// when it cannot be located. A point near the last located one reuses its answer
    /// when that cannot change it: it is inside at every level it has, the placement is stable
    /// (`RegionLocator.placementIsStable`: no China level missing in China, no datum gate near
    /// China's border), and it moved less than the smallest margin minus its accuracy (with 1% and 1 m to spare for the datum shift's slight
    /// stretch). Then every level has the same region and the margin still exceeds the accuracy,
    /// so the evidence is what a fresh lookup would give; the margins are dropped (nil: "far
    /// enough"). Tracks sample every few metres, so most points take this path.
    mutating func place(_ point: TrackPoint) -> Bool? {
        let accuracy = point.accuracy ?? options.assumedAccuracy
        // Untimed points are tentative, which a reused placement (confirmed) would not say.
        if point.time != nil, hasLookup {
            let moved = scale.metres(from: lookupPoint, to: point) * 1.01 + 1
            if moved + accuracy <= lookupClearance { return true }
        }
        flushReuse()
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else { return nil }
        // The levels that have a region: all inside, and the smallest margin (the first one met
        // on ties, as `min()` takes it).
        var levels = 0, allInside = true, clearance = 0.0
        let radius = locator.marginRadius
        func include(_ level: LevelPlacement) {
            guard level.region != nil else { return }
            if level.status != .inside { allInside = false }
            let margin = level.marginMetres ?? radius
            if levels == 0 || margin < clearance { clearance = margin }
            levels += 1
        }
        include(placement.country)
        include(placement.province)
        include(placement.city)
        include(placement.county)
        include(placement.subdivision)
        if levels > 0, allInside,
           locator.placementIsStable(placement, latitude: point.latitude, longitude: point.longitude, within: locator.marginRadius) {
            hasLookup = true
            lookupPoint = point
            lookupPlacement = placement.withoutMargins
            lookupClearance = clearance
            lookupCell = CellVisit(time: .max, placement: placement)
        } else {
            hasLookup = false
        }
        reusedPlaces = (nil, nil, nil)
        anchorPlacement = placement
        return false
    }

    /// Calls `body` with the current input's evidence of each region so far, the points that
    /// reused the last lookup included (they are added to `part` only when the lookup changes).
    /// For ``LiveLedger``, after each point.
    func forEachRegionSoFar(_ body: (RegionKey, RegionEvidence) -> Void) {
        let reused = (reuseCount > 0 || passedReuseCount > 0 || loneReuseCount > 0) && hasLookup ? lookupPlacement : nil
        func withReuse(_ key: RegionKey, _ evidence: RegionEvidence) -> RegionEvidence {
            guard let reused, reused.level(key.level).region == key.index else { return evidence }
            var evidence = evidence
            evidence.confirmedBy = earliest(evidence.confirmedBy, reuseFirst)
            evidence.passedBy = earliest(evidence.passedBy, passedReuseFirst)
            evidence.loneBy = earliest(evidence.loneBy, loneReuseFirst)
            return evidence
        }
        for (key, evidence) in part.regions { body(key, withReuse(key, evidence)) }
        if let reused {
            for level in RegionLevel.allCases {
                guard let region = reused.level(level).region else { continue }
                let key = RegionKey(level: level, index: region)
                if part.regions[key] == nil { body(key, withReuse(key, RegionEvidence())) }
            }
        }
    }

    /// Adds the points that reused the last lookup to the ledger: inside, confirmed, at every level.
    /// Points only passed at vehicle speed count as passed, not inside.
    mutating func flushReuse() {
        guard reuseCount > 0 || passedReuseCount > 0 || loneReuseCount > 0, hasLookup else { return }
        addReuse(.country, lookupPlacement.country.region)
        addReuse(.province, lookupPlacement.province.region)
        addReuse(.city, lookupPlacement.city.region)
        addReuse(.county, lookupPlacement.county.region)
        addReuse(.subdivision, lookupPlacement.subdivision.region)
        reuseCount = 0
        reuseFirst = nil
        passedReuseCount = 0
        passedReuseFirst = nil
        loneReuseCount = 0
        loneReuseFirst = nil
    }

    mutating func addReuse(_ level: RegionLevel, _ region: Int32?) {
        guard let region else { return }
        let key = RegionKey(level: level, index: region)
        // In place: one hash lookup, the entry added when new.
        Self.add(confirmed: reuseFirst, passed: passedReuseFirst, lone: loneReuseFirst, to: &part.regions[key, default: RegionEvidence()])
    }

    static func add(confirmed: Visit?, passed: Visit?, lone: Visit?, to evidence: inout RegionEvidence) {
        if let first = confirmed { evidence.confirmedBy = earliest(evidence.confirmedBy, first) }
        if let first = passed { evidence.passedBy = earliest(evidence.passedBy, first) }
        if let first = lone { evidence.loneBy = earliest(evidence.loneBy, first) }
    }

    /// One more point in the region within the current segment (its tally there): the
    /// segment's points confirm it once there are ``ClassifyOptions/minimumPointsPerSegment`` of
    /// them (true from then on: this point confirms).
    static func countTowardsSegment(_ tally: inout (count: Int, first: Visit), minimum: Int, lone: Bool, _ evidence: inout RegionEvidence) -> Bool {
        tally.count += 1
        guard tally.count >= minimum else { return false }
        if lone {
            evidence.loneBy = earliest(evidence.loneBy, tally.first)
        } else {
            evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
        }
        return true
    }

    /// Applies the evidence rules of DESIGN.md to the anchor, located afresh (`anchorPlacement`),
    /// at every level. A point only passed at vehicle speed (`been` false) is passed-through
    /// evidence; an untimed one tentative; a lone one confirms as ``RegionEvidence/loneBy``.
    mutating func weigh(been: Bool, lone: Bool = false) {
        let point = anchor.point
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        let accuracy = point.accuracy ?? options.assumedAccuracy
        let p = anchorPlacement
        var bits: (kinds: UInt16, flags: UInt8) = (0, lone && been ? PlaceSignature.loneFlag : 0)
        for (position, level) in PlaceSignature.levels.enumerated() {
            let weighed = weigh(level, p.level(level), position: UInt8(position), visit: visit, accuracy: accuracy, been: been, lone: lone)
            bits.kinds |= weighed.kinds
            bits.flags |= weighed.flags
        }
        let signature = PlaceSignature(regions: PlaceSignature.regions(of: p), kinds: bits.kinds, flags: bits.flags)
        let place = position(of: signature)
        useMinute(ofTime: point.time)
        tally.count(place: place)
    }

    /// `weigh(been:lone:)` at one level; returns the level's kind and confirming bit in the place
    /// signature's bits.
    mutating func weigh(_ level: RegionLevel, _ placement: LevelPlacement, position: UInt8,
                        visit: Visit, accuracy: Double, been: Bool, lone: Bool = false) -> (kinds: UInt16, flags: UInt8) {
        guard let region = placement.region, placement.status != .outside else { return (0, 0) }
        let kind: PlaceSignature.Kind = !been ? .passed : placement.status == .inside ? .inside : .edge
        let key = RegionKey(level: level, index: region)
        // The region's evidence (and its tally in the segment) updated in place: one hash lookup
        // each, the entry added when new.
        let confirms = Self.weigh(placement, visit: visit, accuracy: accuracy, been: been, lone: lone, minimum: options.minimumPointsPerSegment,
                                  key: key, segmentInside: &segmentInside, evidence: &part.regions[key, default: RegionEvidence()])
        return (UInt16(kind.rawValue) << (2 * UInt16(position)), confirms ? 1 << position : 0)
    }

    /// Weighs one point in one region; true when the point confirms it.
    static func weigh(_ placement: LevelPlacement, visit: Visit, accuracy: Double, been: Bool, lone: Bool, minimum: Int, key: RegionKey,
                      segmentInside: inout [RegionKey: (count: Int, first: Visit)], evidence: inout RegionEvidence) -> Bool {
        if !been {
            evidence.passedBy = earliest(evidence.passedBy, visit)
        } else if visit.time == nil {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
        } else if placement.status == .inside {
            if (placement.marginMetres ?? .infinity) >= accuracy {
                if lone {
                    evidence.loneBy = earliest(evidence.loneBy, visit)
                } else {
                    evidence.confirmedBy = earliest(evidence.confirmedBy, visit)
                }
                return true
            }
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            return countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, lone: lone, &evidence)
        } else {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            // At a coast nobody else can claim (``LevelPlacement/uncontested``), edge points
            // count like points inside near a border: enough of them in one segment confirm.
            if placement.uncontested { return countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, lone: lone, &evidence) }
        }
        return false
    }
}
