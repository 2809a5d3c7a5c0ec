import ChinaDatum
import TextFormats
import Unlocks

/// What the intake tells while it runs, in input order: an input's error, a point it could not
/// use, a datum an input's metadata suggests. Typed, so that an app says it in its own words and
/// the command line in its own (`description` is a neutral sentence; `unlocks` renders
/// ``datumHint(path:hint:readAs:)`` with the option that reads the input in the other datum).
public enum IntakeMessage: Equatable, Sendable, CustomStringConvertible {
    /// An input rejected or read in part: the error says where (file, line or byte) and what.
    case inputFailed(InputError)
    /// An input read to its end without one usable point.
    case noReadablePoint(path: String, unreadable: Int)
    /// A point the reader could not use (the first few of each input).
    case unreadablePoint(InputError)
    /// Further unreadable points of an input, not listed one by one.
    case moreUnreadablePoints(path: String, count: Int)
    /// The input's metadata names a map app whose coordinates are in another datum than the one
    /// it was read in (a hint, never applied: the report's `datumHint`).
    case datumHint(path: String, hint: DatumHint, readAs: Datum)

    public var description: String {
        switch self {
        case let .inputFailed(error): return error.description
        case let .noReadablePoint(path, unreadable): return "\(path): no readable point: \(unreadable) unreadable"
        case let .unreadablePoint(error): return error.description + " (point skipped)"
        case let .moreUnreadablePoints(path, count): return "\(path): \(count) more unreadable points"
        case let .datumHint(path, hint, readAs):
            return "note: \(path): \(hint.reason); read as \(readAs.displayName): if its points are \(hint.datum.displayName), read it as \(hint.datum.displayName)"
        }
    }
}
