import TextFormats

/// The time values CSV loggers write, as milliseconds since 1970 UTC.
///
/// - One column: ISO-8601 (``Timestamp``; `2024-05-01 08:00:00`, with a space, is common; also with a
///   space before the offset, `2025-06-01 13:02:03.000000 +00:00`), the same with `/` between the
///   date's parts (`2024/05/01 08:00:00`), or a Unix epoch number —
///   **seconds** when its magnitude is below 10¹¹ (up to the year 5138), **milliseconds** from 10¹¹
///   (from March 1973) to the end of the year 9999, anything larger refused; a fraction is allowed.
/// - A `date` and a `time` column: the date as `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYYMMDD` or `YYMMDD`
///   (Columbus loggers; the years 2000–2099), the time as `hh:mm[:ss[.fff]]` or `hhmmss[.fff]`,
///   optionally followed by `Z`.
///
/// A time written without `Z` or an offset is local wall-clock time, read in `zone`; epoch numbers are UTC by definition.
enum CSVTime {
    /// A single time column's value, or nil.
    static func parse(_ field: UnsafeRawBufferPointer, zone: LocalTimeZone) -> Int64? {
        if let time = Timestamp.parse(field, unzonedIn: zone) { return time }
        if let time = epochMilliseconds(field) { return time }
        // `2025-06-01 13:02:03.000000 +00:00`: a space before the offset (Reitti's export, PostgreSQL
        // tools' text): the same without it.
        if field.count >= 20, field.count <= 64, let space = field.lastIndex(of: UInt8(ascii: " ")), space >= 16, space + 1 < field.count,
           field[space + 1] == UInt8(ascii: "+") || field[space + 1] == UInt8(ascii: "-") {
            var copy = [UInt8](field)
            copy.remove(at: space)
            return copy.withUnsafeBytes { Timestamp.parse($0, unzonedIn: zone) }
        }
        // `YYYY/MM/DD…`: the same with dashes.
        guard field.count >= 10, field.count <= 64, field[4] == UInt8(ascii: "/"), field[7] == UInt8(ascii: "/") else { return nil }
        var copy = [UInt8](field)
        copy[4] = UInt8(ascii: "-")
        copy[7] = UInt8(ascii: "-")
        return copy.withUnsafeBytes { Timestamp.parse($0, unzonedIn: zone) }
    }

    /// A Unix time: seconds below 10¹¹ in magnitude, milliseconds from there on, within the
    /// years 0000–9999 (``Timestamp/representable``; so milliseconds stop at about 2.5 × 10¹⁴).
    static func epochMilliseconds(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
              let value = DecimalNumber.parse(bytes), abs(value) < 1e16 else { return nil }
        let milliseconds = Int64((abs(value) < 1e11 ? value * 1000 : value).rounded(.down))
        return Timestamp.representable.contains(milliseconds) ? milliseconds : nil
    }

    /// A `date` column and a `time` column together, or nil.
    static func parse(date: UnsafeRawBufferPointer, time: UnsafeRawBufferPointer, zone: LocalTimeZone) -> Int64? {
        guard let day = civilDate(date), let clock = clockTime(time) else { return nil }
        var text = day
        text.append(UInt8(ascii: "T"))
        text.append(contentsOf: clock)
        return text.withUnsafeBytes { Timestamp.parse($0, unzonedIn: zone) }
    }

    /// `YYYY-MM-DD` bytes from the forms above (checked by ``Timestamp`` afterwards).
    private static func civilDate(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let digits = bytes.allSatisfy { $0 &- UInt8(ascii: "0") < 10 }
        switch bytes.count {
        case 10 where bytes[4] == bytes[7] && (bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "/")):
            var result = [UInt8](bytes)
            result[4] = UInt8(ascii: "-")
            result[7] = UInt8(ascii: "-")
            return result
        case 8 where digits:
            return Array(bytes[0..<4]) + [UInt8(ascii: "-")] + Array(bytes[4..<6]) + [UInt8(ascii: "-")] + Array(bytes[6..<8])
        case 6 where digits:
            return Array("20".utf8) + Array(bytes[0..<2]) + [UInt8(ascii: "-")] + Array(bytes[2..<4]) + [UInt8(ascii: "-")] + Array(bytes[4..<6])
        default:
            return nil
        }
    }

    /// `hh:mm[:ss[.fff]][Z]` bytes from the forms above.
    private static func clockTime(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= 4, bytes.count <= 32 else { return nil }
        if bytes[2] == UInt8(ascii: ":") { return [UInt8](bytes) }
        guard bytes.count >= 6, bytes[0..<6].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
        return Array(bytes[0..<2]) + [UInt8(ascii: ":")] + Array(bytes[2..<4]) + [UInt8(ascii: ":")] + Array(bytes[4...])
    }
}
