import Foundation

// Text layout shared by the text reports (classify's and the audit's).

/// Columns a string takes in a terminal: East Asian wide characters take two.
package func displayWidth(_ s: String) -> Int {
    s.unicodeScalars.reduce(0) { width, scalar in
        let v = scalar.value
        let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v) || (0x20000...0x3FFFD).contains(v)
        return width + (wide ? 2 : 1)
    }
}

/// `value` with `decimals` digits after the point (the text reports' numbers).
package func fixed(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// `s` right-aligned in `width` characters.
package func leftPad(_ s: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - s.count)) + s
}

/// A percentage as a person reads it: three significant digits, no trailing zeros ("0.341%",
/// "0.00002%", "12.3%", "100%"), "0%" for nothing — never a share of a country rounded to
/// "0.0000%" that hides the walk it stands for.
package func percentText(_ value: Double) -> String {
    guard value > 0, value.isFinite else { return "0%" }
    if value >= 100 { return "100%" }
    if value >= 99.9 { return "99.9%" }
    let decimals = max(0, 2 - Int(log10(value).rounded(.down)))
    var text = fixed(value, decimals)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text + "%"
}
