import TextFormats

/// Polar Flow's account export (account.polar.com, "Download your data"): one
/// `training-session-*.json` per session, `{…, "exercises": [{…, "samples": {"recordedRoute":
/// [{"dateTime", "latitude", "longitude", "altitude"}, …], "heartRate": […], …}}]}` (the
/// structure slither's `PolarJsonLoader` reads; docs/input-formats.md, "Polar Flow").
///
/// Each exercise is a segment (a multisport session has several); its route entries stream one
/// at a time. `dateTime` is the watch's wall-clock time without an offset
/// (`2021-01-30T13:24:11.000`): it is read at the exercise's or session's `timezoneOffset` /
/// `timeZoneOffset` (minutes east of UTC) when that member came before the route, else in the
/// run's zone (`--utc-offset`/`--time-zone`), as CSV's unzoned times are. A `dateTime` with `Z`
/// or an offset keeps it. Polar records no accuracy.
enum PolarTrainingSession {
    /// Reads the `exercises` array whose `[` was just read; `sessionOffset` is the session's
    /// `timeZoneOffset` when it came before.
    static func readExercises<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, sessionOffset: Int?,
                                               _ sink: inout Sink) throws {
        try forEachObjectElement(&reader, context, &sink, what: "exercise") { reader, sink, _ in
            var offset = sessionOffset
            while try reader.next() == .key {
                let isOffset = isOffsetKey(reader)
                let isSamples = reader.tokenIs("samples")
                let value = try reader.next()
                if isOffset, let minutes = offsetMinutes(reader, value) {
                    offset = minutes
                } else if isSamples, value == .objectStart {
                    let zone = offset.map { LocalTimeZone.fixed(minutesEast: $0) } ?? context.timeZone
                    try readSamples(&reader, context, zone: zone, &sink)
                } else {
                    try reader.skip(from: value)
                }
            }
        }
    }

    /// True when the current key names a zone offset in minutes (Polar has spelt it both ways).
    static func isOffsetKey(_ reader: borrowing JSONStreamReader) -> Bool {
        reader.tokenIs("timeZoneOffset") || reader.tokenIs("timezoneOffset")
    }

    /// The offset in whole minutes within ±18 hours when `value` is such a number, else nil.
    static func offsetMinutes(_ reader: borrowing JSONStreamReader, _ value: JSONEvent) -> Int? {
        guard value == .number else { return nil }
        let number = reader.tokenNumber
        guard number.isFinite, number == number.rounded(), abs(number) <= 18 * 60 else { return nil }
        return Int(number)
    }

    /// The `samples` object whose `{` was just read: its `recordedRoute` is the segment; the
    /// other series (heart rate, speed, altitude, …) have no position and are passed over.
    private static func readSamples<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, zone: LocalTimeZone,
                                                     _ sink: inout Sink) throws {
        while try reader.next() == .key {
            let isRoute = reader.tokenIs("recordedRoute")
            let value = try reader.next()
            guard isRoute, value == .arrayStart else {
                try reader.skip(from: value)
                continue
            }
            sink.segmentBreak()
            try forEachObjectElement(&reader, context, &sink, what: "route sample") { reader, sink, start in
                try readRouteSample(&reader, context, zone: zone, at: start, &sink)
            }
        }
    }

    /// One route entry whose `{` was just read.
    private static func readRouteSample<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, zone: LocalTimeZone,
                                                         at start: RecordStart, _ sink: inout Sink) throws {
        var latitude: Double?, longitude: Double?, altitude: Double?, time: Int64?
        var problem: String?
        while try reader.next() == .key {
            let field = reader.tokenIs("latitude") ? 0 : reader.tokenIs("longitude") ? 1 : reader.tokenIs("altitude") ? 2
                : reader.tokenIs("dateTime") ? 3 : -1
            let value = try reader.next()
            switch field {
            case 0, 1, 2:
                guard value == .number, reader.tokenNumber.isFinite else {
                    try reader.skip(from: value)
                    if field != 2 || value != .null { problem = problem ?? "\(["latitude", "longitude", "altitude"][field]) is not a number" }
                    continue
                }
                if field == 0 { latitude = reader.tokenNumber } else if field == 1 { longitude = reader.tokenNumber } else { altitude = reader.tokenNumber }
            case 3:
                if value == .string, let parsed = reader.withTokenBytes({ Timestamp.parse($0, unzonedIn: zone) }) {
                    time = parsed
                } else {
                    try reader.skip(from: value)
                    problem = problem ?? "dateTime is not an ISO-8601 time"
                }
            default:
                try reader.skip(from: value)
            }
        }
        if let problem {
            sink.unreadablePoint(context.problem("route sample: \(problem)", at: start))
            return
        }
        guard let latitude, let longitude else {
            sink.unreadablePoint(context.problem("route sample without latitude and longitude", at: start))
            return
        }
        sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: time, elevation: altitude))
    }
}
