import Foundation
import RegionTables
import TextFormats
import Tracks

/// The classify report: a pure function of the ledger, the tables and the options, so the same
/// archive gives byte-identical reports whether it was read in one run, through a state file, or
/// in merged shards. Schema: docs/report-format.md.
///
/// Made in two steps: `init` accumulates every figure once from the combined view, every sum
/// over loaded numbers checked (`ClassifyReport+Inputs`, `+Cells`, `+Unlocks`, `+Days`); the
/// JSON and the text (`+JSON`, `+Text`) and the badges (``BadgeMetric``) only read those figures.
public struct ClassifyReport: Sendable {
    /// One unlocked (or tentatively unlocked) region.
    public struct Unlock: Equatable, Sendable {
        public var level: RegionLevel
        public var code: String
        public var name: String
        public var englishName: String
        public var parentCode: String?
        public var confirmed: Bool
        /// Only vehicle-speed points reached it (``RegionEvidence/isPassedThroughOnly``).
        public var passedThrough: Bool
        public var firstVisit: Visit
        /// Local days with a timed ground point placed in it, inside or at its edge (``UnlockLedger/visitDays(zone:standing:)``).
        public var visitDays = 0
        /// The last of those days (days since 1970-01-01 in the report's zone); nil when none.
        public var lastVisitDay: Int64?
        /// Those days as stays: runs of consecutive local days, in order (``Stay``).
        public var stays: [Stay] = []
        /// Those days per local calendar year, in order.
        public var daysPerYear: [YearDays] = []
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

    /// A run of consecutive local days with a ground point in a region (``Unlock/visitDays``'
    /// days): Dawarich's stays, on the person's own days.
    public struct Stay: Equatable, Sendable {
        /// The first and last day (days since 1970-01-01 in the report's zone).
        public var from: Int64
        public var to: Int64
        /// Days in it: `to - from + 1`.
        public var days: Int { Int(to - from + 1) }

        /// The stays of a set of days.
        public static func stays(_ days: Set<Int64>) -> [Stay] {
            var stays: [Stay] = []
            for day in days.sorted() {
                if let last = stays.last, last.to == day - 1 { stays[stays.count - 1].to = day } else { stays.append(Stay(from: day, to: day)) }
            }
            return stays
        }
    }

    /// A region's days in one local calendar year.
    public struct YearDays: Equatable, Sendable {
        public var year: Int64
        public var days: Int
        /// At least ``ClassifyReport/residenceDays`` (183) days: the mark of residence.
        public var reachesResidence: Bool { days >= ClassifyReport.residenceDays }
    }

    /// Days in a calendar year from which a stay counts for residence in many countries' tax
    /// rules (the 183-day test): a region's year with at least this many days is flagged.
    public static let residenceDays = 183

    /// One local day of the series: what was new that day and what was counted on it.
    public struct Day: Equatable, Sendable {
        /// Days since 1970-01-01 in the report's zone.
        public var day: Int64
        /// Cells whose first visit falls on the day, and their area.
        public var newCells: Int = 0
        public var newSquareMetres: Double = 0
        /// Unlocks (those the metrics count) whose first visit falls on the day, per level.
        public var newUnlocks: [RegionLevel: Int] = [:]
        /// Human-powered distance and all duration of the minutes counted on the day (each moment once).
        public var distanceMillimetres: Int64 = 0
        public var durationMilliseconds: Int64 = 0
        /// Explorer tiles first visited on the day, by zoom.
        public var newTiles: [Int: Int] = [:]
        /// Whether a timed point was recorded on the day (``Metrics/recordedDays`` counts these).
        public var recorded = false
    }

    /// One local year of the series: its days summed.
    public struct Year: Equatable, Sendable {
        public var year: Int64
        /// Days with a recorded point.
        public var recordedDays = 0
        public var distanceMillimetres: Int64 = 0
        public var newCells = 0
        public var newSquareMetres: Double = 0
        /// Unlocks (those the metrics count) first visited in the year, per level.
        public var newUnlocks: [RegionLevel: Int] = [:]
    }

    public struct Metrics: Equatable, Sendable {
        /// Human-powered distance: walking, running, cycling, hiking (``CombinedLedger/humanDistanceMillimetres``).
        public var totalDistanceKilometers: Double
        /// On the ground at vehicle speed (or labelled a vehicle): cars, buses, trains, ferries.
        public var vehicleDistanceKilometers: Double
        public var flightDistanceKilometers: Double
        public var totalDurationHours: Double
        public var recordedDays: Int
        public var currentStreakDays: Int
        public var longestStreakDays: Int
        public var countryCount: Int
        /// Continents with a counted country (``ClassifyReport/continents``).
        public var continentCount: Int
        /// Counted states and provinces of every country (``RegionLevel/subdivision``).
        public var subdivisionCount: Int
        public var chinaProvinceCount: Int
        public var cityUnlockCount: Int
        public var countyUnlockCount: Int
        public var chinaAreaKm2: Double
        public var globalAreaKm2: Double
        public var exploredCellCount: Int
        /// Explored cells that reached each familiarity level (``PassCandidates``).
        public var familiarCells: FamiliarityCounts
    }

