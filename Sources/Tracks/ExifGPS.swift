import TextFormats

/// What a photo's EXIF (a TIFF structure, CIPA DC-008) says about where and when it was taken:
/// the GPS IFD's position, altitude, UTC date and time and horizontal positioning error, and
/// the Exif IFD's `DateTimeOriginal` with its `OffsetTimeOriginal`.
public struct ExifGPS: Equatable, Sendable {
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    /// `GPSHPositioningError`, metres.
    public var horizontalError: Double?
    /// `GPSDateStamp` + `GPSTimeStamp`, milliseconds since 1970 (UTC by the standard).
    public var gpsTime: Int64?
    /// `DateTimeOriginal` as written (`YYYY:MM:DD HH:MM:SS`), and `OffsetTimeOriginal` (`+08:00`).
    public var originalTime: String?
    public var originalOffset: String?
    /// A GPS latitude or longitude is written but cannot be used (a zero denominator, a
    /// reference other than N/S or E/W, a wrong type): the reason.
    public var unusablePosition: String?

    public init() {}

    /// Whether the GPS IFD holds a latitude and a longitude (usable or not).
    public var hasPosition: Bool { (latitude != nil && longitude != nil) || unusablePosition != nil }

    /// The moment the photo was taken: the GPS time when written, else `DateTimeOriginal` at its
    /// offset, else at `zone`'s offset then; nil when none parses.
    public func time(unzonedIn zone: LocalTimeZone) -> Int64? {
        if let gpsTime { return gpsTime }
        guard var text = originalTime, text.utf8.count >= 19 else { return nil }
        // `YYYY:MM:DD HH:MM:SS` → `YYYY-MM-DD HH:MM:SS`.
        var bytes = Array(text.utf8.prefix(19))
        guard bytes[4] == UInt8(ascii: ":"), bytes[7] == UInt8(ascii: ":") else { return nil }
        bytes[4] = UInt8(ascii: "-")
        bytes[7] = UInt8(ascii: "-")
        text = String(decoding: bytes, as: UTF8.self)
        if let offset = originalOffset, offset.utf8.count == 6, offset.first == "+" || offset.first == "-" { text += offset }
        return Array(text.utf8).withUnsafeBytes { Timestamp.parse($0, unzonedIn: zone) }
    }

    /// Reads the TIFF structure in `tiff` (from its `II*\0` or `MM\0*` header); throws a reason
    /// when the header or an IFD it points to lies outside the data.
    public static func parse(_ tiff: ArraySlice<UInt8>) throws(ExifProblem) -> ExifGPS {
        let data = TIFFData(bytes: tiff)
        guard tiff.count >= 8 else { throw ExifProblem("EXIF shorter than its TIFF header") }
        let first = tiff[tiff.startIndex], second = tiff[tiff.startIndex + 1]
        let little: Bool
        if first == 0x49, second == 0x49 { little = true } else if first == 0x4D, second == 0x4D { little = false } else {
            throw ExifProblem("EXIF without a TIFF byte order (II or MM)")
        }
        var reader = data
        reader.little = little
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4) else { throw ExifProblem("EXIF TIFF header without 42") }
        var facts = ExifGPS()
        let zeroth = try reader.entries(at: Int(ifd0))
        if let pointer = zeroth[0x8825].flatMap({ reader.pointer($0) }) {
            var outside: [UInt16: Int] = [:]
            let gps = try reader.entries(at: pointer, outside: &outside)
            facts.readGPS(gps, reader)
            // A latitude or longitude (or its reference) whose value lies past the EXIF is written
            // but cannot be read: damage, not a photo taken with location off.
            if let (tag, offset) = outside.filter({ (1...4).contains($0.key) }).min(by: { $0.key < $1.key }) {
                facts.unusablePosition = "GPS tag \(tag) (\(tag <= 2 ? "latitude" : "longitude")\(tag % 2 == 1 ? " reference" : "")) has its value at EXIF byte \(offset), "
                    + "past the \(tiff.count) bytes of EXIF"
            }
        }
        if let pointer = zeroth[0x8769].flatMap({ reader.pointer($0) }) {
            let exif = try reader.entries(at: pointer)
            facts.originalTime = exif[0x9003].flatMap { reader.ascii($0) }
            facts.originalOffset = exif[0x9011].flatMap { reader.ascii($0) }
        }
        return facts
    }

    private mutating func readGPS(_ gps: [UInt16: TIFFData.Entry], _ reader: TIFFData) {
        func coordinate(_ valueTag: UInt16, _ refTag: UInt16, positive: String, negative: String) -> Double? {
            guard let entry = gps[valueTag] else { return nil }
            guard let parts = reader.rationals(entry), parts.count == 3, parts.allSatisfy({ $0.isFinite }) else {
                unusablePosition = unusablePosition ?? "GPS tag \(valueTag) is not three rationals with non-zero denominators"
                return nil
            }
            let value = parts[0] + parts[1] / 60 + parts[2] / 3600
            let ref = gps[refTag].flatMap { reader.ascii($0) }
            switch ref {
            case positive: return value
            case negative: return -value
            default:
                unusablePosition = unusablePosition ?? "GPS reference \(ref.map { "'\($0)'" } ?? "missing") is not \(positive) or \(negative)"
                return nil
            }
        }
        latitude = coordinate(2, 1, positive: "N", negative: "S")
        longitude = coordinate(4, 3, positive: "E", negative: "W")
        if latitude == nil || longitude == nil {
            if latitude != nil || longitude != nil { unusablePosition = unusablePosition ?? "GPS latitude or longitude missing" }
            latitude = nil
            longitude = nil
        }
        if let entry = gps[6], let value = reader.rationals(entry)?.first, value.isFinite {
            let below = gps[5].flatMap { reader.bytes($0)?.first } == 1
            altitude = below ? -value : value
        }
        if let entry = gps[0x1F], let value = reader.rationals(entry)?.first, value.isFinite, value >= 0 { horizontalError = value }
        if let date = gps[0x1D].flatMap({ reader.ascii($0) }), let clock = gps[7].flatMap({ reader.rationals($0) }), clock.count == 3,
           clock.allSatisfy({ $0.isFinite && $0 >= 0 }) {
            let fields = date.split(separator: ":")
            if fields.count == 3, let y = Int64(fields[0]), let m = Int64(fields[1]), let d = Int64(fields[2]),
               (1...12).contains(m), (1...31).contains(d), (0...9999).contains(y), clock[0] < 24, clock[1] < 60, clock[2] < 61 {
                let days = Timestamp.daysSinceEpoch(year: y, month: m, day: d)
                let seconds = clock[0] * 3600 + clock[1] * 60 + clock[2]
                gpsTime = days * 86_400_000 + Int64((seconds * 1000).rounded(.down))
            }
        }
    }
}

