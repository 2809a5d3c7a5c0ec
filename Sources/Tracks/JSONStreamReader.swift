#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

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
    /// Deepest nesting of arrays and objects accepted (as ``JSONParser/maximumDepth``).
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
    /// 0-based byte offset from the start of the input.
    public let offset: Int
    /// 1-based line of that byte.
    public let line: Int
    public let reason: String

    /// An error at byte `offset` (0-based) on `line` (1-based).
    public init(offset: Int, line: Int, reason: String) {
        self.offset = offset
        self.line = line
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

    private enum Expectation {
        case document, value, firstArrayValue, firstKey, afterValue, finished
    }
    private static let objectTag: UInt8 = 1
    private static let arrayTag: UInt8 = 0

    private var source: any ByteSource
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private let chunkSize: Int
    /// Buffer indices: `position` is the next unread byte, `end` the end of valid bytes.
    private var position = 0
    private var end = 0
    /// Absolute input offset of `buffer[0]`.
    private var base = 0
    private var sourceEnded = false
    private var line = 1
    private var containers: [UInt8] = []
    private var expectation = Expectation.document

    /// The current token: `tokenCount` bytes at `buffer[tokenStart]`, or in `scratch` when the
    /// string had escapes. While `tokenLive`, refills keep it in the buffer.
    private var tokenStart = 0
    private var tokenCount = 0
    private var tokenLive = false
    private var tokenInScratch = false
    private var scratch: [UInt8] = []

    /// Byte offset where the last event's token starts (the `{`, `"`, first digit…).
    public private(set) var tokenOffset = 0
    /// Line where the last event's token starts.
    public private(set) var tokenLine = 1
    /// The largest the read buffer has been, in bytes: stays at the chunk size unless a token
    /// straddling chunks needs more (bounded by the token limit).
    public private(set) var peakBufferBytes: Int
    /// How many values ``value(from:member:maximumBytes:)`` has materialised: with
    /// ``largestMaterialisedBytes``, lets callers (and tests) see that records are built one at a time.
    public private(set) var materialisedValues = 0
    /// The largest value materialised so far, in input bytes.
    public private(set) var largestMaterialisedBytes = 0

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
                case nil: throw error("unexpected end of input, expected ',' or '}'")
                default: throw error("expected ',' or '}' in object")
                }
            }
            switch byte {
            case UInt8(ascii: ","):
                position += 1
                try skipSpace()
                return try value()
            case UInt8(ascii: "]"): return close(.arrayEnd)
            case nil: throw error("unexpected end of input, expected ',' or ']'")
            default: throw error("expected ',' or ']' in array")
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
        let result = try member == "coordinates" && event == .arrayStart
            ? .coordinates(coordinates(start: start, line: startLine, limit: maximumBytes))
            : build(event, start: start, line: startLine, limit: maximumBytes)
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

    // MARK: Scanning

    private func error(_ reason: String) -> JSONStreamError {
        JSONStreamError(offset: base + position, line: line, reason: reason)
    }

    private mutating func markToken() {
        tokenOffset = base + position
        tokenLine = line
        tokenLive = false
        tokenInScratch = false
        tokenCount = 0
    }

    private mutating func close(_ event: JSONEvent) -> JSONEvent {
        markToken()
        position += 1
        containers.removeLast()
        expectation = .afterValue
        return event
    }

    private mutating func open(_ tag: UInt8) throws {
        guard containers.count < limits.maximumDepth else {
            throw error("nesting deeper than \(limits.maximumDepth)")
        }
        containers.append(tag)
        position += 1
    }

    private mutating func value() throws -> JSONEvent {
        guard let byte = try peek() else { throw error("unexpected end of input, expected a value") }
        markToken()
        switch byte {
        case UInt8(ascii: "{"):
            try open(Self.objectTag)
            expectation = .firstKey
            return .objectStart
        case UInt8(ascii: "["):
            try open(Self.arrayTag)
            expectation = .firstArrayValue
            return .arrayStart
        case UInt8(ascii: "\""):
            try scanString()
            expectation = .afterValue
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            expectation = .afterValue
            return .number
        case UInt8(ascii: "t"):
            try literal("true")
            expectation = .afterValue
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            expectation = .afterValue
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            expectation = .afterValue
            return .null
        default:
            throw error("unexpected character '\(printable(byte))', expected a value")
        }
    }

    private mutating func key() throws -> JSONEvent {
        guard try peek() == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
        markToken()
        try scanString()
        try skipSpace()
        guard try peek() == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
        position += 1
        expectation = .value
        return .key
    }

    /// The byte at `position`, refilling as needed; nil at the end of input.
    private mutating func peek() throws -> UInt8? {
        if position == end {
            try refill()
            if position == end { return nil }
        }
        return buffer[position]
    }

    /// The byte at buffer index `index` (which moves if the buffer is compacted); nil at the end.
    @inline(__always)
    private mutating func byte(at index: inout Int) throws -> UInt8? {
        if index < end { return buffer[index] }
        return try byteAfterRefill(at: &index)
    }

    private mutating func byteAfterRefill(at index: inout Int) throws -> UInt8? {
        if tokenLive, index - tokenStart >= limits.maximumTokenBytes {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "token longer than \(limits.maximumTokenBytes) bytes")
        }
        index -= try refill()
        return index < end ? buffer[index] : nil
    }

    /// Reads more input after compacting; returns how far buffer indices moved down.
    @discardableResult
    private mutating func refill() throws -> Int {
        if sourceEnded { return 0 }
        let keep = tokenLive ? min(tokenStart, position) : position
        if keep > 0 {
            if end > keep { memmove(buffer, buffer + keep, end - keep) }
            end -= keep
            position -= keep
            if tokenLive { tokenStart -= keep }
            base += keep
        }
        if capacity - end < chunkSize / 2 {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = grown
            capacity *= 2
            peakBufferBytes = max(peakBufferBytes, capacity)
        }
        let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end))
        if count == 0 { sourceEnded = true }
        end += count
        return keep
    }

    private mutating func skipByteOrderMark() throws {
        var index = position
        guard try byte(at: &index) == 0xEF else { return }
        index += 1
        guard try byte(at: &index) == 0xBB else { return }
        index += 1
        guard try byte(at: &index) == 0xBF else { return }
        position = index + 1
    }

    /// Skips white space; most calls find a token at once, so that case is inlined.
    @inline(__always)
    private mutating func skipSpace() throws {
        if position < end, buffer[position] > 0x20 { return }
        // One space between tokens (`": "`, `", "`) is the next most common case.
        if position + 1 < end, buffer[position] == 0x20, buffer[position + 1] > 0x20 {
            position += 1
            return
        }
        try skipSpaceRun()
    }

    private mutating func skipSpaceRun() throws {
        while true {
            let bytes = buffer
            let limit = end
            var i = position
            var lines = 0
            while i < limit {
                // Indentation: eight spaces at a time.
                while i + 8 <= limit, UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { i += 8 }
                guard i < limit else { break }
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0D {
                    i += 1
                } else if b == 0x0A {
                    lines += 1
                    i += 1
                } else {
                    break
                }
            }
            position = i
            line += lines
            if i < limit { return }
            try refill()
            if position == end { return }
        }
    }

    /// Moves `index` past a run of ASCII digits, refilling as needed.
    private mutating func skipDigits(_ index: inout Int) throws {
        while true {
            let bytes = buffer
            let limit = end
            var i = index
            while i < limit, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            index = i
            if i < limit || sourceEnded { return }
            if index - tokenStart >= limits.maximumTokenBytes {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "token longer than \(limits.maximumTokenBytes) bytes")
            }
            index -= try refill()
            if index == end { return }
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        var index = position
        for i in 0..<word.utf8CodeUnitCount {
            guard try byte(at: &index) == word.utf8Start[i] else {
                throw error("invalid literal, expected '\(word)'")
            }
            index += 1
        }
        position = index
    }

    private mutating func scanNumber() throws {
        tokenStart = position
        tokenLive = true
        var index = position
        func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
        if try byte(at: &index) == UInt8(ascii: "-") { index += 1 }
        let first = try byte(at: &index)
        guard isDigit(first) else {
            position = index
            throw error("invalid number")
        }
        index += 1
        if first != UInt8(ascii: "0") {
            try skipDigits(&index)
        }
        if try byte(at: &index) == UInt8(ascii: ".") {
            index += 1
            guard isDigit(try byte(at: &index)) else {
                position = index
                throw error("invalid number: no digits after '.'")
            }
            try skipDigits(&index)
        }
        let e = try byte(at: &index)
        if e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            let sign = try byte(at: &index)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard isDigit(try byte(at: &index)) else {
                position = index
                throw error("invalid number: no digits in exponent")
            }
            try skipDigits(&index)
        }
        tokenCount = index - tokenStart
        guard tokenCount <= limits.maximumTokenBytes else {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "number longer than \(limits.maximumTokenBytes) bytes")
        }
        position = index
    }

    /// Scans a string whose `"` is at `position`; leaves its content as the token.
    private mutating func scanString() throws {
        tokenStart = position + 1
        tokenLive = true
        var index = tokenStart
        var high: UInt8 = 0
        while true {
            // The hot loop: locals only, so nothing is reloaded or spilled per byte.
            let bytes = buffer
            let limit = end
            var i = index
            var seen = high
            // Eight bytes at a time while none ends the string or needs a look.
            while i + 8 <= limit {
                let word = UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)
                if hasByteBelow0x20(word) || hasZeroByte(word ^ 0x2222_2222_2222_2222) || hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C) { break }
                if word & 0x8080_8080_8080_8080 != 0 { seen |= 0x80 }
                i += 8
            }
            while i < limit {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
                seen |= b
                i += 1
            }
            index = i
            high = seen
            if index == end {
                guard index - tokenStart < limits.maximumTokenBytes else { throw stringTooLong() }
                index -= try refill()
                if index == end { throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string") }
                continue
            }
            let b = buffer[index]
            if b == UInt8(ascii: "\"") {
                tokenCount = index - tokenStart
                guard tokenCount <= limits.maximumTokenBytes else { throw stringTooLong() }
                position = index + 1
                if high >= 0x80, !isValidUTF8(UnsafeRawBufferPointer(start: buffer + tokenStart, count: tokenCount)) {
                    throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "string is not valid UTF-8")
                }
                return
            }
            if b < 0x20 {
                position = index
                throw error("control character in string")
            }
            return try scanEscapedString(from: index, high: high)
        }
    }

    /// The rest of a string from its first backslash at `index`, unescaped into `scratch`.
    private mutating func scanEscapedString(from start: Int, high: UInt8) throws {
        var index = start
        var high = high
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: buffer + tokenStart, count: index - tokenStart))
        while true {
            guard let b = try byte(at: &index) else {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string")
            }
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 {
                position = index
                throw error("control character in string")
            }
            index += 1
            if b != UInt8(ascii: "\\") {
                high |= b
                scratch.append(b)
                continue
            }
            guard let escape = try byte(at: &index) else {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string")
            }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4(&index)
                if (0xD800..<0xDC00).contains(code) {
                    guard try byte(at: &index) == UInt8(ascii: "\\") else { position = index; throw error("unpaired surrogate in \\u escape") }
                    index += 1
                    guard try byte(at: &index) == UInt8(ascii: "u") else { position = index; throw error("unpaired surrogate in \\u escape") }
                    index += 1
                    let low = try hex4(&index)
                    guard (0xDC00..<0xE000).contains(low) else { position = index; throw error("invalid low surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    position = index
                    throw error("unpaired surrogate in \\u escape")
                }
                scratch.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
            default:
                position = index - 1
                throw error("invalid escape '\\\(printable(escape))'")
            }
            if index - tokenStart > limits.maximumTokenBytes { throw stringTooLong() }
        }
        guard index - tokenStart <= limits.maximumTokenBytes else { throw stringTooLong() }
        position = index + 1
        tokenInScratch = true
        tokenCount = scratch.count
        if high >= 0x80, !scratch.withUnsafeBytes({ isValidUTF8($0) }) {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "string is not valid UTF-8")
        }
    }

    private mutating func hex4(_ index: inout Int) throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let b = try byte(at: &index) else {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string")
            }
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default:
                position = index
                throw error("invalid hex digit in \\u escape")
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    private func stringTooLong() -> JSONStreamError {
        JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "string longer than \(limits.maximumTokenBytes) bytes")
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    // MARK: Materialising

    private mutating func checkSize(start: Int, line: Int, limit: Int) throws {
        if offset - start > limit {
            throw JSONStreamError(offset: start, line: line, reason: "value larger than \(limit) bytes")
        }
    }

    private mutating func build(_ event: JSONEvent, start: Int, line: Int, limit: Int) throws -> JSONValue {
        switch event {
        case .null: return .null
        case let .bool(flag): return .bool(flag)
        case .string: return .string(tokenString)
        case .number: return .number(tokenNumber)
        case .arrayStart:
            var elements: [JSONValue] = []
            while true {
                let next = try next()
                try checkSize(start: start, line: line, limit: limit)
                if next == .arrayEnd { return .array(elements) }
                elements.append(try build(next, start: start, line: line, limit: limit))
            }
        case .objectStart:
            var members: [(key: String, value: JSONValue)] = []
            while true {
                let next = try next()
                try checkSize(start: start, line: line, limit: limit)
                if next == .objectEnd { return .object(members) }
                let key = tokenString
                let valueEvent = try self.next()
                try checkSize(start: start, line: line, limit: limit)
                if key == "coordinates", valueEvent == .arrayStart {
                    members.append((key, .coordinates(try coordinates(start: start, line: line, limit: limit))))
                } else {
                    members.append((key, try build(valueEvent, start: start, line: line, limit: limit)))
                }
            }
        default:
            throw error(atToken: "expected a value")
        }
    }

    /// A `coordinates` array whose `[` was just read: nested arrays of numbers, all leaves at the
    /// depth of the first run of `[` (as ``JSONParser`` requires).
    private mutating func coordinates(start: Int, line: Int, limit: Int) throws -> CoordinateArray {
        var nesting = 1
        var event = try next()
        while event == .arrayStart {
            nesting += 1
            guard nesting <= 8 else { throw error(atToken: "coordinates nested \(nesting) deep; GeoJSON needs at most 4") }
            event = try next()
        }
        var result = CoordinateArray(depth: nesting, values: [], counts: Array(repeating: [], count: nesting))
        var children = Array(repeating: 0, count: nesting)
        var level = nesting - 1
        while true {
            try checkSize(start: start, line: line, limit: limit)
            switch event {
            case .number:
                guard level == nesting - 1 else { throw error(atToken: "expected '[' in coordinates") }
                result.values.append(tokenNumber)
                children[level] += 1
            case .arrayStart:
                guard level < nesting - 1 else { throw error(atToken: "expected a number in coordinates") }
                level += 1
                children[level] = 0
            case .arrayEnd:
                result.counts[level].append(children[level])
                if level == 0 { return result }
                level -= 1
                children[level] += 1
            default:
                throw error(atToken: level == nesting - 1 ? "expected a number in coordinates" : "expected '[' in coordinates")
            }
            event = try next()
        }
    }
}

/// Whether any byte of `word` is zero.
@inline(__always)
private func hasZeroByte(_ word: UInt64) -> Bool {
    (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
}

/// Whether any byte of `word` is below 0x20 (a control character).
@inline(__always)
private func hasByteBelow0x20(_ word: UInt64) -> Bool {
    (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0
}

/// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
        let b0 = bytes[i]
        if b0 < 0x80 { i += 1; continue }
        func continuation(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
        switch b0 {
        case 0xC2...0xDF:
            guard continuation(1) else { return false }
            i += 2
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { return false }
            let b1 = bytes[i + 1]
            if b0 == 0xE0, b1 < 0xA0 { return false }   // overlong
            if b0 == 0xED, b1 >= 0xA0 { return false }  // surrogate
            i += 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { return false }
            let b1 = bytes[i + 1]
            if b0 == 0xF0, b1 < 0x90 { return false }   // overlong
            if b0 == 0xF4, b1 >= 0x90 { return false }  // past U+10FFFF
            i += 4
        default:
            return false
        }
    }
    return true
}
