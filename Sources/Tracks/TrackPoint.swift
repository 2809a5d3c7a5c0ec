/// One recorded position as a reader found it, before any filtering.
///
/// Coordinates are in the input's datum (WGS-84 unless the user says otherwise); the pipeline
/// converts them. Optional fields are nil when the input does not record them.
public struct TrackPoint: Equatable, Sendable {
    public var latitude: Double
    public var longitude: Double
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var time: Int64?
    /// Horizontal accuracy in metres (radius), when the input records one.
    public var accuracy: Double?
    /// Elevation in metres, when recorded.
    public var elevation: Double?

    public init(latitude: Double, longitude: Double, time: Int64? = nil, accuracy: Double? = nil, elevation: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.accuracy = accuracy
        self.elevation = elevation
    }
}

/// Receives what a track reader finds in one input, in file order.
///
/// Readers stream: they never hold a whole file's points. A reader that meets a fatal problem
/// throws an `InputError` naming the file and the line or byte offset; points it delivered
/// before the error stay delivered (the report says the file was read in part).
public protocol TrackSink {
    /// A boundary written in the file (a GPX `trkseg` or `rte`, a backup segment, a GeoJSON
    /// feature): points on either side are never joined into one path.
    mutating func segmentBreak()
    /// One point as read.
    mutating func point(_ point: TrackPoint)
    /// A point-like record that could not be used (a number that does not parse, a missing
    /// coordinate). The pipeline counts it under the drop reason `unreadable`, so nothing that
    /// was read is lost without a trace.
    mutating func unreadablePoint(_ problem: InputError)
    /// Something the file says about itself beyond its points (an activity type, the program
    /// that wrote it, a pin that is not part of a track). Optional: the default ignores it.
    mutating func annotate(_ annotation: TrackAnnotation)
}

extension TrackSink {
    public mutating func annotate(_ annotation: TrackAnnotation) {}
}

/// What a reader learns about an input besides its points, delivered through
/// ``TrackSink/annotate(_:)`` as it is read.
public enum TrackAnnotation: Equatable, Sendable {
    /// The activity the file says it records, as written (FIT `sport`, TCX `Activity Sport`,
    /// a GPX or KML track `type`).
    case activityType(String)
    /// The program or device that wrote the file, as written (GPX `creator`, TCX `Creator`,
    /// FIT `file_id` manufacturer and product).
    case creator(String)
    /// The segment just begun (after its ``TrackSink/segmentBreak()``) is a planned route, not
    /// a recording (a GPX `rte`): its points are a plan, whatever times they carry. The next
    /// segment break ends it.
    case route
    /// A pin that is not part of any track (a GPX waypoint, a KML `Point` placemark): counted,
    /// never classified.
    case pin
    /// The input is a map of explored ground, not a recording (Fog of World's pixels): each point
    /// after this is an explored spot with no time and no path to the next; it explores its cell
    /// and is evidence by the footprint rule (docs/report-format.md, "Footprints"), never a plan.
    case exploredArea
    /// The input is a photo (or its sidecar): its point is a visit at a moment, evidence for the
    /// regions there and a day, with no explored area and no distance (docs/report-format.md,
    /// "Photos").
    case snapshot
    /// How the person moved during the segment just begun (after its ``TrackSink/segmentBreak()``),
    /// as the file labels it (Google's `IN_TRAIN`, `WALKING`, `FLYING`, …; ``Movement/google(_:)``):
    /// it decides, in place of the legs' speeds, whether each point was a place been or only
    /// passed, and which distance its legs add. Nil: no label, the speeds decide. The next
    /// segment break ends it.
    case movement(Movement?)
}

/// How a person moved, as a file labels a stretch of points (docs/report-format.md, "Movement").
public enum Movement: String, Sendable, CaseIterable {
    /// On foot, running, by bicycle, hiking, paddling: what explores and what distance badges count.
    case humanPowered
    /// In a car, bus, train, tram, ferry, on a motorcycle: places passed, not been.
    case vehicle
    /// In the air: no place at all.
    case flight

    /// Google's activity type (Takeout's Semantic Location History `activityType`, Timeline's
    /// `topCandidate.type`, upper case with underscores or, on iOS, lower case with spaces), nil
    /// for a type this table does not name (`UNKNOWN_ACTIVITY_TYPE`, `STILL`, skiing, …): an
    /// honest "unknown" leaves the decision to the speeds, where a wrong label would override them.
    public static func google(_ type: String) -> Movement? {
        let name = type.uppercased().split(separator: " ").joined(separator: "_")
        if googleHumanPowered.contains(name) { return .humanPowered }
        if googleVehicle.contains(name) { return .vehicle }
        return name == "FLYING" ? .flight : nil
    }

    static let googleHumanPowered: Set<String> = [
        "WALKING", "ON_FOOT", "RUNNING", "CYCLING", "ON_BICYCLE", "HIKING", "WALKING_NORDIC", "SNOWSHOEING",
        "KAYAKING", "ROWING", "SWIMMING", "CATCHING_POKEMON",
    ]
    static let googleVehicle: Set<String> = [
        "IN_VEHICLE", "IN_ROAD_VEHICLE", "IN_RAIL_VEHICLE", "IN_PASSENGER_VEHICLE", "IN_TAXI", "IN_BUS", "IN_TRAIN",
        "IN_SUBWAY", "IN_TRAM", "IN_FERRY", "IN_CABLECAR", "IN_FUNICULAR", "IN_GONDOLA_LIFT", "MOTORCYCLING",
        "SNOWMOBILE", "BOATING", "SAILING", "DRIVING",
    ]
}
