import TextFormats

/// The Google Maps Timeline exports made on the phone (since Timeline moved on-device, 2024).
///
/// Read: recorded positions only — `timelinePath` points and, on Android, `rawSignals[].position`,
/// each moment once (``TimelineOverlap``) — and the activities' types as movement labels of the
/// path points in their time (``TimelineLabeller``). Ignored: `visit.topCandidate.placeLocation`,
/// `activity.start`/`end`, `parking`, `timelineMemory` and `userLocationProfile`. Those are
/// Google's inferences (the coordinates of the place it guessed, the ends of a movement it
/// summarised), not measurements: a visit's place can be a shop across a county border from where
/// the phone was, and the path points of the same period already say where the user went. See
/// `docs/input-formats.md`.
enum GoogleTimeline {
    /// Android: `semanticSegments` array whose `[` was just read. Each segment with a
    /// `timelinePath` starts a new segment: `{"point": "39.9042°, 116.4074°", "time": ISO}`.
    static func readSemanticSegments<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext,
                                                      _ overlap: inout TimelineOverlap, _ sink: inout Sink) throws {
        overlap.begin(.path)
        var labeller = TimelineLabeller()
        defer { labeller.finish(&sink) }
        try forEachElement(&reader, maximumBytes: context.recordBytes) { segment, start in
            labeller.begin(segment, &sink)
            let delivered = readTimelinePath(of: segment, named: "semantic segment", at: start, context, &sink, labeller: &labeller,
                                             missingTime: "\"time\"", keep: { overlap.keepsPath($0) }) { element in
                element["time"]?.stringValue.flatMap(Timestamp.parse)
            }
            if let delivered {
                // The window the segment declares, widened to its points (either may be missing).
                let declaredStart = segment["startTime"]?.stringValue.flatMap(Timestamp.parse) ?? delivered.lowerBound
                let declaredEnd = segment["endTime"]?.stringValue.flatMap(Timestamp.parse) ?? delivered.upperBound
                overlap.pathWindow(min(declaredStart, delivered.lowerBound), max(declaredEnd, delivered.upperBound))
            }
        }
    }

    /// Android: `rawSignals` array whose `[` was just read. Elements with a `position`
    /// (`LatLng`, `accuracyMeters`, `altitudeMeters`, `timestamp`) are points, one segment for the
    /// array; `wifiScan` and `activityRecord` elements carry no position and are skipped.
    static func readRawSignals<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext,
                                                _ overlap: inout TimelineOverlap, _ sink: inout Sink) throws {
        overlap.begin(.raw)
        defer { overlap.endRaw() }
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
            if overlap.keepsRaw(time) { sink.point(point) }
        }
    }

    /// iOS: the top-level array whose `[` was just read. Elements are segments with `startTime`
    /// and optionally `timelinePath: [{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "12"}]`.
    /// The first element must look like a Timeline segment, or the file is not this format.
    static func readIOS<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        var first = true
        var labeller = TimelineLabeller()
        defer { labeller.finish(&sink) }
        try forEachElement(&reader, maximumBytes: context.recordBytes) { segment, start in
            if first {
                first = false
                guard looksLikeIOSSegment(segment) else {
                    throw JSONStreamError(offset: start.offset, line: start.line, reason: JSONTrackReader.unknownStructure)
                }
            }
            readIOSSegment(segment, at: start, context, &sink, labeller: &labeller)
        }
    }

    /// Whether `segment` has a member only iOS Timeline segments have.
    static func looksLikeIOSSegment(_ segment: JSONValue) -> Bool {
        ["startTime", "endTime", "timelinePath", "visit", "activity", "timelineMemory"].contains { segment[$0] != nil }
    }

    /// One iOS Timeline segment; its path is delivered by `labeller` once the activities that may
    /// label it have come.
    static func readIOSSegment<Sink: TrackSink>(_ segment: JSONValue, at start: RecordStart, _ context: RecordContext, _ sink: inout Sink,
                                                labeller: inout TimelineLabeller) {
        labeller.begin(segment, &sink)
        let startTime = segment["startTime"]?.stringValue.flatMap(Timestamp.parse)
        readTimelinePath(of: segment, named: "timeline segment", at: start, context, &sink, labeller: &labeller,
                         missingTime: "time (startTime + durationMinutesOffsetFromStartTime)", keep: { _ in true }) { element in
            guard let startTime, let minutes = element["durationMinutesOffsetFromStartTime"].flatMap(integerValue) else { return nil }
            return time(startTime, plusMinutes: minutes)
        }
    }

    /// `start` plus `minutes`, or nil when that overflows or leaves the years 0000–9999
    /// (`"9223372036854775807"` minutes is no time at all, and must not trap).
    static func time(_ start: Int64, plusMinutes minutes: Int64) -> Int64? {
        let (offset, overflowed) = minutes.multipliedReportingOverflow(by: 60_000)
        guard !overflowed else { return nil }
        let (sum, overflowedSum) = start.addingReportingOverflow(offset)
        guard !overflowedSum, Timestamp.representable.contains(sum) else { return nil }
        return sum
    }

    /// One segment's `timelinePath` (both platforms) as a track segment: each element's position
    /// from its `"point"`, its time from `time` (nil: unreadable, reported as without a readable
    /// `missingTime`); a point `keep` refuses is passed over. Returns the span of the delivered
    /// points' times, nil when none was delivered.
    @discardableResult
    private static func readTimelinePath<Sink: TrackSink>(of segment: JSONValue, named kind: String, at start: RecordStart, _ context: RecordContext,
                                                         _ sink: inout Sink, labeller: inout TimelineLabeller, missingTime: String, keep: (Int64) -> Bool,
                                                         time: (JSONValue) -> Int64?) -> ClosedRange<Int64>? {
        guard case .object = segment else {
            sink.unreadablePoint(context.problem("\(kind) is not an object", at: start))
            return nil
        }
        guard let path = segment["timelinePath"] else { return nil }
        guard let points = path.arrayValue else {
            sink.unreadablePoint(context.problem("timelinePath is not an array", at: start))
            return nil
        }
        var span: ClosedRange<Int64>?
        var fixes: [TrackPoint] = []
        for element in points {
            guard let position = element["point"]?.stringValue.flatMap(parseLatLng) else {
                sink.unreadablePoint(context.problem("timelinePath point without a readable \"point\"", at: start))
                continue
            }
            guard let time = time(element) else {
                sink.unreadablePoint(context.problem("timelinePath point without a readable \(missingTime)", at: start))
                continue
            }
            guard keep(time) else { continue }
            fixes.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, time: time))
            span = span.map { min($0.lowerBound, time)...max($0.upperBound, time) } ?? time...time
        }
        let declaredEnd = segment["endTime"]?.stringValue.flatMap(Timestamp.parse) ?? span?.upperBound ?? .min
        labeller.add(fixes, end: max(declaredEnd, span?.upperBound ?? .min), &sink)
        return span
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

