import ChinaDatum
import Tracks

/// The rules `classify` applies; every default is the one DESIGN.md and docs/report-format.md state.
public struct ClassifyOptions: Equatable, Sendable {
    /// Points whose horizontal accuracy is worse than this (metres) are dropped.
    public var maximumAccuracy = 50.0
    /// The accuracy assumed for points that record none (metres).
    public var assumedAccuracy = 30.0
    /// A gap longer than this (milliseconds) between consecutive points starts a new segment.
    public var segmentGap: Int64 = 5 * 60_000
    /// Legs faster than this (m/s; 200 km/h) are "fast": they start a run that may be a flight.
    public var fastSpeed = 200 / 3.6
    /// A run of fast legs whose overall speed exceeds this (m/s; 400 km/h) is a flight: no
    /// high-speed train runs that fast, and no aircraft averages less from take-off to landing.
    public var flightSpeed = 400 / 3.6
    /// A run whose overall speed exceeds this (m/s; 1,200 km/h) is a position glitch, not travel.
    public var implausibleSpeed = 1200 / 3.6
    /// Points inside a region within one segment that confirm an unlock even when each alone is too
    /// close to the border for its accuracy.
    public var minimumPointsPerSegment = 3
    /// The zone of local days, streaks and printed times (`--time-zone`, `--utc-offset`; +08:00,
    /// China's clock, by default).
    public var timeZone = LocalTimeZone.china
    /// The datum of the input coordinates, unless an input's record names its own
    /// (``InputRecord/datum``, from `--datum-for`).
    public var inputDatum: Datum = .wgs84

    public init() {}
}
