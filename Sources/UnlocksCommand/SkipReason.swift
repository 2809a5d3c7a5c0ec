/// Why `classify` passes a file over without reading it: the text the report gives
/// (docs/report-format.md). Skipped files never make the run fail.
enum SkipReason: Equatable, CustomStringConvertible {
    /// Its name is no track format (a photo, a PDF, `export.xml` outside a bundle).
    case notATrackFormat
    /// A JSON file found in a folder or archive whose structure is none of the track formats.
    case notATrackJSON
    /// Part of an export bundle that is not a track (``ExportBundle/Kind``).
    case metadata(ExportBundle.Kind)
    /// A route planned in Strava (`routes/`): where one meant to go, not where one went.
    case plannedRoute
    /// An activity its bundle labels virtual (Zwift and the like): drawn on real coordinates
    /// of somewhere never visited.
    case virtualActivity
    /// The same file (device and inode) or the same bytes (fingerprint) reached again.
    case duplicate
    /// A file this tool wrote (an audit's GeoJSON, a report, a state).
    case ownOutput
    /// A zip inside a zip inside a zip: only one level of nesting is opened.
    case nestedTooDeep
    /// An archive format other than zip and gzip inside an archive (tar, 7z, rar).
    case archiveFormatNotRead
    case encrypted
    case notARegularFile
    case hidden
    case hiddenFolder
    /// AppleDouble files (`__MACOSX/`, `._name`) macOS adds to zips.
    case macResourceFork
    /// A zip entry whose name is flagged UTF-8 but is not, so nothing of it is known.
    case unreadableName

    var description: String {
        switch self {
        case .notATrackFormat: "not a track format"
        case .notATrackJSON: "not a known JSON track format"
        case let .metadata(kind): "metadata of \(kind.rawValue)"
        case .plannedRoute: "planned route (not a recorded track)"
        case .virtualActivity: "virtual activity"
        case .duplicate: "duplicate"
        case .ownOutput: "the tool's own output"
        case .nestedTooDeep: "nested archive too deep"
        case .archiveFormatNotRead: "archive format not read (unpack it)"
        case .encrypted: "encrypted"
        case .notARegularFile: "not a regular file"
        case .hidden: "hidden file"
        case .hiddenFolder: "hidden folder (not walked)"
        case .macResourceFork: "macOS resource fork"
        case .unreadableName: "entry name flagged UTF-8 but not UTF-8 (unknown format)"
        }
    }
}
