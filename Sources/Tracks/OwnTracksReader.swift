import TextFormats

/// Reads OwnTracks recorder files (`.rec`, one month of a device's messages as the OwnTracks
/// Recorder stores them): one message a line, `ISO-8601 time`, a tab, the topic or `*`, a tab,
/// the message's JSON (older recorders pad with spaces instead of tabs: the JSON is what starts
/// at the line's first `{`).
///
/// What it delivers (see `docs/input-formats.md`, "OwnTracks"):
/// - a point per `"_type": "location"` message: `lat`, `lon` (degrees), `tst` (the fix's time,
///   seconds since 1970), `acc` (horizontal accuracy, metres), `alt` (metres). The line's own
///   time is when the recorder stored it, not when the fix was taken, and is not read.
/// - other messages (`transition`, `waypoint`, `card`, `lwt`, `status`, …) are not positions of
///   the device and are passed over, counted (``Summary/otherMessages``).
/// - a line without a `{` after its time, JSON that does not parse, or a location without
///   `lat`, `lon` or a valid `tst` is an unreadable point with its line.
/// The file is one segment (the pipeline splits it on time gaps).
public enum OwnTracksReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// Messages other than locations.
        public var otherMessages = 0

        public init() {}
    }

    /// Whether a file beginning with `prefix` is an OwnTracks recording: its first line is an
    /// ISO-8601 time, white space, a topic, white space and `{`.
    public static func recognizes<Prefix: Collection<UInt8>>(_ prefix: Prefix) -> Bool {
        guard let line = Array(prefix).split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: true).first,
              let space = line.firstIndex(where: { $0 == 0x09 || $0 == 0x20 }), let brace = line.firstIndex(of: UInt8(ascii: "{")),
              brace > space, space - line.startIndex <= 40 else { return false }
        return Array(line[..<space]).withUnsafeBytes { Timestamp.parse($0) != nil }
    }

    /// Reads the recording in `source` into `sink`; `path` names it in errors.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var summary = Summary()
        try reader.forEachLine { line, number in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            func unreadable(_ reason: String) {
                summary.unreadablePoints += 1
                sink.unreadablePoint(InputError(path: path, line: number, reason: reason))
            }
            guard let brace = line.firstIndex(of: UInt8(ascii: "{")) else {
                return unreadable("not 'time TAB topic TAB {message}'")
            }
            let message: JSONValue
            do {
                message = try JSONParser.parse(UnsafeRawBufferPointer(rebasing: line[brace...]))
            } catch {
                return unreadable("the message is not JSON (\(error))")
            }
            guard message["_type"]?.stringValue == "location" else {
                summary.otherMessages += 1
                return
            }
            guard let latitude = message["lat"]?.numberValue, let longitude = message["lon"]?.numberValue else {
                return unreadable("location without lat and lon")
            }
            guard let time = message["tst"].flatMap(integerValue).flatMap(Timestamp.milliseconds(fromSeconds:)) else {
                return unreadable("location without a tst of whole seconds since 1970")
            }
            var accuracy: Double?
            if let acc = message["acc"] {
                guard let metres = acc.numberValue, metres >= 0 else { return unreadable("acc is not a non-negative number") }
                accuracy = metres
            }
            summary.points += 1
            sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy,
                                  elevation: message["alt"]?.numberValue))
        }
        return summary
    }
}
