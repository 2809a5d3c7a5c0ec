/// File names as text: a name is bytes to the system, and not every name is UTF-8 (a Latin-1
/// `café.csv` from an old disk, a CP437 or GBK name in a zip written without the UTF-8 flag).
package enum EscapedName {
    /// `bytes` as UTF-8 where they are valid UTF-8; each byte of an invalid sequence, and each
    /// control byte (below 0x20, 0x7F), as `\xNN` (upper-case hex). Never drops a byte, so
    /// two different names never read the same unless one spells a `\x` escape itself.
    package static func string<Bytes: Collection>(from bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        var out = ""
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let length = validSequenceLength(bytes, at: i)
            if length == 0 || bytes[i] < 0x20 || bytes[i] == 0x7F {
                out += "\\x" + hex(bytes[i] >> 4) + hex(bytes[i] & 0xF)
                i += 1
            } else {
                out += String(decoding: bytes[i..<(i + length)], as: UTF8.self)
                i += length
            }
        }
        return out
    }

    /// `text` safe to print on a terminal: control characters (C0 but `keep`, DEL, C1), which
    /// could cut a line (NUL), forge one or drive the terminal (ESC), as `\xNN` (`\u{NN}` for C1).
    package static func printable(_ text: String, keep: Set<Unicode.Scalar> = ["\t"]) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !keep.contains($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !isControl(scalar) || keep.contains(scalar) {
                out.append(scalar)
            } else {
                let escape = scalar.value < 0x80 ? "\\x" + hex(UInt8(scalar.value >> 4)) + hex(UInt8(scalar.value & 0xF))
                                                 : "\\u{" + hex(UInt8(scalar.value >> 4)) + hex(UInt8(scalar.value & 0xF)) + "}"
                out.append(contentsOf: escape.unicodeScalars)
            }
        }
        return String(out)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates,
    /// nothing above U+10FFFF), or 0 when there is none.
    static func validSequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        let first = bytes[i]
        if first < 0x80 { return 1 }
        let length: Int, low: UInt8, high: UInt8
        switch first {
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)
        case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        default: return 0
        }
        guard i + length <= bytes.count, (low...high).contains(bytes[i + 1]) else { return 0 }
        for k in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[i + k]) { return 0 }
        return length
    }

    private static func hex(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? 48 + nibble : 55 + nibble))
    }
}
