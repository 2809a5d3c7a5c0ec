#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// Reads KML 2.2 (and 2.3) documents as a stream: Google Earth, My Maps and the Chinese hiking
/// apps' exports.
///
/// What it delivers (see `docs/input-formats.md`, "KML and KMZ"):
/// - every `LineString` (also inside `MultiGeometry`) as one segment of untimed points, read
///   from its `coordinates` (`lon,lat[,alt]` tuples separated by white space), streamed however
///   long the line is;
/// - every `gx:Track` (also inside `gx:MultiTrack`; KML 2.3's unprefixed `Track` too) as one
///   segment of timed points, the *n*-th `when` paired with the *n*-th `gx:coord` whatever the
///   order they come in (all times first, all coordinates first as 两步路 writes them, or in
///   pairs either way round). A `when` or `gx:coord` left over at the end of the track is an
///   unreadable point: counts that differ are reported, never guessed around. An empty
///   `<gx:coord/>` is a pause (OpenTracks, FitTrackee): a segment break where it pairs, no point.
/// - every `Point` as ``TrackAnnotation/pin`` (a placemark is a pin, not a place one went),
///   except timed fixes: a run of at least ``minimumFixRun`` consecutive placemarks of one folder,
///   each a single `Point` with a `TimeStamp`, times strictly increasing, at most
///   ``maximumFixGap`` and ``maximumFixSpeed`` apart, is a track (GPSBabel's default KML keeps each recorded fix's time
///   only there), one segment per run, in a document with no `gx:Track` before it (GPSBabel's
///   `track=1` writes both, the `gx:Track` first).
/// - a `LineString` whose positions are exactly those of the timed fixes or `gx:Track` just read
///   (GPSBabel's "Path" through them) is not read again (``Summary/pathsThroughFixes``).
///
/// Only geometry inside a `Placemark` counts, as in Google Earth (a `Point` of a
/// `PhotoOverlay`, or a geometry placed directly in a `Folder`, is not drawn as a feature).
/// `LinearRing` and `Polygon` are areas, not tracks: their coordinates are skipped. Elements
/// match by local name. The XML rules and limits are ``XMLTokenizer``'s; besides those, a
/// `gx:Track` may hold at most ``maximumPendingTimes`` `when`s, or ``maximumPendingCoordinates``
/// `gx:coord`s, not yet paired.
public enum KMLReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// `LineString` elements (each one segment).
        public var lineStrings = 0
        /// `gx:Track` elements (each one segment).
        public var tracks = 0
        /// `Point` elements, delivered as pins.
        public var pins = 0
        /// `Polygon` elements, skipped.
        public var polygons = 0
        /// Timed `Point` placemarks read as a track's fixes (not pins).
        public var timedFixes = 0
        /// `LineString`s repeating the positions of the timed fixes or `gx:Track` before them, not read.
        public var pathsThroughFixes = 0
        /// Empty `<gx:coord/>` elements: pauses, each a segment break, no point.
        public var pauses = 0

        public init() {}
    }

    /// `when` elements of one `gx:Track` held until their `gx:coord`s come (Google Earth writes
    /// all times first): 8 bytes each, so at most 16 MiB.
    public static var maximumPendingTimes: Int { 1 << 21 }
    /// `gx:coord` elements of one `gx:Track` held until their `when`s come (两步路 writes all
    /// coordinates first): 32 bytes each, so at most 32 MiB.
    public static var maximumPendingCoordinates: Int { 1 << 20 }
    /// The fewest timed `Point` placemarks in a row that make a track: waypoints uploaded in one
    /// burst carry times a second apart, and three or four of them in a row can pass the gap and
    /// speed tests by chance (GPSBabel's ExpertGPS reference file has two such runs of three); a
    /// recorder writes many.
    public static var minimumFixRun: Int { 5 }
    /// The longest gap between timed placemarks of one track, in milliseconds: the pipeline's
    /// own segment gap (5 minutes), beyond which points are no longer one movement.
    public static var maximumFixGap: Int64 { 5 * 60_000 }
    /// The fastest movement between consecutive timed placemarks of one track, in metres per
    /// second (360 km/h, a high-speed train; an airliner's fixes would fail it, and flights
    /// unlock nothing anyway): consecutive fixes of a recording are reachable, waypoints
    /// uploaded a second apart and hundreds of metres apart are not.
    public static var maximumFixSpeed: Double { 100 }

    /// Equirectangular distance in metres between two points (degrees), on a 6,371,008.8 m
    /// sphere: short legs, where it is exact enough.
    static func metres(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let radians = Double.pi / 180
        let mean = (a.latitude + b.latitude) / 2 * radians
        let dx = (b.longitude - a.longitude) * radians * cos(mean)
        let dy = (b.latitude - a.latitude) * radians
        return 6_371_008.8 * (dx * dx + dy * dy).squareRoot()
    }

    /// Reads the KML document in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` naming the line and byte offset for problems that stop the file;
    ///   points delivered before it stay delivered.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var source = source
        var scanner = XMLScanner(path: path, format: "KML", root: "kml")
        defer { scanner.deallocate() }
        var parser = KMLParser()
        while true {
            while let token = try scanner.next() {
                try parser.handle(token, &scanner, &sink)
            }
            if scanner.finished { return parser.summary }
            let space = try scanner.inputSpace()
            scanner.received(try source.read(into: space))
        }
    }
}