    /// The inputs by status (superseded readings apart), the skipped ones by reason, and pins
    /// (a superseded reading's not counted).
    public struct InputTotals: Equatable, Sendable {
        public var read = 0, partial = 0, rejected = 0, skipped = 0, planned = 0
        /// Earlier readings of a path that a later reading covers: they count nothing.
        public var superseded = 0
        /// Skipped files per reason, by reason.
        public var skippedByReason: [SkipReason: Int] = [:]
        public var pins: Int64 = 0
    }

    public let options: ClassifyOptions
    /// Whose borders the country level followed (the tables' worldview).
    public let worldview: Worldview
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
    let pathByFingerprint: [String: String]
    public let inputTotals: InputTotals
    /// Points read, kept, in flight and dropped, superseded readings excluded (``CombinedLedger/points``).
    public let pointTotals: PointTotals
    /// Every region with evidence, per level, earliest first visit first (ties by code).
    public internal(set) var unlocks: [RegionLevel: [Unlock]]
    public let metrics: Metrics
    /// The continents (UN M.49, as Unicode CLDR groups the countries: Africa, Asia, Europe,
    /// North America, South America, Oceania, Antarctica) of the counted countries, by code.
    public let continents: [ContinentReached]

    /// A continent and the counted countries in it, by code.
    public struct ContinentReached: Equatable, Sendable {
        public var code: String
        public var name: String
        public var countries: [String]
    }
    /// The per-day series: every local day with a recorded point, a new cell, a new unlock or a
    /// counted minute, in order.
    public let days: [Day]
    /// Places the person has been: each input's first confirming visit of each region it
    /// confirms (``CombinedLedger/confirmedVisits``), by visit; a photo's position among them.
    public let placesBeen: [PlaceBeen]

    /// A region and a visit confirming it.
    public struct PlaceBeen: Equatable, Sendable {
        public var level: RegionLevel
        public var code: String
        public var name: String
        public var englishName: String
        public var visit: Visit
    }

    /// The first and last local days with a recorded point (``Metrics/recordedDays``' days); nil when none.
    public let recordedSpan: (first: Int64, last: Int64)?
    /// The series by local year, in order.
    public let years: [Year]
    /// The regions most explored, children unlocked, the nearest city and county not unlocked.
    public internal(set) var progress: Progress
    /// The explorer tiles' figures at zoom 14 and 17 (``TileMetrics``).
    public let tiles: [TileMetrics]
    /// The visited tiles of each reported zoom (keys of that zoom).
    public let visitedTiles: [Int: TileList]
    /// Each badge's progress, when a catalog was given (``BadgeCatalog/progress(in:reported:)``).
    public var badges: [BadgeProgress]?
    /// What this run added to the state it read (``Changes``); nil when no state was given.
    public var changes: Changes?

    /// The levels whose regions' z17 tiles are counted: a country's or a province's would cost a
    /// scan of up to 883 million tiles' rows (Russia) for a share of a few millionths.
    public static let levelsWithFineTiles: Set<RegionLevel> = [.city, .county]

