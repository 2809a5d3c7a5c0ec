import RegionTables
import TextFormats

// What a run through a state added: the report's figures against those of the state as it was
// read (docs/report-format.md, `changes`).

extension ClassifyReport {
    /// What a report counted, kept small so that the state's report can be dropped before the
    /// run adds to the ledger.
    public struct Baseline: Sendable {
        /// Per level, each region with evidence by code: whether it was confirmed and counted, and
        /// its names (to name it when it is gone from a later report).
        var regions: [RegionLevel: [String: (confirmed: Bool, counted: Bool, name: String, englishName: String)]] = [:]
        /// Inputs read (every status but skipped) and files skipped.
        var inputs = 0
        var skipped = 0
        var metrics: Metrics
        var tiles: [Int: (visited: Int, maxSquare: Int)] = [:]
        package var badges: [String: Int] = [:]

        /// The figures of `report` (with its badges, when it has them).
        public init(_ report: ClassifyReport) {
            for (level, list) in report.unlocks {
                regions[level] = Dictionary(list.map { ($0.code, ($0.confirmed, $0.counts(lenient: report.lenient, includePassedThrough: report.includePassedThrough),
                                                                   $0.name, $0.englishName)) },
                                            uniquingKeysWith: { a, _ in a })
            }
            inputs = report.inputs.filter { $0.status != .skipped }.count
            skipped = report.inputs.count - inputs
            metrics = report.metrics
            for t in report.tiles { tiles[t.zoom] = (t.visited, t.maxSquare) }
            for b in report.badges ?? [] { badges[b.id] = b.percent }
        }
    }

    /// What this report counts that the baseline did not: differences of totals (negative when
    /// a new reading supersedes an older, longer-counted one), regions newly counted, regions
    /// raised from tentative or passed through to confirmed, badges whose percent rose.
    public struct Changes: Equatable, Sendable {
        /// A region in a list of changes.
        public struct Region: Equatable, Sendable {
            public var code: String
            public var name: String
            public var englishName: String
            /// The standing it has now; nil for a lost region of which nothing is left (the
            /// JSON's `none`).
            public var evidence: RegionStanding?
        }

        /// A badge whose percent rose.
        public struct Badge: Equatable, Sendable {
            public var id: String
            public var fromPercent: Int
            public var toPercent: Int
            /// Whether it is achieved now (it was not, or its percent would not have risen).
            public var achieved: Bool
        }

        /// Inputs read (in full, in part, rejected or planned) added to the ledger.
        public var inputs = 0
        /// Files passed over (each with its reason) added to the ledger.
        public var skipped = 0
        /// Regions that count now and did not, per level, in the report's order.
        public var unlocked: [RegionLevel: [Region]] = [:]
        /// Regions that counted before without being confirmed (tentative with `--lenient`, passed
        /// through with `--include-passed-through`) and are confirmed now: never also in ``unlocked``.
        public var confirmed: [RegionLevel: [Region]] = [:]
        /// Regions that counted before and do not now (inputs forgotten), per level, by code;
        /// `evidence` is what is left of them (`none` when nothing).
        public var lost: [RegionLevel: [Region]] = [:]
        public var exploredKm2 = 0.0
        public var exploredCells = 0
        public var distanceKilometers = 0.0
        public var recordedDays = 0
        /// Per reported zoom: tiles added, the max square before and now.
        public var tiles: [(zoom: Int, visited: Int, maxSquareFrom: Int, maxSquareTo: Int)] = []
        /// Cells that reached each familiarity level, added.
        public var familiarCells = FamiliarityCounts()
        /// Badges whose percent rose; nil when the report has no badges (no `--badges`).
        public var badges: [Badge]?