/// What ``KMLReader`` keeps between tokens.
private struct KMLParser {
    var summary = KMLReader.Summary()
    /// Depth of the open `LineString`, its `coordinates`, the open `gx:Track`, and its `when`
    /// or `gx:coord` (0: none).
    private var placemarkDepth = 0
    private var lineDepth = 0
    private var coordinatesDepth = 0
    private var trackDepth = 0
    private var trackLocation = XMLLocation(line: 0, offset: 0)
    private var valueDepth = 0
    private var valueKind = ValueKind.trackTime
    private var valueLocation = XMLLocation(line: 0, offset: 0)
    private var value = XMLValue(limit: 128)
    private var tuples = CoordinateTuples()

    /// Times of the open track not yet paired (`times[timesHead...]`); `noTime` for an empty
    /// `when`, `badTime` for one that does not parse.
    private var times: [Int64] = []
    private var timesHead = 0
    private var timesSeen = 0
    private var coordsSeen = 0
    private static let noTime = Int64.min, badTime = Int64.min + 1
    /// Coordinates of the open track not yet paired (`coords[coordsHead...]`), when they come
    /// before their times; an unreadable one was reported when read and holds its place.
    private var coords: [PendingCoord] = []
    private var coordsHead = 0

    private struct PendingCoord {
        var longitude: Double
        var latitude: Double
        var altitude: Double?
        var location: XMLLocation
        var readable: Bool
        /// An empty `<gx:coord/>`: no position at that moment, a pause (OpenTracks and FitTrackee
        /// write one where the recording paused or resumed).
        var pause = false
    }

    /// What the value being read is.
    private enum ValueKind {
        case trackTime, trackCoord, pointCoordinates, stampTime
    }

    // The placemark being read: its `Point`s (and the open one), other geometries, and the
    // `Point`'s coordinates and `TimeStamp/when` when it has one of each.
    private var pointDepth = 0
    private var stampDepth = 0
    private var placemarkPoints = 0
    private var placemarkOtherGeometry = false
    private var placemarkPosition: (longitude: Double, latitude: Double, altitude: Double?)?
    private var placemarkTime: Int64?
    /// A serial number for each open element, by depth, so "the same folder" is known.
    private var serials = [Int](repeating: 0, count: XMLScanner.maximumDepth + 2)
    private var nextSerial = 0
    // The run of timed placemarks: its folder's serial (-1: none), the fixes held until the run
    // is long enough, whether it is being read, and the last fix's time.
    private var runParent = -1
    private var held: [TrackPoint] = []
    private var runActive = false
    private var runLast = TrackPoint(latitude: 0, longitude: 0)
    // The positions of the timed points just read (a run's, or a gx:Track's), and of its
    // folder, for telling a LineString that only repeats them; a LineString being compared holds
    // its points (at most as many) until it differs or ends.
    private var sequence: [(latitude: Double, longitude: Double)] = []
    private var sequenceParent = -1
    private var sequenceComplete = true
    private var lineMatching = false
    private var lineHeld: [TrackPoint] = []
    private var lineBreakSent = false
    private static let maximumRemembered = 1 << 20

    mutating func handle<Sink: TrackSink>(_ token: XMLScanner.Token, _ scanner: inout XMLScanner, _ sink: inout Sink) throws {
        switch token {
        case .text:
            if coordinatesDepth > 0 && scanner.depth == coordinatesDepth {
                var splitter = CoordinateTuples()
                swap(&splitter, &tuples)  // so `deliver` may change `self` meanwhile, without a copy
                let location = splitter.location
                splitter.feed(scanner.text) { deliver($0, location, scanner, &sink) }
                swap(&splitter, &tuples)
            } else if valueDepth > 0 && scanner.depth == valueDepth {
                value.append(scanner.text)
            }
        case .startTag:
            try start(&scanner, &sink)
        case .endTag:
            try end(&scanner, &sink)
        }
    }

