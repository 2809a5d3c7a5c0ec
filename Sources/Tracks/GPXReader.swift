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
/// Element names match by local name, so a prefix (`gpx:trkpt`) does not matter. The scanner is
/// not a validating XML parser, but it requires well-formed structure (tags nest and match,
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

    /// The longest single piece of markup (a tag, comment, CDATA section, DOCTYPE) or element
    /// value accepted, in bytes. Text that is not read (descriptions, names) may be any length.
    public static var maximumTokenLength: Int { 1 << 20 }
    /// The deepest element nesting accepted (real GPX is 5 or 6 deep; extensions a few more).
    public static var maximumDepth: Int { 256 }
    /// Bytes asked of the source per read.
    static var readSize: Int { 1 << 16 }

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

/// The GPX scanner, a pull parser: `next()` returns one event at a time, so no event is
/// stored. Not generic, so it compiles to one fast copy; `GPXReader.read` feeds it and hands its
/// events to the sink. A struct, so property accesses need no run-time exclusivity checks; its
/// helpers are `mutating` even where they only read, because a non-mutating call from a mutating
/// method copies the whole struct (measured: a third of the run time).
///
/// Input lives in one buffer of ``GPXReader/maximumTokenLength`` + ``GPXReader/readSize`` bytes.
/// Every token (tag, comment, a value being read) is handled only once it is wholly in the buffer;
/// when it is not, `next` returns nil and the unconsumed tail moves to the front for the next read.
///
/// The tags nearly every point is made of have fast paths (`simpleElement`): an unprefixed
/// `<trkpt …>`/`<rtept …>` start tag, `<ele>`, `<time>` and `<hdop>` each with its value and end
/// tag, the white space between them and the point's end tag, read in one go when the values
/// parse. At the first thing that is not in that form (a prefix, an entity, a comment, another
/// element, a value that does not parse, a tag split across reads) the fast path stops, with
/// the state exactly as the general scanner leaves it after the tokens read so far, and the
/// general scanner reads on from there; so errors and problems are reported exactly as before.
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
    /// Whether `simpleElement` may read tags (false only in tests, which compare the two ways).
    let fastPaths: Bool
    /// The event the last token produced, returned by `next` (a token produces at most one).
    private var pending: Event?
    var summary = GPXReader.Summary()
    private(set) var finished = false

    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var position = 0
    private var end = 0
    private var atEnd = false
    private var started = false

    // Lines: `lineAtCursor` is the 1-based line of buffer offset `lineCursor`.
    private var lineCursor = 0
    private var lineAtCursor = 1

    // Open elements: `depth` of them, their kinds, and their names end to end (for matching end tags).
    private var depth = 0
    private let kinds: UnsafeMutablePointer<Kind>
    private let nameEnds: UnsafeMutablePointer<Int>
    private var names: FixedBytes
    private static let maximumNameLength = 256

    // Byte classes, a table lookup in the scanning loops.
    private let classes: UnsafeMutablePointer<UInt8>
    private static let nameByte: UInt8 = 1, space: UInt8 = 2, textStop: UInt8 = 4
    private var rootSeen = false
    private var hdopIsMetres = false

    // The point being read (`pointDepth` < 0: none).
    private var pointDepth = -1
    private var pointStart = 0
    private var pointLine: Int?
    private var latitude: Double?
    private var longitude: Double?
    private var time: Int64?
    private var elevation: Double?
    private var hdop: Double?
    private var accuracy: Double?
    private var problem: String?
    private var times = TimestampStream()

    // The value being read: text directly inside the element at depth `captureDepth`. While
    // `valueInBuffer`, it is the buffer's `valueStart..<valueEnd` (kept through refills); once
    // markup interrupts it (a comment, CDATA), it is collected in `capture` instead.
    private var field = Field.none
    private var captureDepth = 0
    private var valueInBuffer = true
    private var valueStart = 0
    private var valueEnd = 0
    private var capture = FixedBytes(capacity: maximumValueLength)
    private var captureOverflow = false
    private static let maximumValueLength = 128

    init(path: String, fastPaths: Bool = true) {
        self.path = path
        self.fastPaths = fastPaths
        capacity = GPXReader.maximumTokenLength + GPXReader.readSize
        buffer = .allocate(capacity: capacity)
        classes = .allocate(capacity: 256)
        for byte in 0...255 {
            let b = UInt8(byte)
            var bits: UInt8 = 0
            if (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b >= 0x80 {
                bits |= Self.nameByte
            }
            if XMLMarkup.isSpace(b) { bits |= Self.space }
            if b == UInt8(ascii: "<") || (b < 0x20 && !XMLMarkup.isSpace(b)) { bits |= Self.textStop }
            classes[byte] = bits
        }
        kinds = .allocate(capacity: GPXReader.maximumDepth)
        nameEnds = .allocate(capacity: GPXReader.maximumDepth)
        names = FixedBytes(capacity: GPXReader.maximumDepth * Self.maximumNameLength)
    }

    /// Frees the buffers (a struct cannot free them by itself).
    func deallocate() {
        buffer.deallocate()
        classes.deallocate()
        kinds.deallocate()
        nameEnds.deallocate()
        names.deallocate()
        capture.deallocate()
    }

    // MARK: Input

    /// Moves the unconsumed tail to the front and returns the space to read into.
    mutating func inputSpace() throws -> UnsafeMutableRawBufferPointer {
        let keep = field != .none && valueInBuffer ? valueStart : position
        if keep > 0 {
            if pointDepth >= 0 && pointLine == nil { pointLine = line(at: pointStart) }
            _ = line(at: keep)
            let pending = end - keep
            if pending > 0 { memmove(buffer, buffer + keep, pending) }
            lineCursor = 0
            position -= keep
            valueStart -= keep
            end = pending
        }
        if end > GPXReader.maximumTokenLength { throw tooLong(at: 0) }
        return UnsafeMutableRawBufferPointer(start: buffer + end, count: min(capacity - end, GPXReader.readSize))
    }

    mutating func received(_ count: Int) {
        if count == 0 { atEnd = true } else { end += count }
    }

    // MARK: Lines and errors

    /// The 1-based line of buffer offset `offset`, counting from the last offset asked about.
    private mutating func line(at offset: Int) -> Int {
        var count = 0
        if offset >= lineCursor {
            var i = lineCursor
            while i < offset, let hit = memchr(buffer + i, 10, offset - i) {
                count += 1
                i = UnsafeMutablePointer<UInt8>(OpaquePointer(hit)) - buffer + 1
            }
            lineAtCursor += count
        } else {
            for i in offset..<lineCursor where buffer[i] == 10 { count += 1 }
            lineAtCursor -= count
        }
        lineCursor = offset
        return lineAtCursor
    }

    private mutating func tooLong(at offset: Int) -> InputError {
        error("a tag, comment or value longer than \(GPXReader.maximumTokenLength) bytes", at: offset)
    }

    private mutating func error(_ reason: String, at offset: Int) -> InputError {
        InputError(path: path, line: line(at: offset), reason: reason)
    }

    private mutating func text(_ start: Int, _ end: Int, limit: Int = 40) -> String {
        let bytes = UnsafeRawBufferPointer(start: buffer + start, count: min(end - start, limit))
        return String(decoding: bytes, as: UTF8.self) + (end - start > limit ? "…" : "")
    }

    // MARK: Scanning

    /// The next event, or nil when the buffer holds no further complete token (then `finished`
    /// says whether the input is done, else it needs more bytes). Every check that can throw
    /// runs before its token's event is produced, so no event is lost to an error.
    mutating func next() throws -> Event? {
        if !started {
            guard try begin() else { return nil }
        }
        while true {
            if let event = pending {
                pending = nil
                return event
            }
            if position >= end {
                if atEnd { try finish() }
                return nil
            }
            if buffer[position] != UInt8(ascii: "<") {
                let runEnd = try scanText(from: position)
                if field != .none && depth == captureDepth && !valueInBuffer {
                    if runEnd == end {
                        if atEnd { throw error("the document ends inside an element's text (truncated?)", at: position) }
                        return nil
                    }
                    appendValue(position, runEnd, decode: true)
                }
                position = runEnd
                continue
            }
            if field != .none && valueInBuffer && end - position >= 2
                && !(buffer[position + 1] == UInt8(ascii: "/") && depth == captureDepth) {
                // Markup inside the value: collect it piece by piece from here on.
                capture.count = 0
                captureOverflow = false
                appendValue(valueStart, position, decode: true)
                valueInBuffer = false
            }
            if fastPaths, let next = simpleElement(at: position) {
                position = next
                continue
            }
            guard let next = try markup(at: position) else {
                if atEnd { throw error("the document ends inside a tag, comment or declaration (truncated?)", at: position) }
                return nil
            }
            if next - position > GPXReader.maximumTokenLength { throw tooLong(at: position) }
            position = next
        }
    }

    /// Checks the first bytes: a UTF-8 byte order mark is skipped, UTF-16/32 is refused.
    private mutating func begin() throws -> Bool {
        if end < 4 && !atEnd { return false }
        started = true
        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            position = 3
        } else if end >= 2, (buffer[0] == 0xFE && buffer[1] == 0xFF) || (buffer[0] == 0xFF && buffer[1] == 0xFE)
                    || (buffer[0] == 0 && buffer[1] == UInt8(ascii: "<")) || (buffer[0] == UInt8(ascii: "<") && buffer[1] == 0)
                    || (buffer[0] == 0 && buffer[1] == 0) {
            throw InputError(path: path, line: 1, reason: "the file is UTF-16 or UTF-32 encoded; GPX is read as UTF-8 (re-save it as UTF-8)")
        }
        return true
    }

    private mutating func finish() throws {
        if depth > 0 {
            throw error("the document ends with <\(openName(depth - 1))> and \(depth - 1) enclosing element(s) still open (truncated?)", at: end)
        }
        if !rootSeen { throw error("no <gpx> element: the file is empty or not XML", at: end) }
        finished = true
    }

    /// Finds the end of the text starting at `start` (the next `<`, or the end of the buffer),
    /// checking it on the way: no control bytes, and nothing but white space outside the root.
    private mutating func scanText(from start: Int) throws -> Int {
        let outside = depth == 0
        var i = start
        while i < end {
            let byte = buffer[i]
            if classes[Int(byte)] & Self.textStop == 0 && !outside {
                i += 1
                continue
            }
            if byte == UInt8(ascii: "<") { break }
            if byte < 0x20 && !XMLMarkup.isSpace(byte) && !outside {
                throw error("byte 0x\(String(byte, radix: 16, uppercase: true)) is not allowed in XML text (binary data?)", at: i)
            }
            if outside && !XMLMarkup.isSpace(byte) {
                var stop = i
                while stop < end, buffer[stop] != UInt8(ascii: "<") { stop += 1 }
                throw error(rootSeen ? "text after the end of the <gpx> element"
                                     : "not an XML document: '\(text(i, stop, limit: 20))' before the first element", at: i)
            }
            i += 1
        }
        return i
    }

    /// Handles the markup starting at `start` (a `<`); returns the offset after it, or nil
    /// when it does not end inside the buffer.
    private mutating func markup(at start: Int) throws -> Int? {
        guard end - start >= 2 else { return nil }
        switch buffer[start + 1] {
        case UInt8(ascii: "/"):
            return try endTag(at: start)
        case UInt8(ascii: "?"):
            guard let close = find("?>", from: start + 2) else { return nil }
            try checkDeclaration(start, close)
            return close + 2
        case UInt8(ascii: "!"):
            if hasPrefix("<!--", at: start) {
                guard let close = find("-->", from: start + 4) else { return nil }
                return close + 3
            }
            if hasPrefix("<![CDATA[", at: start) {
                guard let close = find("]]>", from: start + 9) else { return nil }
                if depth == 0 { throw error("a CDATA section outside the <gpx> element", at: start) }
                if field != .none && depth == captureDepth { appendValue(start + 9, close, decode: false) }
                return close + 3
            }
            if hasPrefix("<!DOCTYPE", at: start) { return try doctype(at: start) }
            if end - start < 9 && !atEnd { return nil }
            throw error("unexpected markup '\(text(start, end, limit: 12))'", at: start)
        default:
            return try startTag(at: start)
        }
    }

    private mutating func checkDeclaration(_ start: Int, _ close: Int) throws {
        if let encoding = XMLMarkup.unreadEncoding(in: buffer, start: start, close: close) {
            throw error("declared encoding '\(encoding)' is not read; re-save the file as UTF-8", at: start)
        }
    }

    /// `<!DOCTYPE …>`: accepted without an internal subset or with one that declares no
    /// entities; an entity declaration stops the file, so no entity is ever expanded.
    private mutating func doctype(at start: Int) throws -> Int? {
        if rootSeen { throw error("a DOCTYPE inside the document", at: start) }
        switch XMLMarkup.doctype(in: buffer, at: start, end: end) {
        case .incomplete: return nil
        case .ends(let next): return next
        case .declaresEntity(let at): throw error("the DOCTYPE declares entities; entity expansion is refused (billion laughs, external entities)", at: at)
        }
    }

    // MARK: Fast paths

    /// Reads from the markup at `start` (a `<`) as much of a point as is in the plain forms the
    /// fast paths know; returns the offset after what it read, or nil, having changed nothing,
    /// when it read nothing.
    private mutating func simpleElement(at start: Int) -> Int? {
        guard field == .none, depth > 0, depth < GPXReader.maximumDepth else { return nil }
        var i: Int
        if pointDepth < 0 {
            guard let next = simplePointStart(at: start) else { return nil }
            i = next
        } else {
            i = start
        }
        // The point's children and end tag, with white space between them.
        while pointDepth >= 0 && depth == pointDepth + 1 && problem == nil && depth < GPXReader.maximumDepth {
            var k = i
            while k < end, XMLMarkup.isSpace(buffer[k]) { k += 1 }
            guard k + 1 < end, buffer[k] == UInt8(ascii: "<") else { break }
            if buffer[k + 1] == UInt8(ascii: "/") {
                if let next = simplePointEnd(at: k) {
                    // And the white space after it, which `scanText` would pass over unchanged
                    // (inside the root, no value being read).
                    i = next
                    while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
                }
                break
            }
            guard let next = simpleValue(at: k) else { break }
            i = next
        }
        return i > start ? i : nil
    }

    /// The end tag of the open point, `</name>` exactly; the point is delivered.
    private mutating func simplePointEnd(at start: Int) -> Int? {
        let top = depth - 1
        let openStart = top > 0 ? nameEnds[top - 1] : 0
        let length = nameEnds[top] - openStart
        guard start + length + 3 <= end, buffer[start + length + 2] == UInt8(ascii: ">") else { return nil }
        guard Self.equalBytes(names.base + openStart, buffer + start + 2, length) else { return nil }
        depth = top
        names.count = openStart
        valueEnd = start
        closed(depth: top)
        return start + length + 3
    }

    /// Whether `byte` is among the `count` (20 or 24) bytes at `p`, eight at a time: a word has
    /// it when the word xor `byte` in every lane has a zero byte (exact, borrows only move which
    /// lane shows it).
    @inline(__always)
    private static func contains(_ byte: UInt8, _ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let lanes: UInt64 = 0x0101_0101_0101_0101, pattern = lanes &* UInt64(byte)
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- lanes) & ~v & 0x8080_8080_8080_8080 != 0 }
        let raw = UnsafeRawPointer(p)
        var k = 0
        while k + 8 <= count {
            if hasZeroByte(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ pattern) { return true }
            k += 8
        }
        if k < count, hasZeroByte(UInt64(raw.loadUnaligned(fromByteOffset: k, as: UInt32.self)) ^ pattern | 0xFFFF_FFFF_0000_0000) { return true }
        return false
    }

    /// Whether the `count` bytes at `a` and at `b` are the same, compared four at a time.
    @inline(__always)
    private static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var k = 0
        while k + 4 <= count {
            if UnsafeRawPointer(a + k).loadUnaligned(as: UInt32.self) != UnsafeRawPointer(b + k).loadUnaligned(as: UInt32.self) { return false }
            k += 4
        }
        while k < count {
            if a[k] != b[k] { return false }
            k += 1
        }
        return true
    }

    /// `<trkpt …>` or `<rtept …>` (no prefix, not self-closing) whose `lat` and `lon` attributes
    /// are both present and hold just a number; other attributes are skipped, as `startTag` does.
    private mutating func simplePointStart(at start: Int) -> Int? {
        let limit = min(end, start + Self.simpleTagLimit)
        guard start + 7 <= limit, equals(start + 1, "trkpt") || equals(start + 1, "rtept") else { return nil }
        var latitude: Double?, longitude: Double?
        var i = start + 6
        while true {
            guard i < limit else { return nil }
            if buffer[i] == UInt8(ascii: ">") { break }
            // White space, then `name="value"` (or `'value'`) or the tag's end.
            guard XMLMarkup.isSpace(buffer[i]) else { return nil }
            repeat { i += 1 } while i < limit && XMLMarkup.isSpace(buffer[i])
            guard i < limit else { return nil }
            if buffer[i] == UInt8(ascii: ">") { break }
            let nameStart = i
            guard XMLMarkup.isNameStart(buffer[i]) else { return nil }
            while i < limit, classes[Int(buffer[i])] & Self.nameByte != 0 { i += 1 }
            guard i + 1 < limit, buffer[i] == UInt8(ascii: "="),
                  buffer[i + 1] == UInt8(ascii: "\"") || buffer[i + 1] == UInt8(ascii: "'") else { return nil }
            let isLat = i - nameStart == 3 && equals(nameStart, "lat")
            let isLon = i - nameStart == 3 && equals(nameStart, "lon")
            let quote = buffer[i + 1]
            i += 2
            if isLat || isLon {
                // The number, then the closing quote right after it.
                guard let number = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(start: buffer + i, count: limit - i)),
                      i + number.length < limit, buffer[i + number.length] == quote else { return nil }
                if isLat { latitude = number.value } else { longitude = number.value }
                i += number.length
            } else {
                while i < limit, buffer[i] != quote {
                    guard buffer[i] != UInt8(ascii: "<") else { return nil }
                    i += 1
                }
                guard i < limit else { return nil }
            }
            i += 1
        }
        guard let latitude, let longitude else { return nil }
        beginPoint(at: start, depth: depth)
        self.latitude = latitude
        self.longitude = longitude
        open(.point, start + 1, start + 6)
        return i + 1
    }

    /// `<ele>`, `<time>` or `<hdop>` directly inside the point, its value (at most
    /// ``maximumValueLength`` bytes, no markup) and its end tag, when the value parses as it is.
    /// A value that parses holds only digits, signs and the letters of a number or time, so the
    /// general path would find no fault in its text and take it unchanged.
    private mutating func simpleValue(at start: Int) -> Int? {
        let which: Field, nameLength: Int
        switch buffer[start + 1] {  // `simpleElement` saw `start + 1 < end`
        case UInt8(ascii: "e") where equals(start + 1, "ele>"):
            which = .elevation
            nameLength = 3
        case UInt8(ascii: "t") where equals(start + 1, "time>"):
            which = .time
            nameLength = 4
        case UInt8(ascii: "h") where equals(start + 1, "hdop>"):
            which = .hdop
            nameLength = 4
        default:
            return nil
        }
        let valueStart = start + nameLength + 2
        let available = min(end - valueStart, Self.maximumValueLength + 1)
        guard available > 0 else { return nil }
        // The value ends at the first '<': after the number, or found for a time.
        var number = 0.0
        let valueEnd: Int
        if which == .time {
            // The first '<': where a time in the fixed layout (20 or 24 bytes) ends, else found.
            if available > 20, buffer[valueStart + 20] == UInt8(ascii: "<"), !Self.contains(UInt8(ascii: "<"), buffer + valueStart, 20) {
                valueEnd = valueStart + 20
            } else if available > 24, buffer[valueStart + 24] == UInt8(ascii: "<"), !Self.contains(UInt8(ascii: "<"), buffer + valueStart, 24) {
                valueEnd = valueStart + 24
            } else {
                guard let hit = memchr(buffer + valueStart, Int32(UInt8(ascii: "<")), available) else { return nil }
                valueEnd = UnsafeMutablePointer<UInt8>(OpaquePointer(hit)) - buffer
            }
        } else {
            guard let parsed = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(start: buffer + valueStart, count: available)) else { return nil }
            number = parsed.value
            valueEnd = valueStart + parsed.length
        }
        let tagEnd = valueEnd + nameLength + 3
        guard valueEnd > valueStart, tagEnd <= end, buffer[valueEnd] == UInt8(ascii: "<"), buffer[valueEnd + 1] == UInt8(ascii: "/") else { return nil }
        // The name and '>' (4 or 5 bytes, all before `tagEnd`), four at a time.
        let closing = UnsafeRawPointer(buffer + valueEnd + 2), opening = UnsafeRawPointer(buffer + start + 1)
        guard closing.loadUnaligned(as: UInt32.self) == opening.loadUnaligned(as: UInt32.self),
              nameLength == 3 || buffer[valueEnd + 6] == buffer[start + 5] else { return nil }
        switch which {
        case .time:
            guard let parsed = times.parse(UnsafeRawBufferPointer(start: buffer + valueStart, count: valueEnd - valueStart)) else { return nil }
            time = parsed
        case .elevation:
            elevation = number
        default:
            guard number >= 0 else { return nil }
            hdop = number
        }
        return tagEnd
    }

    /// How far `simplePointStart` looks for the end of a tag before leaving it to `startTag`.
    private static var simpleTagLimit: Int { 1024 }

    private mutating func startTag(at start: Int) throws -> Int? {
        var i = start + 1
        var local = i
        while i < end, classes[Int(buffer[i])] & Self.nameByte != 0 {
            if buffer[i] == UInt8(ascii: ":") { local = i + 1 }
            i += 1
        }
        guard i < end else { return nil }
        let nameStart = start + 1, nameEnd = i
        guard nameEnd > nameStart, XMLMarkup.isNameStart(buffer[nameStart]) else {
            throw error("'<' is not followed by an element name", at: start)
        }
        guard classes[Int(buffer[i])] & Self.space != 0 || buffer[i] == UInt8(ascii: ">") || buffer[i] == UInt8(ascii: "/") else {
            throw error("'\(text(nameStart, i + 1))' is not an element name", at: start)
        }
        if nameEnd - nameStart > Self.maximumNameLength {
            throw error("an element name longer than \(Self.maximumNameLength) bytes", at: start)
        }

        var lat: Range<Int>?
        var lon: Range<Int>?
        var creator: Range<Int>?
        var selfClosing = false
        var tagEnd = 0
        while true {
            let spaced = i < end && XMLMarkup.isSpace(buffer[i])
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            let byte = buffer[i]
            if byte == UInt8(ascii: ">") {
                tagEnd = i + 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard i + 1 < end else { return nil }
                guard buffer[i + 1] == UInt8(ascii: ">") else { throw error("'/' inside a tag not followed by '>'", at: start) }
                selfClosing = true
                tagEnd = i + 2
                break
            }
            guard spaced else { throw error("attributes in <\(text(nameStart, nameEnd))> are not separated by white space", at: start) }
            let attributeStart = i
            while i < end, classes[Int(buffer[i])] & Self.nameByte != 0 { i += 1 }
            let attributeEnd = i
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            guard attributeEnd > attributeStart, XMLMarkup.isNameStart(buffer[attributeStart]), buffer[i] == UInt8(ascii: "=") else {
                throw error("attribute '\(text(attributeStart, attributeEnd))' in <\(text(nameStart, nameEnd))> has no value", at: start)
            }
            i += 1
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            let quote = buffer[i]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw error("attribute '\(text(attributeStart, attributeEnd))' value is not quoted", at: start)
            }
            var valueEnd = i + 1
            while valueEnd < end, buffer[valueEnd] != quote {
                if buffer[valueEnd] == UInt8(ascii: "<") {
                    throw error("'<' inside the value of attribute '\(text(attributeStart, attributeEnd))'", at: start)
                }
                valueEnd += 1
            }
            guard valueEnd < end else { return nil }
            let value = (i + 1)..<valueEnd
            switch attributeEnd - attributeStart {
            case 3 where buffer[attributeStart] == UInt8(ascii: "l") && buffer[attributeStart + 1] == UInt8(ascii: "a") && buffer[attributeStart + 2] == UInt8(ascii: "t"):
                lat = value
            case 3 where buffer[attributeStart] == UInt8(ascii: "l") && buffer[attributeStart + 1] == UInt8(ascii: "o") && buffer[attributeStart + 2] == UInt8(ascii: "n"):
                lon = value
            case 7 where equals(attributeStart, "creator"):
                creator = value
            default:
                break
            }
            i = valueEnd + 1
        }

        if tagEnd - start > GPXReader.maximumTokenLength { throw tooLong(at: start) }
        let kind = classify(local, nameEnd)
        if depth == 0 {
            if rootSeen { throw error("a second root element <\(text(nameStart, nameEnd))> after </gpx>", at: start) }
            guard kind == .gpx else { throw error("not a GPX document: the root element is <\(text(nameStart, nameEnd))>", at: start) }
            rootSeen = true
            if let creator {
                let written = text(creator.lowerBound, creator.upperBound, limit: 200)
                let name = written.lowercased()
                hdopIsMetres = name.contains("osmand") || name.contains("locus")
                if !written.isEmpty { pending = .annotation(.creator(written)) }
            }
        }
        if depth >= GPXReader.maximumDepth {
            throw error("elements nested deeper than \(GPXReader.maximumDepth)", at: start)
        }

        if pointDepth < 0 {
            switch kind {
            case .trkseg, .rte:
                pending = kind == .rte ? .routeBreak : .segmentBreak
                summary.segments += 1
            case .point:
                beginPoint(at: start, depth: depth)
                latitude = coordinate(lat, name: "lat")
                longitude = coordinate(lon, name: "lon")
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
                captureDepth = depth + 1
                valueInBuffer = true
                valueStart = tagEnd
                valueEnd = tagEnd
            }
        }

        if selfClosing {
            closed(depth: depth)
        } else {
            open(kind, nameStart, nameEnd)
        }
        return tagEnd
    }

    /// Pushes an element whose name is at buffer `nameStart..<nameEnd` onto the open elements.
    private mutating func open(_ kind: Kind, _ nameStart: Int, _ nameEnd: Int) {
        kinds[depth] = kind
        (names.base + names.count).update(from: buffer + nameStart, count: nameEnd - nameStart)
        names.count += nameEnd - nameStart
        nameEnds[depth] = names.count
        depth += 1
    }

    private mutating func endTag(at start: Int) throws -> Int? {
        var i = start + 2
        while i < end, !XMLMarkup.isSpace(buffer[i]), buffer[i] != UInt8(ascii: ">") { i += 1 }
        let nameEnd = i
        while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
        guard i < end else { return nil }
        guard buffer[i] == UInt8(ascii: ">") else { throw error("malformed end tag '\(text(start, i + 1))'", at: start) }
        guard depth > 0 else {
            throw error("end tag '\(text(start, i + 1))' without a matching start tag", at: start)
        }
        let top = depth - 1
        let openStart = top > 0 ? nameEnds[top - 1] : 0
        let openLength = nameEnds[top] - openStart
        var matches = openLength == nameEnd - start - 2
        var k = 0
        while matches && k < openLength {
            matches = names.base[openStart + k] == buffer[start + 2 + k]
            k += 1
        }
        guard matches else {
            throw error("'\(text(start, i + 1))' does not close <\(openName(top))>", at: start)
        }
        if i + 1 - start > GPXReader.maximumTokenLength { throw tooLong(at: start) }  // before `closed` produces an event
        depth = top
        names.count = openStart
        valueEnd = start
        closed(depth: top)
        return i + 1
    }

    /// An element at `depth` (0 = root) has ended.
    private mutating func closed(depth: Int) {
        if field != .none && depth + 1 == captureDepth {
            finishValue()
        } else if depth == pointDepth {
            finishPoint()
        }
    }

    // MARK: Points

    /// A point starts at buffer offset `start`, at `depth`; its coordinates are set next.
    private mutating func beginPoint(at start: Int, depth: Int) {
        pointDepth = depth
        pointStart = start
        pointLine = nil
        time = nil
        elevation = nil
        hdop = nil
        accuracy = nil
        problem = nil
    }

    private mutating func coordinate(_ range: Range<Int>?, name: String) -> Double? {
        guard let range else {
            if problem == nil { problem = "point without a \(name) attribute" }
            return nil
        }
        let value = valueBytes(range.lowerBound, range.upperBound).flatMap { DecimalNumber.parse($0) }
        if value == nil, problem == nil {
            problem = "\(name) '\(text(range.lowerBound, range.upperBound))' is not a number"
        }
        return value
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
        let found = valueInBuffer ? valueBytes(valueStart, valueEnd) : (captureOverflow ? nil : Self.trimmed(capture) { $0 })
        guard let bytes = found else {
            problem = "<\(name)> value longer than \(Self.maximumValueLength) bytes"
            return
        }
        if bytes.isEmpty { return }
        var parsed = true
        switch which {
        case .time:
            time = times.parse(bytes)
            parsed = time != nil
        case .elevation:
            elevation = DecimalNumber.parse(bytes)
            parsed = elevation != nil
        case .hdop:
            hdop = DecimalNumber.parse(bytes).flatMap { $0 >= 0 ? $0 : nil }
            parsed = hdop != nil
        case .accuracy:
            accuracy = DecimalNumber.parse(bytes).flatMap { $0 >= 0 ? $0 : nil }
            parsed = accuracy != nil
        case .none:
            break
        }
        if !parsed {
            let shown = String(decoding: bytes.prefix(40), as: UTF8.self)
            switch which {
            case .time: problem = "<time> '\(shown)' is not an ISO-8601 time"
            case .elevation: problem = "<ele> '\(shown)' is not a number"
            default: problem = "<\(name)> '\(shown)' is not a non-negative number"
            }
        }
    }

    private mutating func finishPoint() {
        pointDepth = -1
        field = .none
        if let problem {
            pending = .unreadable(InputError(path: path, line: pointLine ?? line(at: pointStart), reason: problem))
            summary.unreadablePoints += 1
            return
        }
        let metres = accuracy ?? hdop.map { hdopIsMetres ? $0 : $0 * 5 }
        pending = .point(TrackPoint(latitude: latitude!, longitude: longitude!, time: time, accuracy: metres, elevation: elevation))
        summary.points += 1
    }

    // MARK: Values

    /// The value at buffer `start..<stop` without surrounding white space and with references
    /// decoded: the buffer's own bytes when there is nothing to decode, else a decoded copy in
    /// `capture`; nil when longer than ``maximumValueLength``. Valid until the next call.
    private mutating func valueBytes(_ start: Int, _ stop: Int) -> UnsafeRawBufferPointer? {
        var lower = start, upper = stop
        while lower < upper, XMLMarkup.isSpace(buffer[lower]) { lower += 1 }
        while upper > lower, XMLMarkup.isSpace(buffer[upper - 1]) { upper -= 1 }
        guard upper - lower <= Self.maximumValueLength else { return nil }
        var i = lower
        while i < upper, buffer[i] != UInt8(ascii: "&") { i += 1 }
        if i == upper { return UnsafeRawBufferPointer(start: buffer + lower, count: upper - lower) }
        capture.count = 0
        captureOverflow = false
        appendValue(lower, upper, decode: true)
        return captureOverflow ? nil : Self.trimmed(capture) { $0 }
    }

    /// Appends buffer bytes to the value being read, decoding character and entity references
    /// when `decode` (CDATA is literal). An unknown reference spoils the value.
    private mutating func appendValue(_ start: Int, _ stop: Int, decode: Bool) {
        var i = start
        while i < stop && !captureOverflow {
            let byte = buffer[i]
            if byte == UInt8(ascii: "&") && decode {
                var j = i + 1
                while j < stop, buffer[j] != UInt8(ascii: ";"), j - i < 12 { j += 1 }
                guard j < stop, buffer[j] == UInt8(ascii: ";"), let scalar = reference(i + 1, j) else {
                    var zero: UInt8 = 0  // makes the value unparseable, so the point is reported
                    captureOverflow = !capture.append(&zero, 1)
                    return
                }
                var encoded = Array(String(Character(scalar)).utf8)
                captureOverflow = !capture.append(&encoded, encoded.count)
                i = j + 1
            } else if capture.count < capture.capacity {
                capture.base[capture.count] = byte
                capture.count += 1
                i += 1
            } else {
                captureOverflow = true
            }
        }
    }

    private mutating func reference(_ start: Int, _ stop: Int) -> Unicode.Scalar? {
        let name = text(start, stop)
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let hex = name.hasPrefix("#x")
            return UInt32(name.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10).flatMap(Unicode.Scalar.init)
        }
    }

    /// Calls `body` with `value` stripped of surrounding XML white space.
    private static func trimmed<T>(_ value: FixedBytes, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let all = value.bytes
        var lower = 0, upper = all.count
        while lower < upper, XMLMarkup.isSpace(all[lower]) { lower += 1 }
        while upper > lower, XMLMarkup.isSpace(all[upper - 1]) { upper -= 1 }
        return body(UnsafeRawBufferPointer(rebasing: all[lower..<upper]))
    }

    /// The name of the open element at `level` (0 = root).
    private mutating func openName(_ level: Int) -> String {
        let start = level > 0 ? nameEnds[level - 1] : 0
        return String(decoding: UnsafeRawBufferPointer(start: names.base + start, count: nameEnds[level] - start), as: UTF8.self)
    }

    // MARK: Bytes

    /// The kind of element whose local name (after any prefix) is at `local..<stop`.
    private mutating func classify(_ local: Int, _ stop: Int) -> Kind {
        switch stop - local {
        case 3:
            if equals(local, "gpx") { return .gpx }
            if equals(local, "rte") { return .rte }
            if equals(local, "wpt") { return .waypoint }
            if equals(local, "ele") { return .elevation }
        case 4:
            if equals(local, "time") { return .time }
            if equals(local, "hdop") { return .hdop }
            if equals(local, "hacc", caseInsensitive: true) { return .accuracy }
        case 5:
            if equals(local, "trkpt") || equals(local, "rtept") { return .point }
        case 6:
            if equals(local, "trkseg") { return .trkseg }
        case 8:
            if equals(local, "accuracy", caseInsensitive: true) || equals(local, "horaccur", caseInsensitive: true) { return .accuracy }
        case 18:
            if equals(local, "horizontalaccuracy", caseInsensitive: true) { return .accuracy }
        case 19:
            if equals(local, "accuracy_horizontal", caseInsensitive: true)
                || equals(local, "horizontal_accuracy", caseInsensitive: true) { return .accuracy }
        default:
            break
        }
        return .other
    }

    /// True when the buffer at `start` holds `word` (ASCII; `caseInsensitive` folds letters).
    private mutating func equals(_ start: Int, _ word: StaticString, caseInsensitive: Bool = false) -> Bool {
        XMLMarkup.hasPrefix(word, in: buffer, at: start, end: end, caseInsensitive: caseInsensitive)
    }

    private mutating func hasPrefix(_ word: StaticString, at start: Int) -> Bool {
        equals(start, word)
    }

    /// The offset of `word` at or after `from` (and before `before`), or nil.
    private mutating func find(_ word: StaticString, from: Int, before: Int? = nil) -> Int? {
        XMLMarkup.find(word, in: buffer, from: from, limit: before ?? end)
    }


}

/// Bytes in one fixed allocation: the open elements' names, the value being read.
struct FixedBytes {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    func deallocate() { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Appends `length` bytes; false (and nothing appended) when they do not fit.
    mutating func append(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        guard count + length <= capacity else { return false }
        (base + count).update(from: bytes, count: length)
        count += length
        return true
    }
}
