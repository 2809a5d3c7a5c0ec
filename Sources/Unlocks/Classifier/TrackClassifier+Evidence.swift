import RegionTables
import Tracks

// Placing ground points and weighing their evidence: the lookup cache, the pending point and the
// evidence weigher joined, each place counted in the minute tallies by its palette position.

extension TrackClassifier {
    /// Weighs the pending point (the anchor) now that its outgoing leg is known (or there is none:
    /// `afterGap` is then the input's next point, after a gap, if any).
    @inline(__always)
    mutating func resolvePending(outgoingAtHumanSpeed: Bool, successor: TrackPoint? = nil, afterGap: TrackPoint? = nil) {
        guard let (been, lone) = pending.resolve(outgoingAtHumanSpeed: outgoingAtHumanSpeed, successor: successor, afterGap: afterGap, scale: &scale) else { return }
        let point = pending.anchor.point
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        if pending.reused {
            evidence.countReused(visit, been: been, lone: lone)
            minutes.count(place: reusedPlace(been: been, lone: lone), at: point.time)
        } else {
            // Located afresh: weighed at every level now.
            let accuracy = point.accuracy ?? options.assumedAccuracy
            let signature = evidence.weigh(lookup.fresh, visit: visit, accuracy: accuracy, been: been, lone: lone)
            minutes.count(place: palette.position(of: signature), at: point.time)
        }
    }

    /// Places a ground point: true when it reuses the last lookup's placement (``LookupCache``),
    /// false when it was located afresh (``LookupCache/fresh``), nil when it cannot be located.
    /// Untimed points are tentative, which a reused placement (confirmed) would not say.
    mutating func place(_ point: TrackPoint) -> Bool? {
        if point.time != nil, lookup.reuses(point, accuracy: point.accuracy ?? options.assumedAccuracy, scale: &scale) { return true }
        flushReuse()
        return lookup.locate(point, with: locator) ? false : nil
    }

    /// Adds the points that reused the last lookup to the evidence, before the lookup changes.
    mutating func flushReuse() {
        guard evidence.hasReused, lookup.isValid else { return }
        evidence.flushReused(at: lookup.placement)
    }

    /// The palette position of the lookup's placement for a reused point.
    @inline(__always)
    mutating func reusedPlace(been: Bool, lone: Bool) -> Int32 {
        if let known = lookup.place(been: been, lone: lone) { return known }
        let position = palette.position(of: EvidenceWeigher.reusedSignature(of: lookup.placement, been: been, lone: lone))
        lookup.remember(place: position, been: been, lone: lone)
        return position
    }

    /// Calls `body` with the current input's evidence of each region so far, the points that
    /// reused the last lookup included (they are added to the evidence only when the lookup
    /// changes). For ``LiveLedger``, after each point.
    func forEachRegionSoFar(_ body: (RegionKey, RegionEvidence) -> Void) {
        evidence.forEachRegion(reusing: lookup.isValid ? lookup.placement : nil, body)
    }
}