    private mutating func start<Sink: TrackSink>(_ scanner: inout XMLScanner, _ sink: inout Sink) throws {
        let depth = scanner.depth
        serials[depth] = nextSerial
        nextSerial += 1
        if coordinatesDepth > 0 || valueDepth > 0 { return }  // markup inside a value is skipped
        if lineDepth > 0 {
            if depth == lineDepth + 1 && scanner.hasLocalName("coordinates") {
                coordinatesDepth = depth
                tuples.reset(at: scanner.location())
            }
            return
        }
        if trackDepth > 0 {
            if depth == trackDepth + 1 {
                if scanner.hasLocalName("when") { beginValue(.trackTime, depth, &scanner) }
                else if scanner.hasLocalName("coord") { beginValue(.trackCoord, depth, &scanner) }
            }
            return
        }
        if placemarkDepth == 0 {
            if scanner.hasLocalName("Placemark") {
                placemarkDepth = depth
                placemarkPoints = 0
                placemarkOtherGeometry = false
                placemarkPosition = nil
                placemarkTime = nil
            }
            return
        }
        if pointDepth > 0 {
            if depth == pointDepth + 1 && scanner.hasLocalName("coordinates") { beginValue(.pointCoordinates, depth, &scanner) }
            return
        }
        if stampDepth > 0 {
            if depth == stampDepth + 1 && scanner.hasLocalName("when") { beginValue(.stampTime, depth, &scanner) }
            return
        }
        if depth == placemarkDepth + 1 && scanner.hasLocalName("TimeStamp") {
            stampDepth = depth
            return
        }
        if scanner.hasLocalName("LineString") {
            lineDepth = depth
            placemarkOtherGeometry = true
            summary.lineStrings += 1
            lineMatching = !sequence.isEmpty && sequenceComplete
            lineHeld.removeAll(keepingCapacity: true)
            lineBreakSent = false
            if !lineMatching {
                lineBreakSent = true
                sink.segmentBreak()
            }
        } else if scanner.hasLocalName("Track") {
            placemarkOtherGeometry = true
            remember(parent: -2)
            trackDepth = depth
            trackLocation = scanner.location()
            summary.tracks += 1
            times.removeAll(keepingCapacity: false)
            timesHead = 0
            coords.removeAll(keepingCapacity: false)
            coordsHead = 0
            timesSeen = 0
            coordsSeen = 0
            sink.segmentBreak()
        } else if scanner.hasLocalName("Point") {
            pointDepth = depth
            placemarkPoints += 1
        } else if scanner.hasLocalName("Polygon") {
            placemarkOtherGeometry = true
            summary.polygons += 1
        }
    }

    private mutating func beginValue(_ kind: ValueKind, _ depth: Int, _ scanner: inout XMLScanner) {
        valueDepth = depth
        valueKind = kind
        valueLocation = scanner.location()
        value.reset()
    }

    private mutating func end<Sink: TrackSink>(_ scanner: inout XMLScanner, _ sink: inout Sink) throws {
        let depth = scanner.depth
        if runParent >= 0 && serials[depth] == runParent { endRun(&sink) }
        if depth == coordinatesDepth {
            coordinatesDepth = 0
            var splitter = CoordinateTuples()
            swap(&splitter, &tuples)
            let location = splitter.location
            splitter.finish { deliver($0, location, scanner, &sink) }
            swap(&splitter, &tuples)
        } else if depth == lineDepth {
            lineDepth = 0
            if lineMatching && lineHeld.count == sequence.count {
                summary.pathsThroughFixes += 1  // the path drawn through the points just read
                lineHeld.removeAll(keepingCapacity: true)
            } else {
                releaseLine(&sink)
                if !lineBreakSent { sink.segmentBreak() }
            }
            lineMatching = false
        } else if depth == placemarkDepth {
            placemarkDepth = 0
            finishPlacemark(parent: serials[depth - 1], &sink)
        } else if depth == pointDepth {
            pointDepth = 0
        } else if depth == stampDepth {
            stampDepth = 0
        } else if depth == valueDepth {
            valueDepth = 0
            switch valueKind {
            case .trackTime: try finishTime(scanner, &sink)
            case .trackCoord: try finishCoord(scanner, &sink)
            case .pointCoordinates:
                var tuples = CoordinateTuples()
                var found: [CoordinateTuples.Tuple] = []
                tuples.reset(at: valueLocation)
                value.withTrimmed { tuples.feed($0) { found.append($0) } }
                tuples.finish { found.append($0) }
                if found.count == 1, case let .position(longitude, latitude, altitude) = found[0], !value.overflow {
                    placemarkPosition = (longitude, latitude, altitude)
                }
            case .stampTime:
                placemarkTime = value.overflow ? nil : value.withTrimmed { Timestamp.parse($0) }
            }
        } else if depth == trackDepth {
            trackDepth = 0
            let left = times.count - timesHead
            for _ in 0..<left {
                summary.unreadablePoints += 1
                sink.unreadablePoint(scanner.problem("gx:Track: \(timesSeen) <when> and \(coordsSeen) <gx:coord> elements; a <when> without a <gx:coord>", at: trackLocation))
            }
            for coord in coords[coordsHead...] where coord.readable {
                summary.unreadablePoints += 1
                sink.unreadablePoint(scanner.problem("gx:coord without a <when> to pair with (gx:Track counts differ)", at: coord.location))
            }
            times.removeAll(keepingCapacity: false)
            timesHead = 0
            coords.removeAll(keepingCapacity: false)
            coordsHead = 0
        }
    }

