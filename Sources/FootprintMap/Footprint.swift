import ChinaDatum
import RegionTables
import Tracks
import Unlocks

/// What `unlocks map` draws: the classify report, the explored cells grouped by the finest region
/// of their first visitor, and the day-by-day growth (the report's `days`), over the two region tables. Rendered as
/// GeoJSON (``geoJSON()``) and as one self-contained HTML page (``html()``). Schema and
/// choices: docs/footprint-format.md.
public struct Footprint: Sendable {
    /// The finest region a cell was first explored in: a Chinese county (or city, or province)
    /// when in China's table, else a country, else none.
    public struct Place: Hashable, Comparable, Sendable {
        public var level: RegionLevel?
        public var index: Int32
        public static func < (a: Place, b: Place) -> Bool {
            ((a.level?.rawValue).map(Int.init) ?? -1, a.index) < ((b.level?.rawValue).map(Int.init) ?? -1, b.index)
        }
    }

    public let report: ClassifyReport
    public let world: RegionTable
    public let china: RegionTable
    /// The world's states and provinces, when the tables have them: shaded beneath China's table.
    public let subdivisions: RegionTable?
    /// Countries' and subdivisions' names in a person's language on the page and the card
    /// (`--language`); nil: the tables' (China's levels keep Chinese and English either way).
    public let names: LocalizedNames?
    /// Explored cell keys per place, each sorted.
    public let cellsByPlace: [Place: [Int64]]
    /// The familiarity level of each cell of ``cellsByPlace``, aligned with its keys.
    public let levelsByPlace: [Place: [FamiliarityLevel]]
    /// The report's days on which cells were first explored, for the growth chart.
    public let growth: [ClassifyReport.Day]
    /// Every explored cell's key in key order (rows south to north, then columns west to east),
    /// and its familiarity level, aligned.
    let cellKeys: [Int64]
    let cellLevels: [FamiliarityLevel]
    /// The places the person has been, most explored first (``Cluster``).
    public let clusters: [Cluster]
    /// Places known without explored cells (a photo, a stop seen by one fix): pins (``Pin``).
    public let pins: [Pin]

    /// A place the person has been that no explored cell shows: a visit confirming a region
    /// (``ClassifyReport/placesBeen``: each input's first in each region, a photo's position
    /// among them) that lies outside every ``Cluster`` (grown by about a kilometre). One per
    /// zoom-12 tile (about 10 km), titled by the finest region there (a county before its city,
    /// province and country).
    public struct Pin: Equatable, Sendable {
        public var latitude: Double
        public var longitude: Double
        public var level: RegionLevel
        public var code: String
        public var title: String
        /// The local day of the first visit (days since 1970 in the report's zone); nil: untimed.
        public var day: Int64?
    }

    /// `cells`: the archive's explored cells (``CombinedLedger/cells`` of the ledger the report is
    /// of); `cellPasses`: their effective passes (``CombinedLedger/cellPasses``), leveled by the
    /// report's ``ClassifyOptions/familiarityLevels``.
    public init(report: ClassifyReport, cells: CellList, cellPasses: [Int32], tables: TableSet, names: LocalizedNames? = nil) {
        let world = tables.world, china = tables.china
        self.report = report
        self.world = world
        self.china = china
        subdivisions = tables.subdivisions
        self.names = names
        var groups: [Place: [(key: Int64, level: FamiliarityLevel)]] = [:]
        let levels = report.options.familiarityLevels
        var keys: [Int64] = [], cellLevels: [FamiliarityLevel] = []
        keys.reserveCapacity(cells.count)
        cellLevels.reserveCapacity(cells.count)
        for (index, (key, visit)) in cells.enumerated() {
            let place: Place
            if visit.chinaRegion >= 0 {
                place = Place(level: china.region(visit.chinaRegion).level, index: visit.chinaRegion)
            } else if visit.country >= 0 {
                place = Place(level: .country, index: visit.country)
            } else {
                place = Place(level: nil, index: -1)
            }
            let level = levels.level(passes: index < cellPasses.count ? cellPasses[index] : 0)
            groups[place, default: []].append((key, level))
            keys.append(key)
            cellLevels.append(level)
        }
        cellKeys = keys
        self.cellLevels = cellLevels
        // Cells come in key order, so each place's list is sorted already.
        cellsByPlace = groups.mapValues { $0.map(\.key) }
        levelsByPlace = groups.mapValues { $0.map(\.level) }
        growth = report.days.filter { $0.newCells > 0 }
        clusters = Cluster.clusters(cellsByPlace)
        pins = Self.pins(report: report, outside: clusters, names: names)
    }

