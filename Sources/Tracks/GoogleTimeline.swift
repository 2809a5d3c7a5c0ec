import TextFormats

/// The Google Maps Timeline exports made on the phone (since Timeline moved on-device, 2024).
///
/// Read: recorded positions only — `timelinePath` points and, on Android, `rawSignals[].position`.
/// Ignored: `visit.topCandidate.placeLocation`, `activity.start`/`end`, `parking`,
/// `timelineMemory` and `userLocationProfile`. Those are Google's inferences (the coordinates of
/// the place it guessed, the ends of a movement it summarised), not measurements: a visit's place
/// can be a shop across a county border from where the phone was, and the path points of the
/// same period already say where the user went. See `docs/input-formats.md`.
enum GoogleTimeline {
    /// Android: `semanticSegments` array whose `[` was just read. Each segment with a
    /// `timelinePath` starts a new segment: `{"point": "39.9042°, 116.4074°", "time": ISO}`.
    static func readSemanticSegments<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachElement(&reader, maximumBytes: context.recordBytes) { segment, start in
            readTimelinePath(of: segment, named: "semantic segment", at: start, context, &sink, missingTime: "\"time\"") { element in
                element["time"]?.stringValue.flatMap(Timestamp.parse)
            }
        }
    }

    /// Android: `rawSignals` array whose `[` was just read. Elements with a `position`
    /// (`LatLng`, `accuracyMeters`, `altitudeMeters`, `timestamp`) are points, one segment for the
    /// array; `wifiScan` and `activityRecord` elements carry no position and are skipped.
    static func readRawSignals<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        sink.segmentBreak()
        try forEachElement(&reader, maximumBytes: context.recordBytes) { signal, start in
            guard let position = signal["position"] else { return }
            guard let latLng = position["LatLng"]?.stringValue.flatMap(parseLatLng) else {
                sink.unreadablePoint(context.problem("raw signal position without a readable \"LatLng\"", at: start))
                return
            }
            guard let time = position["timestamp"]?.stringValue.flatMap(Timestamp.parse) else {
                sink.unreadablePoint(context.problem("raw signal position without a readable \"timestamp\"", at: start))
                return
            }
            var point = TrackPoint(latitude: latLng.latitude, longitude: latLng.longitude, time: time)
            for (key, keyPath) in [("accuracyMeters", \TrackPoint.accuracy), ("altitudeMeters", \TrackPoint.elevation)] {
                guard let value = position[key], value != .null else { continue }
                guard let number = finiteNumber(value) else {
                    sink.unreadablePoint(context.problem("raw signal \(key) is not a number", at: start))
                    return
                }
                point[keyPath: keyPath] = number
            }
            sink.point(point)
        }
    }

    /// iOS: the top-level array whose `[` was just read. Elements are segments with `startTime`
    /// and optionally `timelinePath: [{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "12"}]`.
    /// The first element must look like a Timeline segment, or the file is not this format.
    static func readIOS<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        var first = true
        try forEachElement(&reader, maximumBytes: context.recordBytes) { segment, start in
            if first {
                first = false
                let keys = ["startTime", "endTime", "timelinePath", "visit", "activity", "timelineMemory"]
                guard keys.contains(where: { segment[$0] != nil }) else {
                    throw JSONStreamError(offset: start.offset, line: start.line, reason: JSONTrackReader.unknownStructure)
                }
            }
            let startTime = segment["startTime"]?.stringValue.flatMap(Timestamp.parse)
            readTimelinePath(of: segment, named: "timeline segment", at: start, context, &sink,
                             missingTime: "time (startTime + durationMinutesOffsetFromStartTime)") { element in
                guard let startTime, let minutes = element["durationMinutesOffsetFromStartTime"].flatMap(integerValue) else { return nil }
                return startTime + minutes * 60_000
            }
        }
    }

    /// One segment's `timelinePath` (both platforms) as a track segment: each element's position
    /// from its `"point"`, its time from `time` (nil: unreadable, reported as without a readable
    /// `missingTime`).
    private static func readTimelinePath<Sink: TrackSink>(of segment: JSONValue, named kind: String, at start: RecordStart, _ context: RecordContext,
                                                         _ sink: inout Sink, missingTime: String, time: (JSONValue) -> Int64?) {
        guard case .object = segment else {
            sink.unreadablePoint(context.problem("\(kind) is not an object", at: start))
            return
        }
        guard let path = segment["timelinePath"] else { return }
        guard let points = path.arrayValue else {
            sink.unreadablePoint(context.problem("timelinePath is not an array", at: start))
            return
        }
        sink.segmentBreak()
        for element in points {
            guard let position = element["point"]?.stringValue.flatMap(parseLatLng) else {
                sink.unreadablePoint(context.problem("timelinePath point without a readable \"point\"", at: start))
                continue
            }
            guard let time = time(element) else {
                sink.unreadablePoint(context.problem("timelinePath point without a readable \(missingTime)", at: start))
                continue
            }
            sink.point(TrackPoint(latitude: position.latitude, longitude: position.longitude, time: time))
        }
    }

    /// `"39.9042°, 116.4074°"` (Android) or `"geo:39.9042,116.4074"` (iOS) → degrees.
    static func parseLatLng(_ text: String) -> (latitude: Double, longitude: Double)? {
        var text = text
        return text.withUTF8 { parseLatLng(UnsafeRawBufferPointer($0)) }
    }

    private static func parseLatLng(_ bytes: UnsafeRawBufferPointer) -> (latitude: Double, longitude: Double)? {
        var start = 0
        if bytes.starts(with: "geo:".utf8) { start = 4 }
        guard let comma = bytes[start...].firstIndex(of: UInt8(ascii: ",")),
              let latitude = degrees(UnsafeRawBufferPointer(rebasing: bytes[start..<comma])),
              let longitude = degrees(UnsafeRawBufferPointer(rebasing: bytes[(comma + 1)...])) else { return nil }
        return (latitude, longitude)
    }

    /// A decimal number, after optional spaces and before an optional `°` (UTF-8 C2 B0).
    private static func degrees(_ bytes: UnsafeRawBufferPointer) -> Double? {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
        if end - start >= 2, bytes[end - 2] == 0xC2, bytes[end - 1] == 0xB0 { end -= 2 }
        guard let value = DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end])), value.isFinite else { return nil }
        return value
    }
}
