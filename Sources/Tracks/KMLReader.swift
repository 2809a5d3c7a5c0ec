import TextFormats

/// Reads KML 2.2 (and 2.3) documents as a stream: Google Earth, My Maps and the Chinese hiking
/// apps' exports.
///
/// What it delivers (see `docs/input-formats.md`, "KML and KMZ"):
/// - every `LineString` (also inside `MultiGeometry`) as one segment of untimed points, read
///   from its `coordinates` (`lon,lat[,alt]` tuples separated by white space), streamed however
///   long the line is;
/// - every `gx:Track` (also inside `gx:MultiTrack`; KML 2.3's unprefixed `Track` too) as one
///   segment of timed points, its `when` and `gx:coord` elements paired in order. A `gx:coord`
///   without a `when` left to pair with, and a `when` left over at the end of the track, are
///   unreadable points: counts that differ are reported, never guessed around.
/// - every `Point` as ``TrackAnnotation/pin`` (a placemark is a pin, not a place one went).
///
/// Only geometry inside a `Placemark` counts, as in Google Earth (a `Point` of a
/// `PhotoOverlay`, or a geometry placed directly in a `Folder`, is not drawn as a feature).
/// `LinearRing` and `Polygon` are areas, not tracks: their coordinates are skipped. Elements
/// match by local name. The XML rules and limits are ``XMLScanner``'s; besides those, a
/// `gx:Track` may hold at most ``maximumPendingTimes`` `when`s not yet paired.
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

        public init() {}
    }

    /// `when` elements of one `gx:Track` held until their `gx:coord`s come (Google Earth writes
    /// all times first): 8 bytes each, so at most 16 MiB.
    public static var maximumPendingTimes: Int { 1 << 21 }

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
    private var valueIsTime = false
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
                if scanner.hasLocalName("when") { beginValue(time: true, depth, &scanner) }
                else if scanner.hasLocalName("coord") { beginValue(time: false, depth, &scanner) }
            }
            return
        }
        if placemarkDepth == 0 {
            if scanner.hasLocalName("Placemark") { placemarkDepth = depth }
            return
        }
        if scanner.hasLocalName("LineString") {
            lineDepth = depth
            summary.lineStrings += 1
            sink.segmentBreak()
        } else if scanner.hasLocalName("Track") {
            trackDepth = depth
            trackLocation = scanner.location()
            summary.tracks += 1
            times.removeAll(keepingCapacity: false)
            timesHead = 0
            timesSeen = 0
            coordsSeen = 0
            sink.segmentBreak()
        } else if scanner.hasLocalName("Point") {
            summary.pins += 1
            sink.annotate(.pin)
        } else if scanner.hasLocalName("Polygon") {
            summary.polygons += 1
        }
    }

    private mutating func beginValue(time: Bool, _ depth: Int, _ scanner: inout XMLScanner) {
        valueDepth = depth
        valueIsTime = time
        valueLocation = scanner.location()
        value.reset()
    }

    private mutating func end<Sink: TrackSink>(_ scanner: inout XMLScanner, _ sink: inout Sink) throws {
        let depth = scanner.depth
        if depth == coordinatesDepth {
            coordinatesDepth = 0
            var splitter = CoordinateTuples()
            swap(&splitter, &tuples)
            let location = splitter.location
            splitter.finish { deliver($0, location, scanner, &sink) }
            swap(&splitter, &tuples)
        } else if depth == lineDepth {
            lineDepth = 0
        } else if depth == placemarkDepth {
            placemarkDepth = 0
        } else if depth == valueDepth {
            valueDepth = 0
            if valueIsTime { try finishTime(scanner) } else { finishCoord(scanner, &sink) }
        } else if depth == trackDepth {
            trackDepth = 0
            let left = times.count - timesHead
            for _ in 0..<left {
                summary.unreadablePoints += 1
                sink.unreadablePoint(scanner.problem("gx:Track: \(timesSeen) <when> and \(coordsSeen) <gx:coord> elements; a <when> without a <gx:coord>", at: trackLocation))
            }
            times.removeAll(keepingCapacity: false)
            timesHead = 0
        }
    }

    private mutating func finishTime(_ scanner: XMLScanner) throws {
        timesSeen += 1
        let time: Int64 = value.overflow ? Self.badTime : value.withTrimmed { bytes in
            bytes.isEmpty ? Self.noTime : Timestamp.parse(bytes) ?? Self.badTime
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

    private mutating func finishCoord<Sink: TrackSink>(_ scanner: XMLScanner, _ sink: inout Sink) {
        coordsSeen += 1
        guard timesHead < times.count else {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("gx:coord without a <when> to pair with (gx:Track counts differ)", at: valueLocation))
            return
        }
        let time = times[timesHead]
        timesHead += 1
        var numbers: (Double, Double, Double) = (0, 0, 0)
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
                    case 0: numbers.0 = number
                    case 1: numbers.1 = number
                    default: numbers.2 = number
                    }
                    found += 1
                }
                i = j
            }
            return found >= 2
        }
        if !good {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("gx:coord '\(value.prefix(40))' is not 'longitude latitude [altitude]'", at: valueLocation))
            return
        }
        if time == Self.badTime {
            summary.unreadablePoints += 1
            sink.unreadablePoint(scanner.problem("the <when> paired with this gx:coord is not an ISO-8601 time", at: valueLocation))
            return
        }
        summary.points += 1
        sink.point(TrackPoint(latitude: numbers.1, longitude: numbers.0, time: time == Self.noTime ? nil : time,
                              elevation: found == 3 ? numbers.2 : nil))
    }

    private mutating func deliver<Sink: TrackSink>(_ tuple: CoordinateTuples.Tuple, _ location: XMLLocation, _ scanner: XMLScanner, _ sink: inout Sink) {
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

/// Splits the text of a KML `coordinates` element, piece by piece, into `lon,lat[,alt]` tuples.
///
/// Tuples are separated by white space; white space next to a comma (`116.4, 39.9`, written by
/// some exporters) does not end a tuple. A tuple longer than 128 bytes is unreadable.
struct CoordinateTuples {
    enum Tuple {
        case position(longitude: Double, latitude: Double, altitude: Double?)
        case unreadable(String)
    }

    private var tuple = XMLValue(limit: 128)
    private var gap = false
    /// Where the `coordinates` element starts (problems name it: a tuple has no line of its own
    /// that is cheap to know).
    private(set) var location = XMLLocation(line: 0, offset: 0)

    mutating func reset(at location: XMLLocation) {
        tuple.reset()
        gap = false
        self.location = location
    }

    mutating func feed(_ piece: UnsafeRawBufferPointer, _ emit: (Tuple) -> Void) {
        var start = 0  // of the run of tuple bytes not yet appended
        var i = 0
        while i < piece.count {
            let byte = piece[i]
            if XMLMarkup.isSpace(byte) {
                if i > start { tuple.append(UnsafeRawBufferPointer(rebasing: piece[start..<i])) }
                gap = true
                i += 1
                start = i
                continue
            }
            if gap {
                gap = false
                if !tuple.isEmpty && tuple.last != UInt8(ascii: ",") && byte != UInt8(ascii: ",") {
                    emit(parse())
                    tuple.reset()
                }
            }
            i += 1
        }
        if i > start { tuple.append(UnsafeRawBufferPointer(rebasing: piece[start..<i])) }
    }

    mutating func finish(_ emit: (Tuple) -> Void) {
        if !tuple.isEmpty || tuple.overflow { emit(parse()) }
        tuple.reset()
        gap = false
    }

    private func parse() -> Tuple {
        guard !tuple.overflow else { return .unreadable(tuple.prefix(40) + "…") }
        var numbers: (Double, Double, Double) = (0, 0, 0)
        var found = 0
        let good: Bool = tuple.withTrimmed { bytes in
            var i = 0
            while i <= bytes.count {
                var j = i
                while j < bytes.count, bytes[j] != UInt8(ascii: ",") { j += 1 }
                let field = UnsafeRawBufferPointer(rebasing: bytes[i..<j])
                if let number = DecimalNumber.parse(field) {
                    switch found {
                    case 0: numbers.0 = number
                    case 1: numbers.1 = number
                    case 2: numbers.2 = number
                    default: return false
                    }
                    found += 1
                } else if !(field.isEmpty && j == bytes.count && found >= 2) {  // a trailing comma is fine
                    return false
                }
                i = j + 1
            }
            return found >= 2
        }
        guard good else { return .unreadable(tuple.prefix(40)) }
        return .position(longitude: numbers.0, latitude: numbers.1, altitude: found == 3 ? numbers.2 : nil)
    }
}
