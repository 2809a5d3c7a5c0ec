import TextFormats
/// The `{"locations": [record, ...]}` files: Google Takeout location history (`Records.json`),
/// Polarsteps' `locations.json` and Overland's batches, told apart record by record by their
/// members, never by the one top-level key they share.
///
/// Each record is read straight from the event stream (never materialised, but for an Overland
/// record's `geometry` and `properties`): `Records.json` reaches gigabytes.
/// - Takeout: `latitudeE7`, `longitudeE7` (integers, degrees × 10⁷), `accuracy` (metres),
///   `altitude` (metres), `timestamp` (ISO-8601) or the older `timestampMs` (milliseconds as a
///   string). Everything else (`activity`, `source`, `deviceTag`, `velocity`, `heading`,
///   `verticalAccuracy`, `platformType`, …) is skipped.
/// - Polarsteps: `lat`, `lon` (degrees), `time` (seconds since 1970, or an ISO-8601 string).
/// - Overland: a GeoJSON Feature, its `geometry` a `Point` (`[lon, lat(, alt)]`), its
///   `properties` `timestamp` (ISO-8601), `horizontal_accuracy` (metres; negative: unknown) and
///   `altitude`. A feature without a geometry (Overland's status records, `"action":
///   "will_terminate"`) is no position and is passed over.
enum TakeoutRecords {
    private enum Field {
        case latitude, longitude, accuracy, altitude, timestamp, timestampMs
        case lat, lon, time, geometry, properties, other
    }

    private static func field(_ reader: borrowing JSONStreamReader) -> Field {
        // By length first: most keys are then told apart by one comparison.
        switch reader.withTokenBytes({ $0.count }) {
        case 10: return reader.tokenIs("latitudeE7") ? .latitude : reader.tokenIs("properties") ? .properties : .other
        case 11: return reader.tokenIs("longitudeE7") ? .longitude : reader.tokenIs("timestampMs") ? .timestampMs : .other
        case 9: return reader.tokenIs("timestamp") ? .timestamp : .other
        case 8: return reader.tokenIs("accuracy") ? .accuracy : reader.tokenIs("altitude") ? .altitude : reader.tokenIs("geometry") ? .geometry : .other
        case 3: return reader.tokenIs("lat") ? .lat : reader.tokenIs("lon") ? .lon : .other
        case 4: return reader.tokenIs("time") ? .time : .other
        default: return .other
        }
    }

    /// Reads the `locations` array whose `[` was just read; says which format its first record
    /// with a position is (Takeout when none is).
    static func readLocations<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws -> JSONTrackFormat {
        var format: JSONTrackFormat?
        try forEachObjectElement(&reader, context, &sink, what: "location record") { reader, sink, start in
            var latitudeE7: Double?
            var longitudeE7: Double?
            var accuracy: Double?
            var altitude: Double?
            var isoTime: Int64?
            var millisecondTime: Int64?
            var problem: String?
            var degrees: (latitude: Double?, longitude: Double?) = (nil, nil)
            var secondsTime: Int64?
            var feature: (geometry: JSONValue?, properties: JSONValue?)?
            while try reader.next() == .key {
                let field = field(reader)
                let value = try reader.next()
                switch field {
                case .lat, .lon:
                    guard value == .number, reader.tokenNumber.isFinite else {
                        try reader.skip(from: value)
                        problem = problem ?? "\(field == .lat ? "lat" : "lon") is not a number"
                        continue
                    }
                    if field == .lat { degrees.latitude = reader.tokenNumber } else { degrees.longitude = reader.tokenNumber }
                case .time:
                    if value == .number, let seconds = reader.withTokenBytes({ DecimalNumber.parse($0) }), seconds.isFinite,
                       abs(seconds) < 2.5e11, Timestamp.representable.contains(Int64((seconds * 1000).rounded())) {
                        secondsTime = Int64((seconds * 1000).rounded())
                    } else if value == .string, let time = reader.withTokenBytes(Timestamp.parse) {
                        secondsTime = time
                    } else {
                        try reader.skip(from: value)
                        problem = problem ?? "time is not seconds since 1970 or an ISO-8601 time"
                    }
                case .geometry, .properties:
                    let built = try reader.value(from: value, maximumBytes: context.recordBytes)
                    var parts = feature ?? (nil, nil)
                    if field == .geometry { parts.geometry = built } else { parts.properties = built }
                    feature = parts
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
            if latitudeE7 == nil, longitudeE7 == nil {
                if degrees.latitude != nil || degrees.longitude != nil {
                    format = format ?? .polarstepsLocations
                    guard let latitude = degrees.latitude, let longitude = degrees.longitude else {
                        sink.unreadablePoint(context.problem("location without lat and lon", at: start))
                        return
                    }
                    sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: secondsTime))
                    return
                }
                if let feature {
                    format = format ?? .overland
                    overland(feature.geometry, feature.properties, at: start, context, &sink)
                    return
                }
            }
            format = format ?? .takeoutRecords
            guard let latitudeE7, let longitudeE7 else {
                sink.unreadablePoint(context.problem(latitudeE7 == nil ? "location record without latitudeE7" : "location record without longitudeE7", at: start))
                return
            }
            sink.point(TrackPoint(latitude: unwrapped(latitudeE7, above: 900_000_000) / 1e7,
                                  longitude: unwrapped(longitudeE7, above: 1_800_000_000) / 1e7,
                                  time: isoTime ?? millisecondTime, accuracy: accuracy, elevation: altitude))
        }
        return format ?? .takeoutRecords
    }

    /// An Overland record: a GeoJSON Feature of a `Point`; without a geometry it is a status
    /// record, no position, passed over.
    private static func overland<Sink: TrackSink>(_ geometry: JSONValue?, _ properties: JSONValue?, at start: RecordStart, _ context: RecordContext, _ sink: inout Sink) {
        guard let geometry, geometry != .null else { return }
        guard geometry["type"]?.stringValue == "Point", case let .coordinates(position)? = geometry["coordinates"],
              position.depth == 1, position.values.count >= 2, position.values[0].isFinite, position.values[1].isFinite else {
            sink.unreadablePoint(context.problem("Overland location whose geometry is not a Point [longitude, latitude]", at: start))
            return
        }
        var time: Int64?
        if let stamp = properties?["timestamp"] {
            guard let parsed = stamp.stringValue.flatMap(Timestamp.parse) else {
                sink.unreadablePoint(context.problem("Overland location whose timestamp is not an ISO-8601 time", at: start))
                return
            }
            time = parsed
        }
        let accuracy = properties?["horizontal_accuracy"]?.numberValue.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        let altitude = properties?["altitude"]?.numberValue.flatMap { $0.isFinite ? $0 : nil }
        sink.point(TrackPoint(latitude: position.values[1], longitude: position.values[0], time: time, accuracy: accuracy,
                              elevation: altitude ?? (position.values.count > 2 && position.values[2].isFinite ? position.values[2] : nil)))
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
        default: return "field"
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
