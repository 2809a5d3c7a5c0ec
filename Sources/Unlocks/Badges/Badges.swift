import TextFormats

/// An achievement an app shows (and reports to Game Center): a report metric to follow and the
/// value at which it is achieved.
public struct Badge: Equatable, Sendable {
    /// The achievement lines of the seed app (雁过留痕): each a series of badges on its own.
    public enum Track: String, CaseIterable, Sendable {
        case exploration, consistency, china, world, pro
    }

    /// The app's identifier (a Game Center achievement id, say); unique in a catalog.
    public var id: String
    public var track: Track
    /// Where the value comes from in the classify report (``BadgeMetric``).
    public var metric: BadgeMetric
    /// The value at which the badge is achieved (> 0).
    public var target: Double

    public init(id: String, track: Track, metric: BadgeMetric, target: Double) {
        self.id = id
        self.track = track
        self.metric = metric
        self.target = target
    }
}

/// An error in a badge file, naming the file, and the badge or byte where it is.
public struct BadgeCatalogError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// The badges of a `--badges` file (docs/badges.md):
/// `{"badges": [{"id": "…", "track": "exploration", "metric": "globalAreaKm2", "target": 1}, …]}`;
/// a badge on a set of regions gives `"regions"` (``RegionSet``) instead of `"metric"`.
/// Other members of a badge (a title, an icon) are the app's and are passed over. Every metric
/// is checked when the file is read: a name that is no number of the report is an error then,
/// before any input is read.
public struct BadgeCatalog: Equatable, Sendable {
    public var badges: [Badge]

    public init(badges: [Badge]) {
        self.badges = badges
    }

    /// Reads a badge file's bytes; `path` names the file in errors.
    public init(json bytes: [UInt8], path: String) throws(BadgeCatalogError) {
        func fail(_ reason: String) -> BadgeCatalogError { BadgeCatalogError(path: path, reason: reason) }
        let document: JSONValue
        do { document = try JSONParser.parse(bytes) } catch let error as JSONError {
            throw fail("not JSON: \(error)")
        } catch {
            throw fail("not JSON: \(error)")
        }
        guard let list = document["badges"]?.arrayValue else { throw fail("no \"badges\" list (the file is {\"badges\": [ … ]})") }
        var badges: [Badge] = []
        var seen: Set<String> = []
        for (position, entry) in list.enumerated() {
            let label = "badge \(position + 1)" + (entry["id"]?.stringValue.map { " (\"\($0)\")" } ?? "")
            guard case .object = entry else { throw fail("\(label): not an object") }
            guard let id = entry["id"]?.stringValue, !id.isEmpty else { throw fail("\(label): no \"id\" string") }
            guard seen.insert(id).inserted else { throw fail("\(label): the id is given twice") }
            guard let trackName = entry["track"]?.stringValue else { throw fail("\(label): no \"track\" string") }
            guard let track = Badge.Track(rawValue: trackName) else {
                throw fail("\(label): unknown track \"\(trackName)\" (one of \(Badge.Track.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let metric: BadgeMetric
            var defaultTarget: Double?
            switch (entry["metric"], entry["regions"]) {
            case let (nil, regions?):
                switch RegionSet.parse(regions) {
                case let .success(set):
                    metric = BadgeMetric(regions: set)
                    defaultTarget = set.codes.map { Double($0.count) }
                case let .failure(problem):
                    throw fail("\(label): \(problem.reason)")
                }
            case let (path?, nil):
                guard let metricPath = path.stringValue else { throw fail("\(label): \"metric\" is not a string") }
                guard let steps = BadgeMetric.steps(of: metricPath) else { throw fail("\(label): \"\(metricPath)\" is not a metric path (name.name, [zoom] for a list by zoom)") }
                guard let resolved = BadgeMetric(steps: steps, path: metricPath) else {
                    throw fail("\(label): \"\(metricPath)\" names no number in the report (docs/badges.md lists the metrics)")
                }
                metric = resolved
            case (nil, nil):
                throw fail("\(label): no \"metric\" string (or \"regions\" set)")
            case (_?, _?):
                throw fail("\(label): give \"metric\" or \"regions\", not both")
            }
            // A set listing its regions asks for all of them unless the badge says how many.
            guard let target = entry["target"]?.numberValue ?? defaultTarget, target.isFinite, target > 0 else {
                throw fail("\(label): \"target\" must be a number above 0" + (entry["regions"] != nil ? " (a set \"within\" a parent needs one)" : ""))
            }
            badges.append(Badge(id: id, track: track, metric: metric, target: target))
        }
        self.badges = badges
    }

    /// Each badge's progress in `report`. `reported` holds, by badge id, the highest percent ever
    /// reported (kept in the state); it is raised to this run's percent where that is higher and
    /// never lowered, so an app that sends ``BadgeProgress/reportedPercent`` never sends Game
    /// Center a value lower than one it sent before (which Game Center silently drops).
    public func progress(in report: ClassifyReport, reported: inout [String: Int]) -> [BadgeProgress] {
        badges.map { badge in
            let value = badge.metric.value(in: report)
            let percent = BadgeProgress.percent(value: value, target: badge.target)
            let highest = max(reported[badge.id] ?? 0, percent)
            reported[badge.id] = highest
            return BadgeProgress(id: badge.id, track: badge.track, metric: badge.metric.description, value: value, target: badge.target,
                                 percent: percent, reportedPercent: highest, achieved: value >= badge.target)
        }
    }
}

/// A badge's standing after a run.
public struct BadgeProgress: Equatable, Sendable {
    public var id: String
    public var track: Badge.Track
    public var metric: String
    /// The metric's value now (it falls when an input is forgotten).
    public var value: Double
    public var target: Double
    /// `value / target` as a whole percent, rounded down, 0–100: 100 only once achieved.
    public var percent: Int
    /// The highest `percent` ever reported through the state: what to send Game Center.
    public var reportedPercent: Int
    /// Whether `value` reaches `target` now.
    public var achieved: Bool

    /// Whole percent, rounded down and clamped to 0–100.
    static func percent(value: Double, target: Double) -> Int {
        guard value.isFinite, value > 0 else { return 0 }
        if value >= target { return 100 }
        return min(99, Int((value / target * 100).rounded(.down)))
    }
}
