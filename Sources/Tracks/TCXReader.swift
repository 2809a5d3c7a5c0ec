import TextFormats

/// Reads Garmin Training Center (TCX) v2 files as a stream, in constant memory.
///
/// What it delivers (see `docs/input-formats.md`, "TCX"):
/// - each `Trackpoint` with a `Position` as a ``TrackPoint``: `Position/LatitudeDegrees` and
///   `LongitudeDegrees`, `Time`, `AltitudeMeters` (TCX records no accuracy). A trackpoint without
///   `Position` (heart rate only, indoors) is not a point; ``Summary/trackpointsWithoutPosition``
///   counts them. One whose position or time is missing or malformed is unreadable.
/// - ``TrackSink/segmentBreak()`` at the start of every `Lap`, `Track` and `Course`.
/// - `Courses` (planned routes) as points without times, each course its own segments;
///   `CoursePoint`s (turn cues) as pins.
/// - `Activity Sport` as ``TrackAnnotation/activityType(_:)``, `Creator/Name` as
///   ``TrackAnnotation/creator(_:)``.
///
/// Elements match by local name. The XML rules and limits are ``XMLScanner``'s.
public enum TCXReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// Segment breaks delivered (`Lap`, `Track` and `Course` elements).
        public var segments = 0
        /// `Trackpoint`s without a `Position`, not delivered.
        public var trackpointsWithoutPosition = 0
        /// `CoursePoint`s, delivered as pins.
        public var coursePoints = 0

        public init() {}
    }

    /// Reads the TCX document in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` naming the line and byte offset for problems that stop the file
    ///   (not XML, a root other than `TrainingCenterDatabase`, truncation, limits); points
    ///   delivered before it stay delivered.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var source = source
        var scanner = XMLScanner(path: path, format: "TCX", root: "TrainingCenterDatabase")
        defer { scanner.deallocate() }
        var parser = TCXParser()
        while true {
            while let token = try scanner.next() {
                parser.handle(token, &scanner, &sink)
            }
            if scanner.finished { return parser.summary }
            let space = try scanner.inputSpace()
            scanner.received(try source.read(into: space))
        }
    }
}

/// What ``TCXReader`` keeps between tokens: where in the document it is and the point being read.
private struct TCXParser {
    private enum Field {
        case none, time, latitude, longitude, altitude, creatorName
    }

    var summary = TCXReader.Summary()
    /// Depth of the open `Course` (0: none), `Creator`, `Trackpoint`, `Position`.
    private var courseDepth = 0
    private var creatorDepth = 0
    private var pointDepth = 0
    private var positionDepth = 0
    private var pointLocation = XMLLocation(line: 0, offset: 0)

    private var field = Field.none
    private var fieldDepth = 0
    private var value = XMLValue(limit: 256)

    private var hasPosition = false
    private var latitude: Double?
    private var longitude: Double?
    private var time: Int64?
    private var altitude: Double?
    private var problem: String?

    mutating func handle<Sink: TrackSink>(_ token: XMLScanner.Token, _ scanner: inout XMLScanner, _ sink: inout Sink) {
        switch token {
        case .text:
            if field != .none && scanner.depth == fieldDepth { value.append(scanner.text) }
        case .startTag:
            start(&scanner, &sink)
        case .endTag:
            end(&scanner, &sink)
        }
    }

