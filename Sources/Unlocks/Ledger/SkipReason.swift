/// The export bundles the intake recognises by their layout (their metadata is skipped, their
/// tracks read); the raw value is how the report names one.
public enum ExportKind: String, Sendable {
    case strava = "a Strava export"
    case garmin = "a Garmin export"
    case appleHealth = "an Apple Health export"
    case googleTakeout = "a Google Takeout export"
}

/// Why the intake passes a file over without reading it. Typed end to end (an input's record, the
/// run's counts, the report's totals); `description` is the text the report gives
/// (docs/report-format.md). Skipped files never make a run fail.
public enum SkipReason: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Its name is no track format (a PNG, a PDF, `export.xml` outside a bundle).
    case notATrackFormat
    /// A JSON file found in a folder or archive whose structure is none of the track formats.
    case notATrackJSON
    /// A `.txt` found in a folder or archive that is neither NMEA nor a CSV of coordinates (a
    /// README, notes, Huawei's `description.txt`).
    case textWithoutCoordinates
    /// Part of an export bundle that is not a track (``ExportBundle/Kind``).
    case metadata(ExportKind)
    /// A route planned in Strava (`routes/`): where one meant to go, not where one went.
    case plannedRoute
    /// An activity its bundle labels virtual (Zwift and the like): drawn on real coordinates
    /// of somewhere never visited.
    case virtualActivity
    /// The same file (device and inode) or the same bytes (fingerprint) reached by another
    /// path, which is read: the first in byte order.
    case duplicate
    /// Content forgotten from the state (`unlocks forget`): not read back until
    /// `unlocks forget --undo` lifts it.
    case forgotten
    /// A file this tool wrote (an audit's GeoJSON, a report, a state).
    case ownOutput
    /// An archive inside an archive inside an archive: only one level of nesting is opened.
    case nestedTooDeep
    /// An archive format other than zip, gzip and tar inside an archive (7z, rar, jar).
    case archiveFormatNotRead
    case encrypted
    case notARegularFile
    case hidden
    case hiddenFolder
    /// AppleDouble files (`__MACOSX/`, `._name`) macOS adds to zips.
    case macResourceFork
    /// A file of no bytes: nothing to read, and no copy of any other empty file.
    case empty
    /// An archive that holds no file.
    case emptyArchive
    /// A photo (JPEG, HEIF) or a Google Photos sidecar without a position: no track, nothing to place.
    case photoWithoutLocation
    /// A reason an older version wrote that this one does not know, kept as it was written.
    case other(String)

    public var description: String {
        switch self {
        case .notATrackFormat: "not a track format"
        case .notATrackJSON: "not a known JSON track format"
        case .textWithoutCoordinates: "not a track (text without coordinates)"
        case let .metadata(kind): "metadata of \(kind.rawValue)"
        case .plannedRoute: "planned route (not a recorded track)"
        case .virtualActivity: "virtual activity"
        case .duplicate: "duplicate"
        case .forgotten: "forgotten; bring it back with 'unlocks forget --undo'"
        case .ownOutput: "the tool's own output"
        case .nestedTooDeep: "nested archive too deep"
        case .archiveFormatNotRead: "archive format not read (unpack it)"
        case .encrypted: "encrypted"
        case .notARegularFile: "not a regular file"
        case .hidden: "hidden file"
        case .hiddenFolder: "hidden folder (not walked)"
        case .macResourceFork: "macOS resource fork"
        case .empty: "empty file"
        case .emptyArchive: "empty archive (no files in it)"
        case .photoWithoutLocation: "photo without a location"
        case let .other(text): text
        }
    }

    /// The reason a report or a stored record names by `text` (``description``).
    public init(description text: String) {
        self = Self.known[text] ?? .other(text)
    }

    private static let known: [String: SkipReason] = {
        let every: [SkipReason] = [.notATrackFormat, .notATrackJSON, .textWithoutCoordinates, .plannedRoute, .virtualActivity, .duplicate,
                                   .forgotten, .ownOutput, .nestedTooDeep, .archiveFormatNotRead, .encrypted, .notARegularFile, .hidden,
                                   .hiddenFolder, .macResourceFork, .empty, .emptyArchive, .photoWithoutLocation]
            + [ExportKind.strava, .garmin, .appleHealth, .googleTakeout].map { .metadata($0) }
        return Dictionary(every.map { ($0.description, $0) }, uniquingKeysWith: { a, _ in a })
    }()
}
