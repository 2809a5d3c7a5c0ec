import Tracks

/// A track format the intake reads: the names that announce it, how its content is recognised,
/// and its reader. ``FormatTable/formats`` lists them; adding a format is adding an entry there
/// (docs/architecture.md, "Adding a format").
public struct TrackFormat: Sendable {
    /// The format's name in reports (`gpx`; a reader may refine it, `json/records`).
    public let name: String
    /// Lower-case extensions that announce it (without the dot), optionally followed by `.gz`.
    let extensions: [String]
    /// True when the first bytes of a stream are this format's (``ContentPrefix``): used for files
    /// named on the command line whose name says nothing, and for `.txt` and `.log` files.
    let recognizes: @Sendable (ContentPrefix) -> Bool
    /// A `.txt` or `.log` whose content this format recognises is read as this format (NMEA),
    /// whatever a `.txt` would otherwise be (CSV).
    var claimsTextFiles = false
    /// Reads the stream into the sink; returns the refined format name, or nil for ``name``.
    let read: @Sendable (inout FormatInput, inout IntakeSink) throws -> String?
}

/// What a reader gets: the stream (its first bytes replayed), the path that names it in errors,
/// and the zone of times written without an offset.
struct FormatInput {
    var source: ReplayingSource<AnySource>
    let path: String
    let timeZone: LocalTimeZone
}

/// The one place that decides how an input is read: by its name, by its content, or both.
enum FormatTable {
    /// In the order content is recognised: the first entry that recognises a stream's first bytes
    /// is its format (CSV, recognising anything, last).
    static let formats: [TrackFormat] = [
        TrackFormat(name: "photo", extensions: ["jpg", "jpeg", "heic", "heif"], recognizes: { PhotoReader.kind(of: $0.bytes) != nil }) {
            switch try PhotoReader.read($0.source, path: $0.path, timeZone: $0.timeZone, into: &$1) {
            case let .located(kind): return "photo/" + kind.rawValue
            case let .noLocation(kind):
                throw InputError(path: $0.path, reason: "\(kind.rawValue) photo without a GPS position", kind: .noLocation)
            }
        },
        TrackFormat(name: "fit", extensions: ["fit"], recognizes: { FITReader.hasHeader($0.bytes[...]) }) {
            try FITReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "tcx", extensions: ["tcx"], recognizes: { $0.rootElement == "TrainingCenterDatabase" }) {
            try TCXReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "kml", extensions: ["kml"], recognizes: { $0.rootElement == "kml" }) {
            try KMLReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "gpx", extensions: ["gpx"], recognizes: { $0.firstText == UInt8(ascii: "<") }) {
            try GPXReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "json", extensions: ["json", "geojson"], recognizes: { $0.firstText == UInt8(ascii: "{") || $0.firstText == UInt8(ascii: "[") }) {
            "json/" + (try JSONTrackReader.read($0.source, path: $0.path, timeZone: $0.timeZone, into: &$1).rawValue)
        },
        TrackFormat(name: "igc", extensions: ["igc"], recognizes: { IGCReader.recognizes($0.bytes[$0.textStart...]) }) {
            try IGCReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "plt", extensions: ["plt"], recognizes: { OziPLTReader.recognizes($0.bytes[$0.textStart...]) }) {
            try OziPLTReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "owntracks", extensions: ["rec"], recognizes: { OwnTracksReader.recognizes($0.bytes[$0.textStart...]) }) {
            try OwnTracksReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "hitrack", extensions: [], recognizes: { HiTrackReader.recognizes($0.bytes[$0.textStart...]) }) {
            try HiTrackReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "nmea", extensions: ["nmea", "nma", "nme"], recognizes: { NMEAReader.recognizes($0.bytes[$0.textStart...]) }, claimsTextFiles: true) {
            try NMEAReader.read($0.source, path: $0.path, into: &$1); return nil
        },
        TrackFormat(name: "csv", extensions: ["csv", "txt"], recognizes: { _ in true }) {
            try TrackCSVReader.read($0.source, path: $0.path, timeZone: $0.timeZone, into: &$1); return nil
        },
    ]

    /// Fog of World's tiles (``FogOfWorldTile``): known by their name, which holds the tile's
    /// number, and a zlib stream; never by content alone (the position is in the name).
    static let fogOfWorld = TrackFormat(name: "fogofworld", extensions: [], recognizes: { _ in false }) {
        let name = String($0.path.split(whereSeparator: { $0 == "/" || $0 == ":" }).last ?? "")
        guard let tile = FogOfWorldTile.tile(named: name) else { return nil }
        let tileFile = try ZlibDocument.inflate(&$0.source, path: $0.path, maximumCompressed: FogOfWorldTile.maximumInflatedBytes + 65536,
                                                limit: FogOfWorldTile.maximumInflatedBytes)
        try FogOfWorldTile.read(tileFile.bytes, fileBytes: tileFile.compressedBytes, tileX: tile.x, tileY: tile.y, path: $0.path, into: &$1)
        return nil
    }

    /// The file name (without folders) of `name`.
    static func baseName(_ name: String) -> String {
        String(name.split(separator: "/").last ?? "")
    }

    /// True for Huawei's `HiTrack_…` files (no extension, folders aside): read when their
    /// content is HiTrack records, wherever they are found.
    static func isHiTrackName(_ name: String) -> Bool {
        let base = baseName(name)
        return base.hasPrefix("HiTrack_") && !base.contains(".")
    }

