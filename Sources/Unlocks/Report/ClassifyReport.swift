import Foundation
import RegionTables
import TextFormats
import Tracks

/// The classify report: a pure function of the ledger, the tables and the options, so the same
/// archive gives byte-identical reports whether it was read in one run, through a state file, or
/// in merged shards. Schema: docs/report-format.md.
public struct ClassifyReport {
    /// One unlocked (or tentatively unlocked) region.
    public struct Unlock: Equatable {
        public var level: RegionLevel
        public var code: String
        public var name: String
        public var englishName: String
        public var parentCode: String?
        public var confirmed: Bool
        /// Only vehicle-speed points reached it (``RegionEvidence/isPassedThroughOnly``).
        public var passedThrough: Bool
        public var firstVisit: Visit
        public var insidePoints: Int64
        public var edgePoints: Int64
        /// Points that only passed it at vehicle speed.
        public var passedPoints: Int64
        public var exploredSquareMetres: Double
        /// The region's whole area from the tables' stored polygons (``RegionTable/areas(ofRegions:)``), m².
        public var areaSquareMetres: Double
        /// Its explorer tiles by zoom: the visited tiles whose centre lies in it, of all such tiles.
        public var tiles: [Int: RegionTileCount] = [:]
        /// Its explored cells (by first visitor, as ``exploredSquareMetres``) that reached each
        /// familiarity level.
        public var familiarCells = FamiliarityCounts()

        /// Explored area over the region's area, percent; nil when the table stores the region
        /// without area (a speck). At most 100: a cell belongs to the region of the point that
        /// reached it first, so cells along a border can stick out of it by up to a cell.
        public var exploredPercent: Double? {
            areaSquareMetres > 0 ? min(100, exploredSquareMetres / areaSquareMetres * 100) : nil
        }
    }

    /// One local day of the series: what was new that day and what was counted on it.
    public struct Day: Equatable {
        /// Days since 1970-01-01 in the report's zone.
        public var day: Int64
        /// Cells whose first visit falls on the day, and their area.
        public var newCells: Int = 0
        public var newSquareMetres: Double = 0
        /// Unlocks (those the metrics count) whose first visit falls on the day, per level.
        public var newUnlocks: [RegionLevel: Int] = [:]
        /// Distance and duration of the minutes counted on the day (each moment once).
        public var distanceMillimetres: Int64 = 0
        public var durationMilliseconds: Int64 = 0
        /// Explorer tiles first visited on the day, by zoom.
        public var newTiles: [Int: Int] = [:]
    }

    public struct Metrics: Equatable {
        public var totalDistanceKilometers: Double
        public var flightDistanceKilometers: Double
        public var totalDurationHours: Double
        public var recordedDays: Int
        public var currentStreakDays: Int
        public var longestStreakDays: Int
        public var countryCount: Int
        public var chinaProvinceCount: Int
        public var cityUnlockCount: Int
        public var countyUnlockCount: Int
        public var chinaAreaKm2: Double
        public var globalAreaKm2: Double
        public var exploredCellCount: Int
        /// Explored cells that reached each familiarity level (``PassCandidates``).
        public var familiarCells: FamiliarityCounts
    }

    public let options: ClassifyOptions
    public let lenient: Bool
    /// Whether regions only passed through at vehicle speed count as unlocked.
    public let includePassedThrough: Bool
    /// Every file met, skipped ones included, sorted by path.
    public let inputs: [InputRecord]
    /// How each input with a contribution fared in the combined view (superseded, overlaps), by fingerprint.
    public let standing: [String: InputStanding]
    /// Kept points of the counted moments (``CombinedLedger/pointsCounted``).
    public let pointsCounted: Int64
    /// Inputs' paths by fingerprint (to name the inputs an input overlaps).
    private let pathByFingerprint: [String: String]
    /// Every region with evidence, per level, earliest first visit first (ties by code).
    public let unlocks: [RegionLevel: [Unlock]]
    public let metrics: Metrics
    /// The per-day series: every local day with a recorded point, a new cell, a new unlock or a
    /// counted minute, in order.
    public let days: [Day]
    /// The explorer tiles' figures at zoom 14 and 17 (``TileMetrics``).
    public let tiles: [TileMetrics]
    /// The visited tiles of each reported zoom (keys of that zoom).
    public let visitedTiles: [Int: TileList]
    /// Each badge's progress, when a catalog was given (``BadgeCatalog/progress(in:reported:)``).
    public var badges: [BadgeProgress]?

