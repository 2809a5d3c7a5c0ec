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
    /// The zone of local days, streaks and printed times (`--time-zone`, `--utc-offset`; by
    /// default the system's, ``LocalTimeZone/system``: `TZ`, else the system's setting, else UTC).
    public var timeZone = LocalTimeZone.system
    /// The first and last local days (days since 1970-01-01 in ``timeZone``, inclusive) whose
    /// moments count (`--since`, `--until`); nil: no bound. When either is set, points outside
    /// and untimed points (they have no day) are dropped as ``DropReason/outsideDates``.
    public var since: Int64?
    public var until: Int64?
    /// Whether `--since` or `--until` selects days.
    public var selectsDates: Bool { since != nil || until != nil }
    /// Areas and periods a logbook forgot: points inside are dropped as ``DropReason/forgotten``.
    /// Kept by the logbook beside its rules (not one of them: forgetting does not change them).
    public var exclusions: [PointExclusion] = []
    /// The datum of the input coordinates, unless an input's record names its own
    /// (``InputRecord/datum``, from `--datum-for`).
    public var inputDatum: Datum = .wgs84
    /// Legs at most this fast (m/s; 30 km/h, a brisk sustained cycling pace) explore cells and
    /// make the places at their ends visited; faster ground legs (cars, trains) explore nothing,
    /// and a region only their inner points reach is `passedThrough`.
    public var exploreMaxSpeed = 30 / 3.6
    /// Whether plans (GPX routes, inputs with no time at all) count, as tentative untimed evidence.
    public var includePlans = false
    /// The longest leg (metres) drawn or counted between points of which one has no time: a
    /// logger without a time column samples every few metres, while the vertices of a plan or a
    /// drawn line lie far apart and the chord between them is land nobody was seen on.
    public static let untimedLegLimit = 200.0
    /// The spots of a map of explored ground (Fog of World's pixels, 9.55 m × cos φ) inside a
    /// region, at least ``assumedAccuracy`` from its border, that confirm it: about 80–95 m of
    /// trail, more than one stray fix or the end of a line drawn across a border can give.
    public static let footprintSpotsToConfirm = 10
    /// The horizontal accuracy (metres) assumed for a photo that records none
    /// (`GPSHPositioningError`): a camera writes the last fix it had, often a network fix of
    /// 50–100 m, so a photo confirms a region only 100 m inside it.
    public static let photoAssumedAccuracy = 100.0
    /// The longest leg (metres) ever rasterised, whatever the options: at the default speed and
    /// gap no explored leg exceeds 2.5 km (30 km/h for 5 min), and this keeps any leg's cost below
    /// about 250 cells however the options are set.
    public static let maximumExploredLeg = 3_000.0
    /// A point alone in its segment (a gap of more than ``segmentGap`` on both sides: nothing says
    /// how the person moved) confirms a region only when no counted point passed that region at
    /// vehicle speed within this many minutes of it, in any input: a fix Google kept every few
    /// minutes of a train ride is a moment on the train, not a stop. 30 minutes: a ride's fixes
    /// come minutes apart, while an hour later the same region may well hold a real stop.
    public static let loneVehicleWindowMinutes: Int64 = 30
    /// The effective passes a cell needs to be lit, bright and gold (see ``PassCandidates``).
    public var familiarityLevels = FamiliarityLevels()
    /// A pass of a cell counts only when it is more than this many seconds (4 hours, 像素征途's
    /// rule against pacing up and down) after the previous counted pass of that cell.
    public static let passInterval: Int64 = 4 * 3600
    /// A leg gives pass candidates only when both its end points' horizontal accuracy (or the
    /// assumed one) is better than this (metres; 像素征途's rule). With the default filter
    /// (``maximumAccuracy``, 50 m) every kept point already is.
    public static let passAccuracyLimit = 65.0
    /// A leg gives pass candidates only when faster than this (m/s; 1.8 km/h, about a third of a
    /// walking pace): a phone lying still or a person standing is not passing through. Together
    /// with ``exploreMaxSpeed`` (the leg must be drawn) this is "moving".
    public static let passMinimumSpeed = 0.5

    public init() {}
}
