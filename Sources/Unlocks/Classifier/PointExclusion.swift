import Foundation
import Tracks

/// Points a logbook forgot (`unlocks forget --area`, `--since/--until`): every point inside is
/// dropped as ``DropReason/forgotten`` when read, as if the file never held it. Kept with the
/// logbook so that later imports and recordings drop the same points.
public enum PointExclusion: Hashable, Sendable {
    /// Within `radiusMetres` of a WGS-84 position (great-circle distance): home, or a bad GPS jump.
    case area(latitude: Double, longitude: Double, radiusMetres: Double)
    /// Timed points from `from` (inclusive) to `until` (exclusive), milliseconds since 1970 UTC;
    /// `Int64.min` / `Int64.max` for an open end. Untimed points are in no period.
    case period(from: Int64, until: Int64)

    /// The local days `since...until` (days since 1970-01-01 in `zone`, inclusive; nil: open) as a
    /// period, as `classify --since/--until` selects them: from the first day's midnight to the
    /// midnight after the last.
    public static func days(since: Int64?, until: Int64?, in zone: LocalTimeZone) -> PointExclusion {
        let day: Int64 = 86_400_000
        let from = since.map { zone.utc(fromLocal: $0 * day) } ?? .min
        let end = until.map { zone.utc(fromLocal: ($0 + 1) * day) } ?? .max
        return .period(from: from, until: end)
    }

    /// Whether the exclusion's values can be kept and compared: finite, a latitude and
    /// longitude on the globe, a positive radius, a period that is not empty.
    public var isValid: Bool {
        switch self {
        case let .area(latitude, longitude, radius):
            return abs(latitude) <= 90 && abs(longitude) <= 180 && radius.isFinite && radius > 0
        case let .period(from, until):
            return from < until
        }
    }

    /// Whether `point` (WGS-84) is inside.
    @inline(__always)
    public func contains(_ point: TrackPoint) -> Bool {
        switch self {
        case let .area(latitude, longitude, radius):
            return Self.metres(latitude, longitude, point.latitude, point.longitude) <= radius
        case let .period(from, until):
            guard let time = point.time else { return false }
            return time >= from && time < until
        }
    }

    /// The great-circle distance (haversine, mean Earth radius) between two positions.
    static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
        let s = sin(dLat / 2), t = sin(dLon / 2)
        let h = s * s + cos(lat1 * radians) * cos(lat2 * radians) * t * t
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }
}