    /// The levels whose regions' z17 tiles are counted: a country's or a province's would cost a
    /// scan of up to 883 million tiles' rows (Russia) for a share of a few millionths.
    public static let levelsWithFineTiles: Set<RegionLevel> = [.city, .county]

    /// Fails when a sum of the combined view would overflow (``UnlockLedger/combined()``).
    public init(ledger: UnlockLedger, tables: TableSet, options: ClassifyOptions, lenient: Bool,
                includePassedThrough: Bool = false) throws(LedgerOverflow) {
        let world = tables.world, china = tables.china
        self.options = options
        self.lenient = lenient
        self.includePassedThrough = includePassedThrough
        inputs = ledger.inputs.values.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
        let combined = try ledger.combined()
        standing = combined.standing
        pathByFingerprint = Dictionary(inputs.map { ($0.fingerprint, $0.path) }, uniquingKeysWith: { a, _ in a })
        pointsCounted = combined.pointsCounted

        // Explored area per region, from each cell's first visitor.
        var rowArea: [Int64: Double] = [:]
        var areaByRegion: [RegionKey: Double] = [:]
        // Cells per familiarity level, overall and per first visitor's (country, China region),
        // counted in runs of cells with the same visitor (cells come in key order: neighbours).
        var familiar = FamiliarityCounts()
        var familiarByVisitor: [Int64: FamiliarityCounts] = [:]
        var run = (visitor: Int64.min, counts: FamiliarityCounts())
        var cellIndex = 0
        var total = 0.0, inChina = 0.0
        let chinaCountry = world.regions.first(where: { $0.code == "CHN" })?.index
        var chinaChain: [Int32: [RegionKey]] = [:]
        var clock = LocalDayClock(zone: options.timeZone)
        // Cells come in no order of time, which the clock's cache wants: in a zone with daylight
        // saving their days are kept by minute; a fixed offset needs no cache.
        var dayOfMinute: [Int64: Int64] = [:]
        let fixedOffset = options.timeZone.fixedMinutes.map { Int64($0) * 60_000 }
        var series: [Int64: Day] = [:]
        for day in combined.days { series[day] = Day(day: day) }
        combined.cells.forEachCell { key, visit in
            let row = ExploredGrid.cell(ofKey: key).row
            let area: Double
            if let known = rowArea[row] { area = known } else {
                area = ExploredGrid.cellArea(row: row)
                rowArea[row] = area
            }
            total += area
            let level = options.familiarityLevels.level(passes: combined.cellPasses[cellIndex])
            cellIndex += 1
            if level >= .lit {
                let visitor = Int64(visit.country) << 32 | Int64(UInt32(bitPattern: visit.chinaRegion))
                if visitor != run.visitor {
                    if run.visitor != .min { familiarByVisitor[run.visitor, default: FamiliarityCounts()].add(run.counts) }
                    run = (visitor, FamiliarityCounts())
                }
                run.counts.add(level)
            }
            if visit.time != Int64.max {
                let day: Int64
                if let fixed = fixedOffset {
                    let local = visit.time &+ fixed
                    day = local / 86_400_000 - (local % 86_400_000 < 0 ? 1 : 0)
                } else {
                    let minute = visit.time / 60_000 - (visit.time % 60_000 < 0 ? 1 : 0)
                    if let known = dayOfMinute[minute] { day = known } else {
                        day = clock.day(of: minute &* 60_000)
                        dayOfMinute[minute] = day
                    }
                }
                series[day, default: Day(day: day)].newCells += 1
                series[day, default: Day(day: day)].newSquareMetres += area
            }
            if visit.country >= 0 {
                areaByRegion[RegionKey(level: .country, index: visit.country), default: 0] += area
                if visit.country == chinaCountry { inChina += area }
            }
            if visit.chinaRegion >= 0 {
                let chain: [RegionKey]
                if let known = chinaChain[visit.chinaRegion] { chain = known } else {
                    var keys: [RegionKey] = []
                    var index: Int32? = visit.chinaRegion
                    while let i = index {
                        let region = china.region(i)
                        keys.append(RegionKey(level: region.level, index: i))
                        index = region.parent
                    }
                    chain = keys
                    chinaChain[visit.chinaRegion] = keys
                }
                for key in chain { areaByRegion[key, default: 0] += area }
            }
        }

        if run.visitor != .min { familiarByVisitor[run.visitor, default: FamiliarityCounts()].add(run.counts) }
        var familiarByRegion: [RegionKey: FamiliarityCounts] = [:]
        for (visitor, counts) in familiarByVisitor {
            familiar.add(counts)
            let country = Int32(truncatingIfNeeded: visitor >> 32), chinaRegion = Int32(bitPattern: UInt32(truncatingIfNeeded: visitor))
            if country >= 0 { familiarByRegion[RegionKey(level: .country, index: country), default: FamiliarityCounts()].add(counts) }
            var index: Int32? = chinaRegion >= 0 ? chinaRegion : nil
            while let i = index {
                let region = china.region(i)
                familiarByRegion[RegionKey(level: region.level, index: i), default: FamiliarityCounts()].add(counts)
                index = region.parent
            }
        }

        let worldAreas = world.areas(ofRegions: combined.regions.keys.filter { $0.level == .country }.map(\.index))
        let chinaAreas = china.areas(ofRegions: combined.regions.keys.filter { $0.level != .country }.map(\.index))
        var visitedTiles: [Int: TileList] = [:]
        for zoom in SlippyTile.reportedZooms {
            visitedTiles[zoom] = zoom == SlippyTile.storedZoom ? combined.tiles : combined.tiles.parents(from: SlippyTile.storedZoom, to: zoom)
        }
        // Every listed region's tiles at z14, cities' and counties' at z17 too (RegionTileCounter:
        // tile centres in its polygons; docs/report-format.md says why not countries' and provinces').
        var worldCounter = RegionTileCounter(table: world, visited: visitedTiles), chinaCounter = RegionTileCounter(table: china, visited: visitedTiles)
        var regionTiles: [Int: (world: [Int32: RegionTileCount], china: [Int32: RegionTileCount])] = [:]
        for zoom in SlippyTile.reportedZooms {
            let levels: Set<RegionLevel> = zoom < SlippyTile.storedZoom ? Set(RegionLevel.allCases) : Self.levelsWithFineTiles
            let wanted = combined.regions.keys.filter { levels.contains($0.level) }
            regionTiles[zoom] = (worldCounter.counts(ofRegions: wanted.filter { $0.level == .country }.map(\.index), zoom: zoom),
                                 chinaCounter.counts(ofRegions: wanted.filter { $0.level != .country }.map(\.index), zoom: zoom))
        }
        var unlocks: [RegionLevel: [Unlock]] = [:]
        for (key, evidence) in combined.regions {
            guard let first = evidence.confirmedBy ?? evidence.tentativeBy ?? evidence.passedBy else { continue }
            let table = key.level == .country ? world : china
            let region = table.region(key.index)
            var unlock = Unlock(level: key.level, code: region.code, name: region.name, englishName: region.englishName,
                                parentCode: region.parent.map { table.region($0).code }, confirmed: evidence.isConfirmed,
                                passedThrough: evidence.isPassedThroughOnly,
                                firstVisit: lenient ? min(first, evidence.tentativeBy ?? first) : first,
                                insidePoints: evidence.insidePoints, edgePoints: evidence.edgePoints, passedPoints: evidence.passedPoints,
                                exploredSquareMetres: areaByRegion[key] ?? 0,
                                areaSquareMetres: (key.level == .country ? worldAreas : chinaAreas)[key.index] ?? 0,
                                tiles: regionTiles.compactMapValues { (key.level == .country ? $0.world : $0.china)[key.index] })
            unlock.familiarCells = familiarByRegion[key] ?? FamiliarityCounts()
            unlocks[key.level, default: []].append(unlock)
        }
        for level in unlocks.keys {
            unlocks[level]!.sort { ($0.firstVisit, $0.code) < ($1.firstVisit, $1.code) }
        }
        self.unlocks = unlocks
        for (level, list) in unlocks {
            for unlock in list where unlock.counts(lenient: lenient, includePassedThrough: includePassedThrough) {
                guard let time = unlock.firstVisit.time else { continue }
                let day = clock.day(of: time)
                series[day, default: Day(day: day)].newUnlocks[level, default: 0] += 1
            }
        }
        for zoom in SlippyTile.reportedZooms {
            let list = visitedTiles[zoom]!
            for time in list.times where time != Int64.max {
                let minute = time / 60_000 - (time % 60_000 < 0 ? 1 : 0)
                let day: Int64
                if let known = dayOfMinute[minute] { day = known } else {
                    day = clock.day(of: minute &* 60_000)
                    dayOfMinute[minute] = day
                }
                series[day, default: Day(day: day)].newTiles[zoom, default: 0] += 1
            }
        }
        self.visitedTiles = visitedTiles
        tiles = SlippyTile.reportedZooms.map { TileMetrics(tiles: visitedTiles[$0]!, zoom: $0) }
        for counted in combined.countedMinutes {
            let day = clock.day(of: counted.minute &* 60_000)
            series[day, default: Day(day: day)].distanceMillimetres += counted.distanceMillimetres
            series[day, default: Day(day: day)].durationMilliseconds += counted.durationMilliseconds
        }
        self.days = series.values.sorted { $0.day < $1.day }

        let days = combined.days.sorted()
        var longest = 0, current = 0
        for (i, day) in days.enumerated() {
            current = i > 0 && days[i - 1] == day - 1 ? current + 1 : 1
            longest = max(longest, current)
        }
        func count(_ level: RegionLevel) -> Int {
            (unlocks[level] ?? []).filter { $0.counts(lenient: lenient, includePassedThrough: includePassedThrough) }.count
        }
        metrics = Metrics(totalDistanceKilometers: rounded(Double(combined.distanceMillimetres) / 1e6, 3),
                          flightDistanceKilometers: rounded(Double(combined.flightDistanceMillimetres) / 1e6, 3),
                          totalDurationHours: rounded(Double(combined.durationMilliseconds) / 3.6e6, 3),
                          recordedDays: days.count, currentStreakDays: current, longestStreakDays: longest,
                          countryCount: count(.country), chinaProvinceCount: count(.province),
                          cityUnlockCount: count(.city), countyUnlockCount: count(.county),
                          chinaAreaKm2: rounded(inChina / 1e6, 4), globalAreaKm2: rounded(total / 1e6, 4),
                          exploredCellCount: combined.cells.count, familiarCells: familiar)
    }