/// Why a photo's EXIF could not be read.
public struct ExifProblem: Error, Equatable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Bounds-checked reads of a TIFF structure: offsets from its header, in its byte order.
struct TIFFData {
    let bytes: ArraySlice<UInt8>
    var little = true

    struct Entry {
        let type: UInt16
        let count: Int
        /// Where the value is: inline in the entry (at most 4 bytes) or at its offset.
        let valueOffset: Int
    }

    static let typeSizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8]

    func byte(_ offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[bytes.startIndex + offset] : nil
    }

    func u16(_ offset: Int) -> UInt16? {
        guard let a = byte(offset), let b = byte(offset + 1) else { return nil }
        return little ? UInt16(a) | UInt16(b) << 8 : UInt16(a) << 8 | UInt16(b)
    }

    func u32(_ offset: Int) -> UInt32? {
        guard let a = u16(offset), let b = u16(offset + 2) else { return nil }
        return little ? UInt32(a) | UInt32(b) << 16 : UInt32(a) << 16 | UInt32(b)
    }

    /// The entries of the IFD at `offset`, by tag (the first of a repeated tag).
    func entries(at offset: Int) throws(ExifProblem) -> [UInt16: Entry] {
        var outside: [UInt16: Int] = [:]
        return try entries(at: offset, outside: &outside)
    }

    /// As ``entries(at:)``; `outside` gets the tags whose value lies past the data, with the
    /// value's offset (such an entry is not returned: its value cannot be read).
    func entries(at offset: Int, outside: inout [UInt16: Int]) throws(ExifProblem) -> [UInt16: Entry] {
        guard let count = u16(offset), offset + 2 + Int(count) * 12 <= bytes.count else {
            throw ExifProblem("EXIF IFD at byte \(offset) lies outside the \(bytes.count) bytes of EXIF")
        }
        var result: [UInt16: Entry] = [:]
        for i in 0..<Int(count) {
            let at = offset + 2 + i * 12
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4), let size = Self.typeSizes[type] else { continue }
            let total = Int(n) * size
            let valueOffset = total <= 4 ? at + 8 : Int(u32(at + 8) ?? UInt32.max)
            guard total <= bytes.count, valueOffset + total <= bytes.count else {
                if outside[tag] == nil { outside[tag] = valueOffset }
                continue
            }
            if result[tag] == nil { result[tag] = Entry(type: type, count: Int(n), valueOffset: valueOffset) }
        }
        return result
    }

    /// A LONG (or SHORT) offset to another IFD.
    func pointer(_ entry: Entry) -> Int? {
        switch entry.type {
        case 4, 13: return u32(entry.valueOffset).map(Int.init)
        case 3: return u16(entry.valueOffset).map(Int.init)
        default: return nil
        }
    }

    /// ASCII text up to its first NUL, spaces at the end trimmed.
    func ascii(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let raw = bytes(entry) else { return nil }
        let text = raw.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self).trimmingSpaces
    }

    func bytes(_ entry: Entry) -> ArraySlice<UInt8>? {
        guard let size = Self.typeSizes[entry.type] else { return nil }
        let start = bytes.startIndex + entry.valueOffset
        return bytes[start..<(start + entry.count * size)]
    }

    /// RATIONAL values (SRATIONAL too); a zero denominator gives NaN.
    func rationals(_ entry: Entry) -> [Double]? {
        guard entry.type == 5 || entry.type == 10 else { return nil }
        return (0..<entry.count).compactMap { i -> Double? in
            guard let n = u32(entry.valueOffset + 8 * i), let d = u32(entry.valueOffset + 8 * i + 4) else { return nil }
            if d == 0 { return .nan }
            return entry.type == 10 ? Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)) : Double(n) / Double(d)
        }
    }
}
