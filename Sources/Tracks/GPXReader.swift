#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// Reads GPX 1.0 and 1.1 track files as a stream, in constant memory.
///
/// What it delivers (see `docs/input-formats.md`, "GPX"):
/// - every `trkpt` and `rtept` as a ``TrackPoint``: the `lat` and `lon` attributes, the `ele`,
///   `time` and `hdop` children, and a horizontal accuracy in metres from an extension element
///   (`accuracy`, `hacc`, `horaccur`, `accuracy_horizontal`, `horizontal_accuracy`,
///   `horizontalAccuracy`, any prefix, any case, anywhere inside the point), which wins over
///   `hdop`. Without one, `hdop` is metres when the file's `creator` is OsmAnd or Locus (they
///   write Android's accuracy there) and otherwise a dilution of precision, read as `hdop` × 5 m.
/// - ``TrackSink/segmentBreak()`` at the start of every `trkseg` and `rte`, the latter followed
///   by ``TrackAnnotation/route`` (a route is a plan, not a recording).
/// - a point with a missing or malformed `lat`/`lon`, or a malformed `time`, `ele`, `hdop` or
///   accuracy, as ``TrackSink/unreadablePoint(_:)`` naming its line. Empty elements count as
///   absent. Coordinates outside ±90/±180 are delivered as read; range checks are the pipeline's.
///
/// Waypoints (`wpt`) are not delivered (a footprint is unlocked by where one went, not by
/// pins); ``Summary/waypoints`` counts them so the report can say so.
///
/// Element names match by local name, so a prefix (`gpx:trkpt`) does not matter. The tokenizer
/// (``XMLTokenizer``, shared with TCX and KML) is not a validating XML parser, but it requires well-formed structure (tags nest and match,
/// attributes are quoted, no control bytes) and stops with an ``InputError`` naming the line on:
/// a file that is not XML or whose root is not `gpx`, UTF-16/32 text, a truncated document,
/// a DOCTYPE that declares entities (entities are never expanded; the five predefined ones and
/// character references are decoded where values are read), nesting deeper than
/// ``maximumDepth``, and a tag, comment or value longer than ``maximumTokenLength``. Points
/// delivered before such an error stay delivered.
public enum GPXReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        /// Points delivered through ``TrackSink/point(_:)``.
        public var points = 0
        /// Points delivered through ``TrackSink/unreadablePoint(_:)``.
        public var unreadablePoints = 0
        /// `trkseg` and `rte` elements (each began with a segment break).
        public var segments = 0
        /// `wpt` elements, read past and not delivered.
        public var waypoints = 0

        public init() {}
    }

    /// The longest single piece of markup (a tag, comment, CDATA section, DOCTYPE) accepted, in
    /// bytes (``XMLTokenizer``'s). Text that is not read (descriptions, names) may be any length.
    public static var maximumTokenLength: Int { XMLTokenizer.maximumTokenLength }
    /// The deepest element nesting accepted (real GPX is 5 or 6 deep; extensions a few more).
    public static var maximumDepth: Int { XMLTokenizer.maximumDepth }

    /// Reads the GPX document in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` for problems that stop the file (see the type's description).
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        try read(source, path: path, into: &sink, fastPaths: true)
    }

    /// `read`, optionally without the parser's fast paths: tests check both deliver the same.
    static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink, fastPaths: Bool) throws -> Summary {
        var source = source
        var parser = GPXParser(path: path, fastPaths: fastPaths)
        defer { parser.deallocate() }
        while true {
            while let event = try parser.next() {
                switch event {
                case .segmentBreak: sink.segmentBreak()
                case .routeBreak:
                    sink.segmentBreak()
                    sink.annotate(.route)
                case let .point(point): sink.point(point)
                case let .unreadable(problem): sink.unreadablePoint(problem)
                case let .annotation(annotation): sink.annotate(annotation)
                }
            }
            if parser.finished { return parser.summary }
            let space = try parser.inputSpace()
            parser.received(try source.read(into: space))
        }
    }
}

/// The GPX reader's state over ``XMLTokenizer``, a pull parser: `next()` returns one event at a
/// time, so no event is stored. Not generic, so it compiles to one fast copy; `GPXReader.read`
/// feeds it and hands its events to the sink.
///
/// The tags nearly every point is made of have a fast path (`XMLTokenizer+GPXPoints.swift`): an
/// unprefixed `<trkpt …>`/`<rtept …>` start tag, `<ele>`, `<time>` and `<hdop>` each with its
/// value and end tag, the white space between them and the point's end tag, read in one go when
/// the values parse. At the first thing that is not in that form (a prefix, an entity, a
/// comment, another element, a value that does not parse, a tag split across reads) the fast path
/// stops, with the tokenizer exactly as `next()` leaves it after the tokens read so far, and the
/// tokens are read on from there; so errors and problems are reported exactly as without it.
struct GPXParser {
    enum Event {
        case segmentBreak
        /// The start of an `rte`: a segment break, then ``TrackAnnotation/route``.
        case routeBreak
        case annotation(TrackAnnotation)
        case point(TrackPoint)
        case unreadable(InputError)
    }

