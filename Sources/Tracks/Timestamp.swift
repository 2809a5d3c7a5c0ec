/// ISO-8601 / RFC 3339 timestamps as devices and exports write them.
///
/// Accepted: `YYYY-MM-DD` then `T`, `t` or a space, `hh:mm[:ss[.fraction]]`, then `Z`, `z`,
/// `±hh:mm`, `±hhmm`, `±hh` or nothing (nothing means UTC, as GPX 1.1 specifies). A fraction may
/// have any number of digits; it is truncated to milliseconds. Leap second `:60` is read as `:59.999`.
public enum Timestamp {
    /// The times this type can read and write: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z,
    /// in milliseconds. Readers that compute a time (an epoch number, a start plus an offset)
    /// refuse one outside it, so no later arithmetic on times can overflow.
    public static let representable: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Seconds since 1970 a file states (an OwnTracks `tst`, a Google Photos sidecar's
    /// `timestamp`) as milliseconds within ``representable``, or nil: no product or `abs` of a
    /// value near ±2^63 can trap.
    public static func milliseconds(fromSeconds seconds: Int64) -> Int64? {
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow, representable.contains(milliseconds) else { return nil }
        return milliseconds
    }

    /// Milliseconds since the Unix epoch, or nil when `bytes` is not such a timestamp.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        if let milliseconds = parseFixedLayout(bytes) { return milliseconds }
        return parseGeneral(bytes, unzonedOffsetMinutes: 0)
    }

    /// As ``parse(_:)``, but a time written without `Z` or an offset is a wall-clock time in
    /// `zone` (CSV loggers write local times; ``LocalTimeZone/utc(fromLocal:)`` says how the hours
    /// of a daylight-saving transition are read).
    public static func parse(_ bytes: UnsafeRawBufferPointer, unzonedIn zone: LocalTimeZone) -> Int64? {
        if let milliseconds = parseFixedLayout(bytes) { return milliseconds }
        if let fixed = zone.fixedMinutes { return parseGeneral(bytes, unzonedOffsetMinutes: Int64(fixed)) }
        guard let (wallClock, zoned) = parseFields(bytes) else { return nil }
        return zoned ? wallClock : zone.utc(fromLocal: wallClock)
    }

    /// The layout devices write almost always, `YYYY-MM-DDThh:mm:ssZ` or
    /// `YYYY-MM-DDThh:mm:ss.sssZ`, read by position; nil for anything else (including an invalid
    /// date or time in that layout), which `parseGeneral` then decides.
    private static func parseFixedLayout(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard hasFixedLayout(bytes), let hour = fixedLayoutHour(bytes), let within = fixedLayoutWithinHour(bytes) else { return nil }
        return hour + within
    }

    /// Whether `bytes` can be in the fixed layout: 20 or 24 bytes, `Z` last, `:` at 13 and 16
    /// (the date's separators are checked with the date).
    @inline(__always)
    static func hasFixedLayout(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        return (count == 20 || count == 24) && bytes[count - 1] == UInt8(ascii: "Z")
            && bytes[13] == UInt8(ascii: ":") && bytes[16] == UInt8(ascii: ":")
    }

