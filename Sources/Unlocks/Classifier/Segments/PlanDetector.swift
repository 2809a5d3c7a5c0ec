import Tracks

/// Step 6 of ``TrackClassifier``: whether the current input is a recording or a plan (GPX routes,
/// no time at all). Untimed track points wait here, uncommitted, until the input's first timed
/// point, so that a plan costs its points, never the cells of its legs (a 16 MB KML plan of 180 m
/// legs held its legs' cells, 774 MB, only to let them go).
struct PlanDetector {
    /// A timed point of this input has passed the filter: it is a recording, not a plan.
    var sawTimed = false
    /// Untimed track points (not route points) kept in this input.
    var untimedTrackKept: Int64 = 0
    /// Untimed track points waiting for the first timed point, and breaks between them.
    private(set) var waiting: [UntimedPoint] = []

    /// Starts an input.
    mutating func begin() {
        sawTimed = false
        untimedTrackKept = 0
        waiting = []
    }

    /// Holds an untimed point until the input's first timed point.
    mutating func hold(_ point: TrackPoint) {
        waiting.append(UntimedPoint(point))
    }

    /// A segment break between held points (none before the first: nothing to break).
    mutating func holdBreak() {
        if !waiting.isEmpty { waiting.append(.segmentBreak) }
    }

    /// The held points and breaks, in order, none held any more.
    mutating func takeWaiting() -> [UntimedPoint] {
        var points: [UntimedPoint] = []
        swap(&points, &waiting)
        return points
    }

    /// The input ended with points held and no timed point: a plan, whose points are counted as
    /// kept (returned) and planned, and classified no further.
    mutating func countWaitingAsPlanned() -> Int64 {
        let points = Int64(waiting.reduce(0) { $0 + ($1.isSegmentBreak ? 0 : 1) })
        untimedTrackKept += points
        waiting = []
        return points
    }
}

/// An untimed track point waiting for the input's first timed point (``PlanDetector``), or a
/// segment break between such points; 32 bytes.
struct UntimedPoint {
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var elevation: Double

    init(_ point: TrackPoint) {
        latitude = point.latitude
        longitude = point.longitude
        accuracy = point.accuracy ?? .nan
        elevation = point.elevation ?? .nan
    }

    private init(breakMarker: ()) {
        latitude = .nan
        longitude = .nan
        accuracy = .nan
        elevation = .nan
    }

    static let segmentBreak = UntimedPoint(breakMarker: ())
    var isSegmentBreak: Bool { latitude.isNaN }
    var point: TrackPoint {
        TrackPoint(latitude: latitude, longitude: longitude, accuracy: accuracy.isNaN ? nil : accuracy, elevation: elevation.isNaN ? nil : elevation)
    }
}
