import TextFormats

/// Reads Huawei Health's motion-path records ("HiTrack"), the lines a Huawei watch or phone
/// records an exercise in: `tp=TYPE;k=…;…;` with `tp=lbs` for a position (`lat`, `lon`, `alt`,
/// `t`) and other types for heart rate (`h-r`), steps (`s-r`), pace (`p-m`), altitude (`alti`)
/// and more. They come as `HiTrack_…` files (from the app's data) and inside the `attribute` of
/// each record of the data export's `motion path detail data.json` (``JSONTrackReader``).
///
/// Read (see `docs/input-formats.md`, "Huawei Health"): each `tp=lbs` record is a point: `lat`,
/// `lon` (degrees), `alt` (metres; `0` is what Huawei writes when it has none, so it is read as
/// none), `t` the time, milliseconds since 1970 when at least 10¹¹,
/// else seconds (Huawei has written both, often as `1.55173212E12`). Huawei marks a fix lost
/// (a tunnel, a pause) with `lat=90` and `lon=-80`, which is no place anyone was: such records
/// are passed over and counted (``Summary/lostFixes``). A `tp=lbs` record without a number for
/// `lat`, `lon` or `t` is unreadable. Every other record type is passed over.
public enum HiTrackReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// `tp=lbs` records marked as a lost fix (`lat=90;lon=-80`).
        public var lostFixes = 0
        /// Records of other types (heart rate, steps, …).
        public var otherRecords = 0

        public init() {}
    }

    /// Whether a file beginning with `prefix` is HiTrack records: its first line starts `tp=`.
    public static func recognizes<Prefix: Collection<UInt8>>(_ prefix: Prefix) -> Bool {
        Array(prefix.prefix(3)) == Array("tp=".utf8)
    }

    /// Reads the records in `source` into `sink`; `path` names it in errors.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var summary = Summary()
        try reader.forEachLine { line, number in
            record(line, &summary, &sink) { InputError(path: path, line: number, reason: $0) }
        }
        return summary
    }

    /// One record (`tp=…;k=…;…;`, without its line end); `problem` makes a report of a reason.
    static func record<Sink: TrackSink>(_ line: UnsafeRawBufferPointer, _ summary: inout Summary, _ sink: inout Sink, problem: (String) -> InputError) {
        var type: UnsafeRawBufferPointer?
        var latitude: Double?, longitude: Double?, altitude: Double?, time: Double?
        var bad: String?
        var start = 0
        for i in 0...line.count where i == line.count || line[i] == UInt8(ascii: ";") {
            let field = UnsafeRawBufferPointer(rebasing: line[start..<i])
            start = i + 1
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = UnsafeRawBufferPointer(rebasing: field[..<equals]), value = UnsafeRawBufferPointer(rebasing: field[(equals + 1)...])
            func number() -> Double? {
                let parsed = DecimalNumber.parse(value)
                if parsed == nil, bad == nil { bad = "\(String(decoding: key, as: UTF8.self)) '\(String(decoding: value.prefix(30), as: UTF8.self))' is not a number" }
                return parsed
            }
            switch String(decoding: key, as: UTF8.self) {
            case "tp": type = value
            case "lat": latitude = number()
            case "lon": longitude = number()
            case "alt": altitude = number()
            case "t": time = number()
            default: break
            }
        }
        guard let type, type.elementsEqual("lbs".utf8) else {
            if line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) { summary.otherRecords += 1 }
            return
        }
        func unreadable(_ reason: String) {
            summary.unreadablePoints += 1
            sink.unreadablePoint(problem("tp=lbs: \(reason)"))
        }
        if let bad { return unreadable(bad) }
        guard let latitude, let longitude else { return unreadable("without lat and lon") }
        guard let time, time.isFinite, time >= 0 else { return unreadable("without a time t") }
        if latitude == 90 && longitude == -80 {
            summary.lostFixes += 1
            return
        }
        let milliseconds = (time >= 1e11 ? time : time * 1000).rounded()
        guard milliseconds < 2.5e14, Timestamp.representable.contains(Int64(milliseconds)) else { return unreadable("t is outside the years 0000–9999") }
        summary.points += 1
        sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: Int64(milliseconds), elevation: altitude == 0 ? nil : altitude))
    }
}