    private enum Kind: UInt8 {
        case other, gpx, trkseg, rte, point, waypoint, elevation, time, hdop, accuracy
    }

    private enum Field: UInt8 {
        case none, elevation, time, hdop, accuracy
    }

    let path: String
    /// Whether the fast path may read points (false only in tests, which compare the two ways).
    let fastPaths: Bool
    /// The event the last token produced, returned by `next` (a token produces at most one).
    private var pending: Event?
    var summary = GPXReader.Summary()
    private var tokenizer: XMLTokenizer
    private var hdopIsMetres = false

    // The point being read: the tokenizer's depth of its element (0: none).
    private var pointDepth = 0
    private var latitude: Double?
    private var longitude: Double?
    private var time: Int64?
    private var elevation: Double?
    private var hdop: Double?
    private var accuracy: Double?
    private var problem: String?
    private var times = TimestampStream()

    // The value being read: the text directly inside the element at depth `captureDepth`.
    private var field = Field.none
    private var captureDepth = 0
    private var value = XMLValue(limit: maximumValueLength)
    private static let maximumValueLength = 128

    init(path: String, fastPaths: Bool = true) {
        self.path = path
        self.fastPaths = fastPaths
        tokenizer = XMLTokenizer(format: "GPX", root: "gpx")
    }

    /// Frees the tokenizer's buffers (a struct cannot free them by itself).
    func deallocate() { tokenizer.deallocate() }

    var finished: Bool { tokenizer.finished }

    mutating func inputSpace() throws -> UnsafeMutableRawBufferPointer {
        do { return try tokenizer.inputSpace() } catch let error as XMLError { throw InputError(path: path, xml: error) }
    }

    mutating func received(_ count: Int) { tokenizer.received(count) }

    /// The next event, or nil when the buffer holds no further complete token (then `finished`
    /// says whether the input is done, else it needs more bytes). Every check that can throw
    /// runs before its token's event is produced, so no event is lost to an error.
    mutating func next() throws -> Event? {
        while true {
            if let event = pending {
                pending = nil
                return event
            }
            if fastPaths && field == .none && tokenizer.gpxSettledAtMarkup() && simplePoint() { continue }
            let token: XMLTokenizer.Token?
            do { token = try tokenizer.next() } catch let error as XMLError { throw InputError(path: path, xml: error) }
            switch token {
            case nil: return nil
            case .startTag: startTag()
            case .endTag: endTag()
            case .text:
                if field != .none && tokenizer.depth == captureDepth { value.append(tokenizer.text) }
            }
        }
    }

    // MARK: Tokens

    private mutating func startTag() {
        let kind = Self.classify(tokenizer.localName)
        let depth = tokenizer.depth
        if depth == 1, let creator = tokenizer.rawAttribute(exactly: "creator") {
            let written = String(decoding: creator.prefix(200), as: UTF8.self) + (creator.count > 200 ? "…" : "")
            let name = written.lowercased()
            hdopIsMetres = name.contains("osmand") || name.contains("locus")
            if !written.isEmpty { pending = .annotation(.creator(written)) }
        }
        if pointDepth == 0 {
            switch kind {
            case .trkseg, .rte:
                pending = kind == .rte ? .routeBreak : .segmentBreak
                summary.segments += 1
            case .point:
                beginPoint(depth: depth)
                tokenizer.markToken()
                latitude = coordinate(tokenizer.rawAttribute(exactly: "lat"), name: "lat")
                longitude = coordinate(tokenizer.rawAttribute(exactly: "lon"), name: "lon")
            case .waypoint:
                summary.waypoints += 1
                pending = .annotation(.pin)
            default:
                break
            }
        } else if field == .none {
            switch kind {
            case .elevation where depth == pointDepth + 1: field = .elevation
            case .time where depth == pointDepth + 1: field = .time
            case .hdop where depth == pointDepth + 1: field = .hdop
            case .accuracy: field = .accuracy
            default: break
            }
            if field != .none {
                captureDepth = depth
                value.reset()
            }
        }
    }

    private mutating func endTag() {
        let depth = tokenizer.depth
        if field != .none && depth == captureDepth {
            finishValue()
        } else if depth == pointDepth {
            finishPoint()
        }
    }

    // MARK: Points

    /// A point starts at `depth`; its coordinates are set next.
    private mutating func beginPoint(depth: Int) {
        pointDepth = depth
        time = nil
        elevation = nil
        hdop = nil
        accuracy = nil
        problem = nil
    }

