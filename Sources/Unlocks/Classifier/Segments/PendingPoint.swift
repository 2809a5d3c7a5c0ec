import Tracks

/// The last point committed to the ground track: the start of the next leg, whose evidence waits
/// for that leg (step 5 of ``TrackClassifier``). A point that starts or ends a segment, or touches
/// a human-speed leg, is a place the person has been; one between two vehicle-speed legs only
/// passed through; one alone in its segment is lone.
struct PendingPoint {
    private let exploreMaxSpeed: Double
    private let fastSpeed: Double
    private let segmentGap: Int64

    /// The anchor, when `hasAnchor`.
    private(set) var anchor = GroundPoint()
    private(set) var hasAnchor = false
    /// The anchor's placement reused the last lookup's (else it was located afresh).
    private(set) var reused = false
    /// The anchor's evidence is still to be decided; `been` is already true when it starts a
    /// segment or its incoming leg was at human speed.
    private var waiting = false
    private var been = false
    /// The ground point before it in the segment: a point between two fast legs whose chord
    /// (predecessor to successor) is at human speed is a position spike in a walk, not a vehicle.
    private var hasPredecessor = false
    private var predecessor = TrackPoint(latitude: 0, longitude: 0)
    /// The segment's movement label when it was committed, which decides its evidence.
    private var movement: Movement?
    /// The input's ground point before the gap that starts its segment, if any: with the point
    /// after the next gap, it says whether a lone point could have been a stop.
    private var beforeGap: TrackPoint?
    /// Its incoming leg was at human-powered speed.
    private var incomingHuman = false

    init(options: ClassifyOptions) {
        exploreMaxSpeed = options.exploreMaxSpeed
        fastSpeed = options.fastSpeed
        segmentGap = options.segmentGap
    }

    /// Starts an input: no anchor, nothing waiting.
    mutating func begin() {
        hasAnchor = false
        reused = false
        waiting = false
        movement = nil
        beforeGap = nil
    }

    /// Makes `point` the anchor, its evidence waiting for its outgoing leg. `incomingLeg`: a leg
    /// from the anchor before it was drawn (the point does not start a segment).
    mutating func hold(_ point: GroundPoint, reused: Bool, incomingLeg: Bool, humanSpeed: Bool, movement: Movement?, beforeGap: TrackPoint?) {
        waiting = true
        // Untimed points have no speed to judge: they count as places been (tentatively).
        been = !incomingLeg || humanSpeed
        incomingHuman = incomingLeg && humanSpeed
        self.movement = movement
        self.beforeGap = beforeGap
        hasPredecessor = incomingLeg
        if incomingLeg { predecessor = anchor.point }
        anchor = point
        hasAnchor = true
        self.reused = reused
    }

    /// Decides the waiting anchor's evidence now that its outgoing leg is known (`successor`, at
    /// human speed or not), or that there is none (`afterGap` is then the input's next point after
    /// a gap, if any): whether it was been there, and lone. Nil when nothing waits.
    @inline(__always)
    mutating func resolve(outgoingAtHumanSpeed: Bool, successor: TrackPoint?, afterGap: TrackPoint?, scale: inout LocalScale) -> (been: Bool, lone: Bool)? {
        guard waiting else { return nil }
        waiting = false
        var been = self.been || outgoingAtHumanSpeed
        if !been, hasPredecessor, let b = successor, let t0 = predecessor.time, let t1 = b.time, t1 > t0 {
            been = scale.metres(from: predecessor, to: b) <= exploreMaxSpeed * (Double(t1 - t0) / 1000)
        }
        // A labelled stretch is what its label says; an unlabelled point with no leg on either
        // side says nothing of how the person moved (lone: see ``PlaceSignature/flags``).
        switch movement {
        case .vehicle?, .flight?: been = false
        case .humanPowered?: been = true
        case nil: break
        }
        var lone = movement == nil && !hasPredecessor && successor == nil
        // A point been there only because it starts or ends its segment at a gap (no leg at
        // human speed on either side): when the input's points on either side, across the gap,
        // leave no time for a stop there, it was carried on, in a vehicle.
        let outgoingHuman = successor != nil && outgoingAtHumanSpeed
        if been, movement == nil, !incomingHuman, !outgoingHuman, !hasPredecessor || successor == nil,
           let a = hasPredecessor ? predecessor : beforeGap, let b = successor ?? afterGap,
           !couldStop(anchor.point, between: a, and: b, scale: &scale) {
            been = false
            lone = false
        }
        return (been, lone)
    }

    /// Whether a point `p` at a gap, between the input's points `a` and `b` on either side of it,
    /// leaves time for a stop of a segment gap (5 minutes) there, travelling the rest at the
    /// speed of a fast leg (``ClassifyOptions/fastSpeed``, 200 km/h: beyond a car, a high-speed
    /// train's cruise average). Fixes a train ride's export kept minutes apart leave none; a stop
    /// between two drives an hour apart does. Untimed or backwards times: it could.
    func couldStop(_ p: TrackPoint, between a: TrackPoint, and b: TrackPoint, scale: inout LocalScale) -> Bool {
        guard let ta = a.time, let tp = p.time, let tb = b.time, ta < tp, tp < tb else { return true }
        let travelling = (scale.metres(from: a, to: p) + scale.metres(from: p, to: b)) / fastSpeed
        return Double(tb - ta) / 1000 - travelling >= Double(segmentGap) / 1000
    }
}
