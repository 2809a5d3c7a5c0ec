import TextFormats

/// Google Takeout "Semantic Location History" monthly files
/// (`Semantic Location History/2022/2022_MARCH.json`): `{"timelineObjects": [...]}`, each element
/// an `activitySegment` or a `placeVisit`.
///
/// Read: the recorded fixes Google kept with each entry, `simplifiedRawPath.points[]` —
/// `latE7`, `lngE7` (degrees × 10⁷), `timestamp` (ISO-8601) or the older `timestampMs`
/// (milliseconds, a string or number), `accuracyMeters` — one segment per path, from activity
/// segments and place visits alike, labelled with how the person moved (``Movement``): an
/// activity's `activityType` (`IN_TRAIN`, `WALKING`, `FLYING`, …), a visit as a stay (no vehicle). Ignored, because they are not recordings: an activity's
/// `waypointPath` (untimed points snapped to the road network by Google's map matching),
/// `startLocation`/`endLocation` and `transitPath` stops (inferred ends and a timetable's stops),
/// a visit's `location`, `centerLatE7`/`centerLngE7` and `otherCandidateLocations` (the place
/// Google guessed and the centre it inferred for the stay, held for the whole `duration`), and
/// `childVisits`. See `docs/input-formats.md`.
enum TakeoutSemanticHistory {
    /// The `timelineObjects` array whose `[` was just read; one object materialised at a time.
    static func readTimelineObjects<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachElement(&reader, maximumBytes: context.recordBytes) { object, start in
            guard case .object = object else {
                sink.unreadablePoint(context.problem("timeline object is not an object", at: start))
                return
            }
            for kind in ["activitySegment", "placeVisit"] {
                guard let entry = object[kind], let path = entry["simplifiedRawPath"] else { continue }
                // A stay is no vehicle; an activity says how it moved when its type is one we know.
                let movement = kind == "placeVisit" ? Movement.humanPowered : entry["activityType"]?.stringValue.flatMap(Movement.google)
                readRawPath(path, of: kind, movement: movement, at: start, context, &sink)
            }
        }
    }

    private static func readRawPath<Sink: TrackSink>(_ path: JSONValue, of kind: String, movement: Movement?, at start: RecordStart,
                                                     _ context: RecordContext, _ sink: inout Sink) {
        guard let points = path["points"]?.arrayValue else {
            sink.unreadablePoint(context.problem("\(kind) simplifiedRawPath without a \"points\" array", at: start))
            return
        }
        sink.segmentBreak()
        if let movement { sink.annotate(.movement(movement)) }
        for element in points {
            do {
                sink.point(try point(element))
            } catch {
                sink.unreadablePoint(context.problem("\(kind) simplifiedRawPath point \(error.reason)", at: start))
            }
        }
    }

    private struct PointProblem: Error {
        let reason: String
    }

    private static func point(_ element: JSONValue) throws(PointProblem) -> TrackPoint {
        guard case .object = element else { throw PointProblem(reason: "is not an object") }
        guard let latitudeE7 = element["latE7"] else { throw PointProblem(reason: "without latE7") }
        guard let longitudeE7 = element["lngE7"] else { throw PointProblem(reason: "without lngE7") }
        guard let latitude = finiteNumber(latitudeE7) else { throw PointProblem(reason: "latE7 is not a number in range") }
        guard let longitude = finiteNumber(longitudeE7) else { throw PointProblem(reason: "lngE7 is not a number in range") }
        var time: Int64?
        if let iso = element["timestamp"] {
            guard let parsed = iso.stringValue.flatMap(Timestamp.parse) else { throw PointProblem(reason: "timestamp is not an ISO-8601 time") }
            time = parsed
        } else if let milliseconds = element["timestampMs"] {
            guard let parsed = millisecondTime(milliseconds) else {
                throw PointProblem(reason: "timestampMs is not a whole number of milliseconds in the years 0000–9999")
            }
            time = parsed
        } else {
            throw PointProblem(reason: "without timestamp")
        }
        var accuracy: Double?
        if let value = element["accuracyMeters"], value != .null {
            guard let number = finiteNumber(value), number >= 0 else { throw PointProblem(reason: "accuracyMeters is not a non-negative number") }
            accuracy = number
        }
        return TrackPoint(latitude: latitude / 1e7, longitude: longitude / 1e7, time: time, accuracy: accuracy)
    }
}
