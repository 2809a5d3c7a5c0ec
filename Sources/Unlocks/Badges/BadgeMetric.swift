/// A number of the classify report a badge follows, named by its path in the JSON report:
/// `globalAreaKm2` (a member of `metrics`), `metrics.longestStreakDays`, `explorer.cells.gold`,
/// `explorer.tiles[14].maxSquare` (`[N]` picks the entry of a list whose `zoom` is N),
/// `points.kept`, `inputs.read`. A first name that is not a member of the report is looked up
/// in `metrics`, so the seed app's `BadgeMetrics` names work as they are.
///
/// The path is resolved once, when the catalog is read, to one of the report's typed figures
/// (``figures``, the list docs/badges.md gives); its value is read from ``ClassifyReport``'s
/// figures, never from the rendered JSON.
public struct BadgeMetric: Hashable, Sendable, CustomStringConvertible {
    /// A step of a path: a member's name, or `[zoom]`.
    enum Step: Hashable, Sendable {
        case member(String)
        case zoom(Int)
    }

    /// The report's figures a badge can follow.
    enum Figure: Hashable, Sendable {
        case distanceKilometers, vehicleDistanceKilometers, flightDistanceKilometers, durationHours, recordedDays, currentStreakDays, longestStreakDays
        case countryCount, continentCount, subdivisionCount, chinaProvinceCount, cityUnlockCount, countyUnlockCount, chinaAreaKm2, globalAreaKm2, exploredCellCount
        case familiarCells(FamiliarityLevel)
        case tiles(zoom: Int, TileFigure)
        case pointsRead, pointsKept, pointsCounted, pointsInFlight
        case pointsDropped(DropReason)
        case inputs(InputRecord.Status)
        case inputsSuperseded, pins
        /// How many regions of a set are unlocked (a badge's `"regions"`).
        case regions(RegionSet)
    }

    enum TileFigure: String, CaseIterable, Hashable, Sendable {
        case visited, clusterTiles, largestCluster, maxSquare
    }

    let figure: Figure
    /// The path as written.
    public let description: String

    /// Every figure by its full path (`metrics.globalAreaKm2`, `explorer.tiles[14].visited`, …).
    static let figures: [String: Figure] = {
        var table: [String: Figure] = [
            "metrics.totalDistanceKilometers": .distanceKilometers, "metrics.vehicleDistanceKilometers": .vehicleDistanceKilometers,
            "metrics.flightDistanceKilometers": .flightDistanceKilometers,
            "metrics.totalDurationHours": .durationHours, "metrics.recordedDays": .recordedDays,
            "metrics.currentStreakDays": .currentStreakDays, "metrics.longestStreakDays": .longestStreakDays,
            "metrics.countryCount": .countryCount, "metrics.continentCount": .continentCount, "metrics.chinaProvinceCount": .chinaProvinceCount,
            "metrics.subdivisionCount": .subdivisionCount, "metrics.cityUnlockCount": .cityUnlockCount, "metrics.countyUnlockCount": .countyUnlockCount,
            "metrics.chinaAreaKm2": .chinaAreaKm2, "metrics.globalAreaKm2": .globalAreaKm2, "metrics.exploredCellCount": .exploredCellCount,
            "explorer.cells.lit": .familiarCells(.lit), "explorer.cells.bright": .familiarCells(.bright), "explorer.cells.gold": .familiarCells(.gold),
            "points.read": .pointsRead, "points.kept": .pointsKept, "points.counted": .pointsCounted, "points.inFlight": .pointsInFlight,
            "inputs.read": .inputs(.read), "inputs.partial": .inputs(.partial), "inputs.rejected": .inputs(.rejected),
            "inputs.skipped": .inputs(.skipped), "inputs.planned": .inputs(.planned), "inputs.superseded": .inputsSuperseded,
            "inputs.pins": .pins,
        ]
        for zoom in SlippyTile.reportedZooms {
            for figure in TileFigure.allCases { table["explorer.tiles[\(zoom)].\(figure.rawValue)"] = .tiles(zoom: zoom, figure) }
        }
        // Not outsideDates: only a run that selects days has it, and a badge follows the whole history;
        // nor forgotten: what a person asked to forget is no achievement.
        for reason in DropReason.allCases where reason != .outsideDates && reason != .forgotten { table["points.dropped.\(reason.rawValue)"] = .pointsDropped(reason) }
        return table
    }()