    /// Fails when a sum over the ledger's numbers would overflow (``UnlockLedger/combined()``,
    /// the inputs' pins). `combined`: the ledger's combined view when the caller has it already
    /// (the map needs it too), so it is computed once.
    public init(ledger: UnlockLedger, combined given: CombinedLedger? = nil, tables: TableSet, options: ClassifyOptions, lenient: Bool,
                includePassedThrough: Bool = false) throws(LedgerOverflow) {
        self.options = options
        worldview = tables.worldview
        self.lenient = lenient
        self.includePassedThrough = includePassedThrough
        inputs = ledger.inputs.values.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
        let combined: CombinedLedger
        if let given { combined = given } else { combined = try ledger.combined() }
        standing = combined.standing
        pathByFingerprint = Dictionary(inputs.map { ($0.fingerprint, $0.path) }, uniquingKeysWith: { a, _ in a })
        pointsCounted = combined.pointsCounted
        inputTotals = try Self.totals(of: inputs, standing: standing)
        pointTotals = combined.points

        var series = DaySeries(zone: options.timeZone, days: combined.days)
        let cells = CellFigures(combined, tables: tables, familiarityLevels: options.familiarityLevels, series: &series)
        let visitedTiles = SlippyTile.reportedZooms.reduce(into: [Int: TileList]()) { tiles, zoom in
            tiles[zoom] = zoom == SlippyTile.storedZoom ? combined.tiles : combined.tiles.parents(from: SlippyTile.storedZoom, to: zoom)
        }
        let regionDays = ledger.visitDays(zone: options.timeZone, standing: combined.standing)
        let unlocks = Self.unlocks(combined.regions, tables: tables, cells: cells, visitedTiles: visitedTiles, days: regionDays, lenient: lenient)
        self.unlocks = unlocks
        for (level, list) in unlocks {
            for unlock in list where unlock.counts(lenient: lenient, includePassedThrough: includePassedThrough) {
                series.addUnlock(at: unlock.firstVisit.time, level: level)
            }
        }
        progress = Self.progress(unlocks: unlocks, counts: { $0.counts(lenient: lenient, includePassedThrough: includePassedThrough) },
                                 cells: combined.cells, tables: tables)
        for zoom in SlippyTile.reportedZooms { series.addTiles(visitedTiles[zoom]!, zoom: zoom) }
        self.visitedTiles = visitedTiles
        tiles = SlippyTile.reportedZooms.map { TileMetrics(tiles: visitedTiles[$0]!, zoom: $0) }
        series.addCountedMinutes(combined.countedMinutes)
        days = series.days
        years = DaySeries.years(days, recorded: combined.days)

        let streaks = DaySeries.streaks(combined.days)
        func count(_ level: RegionLevel) -> Int {
            (unlocks[level] ?? []).filter { $0.counts(lenient: lenient, includePassedThrough: includePassedThrough) }.count
        }
        continents = Self.continents(of: (unlocks[.country] ?? []).filter { $0.counts(lenient: lenient, includePassedThrough: includePassedThrough) },
                                     in: tables.continents)
        recordedSpan = combined.days.min().map { ($0, combined.days.max()!) }
        placesBeen = combined.confirmedVisits.map { v in
            let region = tables.table(of: v.key.level)!.region(v.key.index)
            return PlaceBeen(level: v.key.level, code: region.code, name: region.name, englishName: region.englishName, visit: v.visit)
        }
        metrics = Metrics(totalDistanceKilometers: rounded(Double(combined.humanDistanceMillimetres) / 1e6, 3),
                          vehicleDistanceKilometers: rounded(Double(combined.vehicleDistanceMillimetres) / 1e6, 3),
                          flightDistanceKilometers: rounded(Double(combined.flightDistanceMillimetres) / 1e6, 3),
                          totalDurationHours: rounded(Double(combined.durationMilliseconds) / 3.6e6, 3),
                          recordedDays: combined.days.count, currentStreakDays: streaks.current, longestStreakDays: streaks.longest,
                          countryCount: count(.country), continentCount: continents.count, subdivisionCount: count(.subdivision),
                          chinaProvinceCount: count(.province),
                          cityUnlockCount: count(.city), countyUnlockCount: count(.county),
                          chinaAreaKm2: rounded(cells.inChina / 1e6, 4), globalAreaKm2: rounded(cells.total / 1e6, 4),
                          exploredCellCount: combined.cells.count, familiarCells: cells.familiar)
    }
}

extension ClassifyReport {
    /// The continents of `countries` (the counted ones), each with its countries' codes, by
    /// continent code; a country the file does not know (none in the committed tables) is in none.
    static func continents(of countries: [Unlock], in continents: Continents?) -> [ContinentReached] {
        guard let continents else { return [] }
        var reached: [String: ContinentReached] = [:]
        for country in countries {
            guard let continent = continents.regions(ofCountry: country.code)?.continent else { continue }
            reached[continent.code, default: ContinentReached(code: continent.code, name: continent.name, countries: [])].countries.append(country.code)
        }
        return reached.values.map { ContinentReached(code: $0.code, name: $0.name, countries: $0.countries.sorted()) }.sorted { $0.code < $1.code }
    }
}

extension ClassifyReport.Unlock {
    /// The report's `evidence`: confirmed, tentative, or passed through (vehicle speed only).
    public var evidence: RegionStanding { confirmed ? .confirmed : passedThrough ? .passedThrough : .tentative }

    /// Whether it counts as unlocked: confirmed, tentative with `--lenient`, passed through with
    /// `--include-passed-through`.
    public func counts(lenient: Bool, includePassedThrough: Bool) -> Bool {
        confirmed || (passedThrough ? includePassedThrough : lenient)
    }
}
