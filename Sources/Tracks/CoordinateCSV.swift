#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// One parsed `lat,lon[,…]` line: the coordinates and where the rest of the line starts.
package struct CoordinateLine: Equatable {
    package var latitude: Double
    package var longitude: Double
    /// Byte offset of the comma that starts the pass-through columns, or nil when there are none.
    package var restOffset: Int?
    /// With named columns (``CoordinateColumns``): the latitude's and the longitude's whole
    /// fields (padding and quotes included), for a writer that replaces them in place.
    package var fields: (latitude: Range<Int>, longitude: Range<Int>)?

    package static func == (a: Self, b: Self) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.restOffset == b.restOffset
            && a.fields?.latitude == b.fields?.latitude && a.fields?.longitude == b.fields?.longitude
    }
}

/// Where a `lat,lon` file's coordinates are: in its first two columns (no header, or a header
/// whose names are not coordinates'), or where its header names them, in any order (`lon,lat`,
/// `name,latitude,longitude`), by the names the track CSV reader knows.
package struct CoordinateColumns: Equatable {
    package var latitude = 0
    package var longitude = 1

    /// The first two columns: latitude, then longitude.
    package init() {}

    /// The columns `header` names; a header that names no latitude or no longitude (or names
    /// E7 integer columns, which these commands do not read) is an error.
    package init(header: UnsafeRawBufferPointer) throws(CoordinateCSV.LineError) {
        let text = String(decoding: header.prefix(80), as: UTF8.self)
        guard let named = TrackCSVReader.Columns(header: header) else { throw .headerWithoutCoordinates(header: text) }
        guard !named.coordinatesE7 else { throw .headerInE7(header: text) }
        latitude = named.latitude
        longitude = named.longitude
    }

    /// True for the first two columns in order (the rest passed through as it is).
    package var isPositional: Bool { latitude == 0 && longitude == 1 }
}