    /// The pins of `report`'s places been that no cluster covers (``Pin``).
    static func pins(report: ClassifyReport, outside clusters: [Cluster], names: LocalizedNames?) -> [Pin] {
        let margin = 0.01  // about a kilometre, in degrees
        var pins: [Pin] = [], tiles = Set<Int64>()
        var clock = LocalDayClock(zone: report.options.timeZone)
        // The finest level first, so a tile's pin is named by its county where China has one.
        let places = report.placesBeen.enumerated().sorted { ($1.element.level.fineness, $0.offset) < ($0.element.level.fineness, $1.offset) }.map(\.element)
        for place in places {
            let latitude = place.visit.latitude, longitude = place.visit.longitude
            let covered = clusters.contains {
                latitude >= $0.south - margin && latitude <= $0.north + margin && longitude >= $0.west - margin && longitude <= $0.east + margin
            }
            let tile = SlippyTile.tile(latitude: latitude, longitude: longitude, zoom: Cluster.joinZoom)
            guard !covered, tiles.insert(SlippyTile.key(x: tile.x, y: tile.y, zoom: Cluster.joinZoom)).inserted else { continue }
            pins.append(Pin(latitude: latitude, longitude: longitude, level: place.level, code: place.code,
                            title: Self.label(level: place.level, code: place.code, name: place.name, englishName: place.englishName, names: names),
                            day: place.visit.time.map { clock.day(of: $0) }))
        }
        // In the order of the visits.
        return pins.sorted { ($0.day ?? .max, $0.latitude, $0.longitude) < ($1.day ?? .max, $1.latitude, $1.longitude) }
    }

    /// A region's name as the page shows it: in the person's language for a country or a
    /// subdivision when `names` has one, else the name and the English name when they differ.
    static func label(level: RegionLevel, code: String, name: String, englishName: String, names: LocalizedNames?) -> String {
        if level == .country || level == .subdivision, let local = names?.name(of: code) { return local }
        return englishName.isEmpty || englishName == name ? name : "\(name) \(englishName)"
    }

    /// The table of a level (a ``Place`` has none of ``RegionLevel/subdivision``, so only outlines ask for it).
    func table(_ level: RegionLevel) -> RegionTable {
        switch level {
        case .country: return world
        case .subdivision: return subdivisions ?? world
        case .province, .city, .county: return china
        }
    }

    /// The report's unlock of a region, if it has one.
    func unlock(_ level: RegionLevel, code: String) -> ClassifyReport.Unlock? {
        report.unlocks[level]?.first { $0.code == code }
    }

    /// The units of each region of `table` (index → units), for outlines and shading.
    static func units(of table: RegionTable) -> [Int32: [Int32]] {
        var units: [Int32: [Int32]] = [:]
        for unit in 0..<Int32(table.unitCount) {
            for level in table.levels {
                if let region = table.region(ofUnit: unit, at: level) { units[region, default: []].append(unit) }
            }
        }
        return units
    }

    /// A table coordinate (quanta) in WGS-84 degrees: the China table is GCJ-02 and is unshifted.
    static func wgs84(_ table: RegionTable, _ x: Int32, _ y: Int32) -> (longitude: Double, latitude: Double) {
        let longitude = Double(x) * TableFormat.quantum, latitude = Double(y) * TableFormat.quantum
        guard table.datum == .gcj02 else { return (longitude, latitude) }
        let c = GCJ02.toWGS84(Coordinate(latitude: latitude, longitude: longitude))
        return (c.longitude, c.latitude)
    }
}
