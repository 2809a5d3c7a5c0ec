#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// Reads CSV tracks, `lat,lon[,time][,accuracy]` and the dialects GPS loggers write, as a
/// stream (one line at a time). Every rule is in `docs/input-formats.md` ("CSV"):
///
/// - Separator: `,`, `;` or tab, whichever the first line (header or data) has most of outside
///   double quotes (a tie goes to the comma). With `;` or tab, a decimal comma (`25,2736`) reads
///   as a point.
/// - Header: optional. A first line whose first field holds a letter (other than `nan`/`inf`)
///   is a header; its columns are recognised by name (case, spaces, `_`, `-`, `/`, `(`, `)` and
///   `.` ignored), in any order: see ``Columns``. A header without a latitude and a longitude
///   column stops the file. Without a header the columns are positional: latitude, longitude,
///   then optionally time, then accuracy.
/// - Coordinates: decimal degrees, optionally with a hemisphere letter after them (`25.2736N`,
///   `121.5E`; `S` and `W` negate). Delivered as read, even outside ±90/±180; range checks are the
///   pipeline's.
/// - Time: see ``CSVTime``; a time without `Z` or an offset is local, in `timeZone`
///   (except in Columbus loggers' layout, whose times are UTC).
/// - Accuracy: metres, non-negative. Empty time, accuracy and elevation fields mean "unknown".
/// - A line that cannot be read (too few fields, a field that is not a number or time) goes to
///   ``TrackSink/unreadablePoint(_:)`` with its line number; empty lines are skipped. Lines end
///   as ``LineReader`` says (LF, CRLF, CR, NEL, U+2028); a line longer than
///   ``LineReader/maximumLineLength`` stops the file.
///
/// The file is one segment: no ``TrackSink/segmentBreak()`` is sent (the pipeline's time-gap
/// rule splits it).
public enum TrackCSVReader {
    /// The zone of times written without an offset when none is given: the system's
    /// (``LocalTimeZone/system``), as `unlocks classify` defaults.
    public static var defaultTimeZone: LocalTimeZone { .system }

    /// What one file held.
    public struct Summary: Equatable, Sendable {
        /// Points delivered through ``TrackSink/point(_:)``.
        public var points = 0
        /// Lines delivered through ``TrackSink/unreadablePoint(_:)``.
        public var unreadablePoints = 0
        /// Whether the first line was a header.
        public var hasHeader = false
        /// Rows with neither a latitude nor a longitude (a sensor-only row, a pause or segment
        /// marker of OpenTracks' export): no position, passed over.
        public var rowsWithoutPosition = 0

        public init() {}
    }

    /// Where each value is, as column indices, and how the file writes its fields. Plain values
    /// only (the zone of unzoned times goes beside it): a line's parse copies it for nothing.
    struct Columns: Equatable {
        var latitude = 0
        var longitude = 1
        /// The time column, or with ``clock`` the date column of a date + time pair.
        var time: Int? = 2
        /// The time-of-day column when the date is in ``time`` (Columbus `DATE`,`TIME`).
        var clock: Int?
        var accuracy: Int? = 3
        var elevation: Int?
        var separator = UInt8(ascii: ",")
        /// The layout is one whose times are UTC whatever the run's offset: Columbus loggers'
        /// (`LATITUDE N/S`; their `DATE`,`TIME` are the GPS's UTC, as GPSBabel's v900 reader takes them).
        var timesAreUTC = false
        /// The coordinate columns hold degrees × 10⁷ as integers (`latitudeE7`, `longitudeE7`, as
        /// Google's location history writes them, and tools that flatten it to CSV).
        var coordinatesE7 = false
        /// The position is one column of WKT, `POINT (longitude latitude)` (Reitti's export, PostGIS
        /// dumps): ``latitude`` and ``longitude`` both name it.
        var wktPoint = false
        /// OpenTracks' `trackpoint_type` column: a `SEGMENT_START_…` row starts a new segment.
        var rowType: Int?

