import RegionTables
import TextFormats

/// A set of regions a badge asks for, as Fog of World's achievements do ("all 16 German states",
/// "every Nordic country", "5 continents"): the badge's value is how many of them the report
/// counts as unlocked (``ClassifyReport/Unlock/counts(lenient:includePassedThrough:)``), so it
/// only grows as the archive does. Given in a badge file as `"regions"` instead of `"metric"`
/// (docs/badges.md): `{"level": "subdivision", "within": "DEU"}` (every region of the level
/// under a parent, by the parent's code) or `{"level": "country", "codes": ["DNK", "FIN", …]}`.
public struct RegionSet: Hashable, Sendable, CustomStringConvertible {
    /// The level its regions are at: a report level, or continents (UN M.49 codes: 142 Asia).
    public enum Level: Hashable, Sendable {
        case region(RegionLevel)
        case continent

        /// By name as a badge file gives it: a ``RegionLevel`` name or `continent`.
        init?(name: String) {
            if name == "continent" { self = .continent; return }
            guard let level = RegionLevel.allCases.first(where: { $0.name == name }) else { return nil }
            self = .region(level)
        }

        var name: String {
            switch self {
            case let .region(level): return level.name
            case .continent: return "continent"
            }
        }
    }

    public let level: Level
    /// The regions by code, when the set lists them.
    public let codes: Set<String>?
    /// The parent whose regions at ``level`` the set holds, when it names one (a country's code
    /// for its subdivisions; a province's for its cities).
    public let within: String?

    /// A set listing its regions.
    public init(level: Level, codes: Set<String>) {
        self.level = level
        self.codes = codes
        within = nil
    }

    /// The regions at `level` under `parent`.
    public init(level: RegionLevel, within parent: String) {
        self.level = .region(level)
        codes = nil
        within = parent
    }

    /// How many of its regions `report` counts as unlocked.
    public func count(in report: ClassifyReport) -> Int {
        switch level {
        case .continent:
            return report.continents.filter { codes?.contains($0.code) ?? false }.count
        case let .region(level):
            return (report.unlocks[level] ?? []).filter { unlock in
                unlock.counts(lenient: report.lenient, includePassedThrough: report.includePassedThrough)
                    && (codes.map { $0.contains(unlock.code) } ?? (unlock.parentCode == within))
            }.count
        }
    }

    /// The set as a badge's progress names it: `subdivision within DEU`, `country in DNK, FIN`.
    public var description: String {
        if let within { return "\(level.name) within \(within)" }
        return "\(level.name) in " + (codes ?? []).sorted().joined(separator: ", ")
    }

    /// Reads a badge's `"regions"` object; the error says what is wrong, for the badge's label.
    static func parse(_ value: JSONValue) -> Result<RegionSet, RegionSetProblem> {
        guard case .object = value, let levelName = value["level"]?.stringValue else { return .failure(.init("\"regions\" needs a \"level\" string")) }
        guard let level = Level(name: levelName) else {
            return .failure(.init("\"regions\" level \"\(levelName)\" is none of " + (RegionLevel.reported.map(\.level.name) + ["continent"]).joined(separator: ", ")))
        }
        switch (value["codes"], value["within"]?.stringValue) {
        case let (.array(list)?, nil):
            let codes = list.compactMap(\.stringValue)
            guard !codes.isEmpty, codes.count == list.count, Set(codes).count == codes.count else {
                return .failure(.init("\"regions\" \"codes\" must be a list of distinct region codes"))
            }
            return .success(RegionSet(level: level, codes: Set(codes)))
        case let (nil, parent?):
            guard case let .region(regionLevel) = level, regionLevel != .country else {
                return .failure(.init("\"within\" names a parent: the level must be below countries"))
            }
            return .success(RegionSet(level: regionLevel, within: parent))
        default:
            return .failure(.init("\"regions\" needs either \"codes\" (a list) or \"within\" (a parent's code)"))
        }
    }
}

/// Why a badge's `"regions"` is not a set.
struct RegionSetProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
