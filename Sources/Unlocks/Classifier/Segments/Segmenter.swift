import Tracks

/// Steps 2, 3 and 5 of ``TrackClassifier`` for one input's track: where a segment starts (a
/// break, a gap, time running back, a landing), the run of fast legs waiting for its verdict,
/// and how a leg moved (its speed, or the reader's movement label).
struct Segmenter {
    private let segmentGap: Int64
    private let fastSpeed: Double
    private let flightSpeed: Double
    private let implausibleSpeed: Double
    private let exploreMaxSpeed: Double
    /// The longest run held: a longer one is decided as it stands.
    static let maximumRun = 100_000

    /// The last point that passed the filter (for leg speeds), when `hasPrevious`. Plain fields,
    /// not Optionals or tuples of structs, so that a point is not copied from one to the next
    /// (measured: a tenth of the classifier's time).
    var previous = TrackPoint(latitude: 0, longitude: 0)
    var hasPrevious = false
    /// The next committed point starts a segment.
    var breakPending = true
    /// Ground segments started so far in the run, over its inputs (numbers the observed points').
    private(set) var segmentCount = 0
    /// Points after the anchor reached through fast legs, and the run's length in metres.
    private(set) var run: [TrackPoint] = []
    private var runMetres = 0.0
    /// How the reader labels the current segment's movement (``TrackAnnotation/movement(_:)``),
    /// until its next segment break (gaps split at here keep it).
    var movement: Movement?
    /// The current segment is a GPX route (a plan).
    var inRoute = false

    init(options: ClassifyOptions) {
        segmentGap = options.segmentGap
        fastSpeed = options.fastSpeed
        flightSpeed = options.flightSpeed
        implausibleSpeed = options.implausibleSpeed
        exploreMaxSpeed = options.exploreMaxSpeed
    }

    /// Starts an input: nothing joins it to the previous one (the segments' count goes on).
    mutating func begin() {
        hasPrevious = false
        breakPending = true
        clearRun()
        inRoute = false
        movement = nil
    }

    /// No leg joins the points on either side (the run must be decided first).
    mutating func breakSegment() {
        breakPending = true
        hasPrevious = false
        inRoute = false
    }

    /// The committed point that was pending starts a segment.
    mutating func startSegment() {
        breakPending = false
        segmentCount += 1
    }

    /// Whether a gap longer than the segment gap, or time running back, lies before `point`.
    @inline(__always)
    func isGap(before point: TrackPoint) -> Bool {
        guard hasPrevious, let t = point.time, let lastTime = previous.time else { return false }
        return t < lastTime || t - lastTime > segmentGap
    }

    /// Holds `point` in the run when the leg of `metres` to it from the previous point is fast;
    /// false (nothing held) otherwise.
    @inline(__always)
    mutating func holdIfFast(_ point: TrackPoint, legMetres metres: Double) -> Bool {
        guard let t0 = previous.time, let t1 = point.time, t1 > t0, metres / (Double(t1 - t0) / 1000) > fastSpeed else { return false }
        runMetres += metres
        run.append(point)
        return true
    }

    mutating func clearRun() {
        run.removeAll(keepingCapacity: true)
        runMetres = 0
    }

    /// What a run of fast legs was, by its overall speed from the anchor (at `anchorTime`) to
    /// its last point, the landing.
    enum RunVerdict: Equatable {
        /// Untimed, backwards, or a train or a car: every point counts.
        case ground
        /// Faster than anything flies: the inner points are a glitch.
        case glitch
        /// In flight from `t0` to `t1` over `metres`: the inner points are kept in the air.
        case flight(t0: Int64, t1: Int64, metres: Double)
    }

    func verdict(anchorTime: Int64?) -> RunVerdict {
        guard let t0 = anchorTime, let t1 = run[run.count - 1].time, t1 > t0 else { return .ground }
        let speed = runMetres / (Double(t1 - t0) / 1000)
        if speed > implausibleSpeed { return .glitch }
        if speed > flightSpeed { return .flight(t0: t0, t1: t1, metres: runMetres) }
        return .ground
    }

    /// How a ground leg of `metres` from `t0` to `t1` moved: at human-powered speed, and
    /// untimed (an end without time: no speed to judge, human-powered unless labelled a vehicle).
    /// A label decides: a vehicle stretch is never on foot, a human-powered one is (up to the
    /// speed of a run of fast legs, beyond anything a person does).
    @inline(__always)
    func leg(metres: Double, from t0: Int64?, to t1: Int64?) -> (humanSpeed: Bool, untimed: Bool) {
        guard let t0, let t1 else { return (movement != .vehicle, true) }
        let seconds = Double(t1 - t0) / 1000
        var humanSpeed = t1 > t0 && metres <= exploreMaxSpeed * seconds
        if movement == .vehicle { humanSpeed = false }
        if movement == .humanPowered, t1 > t0, metres <= fastSpeed * seconds { humanSpeed = true }
        return (humanSpeed, false)
    }

    /// `a == b` (the derived equality), written out: the per-point check whether the previous
    /// point is the anchor.
    @inline(__always)
    static func same(_ a: TrackPoint, _ b: TrackPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.time == b.time && a.accuracy == b.accuracy && a.elevation == b.elevation
    }
}