        /// Header names (folded as ``fold(_:)`` does) of each value.
        static let latitudeNames: Set<String> = ["lat", "latitude", "latitudens", "latitudedeg", "latitudedegrees", "latdeg"]
        static let longitudeNames: Set<String> = ["lon", "lng", "long", "longitude", "longitudeew", "longitudedeg", "longitudedegrees", "londeg", "lngdeg"]
        /// Coordinates in degrees × 10⁷: both columns must be so named.
        static let latitudeE7Names: Set<String> = ["latitudee7", "late7"]
        static let longitudeE7Names: Set<String> = ["longitudee7", "lnge7", "lone7"]
        /// A full time in one column: `date time` is BasicAirData GPS Logger's, `dataTime`
        /// (Unix seconds) 一生足迹's.
        /// `timestamp_ms` is MemoLanes' raw export's (epoch milliseconds); `#time` (OpenTracks' first
        /// column, its header marked as a comment) folds to `time`.
        static let timeNames: Set<String> = ["time", "timestamp", "datetime", "datatime", "utc", "utctime", "timeutc", "gpstime", "localtime", "timelocal",
                                             "timestampms", "timems"]
        /// A column of WKT points (`POINT (lon lat)`), used when no latitude and longitude columns are named.
        static let geometryNames: Set<String> = ["geom", "geometry", "wkt", "thegeom"]
        static let dateNames: Set<String> = ["date", "utcdate", "datelocal", "localdate"]
        static let accuracyNames: Set<String> = ["accuracy", "acc", "hacc", "horizontalaccuracy", "accuracyhorizontal", "accuracym", "accuracymeters", "accuracymetres"]
        static let elevationNames: Set<String> = ["ele", "elevation", "alt", "altitude", "altitudem", "elevationm", "height", "heightm"]

        /// The columns a header names, or nil when it names no latitude or no longitude.
        init?(header: UnsafeRawBufferPointer, separator: UInt8 = UInt8(ascii: ",")) {
            self.separator = separator
            var latitude: Int?, longitude: Int?, time: Int?, date: Int?
            var latitudeE7: Int?, longitudeE7: Int?, geometry: Int?
            accuracy = nil
            var index = 0
            var start: Int? = 0
            while let from = start {
                let field = CoordinateCSV.field(header, from: from, separator: separator)
                let name = Self.fold(UnsafeRawBufferPointer(rebasing: header[field.range]))
                if Self.latitudeNames.contains(name) {
                    if latitude == nil { timesAreUTC = name == "latitudens" }
                    latitude = latitude ?? index
                }
                else if Self.longitudeNames.contains(name) { longitude = longitude ?? index }
                else if Self.latitudeE7Names.contains(name) { latitudeE7 = latitudeE7 ?? index }
                else if Self.longitudeE7Names.contains(name) { longitudeE7 = longitudeE7 ?? index }
                else if Self.timeNames.contains(name) { time = time ?? index }
                else if Self.dateNames.contains(name) { date = date ?? index }
                else if Self.accuracyNames.contains(name) { accuracy = accuracy ?? index }
                else if Self.elevationNames.contains(name) { elevation = elevation ?? index }
                else if Self.geometryNames.contains(name) { geometry = geometry ?? index }
                else if name == "trackpointtype" { rowType = rowType ?? index }
                index += 1
                start = field.next
            }
            if latitude == nil, longitude == nil, let latitudeE7, let longitudeE7 {
                latitude = latitudeE7
                longitude = longitudeE7
                coordinatesE7 = true
            }
            if latitude == nil, longitude == nil, let geometry {
                latitude = geometry
                longitude = geometry
                wktPoint = true
            }
            guard let latitude, let longitude else { return nil }
            self.latitude = latitude
            self.longitude = longitude
            switch (date, time) {
            case let (date?, time?):
                self.time = date
                clock = time
            case let (date?, nil):
                self.time = date
            default:
                self.time = time
            }
            last = max(latitude, longitude, self.time ?? 0, clock ?? 0, accuracy ?? 0, elevation ?? 0, rowType ?? 0)
        }

        /// Positional: lat, lon, time, accuracy.
        init(separator: UInt8 = UInt8(ascii: ",")) {
            self.separator = separator
        }

        /// The last column read (kept, not computed per line).
        private(set) var last = 3

