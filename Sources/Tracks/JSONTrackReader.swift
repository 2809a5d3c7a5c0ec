import TextFormats

/// Which kind of JSON track file a ``JSONTrackReader`` recognised.
public enum JSONTrackFormat: String, Sendable {
    /// Google Takeout location history, `Records.json` (`{"locations": [...]}`).
    case takeoutRecords
    /// Google Takeout "Semantic Location History" monthly files (`{"timelineObjects": [...]}`):
    /// the recorded fixes of each entry's `simplifiedRawPath`.
    case takeoutSemanticHistory
    /// The on-device Timeline export from Android (`{"semanticSegments": [...], "rawSignals": [...]}`).
    case timelineAndroid
    /// The on-device Timeline export from iOS (a top-level array of segments with `geo:` points).
    case timelineIOS
    /// This project's app backup (`docs/backup-format.md`).
    case backup
    /// GeoJSON: a FeatureCollection, a Feature or a bare geometry.
    case geoJSON
    /// Polarsteps' `locations.json` (`{"locations": [{"lat", "lon", "time"}]}`).
    case polarstepsLocations
    /// Overland's batches (`{"locations": [GeoJSON Feature of a Point, …]}`).
    case overland
    /// Huawei Health's data export, `motion path detail data.json`: a top-level array of
    /// activities whose `attribute` holds HiTrack records.
    case huaweiMotionPaths
    /// Google Photos' Takeout sidecar of a photo (`IMG_1234.jpg.json`): `geoData`, `photoTakenTime`.
    case photoSidecar
    /// Polar Flow's account export, `training-session-*.json`: `exercises[].samples.recordedRoute`.
    case polarTrainingSession
}

/// Reads the JSON-family track files: Google Takeout `Records.json` and Semantic Location
/// History, the Google Timeline
/// on-device exports (Android and iOS), the app backup, and GeoJSON (see `docs/input-formats.md`).
///
/// The format is recognised from the document's structure as it streams, whatever the order of
/// members. Big arrays (`locations`, `semanticSegments`, `features`, backup tracks) are streamed
/// element by element, so memory stays constant however large the file; one record is held at a
/// time, never more than ``maximumRecordBytes`` (``maximumFeatureBytes`` for a GeoJSON feature).
public enum JSONTrackReader {
    /// Largest Timeline segment or raw signal accepted, in input bytes.
    public static let maximumRecordBytes = 4 << 20
    /// Largest GeoJSON feature (or top-level Feature or geometry) accepted, in input bytes: a
    /// whole track may be one LineString, so this is larger, yet bounded (about 3.5 bytes of memory
    /// per input byte while it is built).
    public static let maximumFeatureBytes = 32 << 20

