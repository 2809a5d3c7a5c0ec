#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimal number text → Double, correctly rounded, without allocating.
public enum DecimalNumber {
    /// A finite decimal number (`-12.5`, `3e-2`), or nil. Correctly rounded.
    ///
    /// Numbers whose digits, read as an integer m, are at most 2⁵³ and whose decimal exponent e
    /// (the written exponent less the fraction digits) is within ±22 (every GPS coordinate,
    /// elevation and accuracy) take Clinger's fast path (`parsePrefix`): m and 10^|e| are both
    /// exact doubles, so one multiplication or division rounds correctly. Anything else goes to
    /// strtod.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard bytes.count > 0, bytes.count < 64 else { return nil }
        if let number = parsePrefix(bytes), number.length == bytes.count { return number.value }
        return parseWithStrtod(bytes)
    }

    /// The number at the start of `bytes` and its length, when it is one the fast path reads
    /// exactly: an optional sign, digits with an optional point (at most 19 digits, with at
    /// least one), an optional exponent, then anything that cannot continue it. Nil when it is
    /// not such a number. A caller that finds its own delimiter right after the number has
    /// what `parse` gives for the delimited text, without finding the delimiter first; any
    /// other byte there means the text is for `parse` to judge.
    @inlinable
    public static func parsePrefix(_ bytes: UnsafeRawBufferPointer) -> (value: Double, length: Int)? {
        let count = min(bytes.count, 63)  // `parse` reads no longer number
        guard count > 0 else { return nil }
        var index = 0
        let first = bytes[0]
        let negative = first == UInt8(ascii: "-")
        if negative || first == UInt8(ascii: "+") { index = 1 }

        // Digits before and after the point, accumulated into one integer. At most 19 digits
        // cannot overflow UInt64.
        var mantissa: UInt64 = 0
        let integerStart = index
        while index < count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index += 1
        }
        var digits = index - integerStart
        var exponent = 0
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index += 1
            }
            digits += index - fractionStart
            exponent = fractionStart - index
        }
        guard digits > 0, digits <= 19 else { return nil }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            // An exponent: `e` or `E`, an optional sign, at least one digit.
            index += 1
            var negativeExponent = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                written = min(written * 10 + Int(digit), 100_000)
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += negativeExponent ? -written : written
        }
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let value = exponent < 0 ? Double(mantissa) / exactPowersOfTen[-exponent] : Double(mantissa) * exactPowersOfTen[exponent]
        return (negative ? -value : value, index)
    }

    /// 10⁰…10²², all exactly representable as doubles (a literal, so no lazy initialisation).
    @usableFromInline
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

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