        /// A header name lower-cased, without spaces, `_`, `-`, `/`, `(`, `)`, `.`, `#` or quotes.
        static func fold(_ bytes: UnsafeRawBufferPointer) -> String {
            let kept = bytes.compactMap { byte -> UInt8? in
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: "("),
                     UInt8(ascii: ")"), UInt8(ascii: "."), UInt8(ascii: "\""), UInt8(ascii: "\t"), UInt8(ascii: "#"):
                    return nil
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    return byte | 0x20
                default:
                    return byte
                }
            }
            return String(decoding: kept, as: UTF8.self)
        }
    }

    /// Reads the CSV in `source` into `sink`; `path` names it in errors. Times written without
    /// an offset are wall-clock times in `timeZone`.
    ///
    /// - Throws: ``InputError`` when the header names no coordinates or a line is too long.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String,
                                                                 timeZone: LocalTimeZone = defaultTimeZone,
                                                                 into sink: inout Sink) throws -> Summary {
        // UTF-16 (with its byte order mark, as Windows' "Unicode" text and Excel write) is read
        // as the same text in UTF-8.
        var reader = LineReader(UTF16TextSource(source), path: path)
        defer { reader.close() }
        var summary = Summary()
        var columns: Columns?
        // The zone of times written without an offset: UTC for a layout whose times are UTC.
        var zone = timeZone
        try reader.forEachLine { raw, number in
            var line = raw
            if number == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = UnsafeRawBufferPointer(rebasing: line[3...]) }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
            if columns == nil {
                let separator = detectSeparator(line)
                if CoordinateCSV.isHeader(line, separator: separator), !startsWithHemisphereNumber(line, separator: separator) {
                    guard let named = Columns(header: line, separator: separator) else {
                        throw InputError(path: path, line: number, reason: "the header names no latitude and longitude columns (expected e.g. 'lat,lon,time,accuracy')")
                    }
                    if named.timesAreUTC { zone = .utc }
                    columns = named
                    summary.hasHeader = true
                    return
                }
                columns = Columns(separator: separator)
            }
            if let rowType = columns!.rowType, startsSegment(line, column: rowType, columns!) { sink.segmentBreak() }
            do {
                var point = try parseSimple(line, columns!, zone: zone) ?? parse(line, columns!, zone: zone)
                if columns!.coordinatesE7 {
                    point.latitude /= 1e7
                    point.longitude /= 1e7
                }
                sink.point(point)
                summary.points += 1
            } catch is NoPosition {
                summary.rowsWithoutPosition += 1
            } catch let problem as LineProblem {
                sink.unreadablePoint(InputError(path: path, line: number, reason: problem.reason))
                summary.unreadablePoints += 1
            }
        }
        return summary
    }

    /// True when `text` (a file's first bytes) begins like a CSV of coordinates: its first line that
    /// is not blank is a header naming a latitude and a longitude column, or a line whose fields
    /// read as a point. UTF-16 (a byte order mark) is left to the reader. What a `.txt` found in a
    /// folder must show to be read as CSV rather than skipped as text (a README, notes).
    package static func beginsWithCoordinates(_ text: ArraySlice<UInt8>) -> Bool {
        if text.starts(with: [0xFF, 0xFE]) || text.starts(with: [0xFE, 0xFF]) { return true }
        var start = text.starts(with: [0xEF, 0xBB, 0xBF]) ? text.startIndex + 3 : text.startIndex
        while start < text.endIndex {
            let end = text[start...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? text.endIndex
            let line = Array(text[start..<end])
            if !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                return line.withUnsafeBytes { line in
                    let separator = detectSeparator(line)
                    if CoordinateCSV.isHeader(line, separator: separator), !startsWithHemisphereNumber(line, separator: separator) {
                        return Columns(header: line, separator: separator) != nil
                    }
                    return (try? parse(line, Columns(separator: separator), zone: .utc)) != nil
                }
            }
            start = end + 1
        }
        return false
    }

    /// Whether the first field is a number with a hemisphere letter (`25.2736N`): data, though
    /// it holds a letter.
    static func startsWithHemisphereNumber(_ line: UnsafeRawBufferPointer, separator: UInt8) -> Bool {
        var field = CoordinateCSV.field(line, from: 0, separator: separator).range
        guard field.count > 1, [UInt8(ascii: "N"), UInt8(ascii: "S"), UInt8(ascii: "E"), UInt8(ascii: "W")].contains(line[field.upperBound - 1] & ~0x20) else { return false }
        field = field.lowerBound..<(field.upperBound - 1)
        while field.upperBound > field.lowerBound, line[field.upperBound - 1] == UInt8(ascii: " ") { field = field.lowerBound..<(field.upperBound - 1) }
        return DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: line[field])) != nil
    }

    /// `,`, `;` or tab: the most frequent outside double quotes; a tie goes to `,`, then `;`.
    static func detectSeparator(_ line: UnsafeRawBufferPointer) -> UInt8 {
        var commas = 0, semicolons = 0, tabs = 0
        var quoted = false
        for byte in line {
            switch byte {
            case UInt8(ascii: "\""): quoted.toggle()
            case UInt8(ascii: ",") where !quoted: commas += 1
            case UInt8(ascii: ";") where !quoted: semicolons += 1
            case UInt8(ascii: "\t") where !quoted: tabs += 1
            default: break
            }
        }
        if tabs > commas, tabs > semicolons { return UInt8(ascii: "\t") }
        if semicolons > commas { return UInt8(ascii: ";") }
        return UInt8(ascii: ",")
    }

    struct LineProblem: Error {
        var reason: String
    }

    /// A row whose latitude and longitude fields are both empty (or a WKT `POINT EMPTY`): no
    /// position, not a point and not unreadable (OpenTracks writes such rows for sensor readings,
    /// pauses and segment markers, as TCX and FIT have trackpoints without a position).
    struct NoPosition: Error {}

    /// Whether the row's `trackpoint_type` (OpenTracks) starts a segment: `SEGMENT_START_MANUAL`
    /// (the user resumed) or `SEGMENT_START_AUTOMATIC`.
    static func startsSegment(_ line: UnsafeRawBufferPointer, column: Int, _ columns: Columns) -> Bool {
        var start: Int? = 0
        var index = 0
        while let from = start {
            let field = CoordinateCSV.field(line, from: from, separator: columns.separator)
            if index == column { return line[field.range].starts(with: "SEGMENT_START".utf8) }
            index += 1
            start = field.next
        }
        return false
    }

    /// `POINT (longitude latitude[ z[ m]])` — also `POINT Z (…)`, `POINT M`, `POINT ZM`, and with an
    /// EWKT `SRID=4326;` before it — as (latitude, longitude, elevation); `POINT EMPTY` is no
    /// position. A third number of a `POINT Z` (or of three or four numbers without a letter) is
    /// the elevation.
    static func wktPoint(_ bytes: UnsafeRawBufferPointer) throws -> (latitude: Double, longitude: Double, elevation: Double?) {
        let text = String(decoding: bytes, as: UTF8.self).uppercased()
        var rest = Substring(text)
        if rest.hasPrefix("SRID=") {
            guard let semicolon = rest.firstIndex(of: ";"), rest[rest.index(rest.startIndex, offsetBy: 5)..<semicolon] == "4326" else {
                throw LineProblem(reason: "geometry '\(shown(bytes))' is not in SRID 4326 (WGS-84 longitude and latitude)")
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        rest = rest.drop { $0 == " " }
        guard rest.hasPrefix("POINT") else { throw LineProblem(reason: "geometry '\(shown(bytes))' is not a WKT POINT") }
        rest = rest.dropFirst(5).drop { $0 == " " }
        var hasM = false, hasZ = false
        if rest.hasPrefix("ZM") { hasZ = true; hasM = true; rest = rest.dropFirst(2) }
        else if rest.hasPrefix("Z") { hasZ = true; rest = rest.dropFirst() }
        else if rest.hasPrefix("M") { hasM = true; rest = rest.dropFirst() }
        rest = rest.drop { $0 == " " }
        if rest == "EMPTY" { throw NoPosition() }
        guard rest.hasPrefix("("), rest.hasSuffix(")") else { throw LineProblem(reason: "geometry '\(shown(bytes))' is not 'POINT (longitude latitude)'") }
        let numbers = rest.dropFirst().dropLast().split(separator: " ").map { Double(String($0)) }
        guard (2...4).contains(numbers.count), numbers.allSatisfy({ $0 != nil }) else {
            throw LineProblem(reason: "geometry '\(shown(bytes))' is not 'POINT (longitude latitude)'")
        }
        let elevation = numbers.count >= 3 && (hasZ || !hasM) ? numbers[2] : nil
        return (numbers[1]!, numbers[0]!, elevation)
    }

    /// `parse` for a line whose fields are plain (unpadded, unquoted, not empty) numbers and
    /// ISO-8601 times, nearly every line: each number is read where it starts, without first
    /// searching for its separator. Nil, having decided nothing, for anything else (an empty or
    /// padded field, an epoch time, a hemisphere letter, a date + time pair, a value that does not
    /// parse): `parse` then reads the line and words its problem. A field this reads has no
    /// padding or quotes to remove, so `parse` would read the same bytes and find the same value.
    static func parseSimple(_ line: UnsafeRawBufferPointer, _ columns: Columns, zone: LocalTimeZone) -> TrackPoint? {
        guard columns.clock == nil, !columns.wktPoint else { return nil }
        var latitude: Double?, longitude: Double?, time: Int64?, accuracy: Double?, elevation: Double?
        let count = line.count, last = columns.last, separator = columns.separator
        var start = 0
        var index = 0
        while index <= last {
            let fieldEnd: Int
            if index == columns.latitude || index == columns.longitude || index == columns.accuracy || index == columns.elevation {
                guard let number = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(rebasing: line[start...])) else { return nil }
                fieldEnd = start + number.length
                guard fieldEnd == count || line[fieldEnd] == separator else { return nil }
                if index == columns.latitude {
                    latitude = number.value
                } else if index == columns.longitude {
                    longitude = number.value
                } else if index == columns.accuracy {
                    guard number.value >= 0 else { return nil }
                    accuracy = number.value
                } else {
                    elevation = number.value
                }
            } else {
                let hit = start < count ? memchr(line.baseAddress! + start, Int32(separator), count - start) : nil
                fieldEnd = hit.map { line.baseAddress!.distance(to: UnsafeRawPointer($0)) } ?? count
                if index == columns.time {
                    guard fieldEnd > start,
                          let parsed = Timestamp.parse(UnsafeRawBufferPointer(rebasing: line[start..<fieldEnd]), unzonedIn: zone)
                    else { return nil }
                    time = parsed
                }
            }
            if fieldEnd == count { break }
            start = fieldEnd + 1
            index += 1
        }
        guard let latitude, let longitude else { return nil }
        return TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, elevation: elevation)
    }

    /// One data line as a point.
    static func parse(_ line: UnsafeRawBufferPointer, _ columns: Columns, zone: LocalTimeZone) throws -> TrackPoint {
        // The fields the columns name, found in one pass without allocating; empty means absent.
        var latitudeField = 0..<0, longitudeField = 0..<0, timeField = 0..<0, clockField = 0..<0, accuracyField = 0..<0, elevationField = 0..<0
        let last = columns.last
        var index = 0
        var start = 0
        while index <= last {
            let field = CoordinateCSV.field(line, from: start, separator: columns.separator)
            if !field.range.isEmpty {
                if index == columns.latitude { latitudeField = field.range }
                if index == columns.longitude { longitudeField = field.range }
                if index == columns.time { timeField = field.range }
                if index == columns.clock { clockField = field.range }
                if index == columns.accuracy { accuracyField = field.range }
                if index == columns.elevation { elevationField = field.range }
            }
            guard let next = field.next else { break }
            index += 1
            start = next
        }
        if latitudeField.isEmpty && longitudeField.isEmpty { throw NoPosition() }
        let latitude: Double, longitude: Double
        var wktElevation: Double?
        if columns.wktPoint {
            (latitude, longitude, wktElevation) = try wktPoint(UnsafeRawBufferPointer(rebasing: line[latitudeField]))
        } else {
            latitude = try coordinate(line, latitudeField, "latitude", positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), columns)
            longitude = try coordinate(line, longitudeField, "longitude", positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), columns)
        }
        var time: Int64?
        if columns.clock != nil {
            let date = UnsafeRawBufferPointer(rebasing: line[timeField]), clock = UnsafeRawBufferPointer(rebasing: line[clockField])
            if !clockField.isEmpty, let whole = Timestamp.parse(clock, unzonedIn: zone) {
                // A time column that holds a whole ISO-8601 timestamp is read alone.
                time = whole
            } else if !timeField.isEmpty || !clockField.isEmpty {
                guard let parsed = CSVTime.parse(date: date, time: clock, zone: zone) else {
                    throw LineProblem(reason: "date '\(shown(date))' and time '\(shown(clock))' are not a date (YYYY-MM-DD, YYMMDD…) and a time (hh:mm:ss, hhmmss)")
                }
                time = parsed
            }
        } else if !timeField.isEmpty {
            let bytes = UnsafeRawBufferPointer(rebasing: line[timeField])
            guard let parsed = CSVTime.parse(bytes, zone: zone) else {
                throw LineProblem(reason: "time '\(shown(bytes))' is neither ISO-8601 nor epoch seconds or milliseconds")
            }
            time = parsed
        }
        let accuracy = try number(line, accuracyField, "accuracy", columns, nonNegative: true)
        let elevation = try number(line, elevationField, "elevation", columns) ?? wktElevation
        return TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, elevation: elevation)
    }

    /// A required coordinate, with an optional hemisphere letter after it (`25.2736N`, `121.5 E`).
    /// A number never ends in a letter (an exponent's `e` is followed by digits), so a final
    /// N, S, E or W is always a hemisphere.
    private static func coordinate(_ line: UnsafeRawBufferPointer, _ field: Range<Int>, _ name: StaticString,
                                   positive: UInt8, negative: UInt8, _ columns: Columns) throws -> Double {
        guard !field.isEmpty else { throw LineProblem(reason: "no \(name) (expected 'lat,lon[,time][,accuracy]')") }
        let letter = line[field.upperBound - 1] & ~0x20
        // `nan`, `inf`: words, not numbers with a hemisphere.
        guard [UInt8(ascii: "N"), UInt8(ascii: "S"), UInt8(ascii: "E"), UInt8(ascii: "W")].contains(letter), field.count > 1,
              line[field.lowerBound..<(field.upperBound - 1)].contains(where: { $0 &- UInt8(ascii: "0") < 10 }) else {
            return try number(line, field, name, columns, required: true) ?? 0
        }
        let written = UnsafeRawBufferPointer(rebasing: line[field])
        guard letter == positive || letter == negative else {
            throw LineProblem(reason: "\(name) '\(shown(written))' has a hemisphere other than \(Character(Unicode.Scalar(positive))) or \(Character(Unicode.Scalar(negative)))")
        }
        var digits = field.lowerBound..<(field.upperBound - 1)
        while digits.upperBound > digits.lowerBound, line[digits.upperBound - 1] == UInt8(ascii: " ") { digits = digits.lowerBound..<(digits.upperBound - 1) }
        let bytes = UnsafeRawBufferPointer(rebasing: line[digits])
        guard let value = (try? number(line, digits, name, columns, required: true)) ?? nil, value >= 0, bytes.first != UInt8(ascii: "-") else {
            throw LineProblem(reason: "\(name) '\(shown(written))' is not a non-negative number with a hemisphere")
        }
        return letter == negative ? -value : value
    }

    /// The number in `line[field]` (a decimal comma allowed when the separator is not a comma);
    /// nil when the field is empty and not `required`.
    @inline(__always)
    private static func number(_ line: UnsafeRawBufferPointer, _ field: Range<Int>, _ name: StaticString, _ columns: Columns,
                               required: Bool = false, nonNegative: Bool = false) throws -> Double? {
        guard !field.isEmpty else {
            if required { throw LineProblem(reason: "no \(name) (expected 'lat,lon[,time][,accuracy]')") }
            return nil
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[field])
        var parsed = DecimalNumber.parse(bytes)
        if parsed == nil, columns.separator != UInt8(ascii: ","), bytes.count <= 64, let comma = bytes.firstIndex(of: UInt8(ascii: ",")) {
            var copy = [UInt8](bytes)
            copy[comma] = UInt8(ascii: ".")
            parsed = copy.withUnsafeBytes { DecimalNumber.parse($0) }
        }
        guard let parsed, !nonNegative || parsed >= 0 else {
            throw LineProblem(reason: "\(name) '\(shown(bytes))' is not a\(nonNegative ? " non-negative" : "") number")
        }
        return parsed
    }

    /// A field as shown in a problem: its first 40 bytes.
    private static func shown(_ value: UnsafeRawBufferPointer) -> String {
        String(decoding: value.prefix(40), as: UTF8.self)
    }

    /// A Unix time: seconds below 10¹¹ in magnitude, milliseconds from there on, within the
    /// years 0000–9999 (``CSVTime``).
    static func epochMilliseconds(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        CSVTime.epochMilliseconds(bytes)
    }
}
