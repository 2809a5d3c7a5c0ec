/// Why a logbook could not be opened, changed or read: a kind to switch on, the store it concerns,
/// and a sentence for a person (what happened and what to do).
public struct LogbookError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The file is not a logbook (nor a state of the previous format to migrate).
        case notALogbook
        /// A logbook of a newer format than this version reads.
        case newerFormat
        /// A state of an older format that cannot be migrated without the tracks.
        case unmigratableState
        /// The store is damaged: SQLite's own check, a checksum, a number out of range.
        case damaged
        /// It was made with other rules (zone, explore speed, plans, familiarity levels).
        case rulesDiffer
        /// It was made in the other worldview.
        case worldviewDiffers
        /// It names a region the tables lack (they were rebuilt from another source).
        case unknownRegion
        /// A signed store was changed by someone without its key.
        case signatureMismatch
        /// The store is signed and no key was given.
        case keyRequired
        /// A key was given for a store that holds figures nobody signed.
        case notSigned
        /// Nothing matched what was named (forget, undo).
        case nothingMatched
        /// An area or period to forget that is not one (a latitude beyond ±90, a radius not above 0, a period ending before it begins).
        case invalidExclusion
        /// Inputs that a forget of an area or a period had to read again could not be (their
        /// files gone or changed, or nothing kept to read them from); nothing was changed.
        case unreadableInputs([UnreadableInput])
        /// Two logbooks read the same path differently: merging them would count a file twice.
        case mergeConflict
        /// A recording call out of turn (``LiveRecordingError`` says which).
        case recording(LiveRecordingError)
        /// The sums would overflow 64 bits (only a crafted store does this).
        case overflow
        /// Reading or writing the file failed (permissions, disk full, another process's lock held too long).
        case storage
    }

    public let kind: Kind
    /// The store's path.
    public let path: String
    public let reason: String

    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// A recording call out of turn.
public enum LiveRecordingError: Equatable, Sendable {
    /// `record` or `endRecording` with no recording begun.
    case noRecording
    /// `beginRecording` while another is in progress.
    case inProgress(id: String)
    /// `beginRecording` with an id the logbook already has.
    case duplicateID(String)
    case emptyID
}
