#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One step of a JSON document as ``JSONStreamReader`` reads it.
public enum JSONEvent: Equatable, Sendable {
    case objectStart, objectEnd, arrayStart, arrayEnd
    /// A member name; its text is the current token.
    case key
    /// A string value; its (unescaped) text is the current token.
    case string
    /// A number value; its text is the current token, its value ``JSONStreamReader/tokenNumber``.
    case number
    case bool(Bool)
    case null
    /// The document is complete (and nothing but white space follows it).
    case end
}

/// Bounds that keep a hostile document from exhausting memory or the stack.
public struct JSONStreamLimits: Sendable {
    /// Deepest nesting of arrays and objects accepted (``JSONParser/maximumDepth`` by default).
    public var maximumDepth: Int
    /// Longest string, member name or number accepted, in input bytes.
    public var maximumTokenBytes: Int

    public init(maximumDepth: Int = JSONParser.maximumDepth, maximumTokenBytes: Int = 1 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumTokenBytes = maximumTokenBytes
    }
}

/// Why a JSON stream could not be read, and where.
public struct JSONStreamError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that treat some problems apart.
    public enum Kind: Sendable, Equatable {
        /// A value was expected and this byte starts none (or the input ended).
        case expectedValue
        /// A `,` or the container's closing bracket was expected (or the input ended).
        case expectedSeparator
        /// A string (its opening quote is at the offset) is not valid UTF-8.
        case invalidUTF8
        /// Nesting deeper than the limit.
        case tooDeep
        /// A string, member name or number longer than the token limit.
        case tooLong
        /// A value materialised by ``JSONStreamReader/value(from:member:maximumBytes:)`` spans more than its cap.
        case tooLarge
        /// Any other syntax error (or a reader's own refusal).
        case syntax
    }

    /// 0-based byte offset from the start of the input.
    public let offset: Int
    /// 1-based line of that byte.
    public let line: Int
    public let kind: Kind
    public let reason: String

    /// An error at byte `offset` (0-based) on `line` (1-based).
    public init(offset: Int, line: Int, kind: Kind = .syntax, reason: String) {
        self.offset = offset
        self.line = line
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "line \(line), byte \(offset): \(reason)" }
}

/// A strict (RFC 8259) pull reader of JSON over a ``ByteSource``, in constant memory.
///
/// ``next()`` returns one ``JSONEvent`` at a time. Memory is the read buffer (one chunk, plus
/// the current token when it straddles chunks), the current token and the nesting stack; a
/// token longer than ``JSONStreamLimits/maximumTokenBytes`` or nesting deeper than
/// ``JSONStreamLimits/maximumDepth`` is an error, never a reason to grow. Strings must be valid
/// UTF-8; a UTF-8 byte order mark at the start is skipped. Errors carry the byte offset and line.
///
/// ``value(from:member:maximumBytes:)`` materialises one sub-value (one record of a huge array) as the
/// ``JSONValue`` that ``JSONParser`` would give, within a size cap, so record readers can use the
/// DOM API without ever holding the whole document.
public struct JSONStreamReader: ~Copyable {
    /// The bounds this reader enforces.
    public let limits: JSONStreamLimits

    enum Expectation {
        case document, value, firstArrayValue, firstKey, afterValue, finished
    }
    static let objectTag: UInt8 = 1
    static let arrayTag: UInt8 = 0

    var source: any ByteSource
    var buffer: UnsafeMutablePointer<UInt8>
    var capacity: Int
    let chunkSize: Int
    /// Buffer indices: `position` is the next unread byte, `end` the end of valid bytes.
    var position = 0
    var end = 0
    /// Absolute input offset of `buffer[0]`.
    var base = 0
    var sourceEnded = false
    var line = 1
    var containers: [UInt8] = []
    var expectation = Expectation.document

    /// The current token: `tokenCount` bytes at `buffer[tokenStart]`, or in `scratch` when the
    /// string had escapes. While `tokenLive`, refills keep it in the buffer.
    var tokenStart = 0
    var tokenCount = 0
    var tokenLive = false
    var tokenInScratch = false
    var scratch: [UInt8] = []

    /// Byte offset where the last event's token starts (the `{`, `"`, first digit…).
    public internal(set) var tokenOffset = 0
    /// Line where the last event's token starts.
    public internal(set) var tokenLine = 1
    /// The largest the read buffer has been, in bytes: stays at the chunk size unless a token
    /// straddling chunks needs more (bounded by the token limit).
    public internal(set) var peakBufferBytes: Int
    /// How many values ``value(from:member:maximumBytes:)`` has materialised: with
    /// ``largestMaterialisedBytes``, lets callers (and tests) see that records are built one at a time.
    public internal(set) var materialisedValues = 0
    /// The largest value materialised so far, in input bytes.
    public internal(set) var largestMaterialisedBytes = 0