/// Which of the Android export's two position lists speaks for each moment, so a moment both
/// record is counted once.
///
/// `semanticSegments[].timelinePath` (Google's path, times snapped to the minute, no accuracy,
/// all of the history) and `rawSignals[].position` (the phone's fixes with accuracy, about the
/// last month) overlap in time: read both and a run is counted twice (a 3.9 km run measured
/// 6.9 km). They are not the same records, so they cannot be matched one by one (most raw
/// fixes fall on odd seconds, path points on whole minutes). The rule is by time instead:
/// whichever list comes first in the file (Google writes `semanticSegments` first) is read in
/// full, and records the time it covers; the second list's positions inside that time are passed
/// over, those outside it (a raw fix during a visit, when the path is silent) are read.
///
/// Covered time: for path segments, each segment's `[startTime, endTime]` (widened to its points);
/// for raw signals, runs of fixes at most 5 minutes apart, widened by a minute on each side (the
/// path's snapping). A single pass, in memory bounded by ``TimeWindows``.
struct TimelineOverlap {
    enum Source { case path, raw }

    /// Raw fixes at most this far apart (ms) form one covered run (the pipeline's segment gap).
    static let rawRunGap: Int64 = 5 * 60_000
    /// How far a raw run's coverage reaches past its first and last fix (ms).
    static let rawRunMargin: Int64 = 60_000

    private(set) var first: Source?
    private var covered = TimeWindows()
    private var run: (start: Int64, end: Int64)?

    /// A list of `source` starts.
    mutating func begin(_ source: Source) {
        if first == nil { first = source }
    }

