#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a JSON document could not be read, and where (byte offset from the start).
public struct JSONError: Error, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "byte \(offset): \(reason)" }
}

/// A strict JSON (RFC 8259) parser over bytes, with limits so hostile input cannot exhaust
/// the stack or memory: nesting depth and string length are bounded.
public struct JSONParser {
    /// Deepest nesting accepted (GeoJSON needs 8 or so; hostile files nest millions deep).
    public static let maximumDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    /// Parses one complete JSON document; trailing non-space bytes are an error.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        // A UTF-8 byte order mark is tolerated at the start.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.position = 3; parser.skipSpace() }
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// Parses a byte array.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { try parse($0) }
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> JSONError {
        JSONError(offset: position, reason: reason)
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard let byte = current else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return .array(try array(depth: depth))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character '\(printable(byte))', expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0 else {
            throw error("invalid literal, expected '\(word)'")
        }
        position += count
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        skipSpace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after member name '\(key.prefix(40))'") }
            position += 1
            skipSpace()
            if key == "coordinates", current == UInt8(ascii: "[") {
                members.append((key, .coordinates(try coordinateArray(depth: depth + 1))))
            } else {
                members.append((key, try value(depth: depth + 1)))
            }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func array(depth: Int) throws -> [JSONValue] {
        position += 1
        var elements: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") { position += 1; return elements }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return elements
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    /// A `coordinates` value: nested arrays whose leaves are numbers, all leaves at one depth.
    private mutating func coordinateArray(depth: Int) throws -> CoordinateArray {
        // Measure the depth from the run of opening brackets.
        var probe = position
        var nesting = 0
        while probe < bytes.count {
            let b = bytes[probe]
            if b == UInt8(ascii: "[") { nesting += 1 } else if !(b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09) { break }
            probe += 1
        }
        guard nesting <= 8 else { throw error("coordinates nested \(nesting) deep; GeoJSON needs at most 4") }
        var result = CoordinateArray(depth: max(nesting, 1), values: [], counts: Array(repeating: [], count: max(nesting, 1)))
        try coordinateLevel(0, into: &result)
        return result
    }

    private mutating func coordinateLevel(_ level: Int, into result: inout CoordinateArray) throws {
        guard current == UInt8(ascii: "[") else { throw error("expected '[' in coordinates") }
        position += 1
        var children = 0
        skipSpace()
        if current == UInt8(ascii: "]") {
            position += 1
            result.counts[level].append(0)
            return
        }
        while true {
            skipSpace()
            if level == result.depth - 1 {
                guard let byte = current, byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
                    throw error("expected a number in coordinates")
                }
                result.values.append(try number())
            } else {
                try coordinateLevel(level + 1, into: &result)
            }
            children += 1
            skipSpace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                result.counts[level].append(children)
                return
            default: throw error("expected ',' or ']' in coordinates")
            }
        }
    }

    private mutating func number() throws -> Double {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw error("invalid number")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { position += 1 }
        }
        if current == UInt8(ascii: ".") {
            position += 1
            let digitsStart = position
            while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { position += 1 }
            guard position > digitsStart else { throw error("invalid number: no digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { position += 1 }
            guard position > digitsStart else { throw error("invalid number: no digits in exponent") }
        }
        guard let value = DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<position])) else {
            throw JSONError(offset: start, reason: "number out of range")
        }
        return value
    }

    private mutating func string() throws -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while let b = current, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\"), b >= 0x20 { position += 1 }
        if current == UInt8(ascii: "\"") {
            let text = try validUTF8(UnsafeRawBufferPointer(rebasing: bytes[start..<position]), at: start)
            position += 1
            return text
        }
        var scalars: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let b = current else { throw JSONError(offset: start - 1, reason: "unterminated string") }
            if b == UInt8(ascii: "\"") { position += 1; break }
            if b < 0x20 { throw error("control character in string") }
            if b != UInt8(ascii: "\\") { scalars.append(b); position += 1; continue }
            position += 1
            guard let escape = current else { throw error("unterminated escape") }
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw error("unpaired surrogate in \\u escape")
                }
                scalars.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
            default:
                throw error("invalid escape '\\\(printable(escape))'")
            }
        }
        return try scalars.withUnsafeBytes { try validUTF8($0, at: start) }
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            code = code << 4 | UInt32(digit)
            position += 1
        }
        return code
    }

    private func validUTF8(_ raw: UnsafeRawBufferPointer, at offset: Int) throws -> String {
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw JSONError(offset: offset, reason: "string is not valid UTF-8")
        }
        return text
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}