    /// Reads through the fast path as much of a point as is in its plain form; true when it
    /// read something (and then produced at most one event).
    private mutating func simplePoint() -> Bool {
        var progressed = false
        if pointDepth == 0 {
            guard let start = tokenizer.simpleGPXPointStart() else { return false }
            beginPoint(depth: tokenizer.depth)
            latitude = start.latitude
            longitude = start.longitude
            progressed = true
        }
        while tokenizer.depth == pointDepth && problem == nil {
            guard let child = tokenizer.simpleGPXPointChild(times: &times) else { break }
            switch child {
            case .elevation(let number): elevation = number
            case .time(let parsed): time = parsed
            case .hdop(let number): hdop = number
            case .end:
                finishPoint()
                return true
            }
            progressed = true
        }
        return progressed
    }

    private mutating func coordinate(_ raw: UnsafeRawBufferPointer?, name: String) -> Double? {
        guard let raw else {
            if problem == nil { problem = "point without a \(name) attribute" }
            return nil
        }
        let value = Self.decodedValue(raw).flatMap { bytes in bytes.withUnsafeBytes { DecimalNumber.parse($0) } }
        if value == nil, problem == nil {
            problem = "\(name) '\(String(decoding: raw.prefix(40), as: UTF8.self) + (raw.count > 40 ? "…" : ""))' is not a number"
        }
        return value
    }

    /// `raw` without surrounding white space and with references decoded; nil when longer
    /// than ``maximumValueLength``.
    private static func decodedValue(_ raw: UnsafeRawBufferPointer) -> [UInt8]? {
        var lower = 0, upper = raw.count
        while lower < upper, XMLMarkup.isSpace(raw[lower]) { lower += 1 }
        while upper > lower, XMLMarkup.isSpace(raw[upper - 1]) { upper -= 1 }
        guard upper - lower <= maximumValueLength else { return nil }
        var bytes: [UInt8] = []
        XMLTokenizer.decode(UnsafeRawBufferPointer(rebasing: raw[lower..<upper])) { bytes.append($0) }
        return bytes
    }

    private mutating func finishValue() {
        let which = field
        field = .none
        guard problem == nil else { return }
        let name: String
        switch which {
        case .elevation: name = "ele"
        case .time: name = "time"
        case .hdop: name = "hdop"
        case .accuracy: name = "accuracy"
        case .none: return
        }
        guard !value.overflow else {
            problem = "<\(name)> value longer than \(Self.maximumValueLength) bytes"
            return
        }
        let captured = value
        captured.withTrimmed { bytes in
            guard !bytes.isEmpty else { return }  // empty: not recorded
            let shown = String(decoding: bytes.prefix(40), as: UTF8.self)
            switch which {
            case .time:
                time = times.parse(bytes)
                if time == nil { problem = "<time> '\(shown)' is not an ISO-8601 time" }
            case .elevation:
                elevation = DecimalNumber.parse(bytes)
                if elevation == nil { problem = "<ele> '\(shown)' is not a number" }
            case .hdop:
                hdop = DecimalNumber.parse(bytes).flatMap { $0 >= 0 ? $0 : nil }
                if hdop == nil { problem = "<hdop> '\(shown)' is not a non-negative number" }
            default:
                accuracy = DecimalNumber.parse(bytes).flatMap { $0 >= 0 ? $0 : nil }
                if accuracy == nil { problem = "<\(name)> '\(shown)' is not a non-negative number" }
            }
        }
    }

    private mutating func finishPoint() {
        pointDepth = 0
        field = .none
        if let problem {
            pending = .unreadable(InputError(path: path, line: tokenizer.markedLocation().line, reason: problem))
            summary.unreadablePoints += 1
            return
        }
        let metres = accuracy ?? hdop.map { hdopIsMetres ? $0 : $0 * 5 }
        pending = .point(TrackPoint(latitude: latitude!, longitude: longitude!, time: time, accuracy: metres, elevation: elevation))
        summary.points += 1
    }

    // MARK: Names

    /// The kind of element whose local name (after any prefix) is `local`.
    private static func classify(_ local: UnsafeRawBufferPointer) -> Kind {
        func equals(_ word: StaticString, caseInsensitive: Bool = false) -> Bool {
            XMLMarkup.hasPrefix(word, in: local.baseAddress!.assumingMemoryBound(to: UInt8.self), at: 0, end: local.count, caseInsensitive: caseInsensitive)
        }
        switch local.count {
        case 3:
            if equals("gpx") { return .gpx }
            if equals("rte") { return .rte }
            if equals("wpt") { return .waypoint }
            if equals("ele") { return .elevation }
        case 4:
            if equals("time") { return .time }
            if equals("hdop") { return .hdop }
            if equals("hacc", caseInsensitive: true) { return .accuracy }
        case 5:
            if equals("trkpt") || equals("rtept") { return .point }
        case 6:
            if equals("trkseg") { return .trkseg }
        case 8:
            if equals("accuracy", caseInsensitive: true) || equals("horaccur", caseInsensitive: true) { return .accuracy }
        case 18:
            if equals("horizontalaccuracy", caseInsensitive: true) { return .accuracy }
        case 19:
            if equals("accuracy_horizontal", caseInsensitive: true)
                || equals("horizontal_accuracy", caseInsensitive: true) { return .accuracy }
        default:
            break
        }
        return .other
    }
}