/// Parses the `lat,lon` CSV lines the CLI reads (`convert`, `locate`).
///
/// Fields may be padded with spaces or wrapped in double quotes. Numbers are plain decimals
/// (optionally with an exponent); `nan`, `inf`, hexadecimal and empty fields are rejected with
/// a reason, as are latitudes outside ±90 and longitudes outside ±180.
package enum CoordinateCSV {
    /// What is wrong with a line, in words for the error message.
    package enum LineError: Error, Equatable, CustomStringConvertible {
        case missingLongitude
        /// A named column the line does not reach (0-based).
        case missingColumn(field: String, column: Int)
        case headerWithoutCoordinates(header: String)
        case headerInE7(header: String)
        case notANumber(field: String, text: String)
        case outOfRange(field: String, value: Double, limit: Int)

        package var description: String {
            switch self {
            case .missingLongitude:
                return "expected 'lat,lon', found only one field"
            case let .notANumber(field, text):
                return "\(field) '\(text)' is not a number"
            case let .outOfRange(field, value, limit):
                return "\(field) \(value) is outside -\(limit)…\(limit)"
            case let .missingColumn(field, column):
                return "no \(field): the header puts it in column \(column + 1), the line has fewer"
            case let .headerWithoutCoordinates(header):
                return "the header '\(header)' names no latitude and longitude columns (expected e.g. 'lat,lon' or 'lon,lat'; a file without a header is read as lat,lon)"
            case let .headerInE7(header):
                return "the header '\(header)' names latitudeE7/longitudeE7 columns (degrees × 10⁷); give degrees (lat,lon)"
            }
        }
    }

    /// True when `line` looks like a header: its first field contains a letter and is not a
    /// number word (`nan`, `inf`, `infinity`, which are bad data, not a header).
    package static func isHeader(_ line: UnsafeRawBufferPointer, separator: UInt8 = UInt8(ascii: ",")) -> Bool {
        let first = field(line, from: 0, separator: separator)
        let bytes = UnsafeRawBufferPointer(rebasing: line[first.range])
        var word = String(decoding: bytes, as: UTF8.self).lowercased()
        if word.hasPrefix("-") || word.hasPrefix("+") { word.removeFirst() }
        return bytes.contains(where: { isLetter($0) }) && !["nan", "inf", "infinity"].contains(word)
    }

    /// Parses `lat,lon[,rest]`.
    package static func parse(_ line: UnsafeRawBufferPointer) throws -> CoordinateLine {
        let first = field(line, from: 0)
        guard let next = first.next else { throw LineError.missingLongitude }
        let second = field(line, from: next)
        let latitude = try number(UnsafeRawBufferPointer(rebasing: line[first.range]), "latitude", limit: 90)
        let longitude = try number(UnsafeRawBufferPointer(rebasing: line[second.range]), "longitude", limit: 180)
        return CoordinateLine(latitude: latitude, longitude: longitude, restOffset: second.next.map { $0 - 1 })
    }

    /// Parses a line whose coordinates are in `columns` (``parse(_:)`` when they are the first two).
    package static func parse(_ line: UnsafeRawBufferPointer, columns: CoordinateColumns) throws -> CoordinateLine {
        if columns.isPositional { return try parse(line) }
        var latitudeField: (trimmed: Range<Int>, whole: Range<Int>)?, longitudeField: (trimmed: Range<Int>, whole: Range<Int>)?
        var index = 0, start: Int? = 0
        while let from = start, latitudeField == nil || longitudeField == nil {
            let field = field(line, from: from)
            let whole = from..<(field.next.map { $0 - 1 } ?? line.count)
            if index == columns.latitude { latitudeField = (field.range, whole) }
            if index == columns.longitude { longitudeField = (field.range, whole) }
            index += 1
            start = field.next
        }
        guard let latitudeField else { throw LineError.missingColumn(field: "latitude", column: columns.latitude) }
        guard let longitudeField else { throw LineError.missingColumn(field: "longitude", column: columns.longitude) }
        let latitude = try number(UnsafeRawBufferPointer(rebasing: line[latitudeField.trimmed]), "latitude", limit: 90)
        let longitude = try number(UnsafeRawBufferPointer(rebasing: line[longitudeField.trimmed]), "longitude", limit: 180)
        return CoordinateLine(latitude: latitude, longitude: longitude, restOffset: nil, fields: (latitudeField.whole, longitudeField.whole))
    }

    private static func number(_ bytes: UnsafeRawBufferPointer, _ name: String, limit: Int) throws -> Double {
        guard let value = DecimalNumber.parse(bytes) else {
            throw LineError.notANumber(field: name, text: String(decoding: bytes.prefix(40), as: UTF8.self))
        }
        guard abs(value) <= Double(limit) else { throw LineError.outOfRange(field: name, value: value, limit: limit) }
        return value
    }

    /// The field starting at `start`, up to the next `separator`: its trimmed, unquoted byte
    /// range, and where the next field starts (nil when this is the last). Inlined: the track CSV
    /// reader calls it for every field.
    @inline(__always)
    static func field(_ line: UnsafeRawBufferPointer, from start: Int, separator: UInt8 = UInt8(ascii: ",")) -> (range: Range<Int>, next: Int?) {
        // memchr: vector compares, and no mispredicted branch at the end of each short field.
        var end = line.count
        if start < end, let comma = memchr(line.baseAddress! + start, Int32(separator), end - start) {
            end = line.baseAddress!.distance(to: UnsafeRawPointer(comma))
        }
        var lower = start, upper = end
        while lower < upper, line[lower] == UInt8(ascii: " ") || line[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, line[upper - 1] == UInt8(ascii: " ") || line[upper - 1] == UInt8(ascii: "\t") { upper -= 1 }
        if upper - lower >= 2, line[lower] == UInt8(ascii: "\""), line[upper - 1] == UInt8(ascii: "\"") {
            lower += 1
            upper -= 1
        }
        return (lower..<upper, end < line.count ? end + 1 : nil)
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