    private mutating func finishTime<Sink: TrackSink>(_ scanner: XMLScanner, _ sink: inout Sink) throws {
        timesSeen += 1
        let time: Int64 = value.overflow ? Self.badTime : value.withTrimmed { bytes in
            bytes.isEmpty ? Self.noTime : Timestamp.parse(bytes) ?? Self.badTime
        }
        if coordsHead < coords.count {
            // Its coordinate came first.
            let coord = coords[coordsHead]
            coordsHead += 1
            if coordsHead == coords.count {
                coords.removeAll(keepingCapacity: true)
                coordsHead = 0
            }
            if coord.readable { pair(coord, time, scanner, &sink) } else if coord.pause { sink.segmentBreak() }
            return
        }
        if timesHead == times.count {
            times.removeAll(keepingCapacity: true)
            timesHead = 0
        }
        guard times.count - timesHead < KMLReader.maximumPendingTimes else {
            throw scanner.problem("a gx:Track with more than \(KMLReader.maximumPendingTimes) <when> elements before their <gx:coord>s; split the track", at: valueLocation)
        }
        times.append(time)
    }

    private mutating func finishCoord<Sink: TrackSink>(_ scanner: XMLScanner, _ sink: inout Sink) throws {
        coordsSeen += 1
        var coord = PendingCoord(longitude: 0, latitude: 0, altitude: nil, location: valueLocation, readable: false)
        var found = 0
        let good = !value.overflow && value.withTrimmed { bytes -> Bool in
            var i = 0
            while i < bytes.count {
                while i < bytes.count, XMLMarkup.isSpace(bytes[i]) { i += 1 }
                var j = i
                while j < bytes.count, !XMLMarkup.isSpace(bytes[j]) { j += 1 }
                if j > i {
                    guard found < 3, let number = DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: bytes[i..<j])) else { return false }
                    switch found {
                    case 0: coord.longitude = number
                    case 1: coord.latitude = number
                    default: coord.altitude = number
                    }
                    found += 1
                }
                i = j
            }
            return found >= 2
        }
        coord.readable = good
        coord.pause = !value.overflow && found == 0 && value.withTrimmed { $0.isEmpty }
        if coord.pause {
            summary.pauses += 1
        } else if !good {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("gx:coord '\(value.prefix(40))' is not 'longitude latitude [altitude]'", at: valueLocation))
        }
        guard timesHead < times.count else {
            // Its time comes later: held (an unreadable one holds its place in the pairing).
            guard coords.count - coordsHead < KMLReader.maximumPendingCoordinates else {
                throw scanner.problem("a gx:Track with more than \(KMLReader.maximumPendingCoordinates) <gx:coord> elements before their <when>s; split the track", at: valueLocation)
            }
            coords.append(coord)
            return
        }
        let time = times[timesHead]
        timesHead += 1
        if good { pair(coord, time, scanner, &sink) } else if coord.pause { sink.segmentBreak() }
    }

    /// Delivers a readable coordinate with its time.
    private mutating func pair<Sink: TrackSink>(_ coord: PendingCoord, _ time: Int64, _ scanner: XMLScanner, _ sink: inout Sink) {
        if time == Self.badTime {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("the <when> paired with this gx:coord is not an ISO-8601 time", at: coord.location))
            return
        }
        summary.points += 1
        note(coord.latitude, coord.longitude)
        sink.point(TrackPoint(latitude: coord.latitude, longitude: coord.longitude, time: time == Self.noTime ? nil : time,
                              elevation: coord.altitude))
    }

    // MARK: Timed placemarks

    /// A placemark ended: a timed fix (one `Point`, nothing else, a time, no `gx:Track` in the
    /// document so far) joins the run of its folder; any other ends the run, its points pins.
    private mutating func finishPlacemark<Sink: TrackSink>(parent: Int, _ sink: inout Sink) {
        if placemarkPoints == 1, !placemarkOtherGeometry, summary.tracks == 0, let position = placemarkPosition, let time = placemarkTime {
            timedFix(TrackPoint(latitude: position.latitude, longitude: position.longitude, time: time, elevation: position.altitude), parent: parent, &sink)
            return
        }
        endRun(&sink)
        pin(placemarkPoints, &sink)
    }

    private mutating func timedFix<Sink: TrackSink>(_ fix: TrackPoint, parent: Int, _ sink: inout Sink) {
        let time = fix.time!
        if parent == runParent, let previous = runActive ? runLast : held.last, let last = previous.time,
           time > last, time - last <= KMLReader.maximumFixGap,
           KMLReader.metres(previous, fix) <= KMLReader.maximumFixSpeed * Double(time - last) / 1000 {
            if runActive {
                deliverFix(fix, &sink)
                return
            }
            held.append(fix)
            if held.count >= KMLReader.minimumFixRun {
                if sequenceParent != parent { remember(parent: parent) }
                sink.segmentBreak()
                runActive = true
                for fix in held { deliverFix(fix, &sink) }
                held.removeAll()
            }
            return
        }
        endRun(&sink)
        runParent = parent
        held = [fix]
    }

    private mutating func deliverFix<Sink: TrackSink>(_ fix: TrackPoint, _ sink: inout Sink) {
        summary.points += 1
        summary.timedFixes += 1
        note(fix.latitude, fix.longitude)
        runLast = fix
        sink.point(fix)
    }

    /// Ends the run of timed placemarks; those held, too few to be a track, are pins.
    private mutating func endRun<Sink: TrackSink>(_ sink: inout Sink) {
        pin(held.count, &sink)
        held.removeAll()
        runActive = false
        runParent = -1
    }

    private mutating func pin<Sink: TrackSink>(_ count: Int, _ sink: inout Sink) {
        for _ in 0..<count {
            summary.pins += 1
            sink.annotate(.pin)
        }
    }

    /// Starts remembering the positions of a new timed sequence (of the folder `parent`; -2 for
    /// a gx:Track, which only matches the path right after it).
    private mutating func remember(parent: Int) {
        sequence.removeAll(keepingCapacity: true)
        sequenceParent = parent
        sequenceComplete = true
    }

    private mutating func note(_ latitude: Double, _ longitude: Double) {
        guard sequence.count < Self.maximumRemembered else {
            sequenceComplete = false
            return
        }
        sequence.append((latitude, longitude))
    }

    /// Delivers the points a LineString held while they matched the sequence before it.
    private mutating func releaseLine<Sink: TrackSink>(_ sink: inout Sink) {
        lineMatching = false
        guard !lineHeld.isEmpty else { return }
        if !lineBreakSent {
            lineBreakSent = true
            sink.segmentBreak()
        }
        for point in lineHeld {
            summary.points += 1
            sink.point(point)
        }
        lineHeld.removeAll(keepingCapacity: true)
    }

    private mutating func deliver<Sink: TrackSink>(_ tuple: CoordinateTuples.Tuple, _ location: XMLLocation, _ scanner: XMLScanner, _ sink: inout Sink) {
        if lineMatching {
            // Positions are written with 6 decimals by GPSBabel in both places; 1e-6° is 0.1 m.
            if case let .position(longitude, latitude, altitude) = tuple, lineHeld.count < sequence.count,
               abs(sequence[lineHeld.count].latitude - latitude) <= 1e-6, abs(sequence[lineHeld.count].longitude - longitude) <= 1e-6 {
                lineHeld.append(TrackPoint(latitude: latitude, longitude: longitude, elevation: altitude))
                return
            }
            releaseLine(&sink)
        }
        if !lineBreakSent {
            lineBreakSent = true
            sink.segmentBreak()
        }
        switch tuple {
        case let .position(longitude, latitude, altitude):
            summary.points += 1
            sink.point(TrackPoint(latitude: latitude, longitude: longitude, elevation: altitude))
        case let .unreadable(text):
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("coordinates: '\(text)' is not 'longitude,latitude[,altitude]'", at: location))
        }
    }
}