    /// Reads the digits of `bytes[start..<start + length]` without a branch per digit; `bad` is
    /// set when one is not a digit.
    @inline(__always)
    private static func number(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ length: Int, _ bad: inout UInt8) -> Int64 {
        var value: Int64 = 0
        for i in start..<(start + length) {
            let digit = bytes[i] &- UInt8(ascii: "0")
            bad |= digit > 9 ? 0x80 : 0
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// Of a time with ``hasFixedLayout(_:)``: the milliseconds from 1970 to its hour
    /// (`YYYY-MM-DDThh`), nil when that is not a valid date and hour.
    static func fixedLayoutHour(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") else { return nil }
        var bad: UInt8 = 0
        let year = number(bytes, 0, 4, &bad), month = number(bytes, 5, 2, &bad), day = number(bytes, 8, 2, &bad)
        let hour = number(bytes, 11, 2, &bad)
        guard bad == 0, month >= 1, month <= 12, day >= 1, day <= daysIn(month: month, year: year), hour < 24 else { return nil }
        return (daysSinceEpoch(year: year, month: month, day: day) * 24 + hour) * 3_600_000
    }

    /// Of a time with ``hasFixedLayout(_:)``: the milliseconds after its hour (`mm:ss[.sss]`),
    /// nil when they are not valid.
    @inline(__always)
    static func fixedLayoutWithinHour(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var bad: UInt8 = 0
        let minute = number(bytes, 14, 2, &bad), second = number(bytes, 17, 2, &bad)
        var milliseconds: Int64 = 0
        if bytes.count == 24 {
            guard bytes[19] == UInt8(ascii: ".") else { return nil }
            milliseconds = number(bytes, 20, 3, &bad)
        }
        guard bad == 0, minute < 60, second < 60 else { return nil }
        return (minute * 60 + second) * 1000 + milliseconds
    }

    /// Every accepted form (see the type's description), read field by field.
    private static func parseGeneral(_ bytes: UnsafeRawBufferPointer, unzonedOffsetMinutes: Int64) -> Int64? {
        guard let (milliseconds, zoned) = parseFields(bytes) else { return nil }
        return zoned ? milliseconds : milliseconds - unzonedOffsetMinutes * 60_000
    }

    /// The time in milliseconds since 1970, and whether it named its offset: when it did, the
    /// instant (UTC); when not, the wall-clock time as if it were UTC.
    private static func parseFields(_ bytes: UnsafeRawBufferPointer) -> (Int64, zoned: Bool)? {
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.digits(4), reader.take(UInt8(ascii: "-")),
              let month = reader.digits(2), reader.take(UInt8(ascii: "-")),
              let day = reader.digits(2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        guard reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: "t")) || reader.take(UInt8(ascii: " ")),
              let hour = reader.digits(2), reader.take(UInt8(ascii: ":")),
              let minute = reader.digits(2), hour < 24, minute < 60
        else { return nil }
        var second: Int64 = 0
        var milliseconds: Int64 = 0
        if reader.take(UInt8(ascii: ":")) {
            guard let s = reader.digits(2), s <= 60 else { return nil }
            second = s
            if reader.take(UInt8(ascii: ".")) || reader.take(UInt8(ascii: ",")) {
                var scale: Int64 = 100
                var count = 0
                while let digit = reader.digit() {
                    milliseconds += digit * scale
                    scale /= 10
                    count += 1
                }
                guard count > 0 else { return nil }
            }
            if second == 60 {
                second = 59
                milliseconds = 999
            }
        }
        var offsetMinutes: Int64 = 0
        var zoned = true
        if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
            offsetMinutes = 0
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2), hours <= 23 else { return nil }
            var minutes: Int64 = 0
            if reader.take(UInt8(ascii: ":")) {
                guard let m = reader.digits(2) else { return nil }
                minutes = m
            } else if let m = reader.digits(2) {
                minutes = m
            }
            guard minutes < 60 else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            zoned = false
        }
        guard reader.atEnd else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60
        return (seconds * 1000 + milliseconds, zoned)
    }

    /// Parses a `String`; see `parse(_:)` for bytes.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (negative before it).
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number counted from 1970-01-01.
    public static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `YYYY-MM-DDThh:mm:ss.sssZ`, or with `offsetMinutes` the local time and its `±hh:mm`.
    public static func format(_ milliseconds: Int64, offsetMinutes: Int = 0) -> String {
        var bytes: [UInt8] = []
        append(milliseconds, offsetMinutes: offsetMinutes, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``format(_:offsetMinutes:)`` appended to UTF-8 bytes (for reports written piece by piece).
    public static func append(_ milliseconds: Int64, offsetMinutes: Int = 0, to out: inout [UInt8]) {
        let local = milliseconds + Int64(offsetMinutes) * 60_000
        let days = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        let within = local - days * 86_400_000
        let date = civilDate(daysSinceEpoch: days)
        func pad(_ value: Int64, _ width: Int) {
            if value < 0 || value >= 10_000 || width > 4 {
                // Out of the four-digit range (years far from now): as many digits as it takes.
                let digits = String(value)
                out += repeatElement(UInt8(ascii: "0"), count: max(0, width - digits.count))
                out += digits.utf8
                return
            }
            var divisor: Int64 = width == 4 ? 1000 : width == 3 ? 100 : width == 2 ? 10 : 1
            while divisor * 10 <= value { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        pad(date.year, 4); out.append(UInt8(ascii: "-"))
        pad(date.month, 2); out.append(UInt8(ascii: "-"))
        pad(date.day, 2); out.append(UInt8(ascii: "T"))
        pad(within / 3_600_000, 2); out.append(UInt8(ascii: ":"))
        pad(within / 60_000 % 60, 2); out.append(UInt8(ascii: ":"))
        pad(within / 1000 % 60, 2); out.append(UInt8(ascii: "."))
        pad(within % 1000, 3)
        if offsetMinutes == 0 {
            out.append(UInt8(ascii: "Z"))
            return
        }
        out.append(UInt8(ascii: offsetMinutes < 0 ? "-" : "+"))
        let magnitude = Int64(abs(offsetMinutes))
        pad(magnitude / 60, 2); out.append(UInt8(ascii: ":"))
        pad(magnitude % 60, 2)
    }

    package static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private struct DigitReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < bytes.count else { return nil }
        let value = bytes[index] &- UInt8(ascii: "0")
        guard value < 10 else { return nil }
        index += 1
        return Int64(value)
    }

    mutating func digits(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    mutating func sign() -> Int64? {
        if take(UInt8(ascii: "+")) { return 1 }
        if take(UInt8(ascii: "-")) { return -1 }
        return nil
    }
}

/// ``Timestamp/parse(_:)`` for the times of one file in order: the date and hour of the last time
/// read in the fixed layout (`YYYY-MM-DDThh:mm:ss[.sss]Z`) are remembered, so a time in the same
/// hour reads only its minutes and seconds (a 1 Hz track has 3,600 points an hour). Every answer is
/// the one ``Timestamp/parse(_:)`` gives.
struct TimestampStream {
    /// The first 13 bytes (`YYYY-MM-DDThh`) of the last fixed-layout time whose date and hour
    /// were valid, and the milliseconds from 1970 to that hour.
    private var head: (UInt64, UInt32, UInt8) = (0, 0, 0)
    private var hourMilliseconds: Int64 = 0
    private var known = false

    mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard Timestamp.hasFixedLayout(bytes) else { return Timestamp.parse(bytes) }
        let read = (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self), bytes[12])
        if !known || read != head {
            guard let hour = Timestamp.fixedLayoutHour(bytes) else { return Timestamp.parse(bytes) }
            head = read
            hourMilliseconds = hour
            known = true
        }
        guard let within = Timestamp.fixedLayoutWithinHour(bytes) else { return Timestamp.parse(bytes) }
        return hourMilliseconds + within
    }
}