    /// The report's top-level members: a path whose first name is none of them names a member
    /// of `metrics`.
    static let topLevelMembers: Set<String> = ["report", "version", "options", "inputs", "points", "unlocks", "metrics", "explorer", "days", "badges"]

    /// The count of a set's regions that are unlocked.
    public init(regions: RegionSet) {
        figure = .regions(regions)
        description = "regions: \(regions)"
    }

    /// Parses and resolves a path; nil when it is not one (``steps(of:)``) or names no figure.
    public init?(_ path: String) {
        guard let steps = Self.steps(of: path) else { return nil }
        self.init(steps: steps, path: path)
    }

    /// Resolves parsed steps; nil when they name no figure of the report.
    init?(steps: [Step], path: String) {
        var steps = steps
        if case let .member(first) = steps[0], !Self.topLevelMembers.contains(first) { steps.insert(.member("metrics"), at: 0) }
        var canonical = ""
        for step in steps {
            switch step {
            case let .member(name): canonical += (canonical.isEmpty ? "" : ".") + name
            case let .zoom(zoom): canonical += "[\(zoom)]"
            }
        }
        guard let figure = Self.figures[canonical] else { return nil }
        self.figure = figure
        description = path
    }

    /// The steps of a path: names separated by dots, each followed by any `[N]` (N ≥ 0); nil for
    /// empty names, an unclosed or non-integer `[…]`.
    static func steps(of path: String) -> [Step]? {
        var steps: [Step] = []
        var rest = Substring(path)
        while !rest.isEmpty {
            let name = rest.prefix { $0 != "." && $0 != "[" && $0 != "]" }
            guard !name.isEmpty else { return nil }
            steps.append(.member(String(name)))
            rest = rest.dropFirst(name.count)
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"), let zoom = Int(rest[rest.index(after: rest.startIndex)..<close]), zoom >= 0 else { return nil }
                steps.append(.zoom(zoom))
                rest = rest[rest.index(after: close)...]
            }
            if rest.first == "." {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            } else if !rest.isEmpty {
                return nil
            }
        }
        return steps.isEmpty ? nil : steps
    }

    /// Its value in `report`: the number the JSON report shows at the path.
    public func value(in report: ClassifyReport) -> Double {
        let m = report.metrics
        switch figure {
        case .distanceKilometers: return m.totalDistanceKilometers
        case .vehicleDistanceKilometers: return m.vehicleDistanceKilometers
        case .flightDistanceKilometers: return m.flightDistanceKilometers
        case .durationHours: return m.totalDurationHours
        case .recordedDays: return Double(m.recordedDays)
        case .currentStreakDays: return Double(m.currentStreakDays)
        case .longestStreakDays: return Double(m.longestStreakDays)
        case .countryCount: return Double(m.countryCount)
        case .continentCount: return Double(m.continentCount)
        case .chinaProvinceCount: return Double(m.chinaProvinceCount)
        case .cityUnlockCount: return Double(m.cityUnlockCount)
        case .countyUnlockCount: return Double(m.countyUnlockCount)
        case .subdivisionCount: return Double(m.subdivisionCount)
        case .chinaAreaKm2: return m.chinaAreaKm2
        case .globalAreaKm2: return m.globalAreaKm2
        case .exploredCellCount: return Double(m.exploredCellCount)
        case let .familiarCells(level): return Double(m.familiarCells.count(at: level))
        case let .tiles(zoom, figure):
            guard let t = report.tiles.first(where: { $0.zoom == zoom }) else { return 0 }
            switch figure {
            case .visited: return Double(t.visited)
            case .clusterTiles: return Double(t.clusterTiles)
            case .largestCluster: return Double(t.largestCluster)
            case .maxSquare: return Double(t.maxSquare)
            }
        case .pointsRead: return Double(report.pointTotals.read)
        case .pointsKept: return Double(report.pointTotals.kept)
        case .pointsCounted: return Double(report.pointsCounted)
        case .pointsInFlight: return Double(report.pointTotals.inFlight)
        case let .pointsDropped(reason): return Double(report.pointTotals.dropped[reason] ?? 0)
        case let .inputs(status): return Double(report.count(status))
        case .inputsSuperseded: return Double(report.supersededCount)
        case .pins: return Double(report.inputTotals.pins)
        case let .regions(set): return Double(set.count(in: report))
        }
    }
}
