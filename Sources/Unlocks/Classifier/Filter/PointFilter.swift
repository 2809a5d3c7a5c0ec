import ChinaDatum
import Tracks

/// Step 1 of ``TrackClassifier``: says why a point no rule can use is dropped (``DropReason``) and
/// converts the rest to WGS-84. It holds the input's datum and the last kept time (duplicates are
/// per input); the run's fast legs (``DropReason/implausibleSpeed``) are the segmenter's to judge.
struct PointFilter {
    private let maximumAccuracy: Double
    private let since: Int64?
    private let until: Int64?
    private let selectsDates: Bool
    private let exclusions: [PointExclusion]
    /// The current input's datum (its record's, else the run's).
    private(set) var datum = Datum.wgs84
    private var converter = DatumConverter()
    /// The local days of `--since/--until` (its own clock: days are exact whatever it cached).
    private var clock: LocalDayClock
    /// The time of the input's last point that passed, kept across segment breaks (a point
    /// repeating it is a `duplicateTime`: docs/report-format.md).
    private var timeOfLastPoint: Int64?

    init(options: ClassifyOptions) {
        maximumAccuracy = options.maximumAccuracy
        since = options.since
        until = options.until
        selectsDates = options.selectsDates
        exclusions = options.exclusions
        clock = LocalDayClock(zone: options.timeZone)
    }

    /// Starts an input read in `datum`.
    mutating func begin(datum: Datum) {
        self.datum = datum
        timeOfLastPoint = nil
    }

    /// The reason `point` as read is dropped, or nil with `point` converted to WGS-84: invalid
    /// coordinates, (0, 0), outside the selected days, accuracy worse than the limit, a datum
    /// shift off the globe, inside a forgotten area or period.
    @inline(__always)
    mutating func reject(_ point: inout TrackPoint) -> DropReason? {
        guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
            return .invalidCoordinate
        }
        guard point.latitude != 0 || point.longitude != 0 else { return .nullIsland }
        if selectsDates {
            guard let time = point.time else { return .outsideDates }
            let day = clock.day(of: time)
            if day < since ?? .min || day > until ?? .max { return .outsideDates }
        }
        if let accuracy = point.accuracy, !(accuracy <= maximumAccuracy) { return .accuracy }
        if datum != .wgs84 {
            let c = converter.convert(Coordinate(latitude: point.latitude, longitude: point.longitude), from: datum, to: .wgs84)
            // BD-09's shift applies everywhere: near a pole or the antimeridian it leaves the globe.
            guard c.isValid else { return .invalidCoordinate }
            point.latitude = c.latitude
            point.longitude = c.longitude
        }
        if !exclusions.isEmpty, exclusions.contains(where: { $0.contains(point) }) { return .forgotten }
        return nil
    }

    /// Whether a track point's `time` repeats the input's previous one (across the reader's
    /// segment breaks too: GeoJSON Point features, GPX segments); else it becomes the previous.
    @inline(__always)
    mutating func repeatsTime(_ time: Int64?) -> Bool {
        if let time, time == timeOfLastPoint { return true }
        timeOfLastPoint = time
        return false
    }
}