    /// Reads `source` (named `path` in errors) into `sink` and says what it was.
    ///
    /// A record that cannot be used (a missing coordinate, a number that does not parse or is
    /// beyond `Double`'s range, a malformed time) goes to ``TrackSink/unreadablePoint(_:)`` and
    /// reading continues. Fatal problems — broken JSON, truncation, limits exceeded, a structure
    /// that is none of the known formats, an unsupported backup version — throw an ``InputError``
    /// whose reason starts with `byte N:` (0-based offset) and whose line is that byte's line.
    /// Points delivered before the error stay delivered.
    /// Times written without an offset (Polar Flow's) are read in `timeZone` unless the file
    /// gives their offset.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, timeZone: LocalTimeZone = TrackCSVReader.defaultTimeZone,
                                                                 into sink: inout Sink) throws -> JSONTrackFormat {
        try read(source, path: path, into: &sink, recordBytes: maximumRecordBytes, featureBytes: maximumFeatureBytes, timeZone: timeZone)
    }

    /// ``read(_:path:timeZone:into:)`` with other record size caps (tests use small ones).
    static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink,
                                                          recordBytes: Int, featureBytes: Int,
                                                          timeZone: LocalTimeZone = TrackCSVReader.defaultTimeZone) throws -> JSONTrackFormat {
        // UTF-16 (with its byte order mark, as Windows' "Unicode" text and Notepad write) is read
        // as the same text in UTF-8, as CSV is (RFC 8259 allows a reader to take other encodings).
        var reader = JSONStreamReader(UTF16TextSource(source))
        let context = RecordContext(path: path, recordBytes: recordBytes, featureBytes: featureBytes, timeZone: timeZone)
        do {
            let format = try readDocument(&reader, context, &sink)
            let end = try reader.next()
            precondition(end == .end, "a complete top-level value is followed by the end")
            return format
        } catch let error as JSONStreamError {
            // The structure error is this reader's own constant: callers see it as a kind.
            let kind: InputError.Kind = error.reason == unknownStructure ? .unknownStructure : error.reason == photoWithoutLocation ? .noLocation : .malformed
            throw InputError(path: path, line: error.line, reason: "byte \(error.offset): \(error.reason)", kind: kind)
        }
    }

    private static func readDocument<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws -> JSONTrackFormat {
        switch try reader.next() {
        case .objectStart:
            return try readTopObject(&reader, context, &sink)
        case .arrayStart:
            return try readTopArray(&reader, context, &sink)
        default:
            throw reader.error(atToken: unknownStructure)
        }
    }

    public static let unknownStructure = "not a known JSON track format (expected Takeout Records.json, a Google Timeline export, an app backup, GeoJSON, Overland, Polarsteps, Huawei Health, Polar Flow or a Google Photos sidecar)"
    /// A Google Photos sidecar without a position (its `geoData` and `geoDataExif` are (0, 0)).
    public static let photoWithoutLocation = "photo sidecar without a location (geoData and geoDataExif are 0, 0)"

    /// A top-level array whose `[` was just read: Huawei Health's activities when its first
    /// element has an `attribute`, `motionPathData` or `sportType` (Huawei's members; its
    /// activities also have `startTime` and `endTime`, as iOS Timeline segments do, so those
    /// cannot tell them apart), else the iOS Timeline export.
    private static func readTopArray<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws -> JSONTrackFormat {
        var format: JSONTrackFormat?
        var labeller = TimelineLabeller()
        defer { labeller.finish(&sink) }
        try forEachElement(&reader, maximumBytes: context.recordBytes) { element, start in
            if format == nil {
                if HuaweiMotionPaths.looksLikeActivity(element) {
                    format = .huaweiMotionPaths
                } else if GoogleTimeline.looksLikeIOSSegment(element) {
                    format = .timelineIOS
                } else {
                    throw JSONStreamError(offset: start.offset, line: start.line, reason: unknownStructure)
                }
            }
            if format == .huaweiMotionPaths {
                HuaweiMotionPaths.readActivity(element, at: start, context, &sink)
            } else {
                GoogleTimeline.readIOSSegment(element, at: start, context, &sink, labeller: &labeller)
            }
        }
        return format ?? .timelineIOS  // an empty array reads as an empty timeline
    }

    private static func readTopObject<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws -> JSONTrackFormat {
        let documentStart = reader.error(atToken: unknownStructure)
        var format: JSONTrackFormat?
        var backup = AppBackup.Header()
        var geoJSON = GeoJSONTracks.TopLevel()
        var tracksBeforeHeader: JSONStreamError?
        var timelineOverlap = TimelineOverlap()
        var sidecar = PhotoSidecar()
        var polarOffset: Int?
        while true {
            let event = try reader.next()
            if event == .objectEnd { break }
            let key = reader.tokenString
            let value = try reader.next()
            switch (key, value) {
            case ("locations", .arrayStart):
                let found = try TakeoutRecords.readLocations(&reader, context, &sink)
                format = format ?? found
            case ("semanticSegments", .arrayStart):
                try GoogleTimeline.readSemanticSegments(&reader, context, &timelineOverlap, &sink)
                format = format ?? .timelineAndroid
            case ("rawSignals", .arrayStart):
                try GoogleTimeline.readRawSignals(&reader, context, &timelineOverlap, &sink)
                format = format ?? .timelineAndroid
            case ("timelineObjects", .arrayStart):
                try TakeoutSemanticHistory.readTimelineObjects(&reader, context, &sink)
                format = format ?? .takeoutSemanticHistory
            case ("format", .string), ("formatVersion", _):
                try backup.read(key: key, value: value, &reader)
                if backup.isBackup { format = format ?? .backup }
            case ("tracks", _) where backup.isBackup:
                try backup.requireSupported(before: reader)
                guard value == .arrayStart else { throw reader.error(atToken: "backup: \"tracks\" must be an array") }
                try AppBackup.readTracks(&reader, context, &sink)
            case ("tracks", _):
                // Not (yet) known to be a backup: another format may have a member of this name.
                tracksBeforeHeader = tracksBeforeHeader ?? AppBackup.Header.tracksBeforeHeader(reader)
                try reader.skip(from: value)
            case ("exercises", .arrayStart):
                try PolarTrainingSession.readExercises(&reader, context, sessionOffset: polarOffset, &sink)
                format = format ?? .polarTrainingSession
            case ("timeZoneOffset", .number), ("timezoneOffset", .number):
                polarOffset = PolarTrainingSession.offsetMinutes(reader, value)
            case ("features", .arrayStart):
                try GeoJSONTracks.readFeatures(&reader, context, &sink)
                format = format ?? .geoJSON
            case (_, .objectStart) where PhotoSidecar.members.contains(key):
                sidecar.read(key: key, value: try reader.value(from: value, maximumBytes: context.recordBytes))
            case ("type", .string), ("geometry", _), ("properties", _), ("coordinates", _), ("geometries", _):
                try geoJSON.read(key: key, value: value, &reader, context)
            default:
                try reader.skip(from: value)
            }
        }
        try backup.requireSupportedIfDeclared()
        if geoJSON.finish(context, &sink) { format = format ?? .geoJSON }
        if format == nil, sidecar.seen {
            guard sidecar.finish(context, &sink) else { throw JSONStreamError(offset: 0, line: 1, reason: photoWithoutLocation) }
            format = .photoSidecar
        }
        // Backup tracks that came before the header were skipped, not read: say so.
        if let tracksBeforeHeader, backup.isBackup || format == nil { throw tracksBeforeHeader }
        guard let format else { throw documentStart }
        return format
    }
}