    /// Inputs with `status` (superseded readings excluded).
    public func count(_ status: InputRecord.Status) -> Int {
        inputs.reduce(0) { $0 + ($1.status == status && !isSuperseded($1) ? 1 : 0) }
    }

    /// An earlier reading of a path whose later reading covers its span: it counts nothing.
    public func isSuperseded(_ input: InputRecord) -> Bool {
        standing[input.fingerprint]?.supersededBy != nil
    }

    /// Superseded readings.
    public var supersededCount: Int { inputs.reduce(0) { $0 + (isSuperseded($1) ? 1 : 0) } }

    /// The report's status of an input: its own, or `superseded`.
    public func status(of input: InputRecord) -> String {
        isSuperseded(input) ? "superseded" : input.status.rawValue
    }

    /// The other inputs that recorded some of the same minutes, by path, with the seconds shared.
    public func overlaps(of input: InputRecord) -> [(path: String, seconds: Int64)] {
        guard let shared = standing[input.fingerprint]?.overlaps, !shared.isEmpty else { return [] }
        return shared.map { (fingerprint: $0.key, path: pathByFingerprint[$0.key] ?? $0.key, seconds: $0.value * 60) }
            .sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
            .map { (path: $0.path, seconds: $0.seconds) }
    }

    /// Skipped files per reason, by reason.
    public var skippedByReason: [(reason: String, count: Int)] {
        var counts: [String: Int] = [:]
        for input in inputs where input.status == .skipped { counts[input.skipReason ?? "", default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { (reason: $0.key, count: $0.value) }
    }

    /// Up to this many skipped files, the text report names each; beyond, it counts them by reason.
    public static let skippedNamedInText = 10

    /// Points read, kept, in flight and dropped by reason, over all inputs.
    public var pointTotals: (read: Int64, kept: Int64, inFlight: Int64, dropped: [DropReason: Int64]) {
        var totals: (read: Int64, kept: Int64, inFlight: Int64, dropped: [DropReason: Int64]) = (0, 0, 0, [:])
        for input in inputs {
            totals.read += input.pointsRead
            totals.kept += input.pointsKept
            totals.inFlight += input.pointsInFlight
            for (reason, n) in input.dropped { totals.dropped[reason, default: 0] += n }
        }
        return totals
    }

    // MARK: JSON

    /// The report as JSON (docs/report-format.md), keys in a fixed order.
    public func json() -> JSONValue {
        let totals = pointTotals
        let inputsJSON: [JSONValue] = inputs.map { input in
            var members: [(key: String, value: JSONValue)] = [
                ("path", .string(input.path)), ("format", .string(input.format)), ("status", .string(status(of: input))),
            ]
            if let reason = input.skipReason { members.append(("reason", .string(reason))) }
            if let original = input.duplicateOf { members.append(("duplicateOf", .string(original))) }
            if let type = input.activityType { members.append(("activityType", .string(type))) }
            if let name = input.activityName { members.append(("activityName", .string(name))) }
            if let datum = input.datum, datum != .wgs84 { members.append(("datum", .string(datum.rawValue))) }
            if let hint = input.datumHint {
                members.append(("datumHint", .string(hint.datum.rawValue)))
                members.append(("datumHintReason", .string(hint.reason)))
            }
            if input.status != .skipped {
                members += [("pointsRead", .number(Double(input.pointsRead))), ("pointsKept", .number(Double(input.pointsKept))),
                            ("pins", .number(Double(input.pins)))]
                if input.pointsPlanned > 0 { members.append(("pointsPlanned", .number(Double(input.pointsPlanned)))) }
            }
            let shared = overlaps(of: input)
            if !shared.isEmpty, let s = standing[input.fingerprint] {
                members.append(("overlaps", .array(shared.map { .object([("path", .string($0.path)), ("seconds", .number(Double($0.seconds)))]) })))
                members.append(("countedShare", .number(rounded(s.minutes == 0 ? 1 : Double(s.countedMinutes) / Double(s.minutes), 4))))
            }
            if let error = input.error { members.append(("error", .string(error))) }
            return .object(members)
        }
        let levels: [(String, RegionLevel)] = [("countries", .country), ("provinces", .province), ("cities", .city), ("counties", .county)]
        let zone = options.timeZone
        let unlocksJSON: JSONValue = .object(levels.map { name, level in
            (name, .array((unlocks[level] ?? []).map { u in
                var members: [(key: String, value: JSONValue)] = [("code", .string(u.code)), ("name", .string(u.name))]
                if !u.englishName.isEmpty { members.append(("englishName", .string(u.englishName))) }
                if let parent = u.parentCode { members.append(("parent", .string(parent))) }
                members += [
                    ("evidence", .string(u.evidence)),
                    ("firstVisit", .object([
                        ("time", u.firstVisit.time.map { .string(Timestamp.format($0, offsetMinutes: zone.offsetMinutes(at: $0))) } ?? .null),
                        ("latitude", .number(rounded(u.firstVisit.latitude, 7))),
                        ("longitude", .number(rounded(u.firstVisit.longitude, 7))),
                    ])),
                    ("insidePoints", .number(Double(u.insidePoints))),
                    ("edgePoints", .number(Double(u.edgePoints))),
                    ("passedPoints", .number(Double(u.passedPoints))),
                    ("exploredKm2", .number(rounded(u.exploredSquareMetres / 1e6, 4))),
                    ("areaKm2", .number(rounded(u.areaSquareMetres / 1e6, 3))),
                    ("exploredPercent", u.exploredPercent.map { .number(rounded($0, 6)) } ?? .null),
                    ("tiles", .object(SlippyTile.reportedZooms.compactMap { zoom in
                        u.tiles[zoom].map { c in (String(zoom), .object([("visited", .number(Double(c.visited))), ("total", c.total.map { .number(Double($0)) } ?? .null),
                                                                       ("percent", c.percent.map { .number(rounded($0, 4)) } ?? .null)])) }
                    })),
                    ("cells", Self.familiarityJSON(u.familiarCells)),
                ]
                return .object(members)
            }))
        })
        let m = metrics
        let options: JSONValue = .object([
            ("lenient", .bool(lenient)),
            ("timeZone", .string(zone.description)),
            ("utcOffset", zone.fixedMinutes.map { .string(Self.offsetText($0)) } ?? .null),
            ("inputDatum", .string(self.options.inputDatum.rawValue)),
            ("maximumAccuracyMetres", .number(self.options.maximumAccuracy)),
            ("segmentGapMinutes", .number(Double(self.options.segmentGap) / 60_000)),
            ("exploreMaxSpeedKmh", .number(rounded(self.options.exploreMaxSpeed * 3.6, 3))),
            ("includePlans", .bool(self.options.includePlans)),
            ("includePassedThrough", .bool(includePassedThrough)),
            ("familiarityLevels", .array([self.options.familiarityLevels.lit, self.options.familiarityLevels.bright,
                                          self.options.familiarityLevels.gold].map { .number(Double($0)) })),
        ])
        let inputSummary: JSONValue = .object([
            ("read", .number(Double(count(.read)))),
            ("partial", .number(Double(count(.partial)))),
            ("rejected", .number(Double(count(.rejected)))),
            ("skipped", .number(Double(count(.skipped)))),
            ("planned", .number(Double(count(.planned)))),
            ("superseded", .number(Double(supersededCount))),
            ("skippedByReason", .object(skippedByReason.map { (key: $0.reason, value: JSONValue.number(Double($0.count))) })),
            ("pins", .number(Double(inputs.reduce(0) { $0 + $1.pins }))),
            ("files", .array(inputsJSON)),
        ])
        let dropped: [(key: String, value: JSONValue)] = DropReason.allCases.map { ($0.rawValue, .number(Double(totals.dropped[$0] ?? 0))) }
        let points: JSONValue = .object([
            ("read", .number(Double(totals.read))),
            ("kept", .number(Double(totals.kept))),
            ("counted", .number(Double(pointsCounted))),
            ("inFlight", .number(Double(totals.inFlight))),
            ("dropped", .object(dropped)),
        ])
        let counts: [(String, Double)] = [
            ("totalDistanceKilometers", m.totalDistanceKilometers),
            ("flightDistanceKilometers", m.flightDistanceKilometers),
            ("totalDurationHours", m.totalDurationHours),
            ("recordedDays", Double(m.recordedDays)),
            ("currentStreakDays", Double(m.currentStreakDays)),
            ("longestStreakDays", Double(m.longestStreakDays)),
            ("countryCount", Double(m.countryCount)),
            ("chinaProvinceCount", Double(m.chinaProvinceCount)),
            ("cityUnlockCount", Double(m.cityUnlockCount)),
            ("countyUnlockCount", Double(m.countyUnlockCount)),
            ("chinaAreaKm2", m.chinaAreaKm2),
            ("globalAreaKm2", m.globalAreaKm2),
            ("exploredCellCount", Double(m.exploredCellCount)),
        ]
        let metricsJSON: JSONValue = .object(counts.map { (key: $0.0, value: JSONValue.number($0.1)) })
        let daysJSON: JSONValue = .array(days.map { d in
            let date = Timestamp.civilDate(daysSinceEpoch: d.day)
            return .object([
                ("date", .string(String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day))),
                ("newCells", .number(Double(d.newCells))),
                ("newKm2", .number(rounded(d.newSquareMetres / 1e6, 4))),
                ("newUnlocks", .object(levels.map { name, level in (name, .number(Double(d.newUnlocks[level] ?? 0))) })),
                ("distanceKilometers", .number(rounded(Double(d.distanceMillimetres) / 1e6, 3))),
                ("durationHours", .number(rounded(Double(d.durationMilliseconds) / 3.6e6, 3))),
                ("newTiles", .object(SlippyTile.reportedZooms.map { (String($0), .number(Double(d.newTiles[$0] ?? 0))) })),
            ])
        })
        func localDate(_ time: Int64?) -> JSONValue {
            guard let time else { return .null }
            var clock = LocalDayClock(zone: zone)
            let date = Timestamp.civilDate(daysSinceEpoch: clock.day(of: time))
            return .string(String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day))
        }
        let tilesJSON: JSONValue = .array(tiles.map { t in
            .object([
                ("zoom", .number(Double(t.zoom))),
                ("visited", .number(Double(t.visited))),
                ("clusterTiles", .number(Double(t.clusterTiles))),
                ("largestCluster", .number(Double(t.largestCluster))),
                ("maxSquare", .number(Double(t.maxSquare))),
                ("visitedReached", localDate(t.visitedReached)),
                ("clusterTilesReached", localDate(t.clusterTilesReached)),
                ("largestClusterReached", localDate(t.largestClusterReached)),
                ("maxSquareReached", localDate(t.maxSquareReached)),
                ("maxSquareOrigin", t.maxSquareOrigin.map { .object([("x", .number(Double($0.x))), ("y", .number(Double($0.y)))]) } ?? .null),
            ])
        })
        var members: [(key: String, value: JSONValue)] = [
            ("report", .string("adminunlocks-classify")),
            ("version", .number(2)),
            ("options", options),
            ("inputs", inputSummary),
            ("points", points),
            ("unlocks", unlocksJSON),
            ("metrics", metricsJSON),
            ("explorer", .object([("tiles", tilesJSON), ("cells", Self.familiarityJSON(m.familiarCells))])),
            ("days", daysJSON),
        ]
        if let badges {
            members.append(("badges", .array(badges.map { b in
                .object([("id", .string(b.id)), ("track", .string(b.track.rawValue)), ("metric", .string(b.metric)),
                         ("value", .number(rounded(b.value, 6))), ("target", .number(b.target)), ("percent", .number(Double(b.percent))),
                         ("reportedPercent", .number(Double(b.reportedPercent))), ("achieved", .bool(b.achieved))])
            })))
        }
        return .object(members)
    }