    /// True for a Fog of World tile's name (folders aside).
    static func isFogOfWorldTile(_ name: String) -> Bool {
        FogOfWorldTile.tile(named: baseName(name)) != nil
    }

    /// Names whose content decides: `.txt` (CSV unless a format claims it) and `.log` (no track
    /// unless a format claims it).
    static let textExtensions = ["txt", "log"]

    /// The name without a trailing `.gz`, lower-cased.
    static func innerName(_ name: String) -> String {
        var lower = name.lowercased()
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        return lower
    }

    static func hasExtension(_ lower: String, _ extensions: [String]) -> Bool {
        extensions.contains { lower.hasSuffix("." + $0) }
    }

    /// The format `name` announces (after a `.gz`), or nil.
    static func format(named name: String) -> TrackFormat? {
        let lower = innerName(name)
        return formats.first { hasExtension(lower, $0.extensions) }
    }

    /// True for `.txt` and `.log` (after a `.gz`).
    static func readsByContent(_ name: String) -> Bool {
        hasExtension(innerName(name), textExtensions)
    }

    /// True when the name says how a file is read: a format's extension, `.txt` or `.log`.
    static func nameDecides(_ name: String) -> Bool {
        readsByContent(name) || format(named: name) != nil || isFogOfWorldTile(name) || isHiTrackName(name)
    }

    /// True for `.txt` (after a `.gz`): text read as CSV only when it begins like one.
    static func isText(_ name: String) -> Bool {
        innerName(name).hasSuffix(".txt")
    }

    /// The format of a stream named `name` that begins with `prefix`: the name's, except that a
    /// `.txt` or `.log` whose content a format claims is that format; by the content when the
    /// name says nothing and the input was named by the caller. Nil for an input found in a
    /// folder or archive whose name and content say it is no track (a `.log` that is not NMEA, a
    /// `.txt` that does not begin like a CSV of coordinates: a README, notes).
    static func decide(name: String, prefix: ContentPrefix, explicit: Bool) -> TrackFormat? {
        let sniffed = formats.first { $0.recognizes(prefix) }!
        // A zlib stream (CMF 0x78: deflate, 32 KiB window) under a tile's name.
        if isFogOfWorldTile(name), prefix.bytes.first == 0x78 { return fogOfWorld }
        if isHiTrackName(name), sniffed.name == "hitrack" { return sniffed }
        if readsByContent(name) {
            if sniffed.claimsTextFiles { return sniffed }
            if isText(name), !explicit, !TrackCSVReader.beginsWithCoordinates(prefix.bytes[...]) { return nil }
            if let named = format(named: name) { return named }
            return explicit ? sniffed : nil
        }
        if let named = format(named: name) {
            // A `.jpg` that is no JPEG or HEIF (a renamed file, a web page saved as one) is no
            // photo, and no track either: listed as such, not rejected.
            if named.name == "photo", !named.recognizes(prefix) { return nil }
            return named
        }
        return explicit ? sniffed : nil
    }

    /// What the report says a skipped file's format is: what its name says (`fit`, `zip`,
    /// `unknown`).
    static func recordFormat(of path: String) -> String {
        let lower = path.lowercased()
        if lower.hasSuffix(".kmz") { return "kmz" }
        if let named = format(named: path) { return named.name }
        if lower.hasSuffix(".zip") { return "zip" }
        if ContainerKind(name: path) != nil { return "tar" }
        return "unknown"
    }
}

/// A stream's first bytes (up to 4 KiB), with what the recognisers look at.
public struct ContentPrefix: Sendable {
    public let bytes: [UInt8]
    /// Where the text begins, past spaces, line ends and a UTF-8 byte order mark.
    let textStart: Int
    /// The first byte of the text, or nil when there is none.
    public var firstText: UInt8? { textStart < bytes.count ? bytes[textStart] : nil }
    /// For XML: the local name of the root element.
    public let rootElement: String?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        textStart = bytes.firstIndex { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } ?? bytes.count
        rootElement = textStart < bytes.count && bytes[textStart] == UInt8(ascii: "<") ? Self.rootElement(bytes[textStart...]) : nil
    }

    /// The local name of the first element in `bytes`, past declarations, comments and a
    /// DOCTYPE; nil when it is not within them.
    private static func rootElement(_ bytes: ArraySlice<UInt8>) -> String? {
        var i = bytes.startIndex
        func skip(past terminator: [UInt8]) -> Bool {
            while i + terminator.count <= bytes.endIndex {
                if bytes[i..<(i + terminator.count)].elementsEqual(terminator) { i += terminator.count; return true }
                i += 1
            }
            return false
        }
        while i < bytes.endIndex {
            let byte = bytes[i]
            if [0x20, 0x09, 0x0A, 0x0D].contains(byte) { i += 1; continue }
            guard byte == UInt8(ascii: "<"), i + 1 < bytes.endIndex else { return nil }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "?") {
                guard skip(past: Array("?>".utf8)) else { return nil }
            } else if next == UInt8(ascii: "!") {
                let comment = i + 4 <= bytes.endIndex && bytes[i..<(i + 4)].elementsEqual(Array("<!--".utf8))
                guard skip(past: comment ? Array("-->".utf8) : [UInt8(ascii: ">")]) else { return nil }
            } else {
                let nameStart = i + 1
                var nameEnd = nameStart
                while nameEnd < bytes.endIndex, !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[nameEnd])) { nameEnd += 1 }
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                return name.split(separator: ":").last.map(String.init)
            }
        }
        return nil
    }
}