    /// Reads from `source` in chunks of `chunkSize` bytes.
    public init<Source: ByteSource>(_ source: Source, limits: JSONStreamLimits = JSONStreamLimits(), chunkSize: Int = 1 << 16) {
        self.source = source
        self.limits = limits
        self.chunkSize = max(chunkSize, 16)
        capacity = self.chunkSize
        buffer = .allocate(capacity: capacity)
        peakBufferBytes = capacity
        containers.reserveCapacity(min(limits.maximumDepth, 1024))
    }

    deinit {
        buffer.deallocate()
    }

    /// How many arrays and objects enclose the current position.
    public var depth: Int { containers.count }

    /// Byte offset of the next unread byte.
    public var offset: Int { base + position }

    // MARK: Events

    /// The next event. After ``JSONEvent/end`` it keeps returning `.end`.
    public mutating func next() throws -> JSONEvent {
        switch expectation {
        case .document:
            try skipByteOrderMark()
            try skipSpace()
            return try value()
        case .value:
            try skipSpace()
            return try value()
        case .firstArrayValue:
            try skipSpace()
            if try peek() == UInt8(ascii: "]") { return close(.arrayEnd) }
            return try value()
        case .firstKey:
            try skipSpace()
            if try peek() == UInt8(ascii: "}") { return close(.objectEnd) }
            return try key()
        case .afterValue:
            try skipSpace()
            let byte = try peek()
            guard let top = containers.last else {
                markToken()
                guard byte == nil else { throw error("unexpected data after the JSON value") }
                expectation = .finished
                return .end
            }
            if top == Self.objectTag {
                switch byte {
                case UInt8(ascii: ","):
                    position += 1
                    try skipSpace()
                    return try key()
                case UInt8(ascii: "}"): return close(.objectEnd)
                case nil: throw error("unexpected end of input, expected ',' or '}'", kind: .expectedSeparator)
                default: throw error("expected ',' or '}' in object", kind: .expectedSeparator)
                }
            }
            switch byte {
            case UInt8(ascii: ","):
                position += 1
                try skipSpace()
                return try value()
            case UInt8(ascii: "]"): return close(.arrayEnd)
            case nil: throw error("unexpected end of input, expected ',' or ']'", kind: .expectedSeparator)
            default: throw error("expected ',' or ']' in array", kind: .expectedSeparator)
            }
        case .finished:
            return .end
        }
    }

    /// Skips the rest of the value that `event` (just returned by ``next()``) starts.
    public mutating func skip(from event: JSONEvent) throws {
        guard event == .objectStart || event == .arrayStart else { return }
        let outer = containers.count - 1
        while containers.count > outer {
            _ = try next()
        }
    }

    /// Reads the whole value that `event` (just returned by ``next()``) starts, as
    /// ``JSONParser`` would (a `"coordinates"` member's arrays become ``JSONValue/coordinates(_:)``).
    /// Numbers beyond the range of `Double` become ±infinity rather than an error, so a record
    /// reader can reject just that record. Throws if the value spans more than `maximumBytes`
    /// input bytes; the error names the value's first byte. Pass the member name when the value
    /// is a member's, so a `"coordinates"` member gets the compact form here too.
    public mutating func value(from event: JSONEvent, member: String? = nil, maximumBytes: Int) throws -> JSONValue {
        let start = tokenOffset
        let startLine = tokenLine
        let bounds = ValueBounds(start: start, line: startLine, limit: maximumBytes, strict: false)
        let result = try member == "coordinates" && event == .arrayStart
            ? .coordinates(coordinates(from: start, line: startLine, bounds))
            : build(event, bounds)
        materialisedValues += 1
        largestMaterialisedBytes = max(largestMaterialisedBytes, offset - start)
        return result
    }

    // MARK: Token access

    /// Calls `body` with the current key, string (unescaped UTF-8) or number token's bytes,
    /// valid only during the call; empty after other events.
    public func withTokenBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if tokenInScratch { return try scratch.withUnsafeBytes(body) }
        return try body(UnsafeRawBufferPointer(start: buffer + tokenStart, count: tokenCount))
    }

    /// The current key or string token as a `String` (already validated as UTF-8).
    public var tokenString: String {
        withTokenBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the current token's bytes are exactly `text`.
    public func tokenIs(_ text: StaticString) -> Bool {
        withTokenBytes { bytes in
            bytes.count == text.utf8CodeUnitCount && (bytes.count == 0 || memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0)
        }
    }

    /// The current number token's value, correctly rounded; ±infinity when beyond `Double`'s range.
    public var tokenNumber: Double {
        withTokenBytes { bytes in
            if let value = DecimalNumber.parse(bytes) { return value }
            // Long or out-of-range: the token is valid JSON number syntax, so the standard
            // library's conversion cannot fail; it saturates to ±infinity.
            return Double(String(decoding: bytes, as: UTF8.self)) ?? .nan
        }
    }

    /// An error at the current token, for callers that find a well-formed value they cannot use.
    public func error(atToken reason: String) -> JSONStreamError {
        JSONStreamError(offset: tokenOffset, line: tokenLine, reason: reason)
    }
}
