/// JSON text appended token by token to a byte buffer: for documents written piece by piece as
/// they are produced, too large to build as a `JSONValue` first. Strings and integers come out as
/// `JSONValue.rendered` writes them; `decimal` writes a fixed number of places, trailing zeros
/// dropped. Punctuation and keys go in with `raw`.
package struct JSONTextBuffer {
    package var bytes: [UInt8] = []

    package init() {}

    /// Text written as it is (punctuation, keys, layout).
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A JSON string, escaped.
    package mutating func string(_ s: String) {
        JSONValue.quote(s, into: &bytes)
    }

    /// A string, or null.
    package mutating func string(_ s: String?) {
        if let s { string(s) } else { raw("null") }
    }

    package mutating func integer<T: BinaryInteger>(_ n: T) {
        bytes += String(n).utf8
    }

    /// `value` rounded to `places` decimals (at most 9), without trailing zeros: 116.3912, 12,
    /// -0.5; never an exponent. Non-finite values are null.
    package mutating func decimal(_ value: Double, places: Int) {
        let scale = Self.powersOfTen[min(max(places, 0), 9)]
        let scaled = (value * Double(scale)).rounded()
        guard scaled.isFinite, abs(scaled) < 9e18 else {
            bytes += JSONValue.format(value).utf8
            return
        }
        var units = Int64(scaled)
        if units < 0 {
            bytes.append(UInt8(ascii: "-"))
            units = -units
        }
        appendDigits(UInt64(units / scale))
        var fraction = units % scale
        guard fraction != 0 else { return }
        var digits = places
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        bytes.append(UInt8(ascii: "."))
        var divisor = Self.powersOfTen[digits - 1]
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// A decimal, or null.
    package mutating func decimal(_ value: Double?, places: Int) {
        if let value { decimal(value, places: places) } else { raw("null") }
    }

    package mutating func bool(_ b: Bool) {
        raw(b ? "true" : "false")
    }

    static let powersOfTen: [Int64] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    private mutating func appendDigits(_ value: UInt64) {
        if value >= 10 { appendDigits(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