    /// `{lit, bright, gold}`: cells that reached each level.
    static func familiarityJSON(_ counts: FamiliarityCounts) -> JSONValue {
        .object([("lit", .number(Double(counts.lit))), ("bright", .number(Double(counts.bright))), ("gold", .number(Double(counts.gold)))])
    }

    static func offsetText(_ minutes: Int) -> String { LocalTimeZone.offsetText(minutes) }

    // MARK: Text

    /// A summary for a terminal: inputs, points, metrics, and a table of unlocks per level.
    public func text() -> String {
        let totals = pointTotals
        var out = ""
        out += "Inputs: \(count(.read)) read in full"
        for (status, words) in [(InputRecord.Status.partial, "in part"), (.rejected, "rejected"), (.skipped, "skipped"), (.planned, "planned (unlocking nothing)")] where count(status) > 0 {
            out += ", \(count(status)) \(words)"
        }
        if supersededCount > 0 { out += ", \(supersededCount) superseded by a later reading of the same path" }
        out += "\n"
        for input in inputs where input.status == .partial || input.status == .rejected {
            out += "  \(input.status.rawValue): \(input.path): \(input.error ?? "")\n"
        }
        let skipped = inputs.filter { $0.status == .skipped }
        if skipped.count <= Self.skippedNamedInText {
            for input in skipped {
                out += "  skipped: \(input.path): \(input.skipReason ?? "")" + (input.duplicateOf.map { " of \($0)" } ?? "") + "\n"
            }
        } else {
            out += "  skipped: " + skippedByReason.map { "\($0.count) \($0.reason)" }.joined(separator: ", ") + "\n"
        }
        let pins = inputs.reduce(0) { $0 + $1.pins }
        if pins > 0 { out += "Pins: \(pins) (waypoints and placemarks: counted, not classified)\n" }
        let drops = DropReason.allCases.compactMap { r in totals.dropped[r].map { "\(r.rawValue) \($0)" } }
        out += "Points: \(totals.read) read, \(totals.kept) kept (\(totals.inFlight) in flight)"
        let overlapping = inputs.filter { !overlaps(of: $0).isEmpty }.count
        if overlapping > 0 { out += ", \(pointsCounted) counted (\(overlapping) inputs recorded the same moments, counted once)" }
        out += drops.isEmpty ? "\n" : ", dropped: " + drops.joined(separator: ", ") + "\n"
        let m = metrics
        out += "\nDistance \(fixed(m.totalDistanceKilometers, 1)) km (flights \(fixed(m.flightDistanceKilometers, 1)) km), "
        out += "\(fixed(m.totalDurationHours, 1)) h over \(m.recordedDays) days; streak \(m.currentStreakDays) (longest \(m.longestStreakDays))\n"
        out += "Unlocked: \(m.countryCount) countries, \(m.chinaProvinceCount) provinces, \(m.cityUnlockCount) cities, \(m.countyUnlockCount) counties"
        let included = (lenient ? ["tentative"] : []) + (includePassedThrough ? ["passed through"] : [])
        out += included.isEmpty ? "\n" : " (\(included.joined(separator: " and ")) included)\n"
        out += "Explored: \(fixed(m.globalAreaKm2, 3)) km² (\(m.exploredCellCount) cells), in China \(fixed(m.chinaAreaKm2, 3)) km²\n"
        for t in tiles {
            out += "Tiles z\(t.zoom): \(t.visited) visited, \(t.clusterTiles) cluster tiles, largest cluster \(t.largestCluster), max square \(t.maxSquare)×\(t.maxSquare)\n"
        }
        out += "Familiar cells: \(m.familiarCells.lit) lit, \(m.familiarCells.bright) bright, \(m.familiarCells.gold) gold (at \(options.familiarityLevels.lit), \(options.familiarityLevels.bright) and \(options.familiarityLevels.gold) effective passes)\n"
        for (title, level) in [("Countries", RegionLevel.country), ("Provinces", .province), ("Cities", .city), ("Counties", .county)] {
            let rows = unlocks[level] ?? []
            guard !rows.isEmpty else { continue }
            out += "\n\(title)\n"
            let nameWidth = rows.map { displayWidth(label($0)) }.max() ?? 0
            for u in rows {
                let name = label(u)
                let date = u.firstVisit.time.map { String(Timestamp.format($0, offsetMinutes: options.timeZone.offsetMinutes(at: $0)).prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed         "
                out += "  " + (u.code + "      ").prefix(8) + name + String(repeating: " ", count: nameWidth - displayWidth(name) + 2)
                out += date + "  " + leftPad(fixed(u.exploredSquareMetres / 1e6, 3), 9) + " km²"
                out += " of " + leftPad(fixed(u.areaSquareMetres / 1e6, 0), 8) + " km² " + leftPad(u.exploredPercent.map { fixed($0, 4) + "%" } ?? "-", 9)
                out += u.confirmed ? "\n" : u.passedThrough ? "  passed through\n" : "  tentative\n"
            }
        }
        if let badges, !badges.isEmpty {
            out += "\nBadges\n"
            let idWidth = badges.map { $0.id.count }.max() ?? 0
            for b in badges {
                out += "  " + b.id + String(repeating: " ", count: idWidth - b.id.count + 2) + (b.track.rawValue + "            ").prefix(13)
                out += leftPad("\(b.percent)%", 4) + (b.reportedPercent > b.percent ? " (reported \(b.reportedPercent)%)" : "")
                out += "  \(b.metric) \(compact(b.value)) of \(compact(b.target))" + (b.achieved ? "  achieved\n" : "\n")
            }
        }
        return out
    }

    /// A number as short as it reads: whole numbers without decimals, others to three.
    private func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : fixed(value, 3)
    }

    private func label(_ u: Unlock) -> String {
        u.englishName.isEmpty || u.englishName == u.name ? u.name : "\(u.name) \(u.englishName)"
    }
}

extension ClassifyReport.Unlock {
    /// The report's `evidence`: `confirmed`, `tentative`, or `passedThrough` (vehicle speed only).
    public var evidence: String { confirmed ? "confirmed" : passedThrough ? "passedThrough" : "tentative" }

    /// Whether it counts as unlocked: confirmed, tentative with `--lenient`, passed through with
    /// `--include-passed-through`.
    public func counts(lenient: Bool, includePassedThrough: Bool) -> Bool {
        confirmed || (passedThrough ? includePassedThrough : lenient)
    }
}
