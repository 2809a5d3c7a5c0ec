import TextFormats

/// Reads OziExplorer track files (`.plt`, "OziExplorer Track Point File Version 2.1"), as
/// OziExplorer, OziExplorerCE, GPSBabel and many Russian and Chinese logging apps write them.
///
/// Layout: line 1 the file type, line 2 the datum, line 3 `Altitude is in Feet`, line 4
/// `Reserved 3`, line 5 the track's display settings, line 6 a point count (not trusted), then
/// one point a line: `latitude, longitude, break, altitude (feet), days, date, time`.
///
/// What it delivers (see `docs/input-formats.md`, "OziExplorer PLT"):
/// - a point per line: degrees as written; elevation feet × 0.3048 (`-777`: none); time from the
///   fifth field, days since 1899-12-30 00:00 UTC (Delphi's `TDateTime`, as OziExplorer and
///   GPSBabel write and read it), rounded to the second (the 7 decimals hold ±4 ms; the date and
///   time columns, which are not read, show whole seconds); an empty day, or one at or before
///   1970-01-01 00:00 UTC (`0`, and `25569`, the "unset" value writers put), is no time.
/// - a segment break before the first point and at every point whose break field is `1`.
/// - a datum other than WGS 84 stops the file before any point: its coordinates are not WGS-84
///   and converting datums is not this reader's job (re-save in WGS 84).
/// - a point line that does not parse is an unreadable point with its line.
public enum OziPLTReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        public var segments = 0

        public init() {}
    }

    /// Whether a file beginning with `prefix` is an OziExplorer track: its first line starts
    /// with `OziExplorer Track Point File`.
    public static func recognizes<Prefix: Collection<UInt8>>(_ prefix: Prefix) -> Bool {
        let bytes = Array(prefix.prefix(64)).drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 }
        return bytes.starts(with: Array("OziExplorer Track Point File".utf8))
    }

    /// Reads the track in `source` into `sink`; `path` names it in errors.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var summary = Summary()
        var needsBreak = true
        try reader.forEachLine { line, number in
            switch number {
            case 1:
                guard recognizes(line) else {
                    throw InputError(path: path, line: 1, reason: "not an OziExplorer track: the first line is not 'OziExplorer Track Point File …'")
                }
            case 2:
                let datum = String(decoding: line, as: UTF8.self).trimmingSpaces
                guard datum.uppercased().hasPrefix("WGS 84") || datum.uppercased().hasPrefix("WGS84") else {
                    throw InputError(path: path, line: 2, reason: "datum '\(datum.prefix(40))' is not read: only WGS 84 (re-save the track in WGS 84)")
                }
            case 3...6:
                break
            default:
                guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
                switch point(line) {
                case let .success((point, breaks)):
                    if breaks || needsBreak {
                        sink.segmentBreak()
                        summary.segments += 1
                        needsBreak = false
                    }
                    summary.points += 1
                    sink.point(point)
                case let .failure(problem):
                    summary.unreadablePoints += 1
                    sink.unreadablePoint(InputError(path: path, line: number, reason: problem.reason))
                }
            }
        }
        return summary
    }

    struct Problem: Error {
        let reason: String
    }

    /// Days from 1899-12-30 (Delphi's day 0) to 1970-01-01.
    static let delphiEpochOffset = 25_569.0

    /// One point line: the point and whether it starts a segment.
    static func point(_ line: UnsafeRawBufferPointer) -> Result<(TrackPoint, Bool), Problem> {
        var fields: [UnsafeRawBufferPointer] = []
        var start = 0
        for i in 0...line.count where i == line.count || line[i] == UInt8(ascii: ",") {
            fields.append(trimmed(UnsafeRawBufferPointer(rebasing: line[start..<i])))
            start = i + 1
            if fields.count == 5 { break }
        }
        func text(_ field: UnsafeRawBufferPointer) -> String { String(decoding: field.prefix(30), as: UTF8.self) }
        guard fields.count >= 2, let latitude = DecimalNumber.parse(fields[0]), let longitude = DecimalNumber.parse(fields[1]) else {
            return .failure(Problem(reason: "'\(String(decoding: line.prefix(60), as: UTF8.self))' does not start with latitude and longitude"))
        }
        var breaks = false
        if fields.count > 2, !fields[2].isEmpty {
            guard fields[2].count == 1, fields[2][0] == UInt8(ascii: "0") || fields[2][0] == UInt8(ascii: "1") else {
                return .failure(Problem(reason: "break field '\(text(fields[2]))' is not 0 or 1"))
            }
            breaks = fields[2][0] == UInt8(ascii: "1")
        }
        var elevation: Double?
        if fields.count > 3, !fields[3].isEmpty {
            guard let feet = DecimalNumber.parse(fields[3]) else { return .failure(Problem(reason: "altitude '\(text(fields[3]))' is not a number")) }
            if feet != -777 { elevation = feet * 0.3048 }
        }
        var time: Int64?
        if fields.count > 4, !fields[4].isEmpty {
            guard let days = DecimalNumber.parse(fields[4]), days >= 0 else { return .failure(Problem(reason: "date '\(text(fields[4]))' is not a number of days")) }
            // 25569 is 1970-01-01 00:00 UTC, what writers put for "no time" (and 0 is 1899): a
            // day at or before it is no time, as GPSBabel reads it (no GPS fix is that old).
            if days > delphiEpochOffset {
                let seconds = ((days - delphiEpochOffset) * 86_400).rounded()
                guard seconds.isFinite, abs(seconds) < 1e12, let whole = Int64(exactly: seconds), Timestamp.representable.contains(whole * 1000) else {
                    return .failure(Problem(reason: "date '\(text(fields[4]))' is outside the years 0000–9999"))
                }
                time = whole * 1000
            }
        }
        return .success((TrackPoint(latitude: latitude, longitude: longitude, time: time, elevation: elevation), breaks))
    }

    static func trimmed(_ field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var lower = 0, upper = field.count
        while lower < upper, field[lower] == 0x20 || field[lower] == 0x09 { lower += 1 }
        while upper > lower, field[upper - 1] == 0x20 || field[upper - 1] == 0x09 || field[upper - 1] == 0x0D { upper -= 1 }
        return UnsafeRawBufferPointer(rebasing: field[lower..<upper])
    }
}

extension String {
    /// Without spaces, tabs and carriage returns at either end.
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