    /// A path segment that delivered points spans `start...end`.
    mutating func pathWindow(_ start: Int64, _ end: Int64) {
        if first == .path { covered.add(start, end) }
    }

    /// Whether a path point at `time` is read (not already covered by raw fixes before it).
    mutating func keepsPath(_ time: Int64) -> Bool {
        first == .path || !covered.contains(time)
    }

    /// Whether a raw fix at `time` is read; records its coverage when raw signals came first.
    mutating func keepsRaw(_ time: Int64) -> Bool {
        guard first == .raw else { return !covered.contains(time) }
        if let current = run, time >= current.end, time - current.end <= Self.rawRunGap {
            run = (current.start, time)
        } else if let current = run, time >= current.start, time <= current.end {
            // Inside the run already.
        } else {
            endRaw()
            run = (time, time)
        }
        return true
    }

    /// The raw signals ended: the run being built is covered.
    mutating func endRaw() {
        guard let current = run else { return }
        covered.add(current.start - Self.rawRunMargin, current.end + Self.rawRunMargin)
        run = nil
    }
}

/// Google's activities in a Timeline export (`activity.topCandidate.type` of a segment with
/// `startTime` and `endTime`: `WALKING`, `IN_PASSENGER_VEHICLE`, `FLYING`; iOS writes `walking`,
/// `in passenger vehicle`), applied to the path points of their time as movement labels
/// (``Movement/google(_:)``, ``TrackAnnotation/movement(_:)``). The path and the activities are
/// separate segments of the export, a path usually starting its two-hour window before the
/// activities inside it, so each path is held until a segment starting at or after its end comes
/// (segments come in order of their start: every activity it overlaps has been seen) or the list
/// ends; then its points go out, a segment break and a label wherever the label changes. Memory:
/// at most ``maximumHeld`` paths and ``maximumWindows`` activities (beyond, the oldest go out or
/// are dropped: a file out of order loses labels, never points).
struct TimelineLabeller {
    struct Window {
        var start: Int64, end: Int64
        var movement: Movement?
    }

    static let maximumHeld = 64
    static let maximumWindows = 4096
    private var windows: [Window] = []
    private var held: [(points: [TrackPoint], end: Int64)] = []

    /// A segment begins: its activity is noted, and the paths ending before its start go out.
    mutating func begin<Sink: TrackSink>(_ segment: JSONValue, _ sink: inout Sink) {
        let start = segment["startTime"]?.stringValue.flatMap(Timestamp.parse)
        if let start { release(before: start, &sink) }
        if let type = segment["activity"]?["topCandidate"]?["type"]?.stringValue, let start,
           let end = segment["endTime"]?.stringValue.flatMap(Timestamp.parse), end >= start {
            if windows.count == Self.maximumWindows { windows.removeFirst() }
            windows.append(Window(start: start, end: end, movement: Movement.google(type)))
        }
    }

    /// A segment's path points (possibly none), its window ending at `end`.
    mutating func add<Sink: TrackSink>(_ points: [TrackPoint], end: Int64, _ sink: inout Sink) {
        guard !points.isEmpty else { return }
        if held.count == Self.maximumHeld { deliver(held.removeFirst().points, &sink) }
        held.append((points, end))
    }

    /// The list ended: every path held goes out.
    mutating func finish<Sink: TrackSink>(_ sink: inout Sink) {
        for path in held { deliver(path.points, &sink) }
        held = []
        windows = []
    }

    private mutating func release<Sink: TrackSink>(before start: Int64, _ sink: inout Sink) {
        while let first = held.first, first.end <= start {
            held.removeFirst()
            deliver(first.points, &sink)
        }
        // Activities ending before every path still to come can label none of them.
        let horizon = held.first?.points.first?.time ?? start
        windows.removeAll { $0.end < horizon }
    }

    /// One path's points, a segment for each stretch of one label.
    private func deliver<Sink: TrackSink>(_ points: [TrackPoint], _ sink: inout Sink) {
        var current: Movement??
        for point in points {
            let time = point.time ?? .min
            let label = windows.first { $0.start <= time && time <= $0.end }?.movement
            if current == nil || current! != label {
                sink.segmentBreak()
                if let label { sink.annotate(.movement(label)) }
                current = .some(label)
            }
            sink.point(point)
        }
    }
}
