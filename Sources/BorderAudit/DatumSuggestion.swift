import Tracks
import Unlocks

/// Datum-flip points of one input where the coast tells the datums apart: `otherOnLand` are off
/// China's coast as read (in no province, in no country or at China's edge) and on land in the
/// other datum; `readOnLand` are inside a province as read and in none in the other datum.
public struct Landfall: Equatable, Sendable {
    public var otherOnLand: Int64 = 0
    public var readOnLand: Int64 = 0
    public init() {}
}

/// An input the audit suggests reading in another datum, on evidence that tells the datums
/// apart (docs/audit-format.md, "Datum suggestions"): its own metadata (a creator naming a
/// Chinese map app), or the coast (points off the coast as read that the other datum puts on
/// land, far more than the reverse). Many datum-flip points alone are no evidence: a WGS-84 walk
/// along a county border flips as often as a GCJ-02 one. A suggestion only: nothing is re-read.
public struct DatumSuggestion: Equatable, Sendable {
    public enum Evidence: String, Sendable { case metadata, coast }
    /// The datum must matter for the input: at least this many of its points flip.
    public static let minimumPoints: Int64 = 3
    /// Coast evidence: at least this many points off the coast as read and on land in the other
    /// datum, and at least ``coastRatio`` times as many as the reverse.
    public static let minimumOffshore: Int64 = 5
    public static let coastRatio: Int64 = 3

    public var path: String
    public var groundPoints: Int64
    public var datumFlipPoints: Int64
    public var landfall: Landfall
    public var evidence: Evidence
    /// What to try, e.g. `its creator "AMap 11" names AMap (高德), whose coordinates are GCJ-02: classify it with --datum-for 'PATH=gcj02'`.
    public var suggestion: String

    /// The suggestion for `input`, or nil without evidence.
    public init?(input: InputRecord, datumFlipPoints: Int64, landfall: Landfall) {
        let ground = input.pointsKept - input.pointsInFlight
        guard input.status != .skipped, ground > 0, datumFlipPoints >= Self.minimumPoints else { return nil }
        path = input.path
        groundPoints = ground
        self.datumFlipPoints = datumFlipPoints
        self.landfall = landfall
        let read = input.datum ?? .wgs84
        let option = "--datum-for '\(input.path)=%@'"
        if let hint = input.datumHint, hint.datum != read {
            evidence = .metadata
            suggestion = "its \(hint.reason): classify it with " + option.replacingOccurrences(of: "%@", with: hint.datum.rawValue)
        } else if landfall.otherOnLand >= Self.minimumOffshore, landfall.otherOnLand >= Self.coastRatio * landfall.readOnLand {
            evidence = .coast
            let other = read == .wgs84 ? "gcj02" : "wgs84"
            suggestion = "\(landfall.otherOnLand) of its points lie off China's coast as read (\(read.displayName)) and on land in \(other == "gcj02" ? "GCJ-02" : "WGS-84") (\(landfall.readOnLand) the other way round): "
                + "if it comes from \(other == "gcj02" ? "a Chinese map app" : "a GPS receiver"), classify it with " + option.replacingOccurrences(of: "%@", with: other)
                + (other == "gcj02" ? " (bd09 for Baidu)" : "")
        } else {
            return nil
        }
    }
}