        public static func == (a: Changes, b: Changes) -> Bool {
            a.inputs == b.inputs && a.skipped == b.skipped && a.unlocked == b.unlocked && a.confirmed == b.confirmed && a.lost == b.lost
                && a.exploredKm2 == b.exploredKm2
                && a.exploredCells == b.exploredCells && a.distanceKilometers == b.distanceKilometers && a.recordedDays == b.recordedDays
                && a.tiles.elementsEqual(b.tiles) { $0 == $1 } && a.familiarCells == b.familiarCells && a.badges == b.badges
        }

        /// `report` against `baseline`.
        public init(from baseline: Baseline, to report: ClassifyReport) {
            let read = report.inputs.filter { $0.status != .skipped }.count
            inputs = read - baseline.inputs
            skipped = report.inputs.count - read - baseline.skipped
            for (level, list) in report.unlocks {
                let before = baseline.regions[level] ?? [:]
                for u in list {
                    let region = Region(code: u.code, name: u.name, englishName: u.englishName, evidence: u.evidence)
                    if u.counts(lenient: report.lenient, includePassedThrough: report.includePassedThrough), before[u.code]?.counted != true {
                        unlocked[level, default: []].append(region)
                    } else if u.confirmed, let was = before[u.code], !was.confirmed {
                        // Counted before (tentative or passed through, as the options let it), confirmed now.
                        confirmed[level, default: []].append(region)
                    }
                }
                let now = Dictionary(list.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
                for (code, was) in before.sorted(by: { $0.key < $1.key }) where was.counted {
                    let remaining = now[code]
                    guard remaining?.counts(lenient: report.lenient, includePassedThrough: report.includePassedThrough) != true else { continue }
                    lost[level, default: []].append(Region(code: code, name: was.name, englishName: was.englishName, evidence: remaining?.evidence))
                }
            }
            for (level, before) in baseline.regions where report.unlocks[level] == nil {
                for (code, was) in before.sorted(by: { $0.key < $1.key }) where was.counted {
                    lost[level, default: []].append(Region(code: code, name: was.name, englishName: was.englishName, evidence: nil))
                }
            }
            let now = report.metrics, was = baseline.metrics
            exploredKm2 = rounded(now.globalAreaKm2 - was.globalAreaKm2, 4)
            exploredCells = now.exploredCellCount - was.exploredCellCount
            distanceKilometers = rounded(now.totalDistanceKilometers - was.totalDistanceKilometers, 3)
            recordedDays = now.recordedDays - was.recordedDays
            tiles = report.tiles.map { t in
                let before = baseline.tiles[t.zoom] ?? (0, 0)
                return (t.zoom, t.visited - before.visited, before.maxSquare, t.maxSquare)
            }
            familiarCells.lit = now.familiarCells.lit - was.familiarCells.lit
            familiarCells.bright = now.familiarCells.bright - was.familiarCells.bright
            familiarCells.gold = now.familiarCells.gold - was.familiarCells.gold
            badges = report.badges.map { _ in [] }
            for b in report.badges ?? [] where b.percent > baseline.badges[b.id] ?? 0 {
                badges?.append(Badge(id: b.id, fromPercent: baseline.badges[b.id] ?? 0, toPercent: b.percent, achieved: b.achieved))
            }
        }

        /// Nothing counted differs.
        public var isEmpty: Bool {
            unlocked.isEmpty && confirmed.isEmpty && lost.isEmpty && exploredCells == 0 && distanceKilometers == 0 && recordedDays == 0
                && tiles.allSatisfy { $0.visited == 0 && $0.maxSquareFrom == $0.maxSquareTo } && familiarCells == FamiliarityCounts() && (badges ?? []).isEmpty
        }


        /// The report's `changes` object.
        package func json() -> JSONValue {
            func regions(_ lists: [RegionLevel: [Region]]) -> JSONValue {
                .object(RegionLevel.reported.map { name, level in
                    (name, .array((lists[level] ?? []).map { r in
                        var members: [(key: String, value: JSONValue)] = [("code", .string(r.code)), ("name", .string(r.name))]
                        if !r.englishName.isEmpty { members.append(("englishName", .string(r.englishName))) }
                        members.append(("evidence", .string(r.evidence?.name ?? "none")))
                        return .object(members)
                    }))
                })
            }
            var members: [(key: String, value: JSONValue)] = [
                ("inputs", .number(Double(inputs))),
                ("skipped", .number(Double(skipped))),
                ("unlocked", regions(unlocked)),
                ("confirmed", regions(confirmed)),
                ("lost", regions(lost)),
                ("exploredKm2", .number(exploredKm2)),
                ("exploredCells", .number(Double(exploredCells))),
                ("distanceKilometers", .number(distanceKilometers)),
                ("recordedDays", .number(Double(recordedDays))),
                ("tiles", .array(tiles.map { t in
                    .object([("zoom", .number(Double(t.zoom))), ("visited", .number(Double(t.visited))),
                             ("maxSquare", .object([("from", .number(Double(t.maxSquareFrom))), ("to", .number(Double(t.maxSquareTo)))]))])
                })),
                ("cells", ClassifyReport.familiarityJSON(familiarCells)),
            ]
            if let badges {
                members.append(("badges", .array(badges.map { b in
                    .object([("id", .string(b.id)), ("fromPercent", .number(Double(b.fromPercent))), ("toPercent", .number(Double(b.toPercent))),
                             ("achieved", .bool(b.achieved))])
                })))
            }
            return .object(members)
        }

        /// The text report's first lines.
        func text() -> String {
            var out = "This run added: \(inputs) input\(inputs == 1 ? "" : "s") read" + (skipped != 0 ? " (and \(skipped) file\(skipped == 1 ? "" : "s") skipped)" : "")
            guard !isEmpty else { return out + ", nothing new counted\n\n" }
            out += "\n"
            func names(_ lists: [RegionLevel: [Region]]) -> String {
                RegionLevel.reported.compactMap { name, level in
                    guard let list = lists[level], !list.isEmpty else { return nil }
                    return "\(list.count) \(list.count == 1 ? level.singular : name) ("
                        + list.map { $0.englishName.isEmpty || $0.englishName == $0.name ? $0.name : "\($0.name) \($0.englishName)" }.joined(separator: ", ") + ")"
                }.joined(separator: "; ")
            }
            if !unlocked.isEmpty { out += "  Unlocked: " + names(unlocked) + "\n" }
            if !confirmed.isEmpty { out += "  Now confirmed: " + names(confirmed) + "\n" }
            if !lost.isEmpty { out += "  No longer unlocked: " + names(lost) + "\n" }
            out += "  Explored: \(signed(exploredKm2, 3)) km² (\(signed(exploredCells)) cells), \(signed(distanceKilometers, 1)) km on foot or by bike, \(signed(recordedDays)) days\n"
            out += "  Tiles: " + tiles.map { t in
                "z\(t.zoom) \(signed(t.visited))" + (t.maxSquareFrom == t.maxSquareTo ? "" : " (max square \(t.maxSquareFrom)×\(t.maxSquareFrom) → \(t.maxSquareTo)×\(t.maxSquareTo))")
            }.joined(separator: ", ") + "\n"
            out += "  Familiar cells: \(signed(familiarCells.lit)) lit, \(signed(familiarCells.bright)) bright, \(signed(familiarCells.gold)) gold\n"
            if let badges, !badges.isEmpty {
                out += "  Badges: " + badges.map { "\($0.id) \($0.fromPercent)% → \($0.toPercent)%" + ($0.achieved ? " (achieved)" : "") }.joined(separator: ", ") + "\n"
            }
            return out + "\n"
        }

        private func signed(_ n: Int) -> String { n >= 0 ? "+\(n)" : "\(n)" }
        private func signed(_ x: Double, _ decimals: Int) -> String { (x >= 0 ? "+" : "") + fixed(x, decimals) }
    }
}
