import TextFormats
/// The app backup JSON (`docs/backup-format.md`):
/// `{"format": "adminunlocks-backup", "formatVersion": 1, "tracks": [{"segments": [{"points": [...]}]}]}`.
///
/// Streamed at every level (a backup holds years of tracks); each point is read straight from
/// the event stream. `format` and `formatVersion` must come before `tracks`, so a version this
/// reader does not know is refused before any of its points are delivered.
enum AppBackup {
    static let formatName = "adminunlocks-backup"
    /// The major version this reader reads. Additions that old readers may ignore keep the version.
    static let supportedVersion: Int64 = 1

    /// The header members, in whatever order they come.
    struct Header {
        private(set) var isBackup = false
        private var hasVersion = false
        /// Why the version cannot be read, when it cannot; thrown once the file is known to be a backup.
        private var versionError: JSONStreamError?

        mutating func read(key: String, value: JSONEvent, _ reader: inout JSONStreamReader) throws {
            if key == "format" {
                isBackup = reader.tokenString == AppBackup.formatName
            } else {
                hasVersion = true
                let number = value == .number ? reader.tokenNumber : .nan
                if !(number.isFinite && number == number.rounded() && abs(number) < 1e9) {
                    versionError = reader.error(atToken: "backup: formatVersion must be a whole number")
                } else if Int64(number) != AppBackup.supportedVersion {
                    versionError = reader.error(atToken: "backup formatVersion \(Int64(number)) is not supported (this reader reads version \(AppBackup.supportedVersion))")
                }
                try reader.skip(from: value)
            }
            try requireSupportedIfDeclared()
        }

        /// Throws if the header says backup and the version is one this reader cannot read.
        func requireSupportedIfDeclared() throws {
            if isBackup, let versionError { throw versionError }
        }

        /// Before a backup's `tracks`: the header must be complete and supported.
        func requireSupported(before reader: borrowing JSONStreamReader) throws {
            guard hasVersion else { throw Self.tracksBeforeHeader(reader) }
            try requireSupportedIfDeclared()
        }

        /// The error for `tracks` (the reader's current value) read before the header.
        static func tracksBeforeHeader(_ reader: borrowing JSONStreamReader) -> JSONStreamError {
            reader.error(atToken: "\"tracks\" without a backup header before it (\"format\": \"\(AppBackup.formatName)\" and \"formatVersion\" must come first)")
        }
    }

    /// The `tracks` array whose `[` was just read.
    static func readTracks<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachObject(&reader, context, &sink, what: "track", arrayMember: "segments") { reader, sink in
            try forEachObject(&reader, context, &sink, what: "segment", arrayMember: "points") { reader, sink in
                sink.segmentBreak()
                try readPoints(&reader, context, &sink)
            }
        }
    }

    /// For each element of an array whose `[` was just read: reads the member `arrayMember` of
    /// the element with `body` (the reader just past its `[`) and skips the other members.
    /// An element that is not an object, or whose `arrayMember` is not an array, is reported.
    private static func forEachObject<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink,
                                                       what: String, arrayMember: StaticString,
                                                       body: (inout JSONStreamReader, inout Sink) throws -> Void) throws {
        try forEachObjectElement(&reader, context, &sink, what: "backup \(what)") { reader, sink, _ in
            while try reader.next() == .key {
                let keyStart = RecordStart(reader)
                let isMember = reader.tokenIs(arrayMember)
                let value = try reader.next()
                if isMember, value == .arrayStart {
                    try body(&reader, &sink)
                    continue
                }
                if isMember, value != .null {
                    sink.unreadablePoint(context.problem("backup \(what) \"\(arrayMember)\" is not an array", at: keyStart))
                }
                try reader.skip(from: value)
            }
        }
    }

    private enum Field {
        case time, latitude, longitude, accuracy, elevation, other
    }

    private static func field(_ reader: borrowing JSONStreamReader) -> Field {
        if reader.tokenIs("lat") { return .latitude }
        if reader.tokenIs("lon") { return .longitude }
        if reader.tokenIs("time") { return .time }
        if reader.tokenIs("accuracy") { return .accuracy }
        if reader.tokenIs("ele") { return .elevation }
        return .other
    }

    /// A segment's `points` array whose `[` was just read.
    private static func readPoints<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachObjectElement(&reader, context, &sink, what: "backup point") { reader, sink, start in
            var latitude: Double?
            var longitude: Double?
            var point = TrackPoint(latitude: 0, longitude: 0)
            var problem: String?
            while try reader.next() == .key {
                let field = field(reader)
                let value = try reader.next()
                switch field {
                case .time:
                    if value == .string, let time = reader.withTokenBytes(Timestamp.parse) {
                        point.time = time
                    } else if value != .null {
                        problem = problem ?? "time is not an ISO-8601 time"
                    }
                case .latitude, .longitude, .accuracy, .elevation:
                    if value == .number, reader.tokenNumber.isFinite {
                        let number = reader.tokenNumber
                        switch field {
                        case .latitude: latitude = number
                        case .longitude: longitude = number
                        case .accuracy: point.accuracy = number
                        default: point.elevation = number
                        }
                    } else if value != .null {
                        problem = problem ?? "\"\(describe(field))\" is not a finite number"
                    }
                case .other:
                    break
                }
                try reader.skip(from: value)
            }
            if let problem {
                sink.unreadablePoint(context.problem(problem, at: start))
            } else if let latitude, let longitude {
                point.latitude = latitude
                point.longitude = longitude
                sink.point(point)
            } else {
                sink.unreadablePoint(context.problem(latitude == nil ? "backup point without \"lat\"" : "backup point without \"lon\"", at: start))
            }
        }
    }

    private static func describe(_ field: Field) -> String {
        switch field {
        case .time: return "time"
        case .latitude: return "lat"
        case .longitude: return "lon"
        case .accuracy: return "accuracy"
        case .elevation: return "ele"
        case .other: return "field"
        }
    }
}