/// Where a record starts, for reports about it.
struct RecordStart {
    let offset: Int
    let line: Int

    /// The start of the reader's current token.
    init(_ reader: borrowing JSONStreamReader) {
        offset = reader.tokenOffset
        line = reader.tokenLine
    }
}

/// What record readers need: the file's name for reports, and the size caps of records.
struct RecordContext {
    let path: String
    /// Largest Timeline segment or raw signal, in input bytes.
    let recordBytes: Int
    /// Largest GeoJSON feature, in input bytes.
    let featureBytes: Int
    /// The zone of times written without an offset (Polar Flow's `dateTime`).
    var timeZone: LocalTimeZone = TrackCSVReader.defaultTimeZone

    /// An unreadable-record report for the record that starts at `start`.
    func problem(_ reason: String, at start: RecordStart) -> InputError {
        InputError(path: path, line: start.line, reason: "byte \(start.offset): \(reason)")
    }
}

/// Walks the array whose `[` was just read without materialising it: `body` reads each object
/// element from just past its `{` to its `}` (`start` is where the element began); any other
/// element is skipped and reported as unreadable ("`what` is not an object").
func forEachObjectElement<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink, what: String,
                                           _ body: (inout JSONStreamReader, inout Sink, RecordStart) throws -> Void) throws {
    while true {
        let event = try reader.next()
        if event == .arrayEnd { return }
        let start = RecordStart(reader)
        guard event == .objectStart else {
            try reader.skip(from: event)
            sink.unreadablePoint(context.problem("\(what) is not an object", at: start))
            continue
        }
        try body(&reader, &sink, start)
    }
}

/// Reads the elements of an array whose `[` was just read, one materialised value at a time.
func forEachElement(_ reader: inout JSONStreamReader, maximumBytes: Int, _ body: (JSONValue, RecordStart) throws -> Void) throws {
    while true {
        let event = try reader.next()
        if event == .arrayEnd { return }
        let start = RecordStart(reader)
        let value = try reader.value(from: event, maximumBytes: maximumBytes)
        try body(value, start)
    }
}

/// A JSON number or numeric string as milliseconds, seconds… (an integer), else nil.
func integerValue(_ value: JSONValue) -> Int64? {
    switch value {
    case let .number(number):
        guard number.isFinite, number == number.rounded(), abs(number) < 9e15 else { return nil }
        return Int64(number)
    case let .string(text):
        guard let number = Int64(text) else { return nil }
        return number
    default:
        return nil
    }
}

/// A JSON number or numeric string of milliseconds since 1970 within the years 0000–9999
/// (``Timestamp/representable``), else nil: a time no later arithmetic can overflow.
func millisecondTime(_ value: JSONValue) -> Int64? {
    guard let milliseconds = integerValue(value), Timestamp.representable.contains(milliseconds) else { return nil }
    return milliseconds
}

/// A finite number, or nil.
func finiteNumber(_ value: JSONValue?) -> Double? {
    guard let number = value?.numberValue, number.isFinite else { return nil }
    return number
}
