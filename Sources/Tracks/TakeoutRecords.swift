import TextFormats
/// Google Takeout location history, `Records.json`: `{"locations": [record, ...]}`.
///
/// Each record is read straight from the event stream (never materialised): this is the file
/// that reaches gigabytes. Read: `latitudeE7`, `longitudeE7` (integers, degrees × 10⁷),
/// `accuracy` (metres), `altitude` (metres), `timestamp` (ISO-8601) or the older `timestampMs`
/// (milliseconds as a string). Everything else (`activity`, `source`, `deviceTag`, `velocity`,
/// `heading`, `verticalAccuracy`, `platformType`, …) is skipped.
enum TakeoutRecords {
    private enum Field {
        case latitude, longitude, accuracy, altitude, timestamp, timestampMs, other
    }

    private static func field(_ reader: borrowing JSONStreamReader) -> Field {
        // By length first: most keys are then told apart by one comparison.
        switch reader.withTokenBytes({ $0.count }) {
        case 10: return reader.tokenIs("latitudeE7") ? .latitude : .other
        case 11: return reader.tokenIs("longitudeE7") ? .longitude : reader.tokenIs("timestampMs") ? .timestampMs : .other
        case 9: return reader.tokenIs("timestamp") ? .timestamp : .other
        case 8: return reader.tokenIs("accuracy") ? .accuracy : reader.tokenIs("altitude") ? .altitude : .other
        default: return .other
        }
    }

    /// Reads the `locations` array whose `[` was just read.
    static func readLocations<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachObjectElement(&reader, context, &sink, what: "location record") { reader, sink, start in
            var latitudeE7: Double?
            var longitudeE7: Double?
            var accuracy: Double?
            var altitude: Double?
            var isoTime: Int64?
            var millisecondTime: Int64?
            var problem: String?
            while try reader.next() == .key {
                let field = field(reader)
                let value = try reader.next()
                switch field {
                case .latitude, .longitude, .accuracy, .altitude:
                    guard value == .number else {
                        try reader.skip(from: value)
                        problem = problem ?? "\(name(field)) is not a number"
                        continue
                    }
                    let number = reader.withTokenBytes(parseInteger).map(Double.init) ?? reader.tokenNumber
                    guard number.isFinite else {
                        problem = problem ?? "\(name(field)) is out of range"
                        continue
                    }
                    switch field {
                    case .latitude: latitudeE7 = number
                    case .longitude: longitudeE7 = number
                    case .accuracy: accuracy = number
                    default: altitude = number
                    }
                case .timestamp:
                    if value == .string, let time = reader.withTokenBytes(Timestamp.parse) {
                        isoTime = time
                    } else {
                        try reader.skip(from: value)
                        problem = problem ?? "timestamp is not an ISO-8601 time"
                    }
                case .timestampMs:
                    if value == .string || value == .number, let time = reader.withTokenBytes(parseInteger),
                       Timestamp.representable.contains(time) {
                        millisecondTime = time
                    } else {
                        try reader.skip(from: value)
                        problem = problem ?? "timestampMs is not a whole number of milliseconds in the years 0000–9999"
                    }
                case .other:
                    try reader.skip(from: value)
                }
            }
            if let problem {
                sink.unreadablePoint(context.problem(problem, at: start))
                return
            }
            guard let latitudeE7, let longitudeE7 else {
                sink.unreadablePoint(context.problem(latitudeE7 == nil ? "location record without latitudeE7" : "location record without longitudeE7", at: start))
                return
            }
            sink.point(TrackPoint(latitude: unwrapped(latitudeE7, above: 900_000_000) / 1e7,
                                  longitude: unwrapped(longitudeE7, above: 1_800_000_000) / 1e7,
                                  time: isoTime ?? millisecondTime, accuracy: accuracy, elevation: altitude))
        }
    }

    /// Some exports wrote negative E7 values as unsigned 32-bit integers (4233738877 for
    /// -61228419); a value past the valid range is taken back by 2³².
    private static func unwrapped(_ e7: Double, above limit: Double) -> Double {
        e7 > limit ? e7 - 4_294_967_296 : e7
    }

    private static func name(_ field: Field) -> String {
        switch field {
        case .latitude: return "latitudeE7"
        case .longitude: return "longitudeE7"
        case .accuracy: return "accuracy"
        case .altitude: return "altitude"
        case .timestamp: return "timestamp"
        case .timestampMs: return "timestampMs"
        case .other: return "field"
        }
    }

    /// ASCII digits (optionally signed, at most 18) as an Int64, or nil: `timestampMs`, and the
    /// integers of E7 coordinates, accuracy and altitude without the general number parser.
    static func parseInteger(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        guard index < bytes.count, bytes.count - index <= 18 else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }
}
