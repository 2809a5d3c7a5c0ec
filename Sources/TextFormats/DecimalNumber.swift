#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimal number text → Double, correctly rounded, without allocating.
public enum DecimalNumber {
    /// A finite decimal number (`-12.5`, `3e-2`), or nil. Correctly rounded.
    ///
    /// Plain decimals with at most 15 significant digits (every GPS coordinate) take Clinger's
    /// exact fast path: the digits and the power of ten are both exact doubles, so one division
    /// rounds correctly. Anything else goes to strtod.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Double? {
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
}
