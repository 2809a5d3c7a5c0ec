#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One parsed `lat,lon[,…]` line: the coordinates and where the rest of the line starts.
public struct CoordinateLine: Equatable {
    public var latitude: Double
    public var longitude: Double
    /// Byte offset of the comma that starts the pass-through columns, or nil when there are none.
    public var restOffset: Int?
}

/// Parses the `lat,lon` CSV lines the CLI reads (`convert`, `locate`).
///
/// Fields may be padded with spaces or wrapped in double quotes. Numbers are plain decimals
/// (optionally with an exponent); `nan`, `inf`, hexadecimal and empty fields are rejected with
/// a reason, as are latitudes outside ±90 and longitudes outside ±180.
public enum CoordinateCSV {
    /// What is wrong with a line, in words for the error message.
    public enum LineError: Error, Equatable, CustomStringConvertible {
        case missingLongitude
        case notANumber(field: String, text: String)
        case outOfRange(field: String, value: Double, limit: Int)

        public var description: String {
            switch self {
            case .missingLongitude:
                return "expected 'lat,lon', found only one field"
            case let .notANumber(field, text):
                return "\(field) '\(text)' is not a number"
            case let .outOfRange(field, value, limit):
                return "\(field) \(value) is outside -\(limit)…\(limit)"
            }
        }
    }

    /// True when `line` looks like a header: its first field contains a letter and is not a
    /// number word (`nan`, `inf`, `infinity`, which are bad data, not a header).
    public static func isHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        let first = field(line, from: 0)
        let bytes = UnsafeRawBufferPointer(rebasing: line[first.range])
        var word = String(decoding: bytes, as: UTF8.self).lowercased()
        if word.hasPrefix("-") || word.hasPrefix("+") { word.removeFirst() }
        return bytes.contains(where: { isLetter($0) }) && !["nan", "inf", "infinity"].contains(word)
    }

    /// Parses `lat,lon[,rest]`.
    public static func parse(_ line: UnsafeRawBufferPointer) throws -> CoordinateLine {
        let first = field(line, from: 0)
        guard let next = first.next else { throw LineError.missingLongitude }
        let second = field(line, from: next)
        let latitude = try number(UnsafeRawBufferPointer(rebasing: line[first.range]), "latitude", limit: 90)
        let longitude = try number(UnsafeRawBufferPointer(rebasing: line[second.range]), "longitude", limit: 180)
        return CoordinateLine(latitude: latitude, longitude: longitude, restOffset: second.next.map { $0 - 1 })
    }

    private static func number(_ bytes: UnsafeRawBufferPointer, _ name: String, limit: Int) throws -> Double {
        guard let value = parseNumber(bytes) else {
            throw LineError.notANumber(field: name, text: String(decoding: bytes.prefix(40), as: UTF8.self))
        }
        guard abs(value) <= Double(limit) else { throw LineError.outOfRange(field: name, value: value, limit: limit) }
        return value
    }

    /// The field starting at `start`: its trimmed, unquoted byte range, and where the next field
    /// starts (nil when this is the last).
    static func field(_ line: UnsafeRawBufferPointer, from start: Int) -> (range: Range<Int>, next: Int?) {
        var end = start
        while end < line.count, line[end] != UInt8(ascii: ",") { end += 1 }
        var lower = start, upper = end
        while lower < upper, line[lower] == UInt8(ascii: " ") || line[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, line[upper - 1] == UInt8(ascii: " ") || line[upper - 1] == UInt8(ascii: "\t") { upper -= 1 }
        if upper - lower >= 2, line[lower] == UInt8(ascii: "\""), line[upper - 1] == UInt8(ascii: "\"") {
            lower += 1
            upper -= 1
        }
        return (lower..<upper, end < line.count ? end + 1 : nil)
    }

    /// A finite decimal number (`-12.5`, `3e-2`), or nil. Correctly rounded.
    ///
    /// Plain decimals with at most 15 significant digits (every GPS coordinate) take Clinger's
    /// exact fast path: the digits and the power of ten are both exact doubles, so one division
    /// rounds correctly. Anything else goes to strtod.
    public static func parseNumber(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let count = bytes.count
        guard count > 0, count < 64 else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var sawDigit = false
        var simple = true
        while index < count {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                simple = false
                break
            }
            index += 1
        }
        if simple, sawDigit, digits <= 15, fractionDigits <= 22 {
            let value = Double(mantissa) / exactPowersOfTen[fractionDigits]
            return negative ? -value : value
        }
        return parseWithStrtod(bytes)
    }

    /// 10⁰…10²², all exactly representable as doubles.
    private static let exactPowersOfTen: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }
        return p
    }

    private static func parseWithStrtod(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let count = bytes.count
        var digits = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return nil
            }
        }
        guard digits > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { text -> Double? in
            for i in 0..<count { text[i] = CChar(bitPattern: bytes[i]) }
            text[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(text.baseAddress!, &end)
            guard let end, end == text.baseAddress! + count, value.isFinite else { return nil }
            return value
        }
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
