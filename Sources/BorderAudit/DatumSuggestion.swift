import Tracks
import Unlocks

/// An input a share of whose ground points change region with the datum (datum-flip): the audit
/// suggests the datum option that would read it otherwise. A suggestion only: nothing is re-read.
public struct DatumSuggestion: Equatable, Sendable {
    /// An input is named when at least this share of its ground points flip, and at least
    /// ``minimumPoints`` do (docs/audit-format.md says why).
    public static let minimumShare = 0.1
    public static let minimumPoints: Int64 = 3

    public var path: String
    public var groundPoints: Int64
    public var datumFlipPoints: Int64
    /// What to try, e.g. `if it comes from a Chinese map app, classify it with --datum-for 'PATH=gcj02'`.
    public var suggestion: String

    /// The suggestion for `input`, or nil when too few of its points flip.
    public init?(input: InputRecord, datumFlipPoints: Int64) {
        let ground = input.pointsKept - input.pointsInFlight
        guard input.status != .skipped, ground > 0, datumFlipPoints >= Self.minimumPoints,
              Double(datumFlipPoints) >= Self.minimumShare * Double(ground) else { return nil }
        path = input.path
        groundPoints = ground
        self.datumFlipPoints = datumFlipPoints
        let option = "--datum-for '\(input.path)=%@'"
        if let hint = input.datumHint {
            suggestion = "its \(hint.reason): classify it with " + option.replacingOccurrences(of: "%@", with: hint.datum.rawValue)
        } else if (input.datum ?? .wgs84) == .wgs84 {
            suggestion = "if it comes from a Chinese map app, classify it with --datum gcj02 or " + option.replacingOccurrences(of: "%@", with: "gcj02")
                + " (bd09 for Baidu)"
        } else {
            suggestion = "it was read as \((input.datum ?? .wgs84).displayName): check that it is, or classify it with " + option.replacingOccurrences(of: "%@", with: "wgs84")
        }
    }
}
