import ChinaDatum

/// A datum an input's own metadata suggests its coordinates are in: the file names, as the program
/// that wrote it, a Chinese map app or SDK whose coordinates are GCJ-02 or BD-09. It is a hint on
/// standard error and in the report, never applied: the input is read in the datum the command line
/// gives it (`--datum`, `--datum-for`), because an app may also export WGS-84.
///
/// The apps and SDKs recognised, and the source of each fact, are listed in docs/datum.md.
public struct DatumHint: Equatable, Sendable {
    /// The datum the metadata suggests.
    public var datum: Datum
    /// What in the input suggests it, e.g. `creator "AMap 9.1" names AMap (高德), whose coordinates are GCJ-02`.
    public var reason: String

    public init(datum: Datum, reason: String) {
        self.datum = datum
        self.reason = reason
    }

    /// A program or SDK whose coordinates are in a Chinese datum, recognised by a word in the
    /// name it writes into the files it makes (matched case-insensitively, anywhere in the name),
    /// or, for a short common word (`keep`), by a whole word of the name (letters and digits
    /// between other characters).
    struct ChinaMapSoftware {
        let name: String
        let words: [String]
        let datum: Datum
        var wholeWords: [String] = []

        func matches(_ folded: String) -> Bool {
            if words.contains(where: { folded.contains($0) }) { return true }
            guard !wholeWords.isEmpty else { return false }
            let tokens = folded.split { !($0.isLetter || $0.isNumber) }
            return tokens.contains { wholeWords.contains(String($0)) }
        }
    }

    /// The list in docs/datum.md, each with its source there.
    static let software: [ChinaMapSoftware] = [
        ChinaMapSoftware(name: "AMap (高德)", words: ["amap", "autonavi", "高德"], datum: .gcj02),
        ChinaMapSoftware(name: "Baidu Maps (百度地图)", words: ["baidu", "百度"], datum: .bd09),
        ChinaMapSoftware(name: "Tencent Maps (腾讯地图)", words: ["tencent", "腾讯"], datum: .gcj02),
        ChinaMapSoftware(name: "Keep", words: ["gotokeep"], datum: .gcj02, wholeWords: ["keep"]),
        ChinaMapSoftware(name: "Zepp Life (华米, formerly Mi Fit)", words: ["zepplife", "zepp life", "mi fit", "mifit", "华米", "小米运动"], datum: .gcj02),
    ]

    /// The one rule for a hint: a file whose writer names itself `creator`, read in `datum`, has a
    /// hint when its creator names one of ``software`` whose datum is not `datum`.
    public static func hint(creator: String, readIn datum: Datum) -> DatumHint? {
        guard let hint = DatumHint(creator: creator), hint.datum != datum else { return nil }
        return hint
    }

    /// The hint for a file whose writer names itself `creator` (GPX `creator`, TCX `Creator`,
    /// KML's), or nil when it names none of ``software``.
    public init?(creator: String) {
        let folded = creator.lowercased()
        guard let match = Self.software.first(where: { $0.matches(folded) }) else { return nil }
        datum = match.datum
        reason = "creator \"\(creator)\" names \(match.name), whose coordinates are \(match.datum.displayName)"
    }
}

extension Datum {
    /// `WGS-84`, `GCJ-02`, `BD-09`.
    public var displayName: String {
        switch self {
        case .wgs84: return "WGS-84"
        case .gcj02: return "GCJ-02"
        case .bd09: return "BD-09"
        }
    }
}