    private mutating func start<Sink: TrackSink>(_ scanner: inout XMLScanner, _ sink: inout Sink) {
        let depth = scanner.depth
        if pointDepth > 0 {
            guard field == .none else { return }
            if depth == pointDepth + 1 {
                if scanner.hasLocalName("Time") { capture(.time, depth) }
                else if scanner.hasLocalName("AltitudeMeters") { capture(.altitude, depth) }
                else if scanner.hasLocalName("Position") { positionDepth = depth; hasPosition = true }
            } else if positionDepth > 0 && depth == positionDepth + 1 {
                if scanner.hasLocalName("LatitudeDegrees") { capture(.latitude, depth) }
                else if scanner.hasLocalName("LongitudeDegrees") { capture(.longitude, depth) }
            }
            return
        }
        if scanner.hasLocalName("Trackpoint") {
            pointDepth = depth
            pointLocation = scanner.location()
            hasPosition = false
            latitude = nil
            longitude = nil
            time = nil
            altitude = nil
            problem = nil
        } else if scanner.hasLocalName("Lap") || scanner.hasLocalName("Track") {
            sink.segmentBreak()
            summary.segments += 1
        } else if scanner.hasLocalName("Activity") {
            if let sport = scanner.attribute("Sport"), !sport.isEmpty { sink.annotate(.activityType(sport)) }
        } else if scanner.hasLocalName("Course") {
            courseDepth = depth
            sink.segmentBreak()
            summary.segments += 1
        } else if scanner.hasLocalName("CoursePoint") {
            summary.coursePoints += 1
            sink.annotate(.pin)
        } else if scanner.hasLocalName("Creator") {
            creatorDepth = depth
        } else if creatorDepth > 0 && depth == creatorDepth + 1 && scanner.hasLocalName("Name") {
            capture(.creatorName, depth)
        }
    }

    private mutating func capture(_ which: Field, _ depth: Int) {
        field = which
        fieldDepth = depth
        value.reset()
    }

    private mutating func end<Sink: TrackSink>(_ scanner: inout XMLScanner, _ sink: inout Sink) {
        let depth = scanner.depth
        if field != .none && depth == fieldDepth {
            finishValue(&sink)
        } else if depth == positionDepth {
            positionDepth = 0
        } else if depth == pointDepth {
            finishPoint(scanner, &sink)
        } else if depth == creatorDepth {
            creatorDepth = 0
        } else if depth == courseDepth {
            courseDepth = 0
        }
    }

    private mutating func finishValue<Sink: TrackSink>(_ sink: inout Sink) {
        let which = field
        field = .none
        if which == .creatorName {
            let name = value.string
            if !value.overflow && !name.isEmpty { sink.annotate(.creator(name)) }
            return
        }
        guard problem == nil else { return }
        let element: String
        switch which {
        case .time: element = "Time"
        case .latitude: element = "LatitudeDegrees"
        case .longitude: element = "LongitudeDegrees"
        case .altitude: element = "AltitudeMeters"
        case .none, .creatorName: return
        }
        guard !value.overflow else {
            problem = "<\(element)> value longer than \(value.limit) bytes"
            return
        }
        let parsed: Bool = value.withTrimmed { bytes in
            if bytes.isEmpty { return true }
            switch which {
            case .time:
                time = Timestamp.parse(bytes)
                return time != nil
            case .latitude:
                latitude = DecimalNumber.parse(bytes)
                return latitude != nil
            case .longitude:
                longitude = DecimalNumber.parse(bytes)
                return longitude != nil
            default:
                altitude = DecimalNumber.parse(bytes)
                return altitude != nil
            }
        }
        if !parsed {
            let shown = String(value.string.prefix(40))
            problem = which == .time ? "<Time> '\(shown)' is not an ISO-8601 time" : "<\(element)> '\(shown)' is not a number"
        }
    }

    private mutating func finishPoint<Sink: TrackSink>(_ scanner: XMLScanner, _ sink: inout Sink) {
        pointDepth = 0
        positionDepth = 0
        field = .none
        if !hasPosition {
            summary.trackpointsWithoutPosition += 1
            return
        }
        if problem == nil && (latitude == nil || longitude == nil) {
            problem = "<Position> without \(latitude == nil ? "LatitudeDegrees" : "LongitudeDegrees")"
        }
        if let problem {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("Trackpoint: " + problem, at: pointLocation))
            return
        }
        summary.points += 1
        sink.point(TrackPoint(latitude: latitude!, longitude: longitude!, time: courseDepth > 0 ? nil : time, elevation: altitude))
    }
}
