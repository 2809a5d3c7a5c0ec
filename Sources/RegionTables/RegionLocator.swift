import ChinaDatum

/// How a point relates to a region at one level.
public enum PlacementStatus: String, Sendable {
    /// Inside the region's (simplified) polygon.
    case inside
    /// Inside no polygon, but within the table's buffer of this region's outer boundary.
    case edge
    /// Neither.
    case outside
}

/// The answer at one level: the region (an index into the level's table), how the point relates
/// to it, and its margin: signed metres to the region's border (positive inside), when a border
/// is within the locator's margin radius.
public struct LevelPlacement: Equatable, Sendable {
    public var region: Int32?
    public var status: PlacementStatus
    public var marginMetres: Double?
    /// For `edge`: no other region's edge zone reaches the point and beyond the arc there is no
    /// region at all (a coast, not a border between two regions; for the China levels, not
    /// China's land border): nobody else can claim the point, so it is evidence for this region.
    public var uncontested = false

    public static let outside = LevelPlacement(region: nil, status: .outside, marginMetres: nil)
}

/// Where a WGS-84 point falls, at every level at once.
public struct Placement: Equatable, Sendable {
    public var country = LevelPlacement.outside
    public var province = LevelPlacement.outside
    public var city = LevelPlacement.outside
    public var county = LevelPlacement.outside
    /// The state or province (first-level subdivision) of the point's country, a region of the
    /// subdivision table (``TableSet/subdivisions``; its code is ISO 3166-2 where one exists): in
    /// China's view the China table's province for China, else Natural Earth's admin-1 unit, always
    /// one of the answered country's (docs/locator.md, "Subdivisions"). Outside when the tables have
    /// no subdivision table.
    public var subdivision = LevelPlacement.outside
    /// The GCJ-02 position used against the China table, when the point is in or at China.
    public var gcj02: Coordinate?

    /// Outside at every level, no GCJ-02 position (what a lookup starts from; a batch's placeholder).
    public init() {}

    /// The same regions and statuses with no margin at any level: what a nearby point may reuse
    /// (a margin belongs to the point it was measured from).
    public var withoutMargins: Placement {
        var placement = self
        placement.country.marginMetres = nil
        placement.province.marginMetres = nil
        placement.city.marginMetres = nil
        placement.county.marginMetres = nil
        placement.subdivision.marginMetres = nil
        return placement
    }
}

/// Why a point cannot be located.
public struct LocatorError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// Assigns WGS-84 points to country, province, city and county over the world and China tables.
///
/// The datum gate is the world table's own China polygon: only a point that the world table puts
/// in (or at the edge of) China is shifted to GCJ-02 and tested against the China table, so
/// Manila, Seoul and Thimphu are never shifted, while Hong Kong and Macau (GCJ-02 in the source,
/// see docs/boundaries.md) are. Near China's border the world table is coarser than the China
/// table (100 m on land borders against 30 m, coasts far coarser, small islands dropped), so a
/// point that the world table puts in no country, or within the world table's buffer (wider than
/// its land-border tolerance) of a world arc that bounds China, is also shifted and tested
/// against the China table; when that table has it inside one of its units, the point is in
/// China whatever the world table says: the finer table decides along its own border
/// (docs/locator.md).
public final class RegionLocator: @unchecked Sendable {
    /// The tables it answers with.
    public let tables: TableSet
    public var world: RegionTable { tables.world }
    public var china: RegionTable { tables.china }
    /// Margins are computed when a border is within this many metres; 0 turns them off (the
    /// regions and statuses are the same, and a lookup costs a fraction: no nearby-arc search).
    public let marginRadius: Double
    /// When the leaves' sub-cell grids are built (`.lazy`: on first lookup; docs/locator.md).
    public let leafGrids: LeafGridMode
    private let chinaCountry: Int32
    /// Per-table lookups precomputed from the units and arcs (flat arrays, read per point).
    private let worldView: TableView
    private let chinaView: TableView
    /// `bordersChina[arc]`: the world arc has China on one side.
    private let bordersChina: [Bool]
    /// Per world arc: a land border between China and another country.
    private let chinaLandBorder: [Bool]
    /// The gate's search radius in quanta (the world table's buffer).
    private let gateRadius: Int64
    /// In the international worldview: the China table's regions (province and county indices)
    /// that are not China's there, Taiwan (710000), Hong Kong (810000), Macau (820000) and
    /// Kinmen (金门县 350527): a point the country table puts in China but the China table in one of
    /// them gets no province, city or county.
    private let notChina: Set<Int32>
    /// The subdivision table's lookups, when the tables have one, and per unit of it: its
    /// subdivision region and its country as a region of this view's country table (−1: a country
    /// the view does not have).
    private let subdivisionView: TableView?
    private let subdivisionOfUnit: [Int32]
    private let viewCountryOfUnit: [Int32]
    private let viewCountryOfSubdivision: [Int32]
    /// Per region of the view's country table, whether any unit of the subdivision table is its:
    /// for a country with none (Kashmir's `IND-PAK-JK`, a territory Natural Earth does not divide)
    /// the nearest-unit search would find nothing, so it is not made.
    private let countryHasUnits: [Bool]
    /// China's view: the subdivision region of each China table province (by ISO 3166-2 code), −1 for others.
    private let subdivisionOfChinaRegion: [Int32]
    /// Metres within which a point whose subdivision-table unit is another country's than the view's
    /// answer takes the nearest subdivision of the answered country: first the near radius (borders
    /// drawn differently by the two sources), then the far one (areas the two views assign apart,
    /// such as Aksai Chin in the international view).
    static let subdivisionSearch = (near: 5_000.0, far: 250_000.0)

    /// ISO 3166-2 codes of the China table's provinces by adcode (ISO 3166-2:CN; Taiwan, Hong Kong
    /// and Macau as CN-TW, CN-HK, CN-MO).
    public static let chinaProvinceISOCodes: [String: String] = [
        "110000": "CN-BJ", "120000": "CN-TJ", "130000": "CN-HE", "140000": "CN-SX", "150000": "CN-NM", "210000": "CN-LN",
        "220000": "CN-JL", "230000": "CN-HL", "310000": "CN-SH", "320000": "CN-JS", "330000": "CN-ZJ", "340000": "CN-AH",
        "350000": "CN-FJ", "360000": "CN-JX", "370000": "CN-SD", "410000": "CN-HA", "420000": "CN-HB", "430000": "CN-HN",
        "440000": "CN-GD", "450000": "CN-GX", "460000": "CN-HI", "500000": "CN-CQ", "510000": "CN-SC", "520000": "CN-GZ",
        "530000": "CN-YN", "540000": "CN-XZ", "610000": "CN-SN", "620000": "CN-GS", "630000": "CN-QH", "640000": "CN-NX",
        "650000": "CN-XJ", "710000": "CN-TW", "810000": "CN-HK", "820000": "CN-MO",
    ]

    /// A table's units and arcs, flattened for the per-point path (a class: passed without copying).
    final class TableView {
        let table: RegionTable
        /// The table's point lookup, with a jump table over the first levels of its index.
        let lookup: UnitLookup
        let levelCount: Int
        /// `unitRegions[unit * levelCount + k]`: the unit's region at the table's level slot k, or −1.
        let unitRegions: [Int32]
        /// Bit k: the arc is a border at level slot k (its sides are in different regions there,
        /// or one side is outside the coverage). Bit 7: one side is outside the coverage.
        let arcBorders: [UInt8]

        init(_ table: RegionTable, leafGrids: LeafGridMode) {
            self.table = table
            lookup = UnitLookup(table, jumpDepth: Self.jumpDepth, leafGrids: leafGrids)
            levelCount = table.levels.count
            var regions = [Int32](repeating: -1, count: table.unitCount * table.levels.count)
            for unit in 0..<table.unitCount {
                for (k, level) in table.levels.enumerated() {
                    regions[unit * table.levels.count + k] = table.region(ofUnit: Int32(unit), at: level) ?? -1
                }
            }
            unitRegions = regions
            arcBorders = (0..<table.arcCount).map { arc in
                let left = table.arcLeft[arc], right = table.arcRight[arc]
                var bits: UInt8 = left < 0 || right < 0 ? 0x80 : 0
                for k in 0..<table.levels.count {
                    let l = left < 0 ? -1 : regions[Int(left) * table.levels.count + k]
                    let r = right < 0 ? -1 : regions[Int(right) * table.levels.count + k]
                    if l != r { bits |= 1 << UInt8(k) }
                }
                return bits
            }
        }

        /// Depth of the lookup's jump table: a 256 × 256 grid of entries (512 KiB per table) that
        /// replaces the first eight levels of every quadtree descent.
        static let jumpDepth = 8

        @inline(__always)
        func region(ofUnit unit: Int32, slot k: Int) -> Int32 {
            unitRegions[Int(unit) * levelCount + k]
        }
    }

    /// A locator over `tables`, ready in milliseconds. `leafGrids` (docs/locator.md, "Leaf grids"):
    /// `.lazy` (the default) builds each index leaf's sub-cell grid on the first lookup that
    /// reaches it, so most points are then answered without casting a ray; `.eager` builds them
    /// all now (0.1–0.4 s); `.none` builds none. The answers are the same in every mode.
    public init(tables: TableSet, marginRadius: Double = 300, leafGrids: LeafGridMode = .lazy) throws {
        let world = tables.world, china = tables.china
        guard world.datum == .wgs84, world.levels == [.country] else {
            throw LocatorError(reason: "\(world.path): expected a WGS-84 country table")
        }
        guard china.datum == .gcj02, china.levels == [.province, .city, .county] else {
            throw LocatorError(reason: "\(china.path): expected a GCJ-02 province/city/county table")
        }
        guard let chinaCountry = world.regions.first(where: { $0.code == "CHN" })?.index else {
            throw LocatorError(reason: "\(world.path): no CHN region")
        }
        self.tables = tables
        self.marginRadius = marginRadius
        self.leafGrids = leafGrids
        self.chinaCountry = chinaCountry
        worldView = TableView(world, leafGrids: leafGrids)
        chinaView = TableView(china, leafGrids: leafGrids)
        bordersChina = (0..<world.arcCount).map { arc in
            [world.arcLeft[arc], world.arcRight[arc]].contains { $0 >= 0 && world.region(ofUnit: $0, at: .country) == chinaCountry }
        }
        chinaLandBorder = (0..<world.arcCount).map { arc in
            let left = world.arcLeft[arc], right = world.arcRight[arc]
            guard left >= 0, right >= 0 else { return false }
            return (world.region(ofUnit: left, at: .country) == chinaCountry) != (world.region(ofUnit: right, at: .country) == chinaCountry)
        }
        gateRadius = Int64((world.buffer / Self.metresPerQuantum).rounded(.up))
        notChina = tables.worldview == .china ? [] : Set(china.regions.filter {
            ($0.level == .province && ["710000", "810000", "820000"].contains($0.code)) || ($0.level == .county && $0.code == "350527")
        }.map(\.index))
        if let subdivisions = tables.subdivisions {
            guard subdivisions.datum == .wgs84, subdivisions.levels == [.country, .province] else {
                throw LocatorError(reason: "\(subdivisions.path): expected a WGS-84 country/province (subdivision) table")
            }
            let view = TableView(subdivisions, leafGrids: leafGrids)
            var countryByCode: [String: Int32] = [:]
            for region in world.regions { countryByCode[region.code] = region.index }
            subdivisionView = view
            subdivisionOfUnit = (0..<subdivisions.unitCount).map { view.region(ofUnit: Int32($0), slot: 1) }
            let ofRegion = subdivisions.regions.map { region -> Int32 in
                guard let country = region.level == .country ? region.index : region.parent else { return -1 }
                return countryByCode[subdivisions.region(country).code] ?? -1
            }
            viewCountryOfSubdivision = ofRegion
            viewCountryOfUnit = (0..<subdivisions.unitCount).map { unit in
                let country = view.region(ofUnit: Int32(unit), slot: 0)
                return country < 0 ? -1 : ofRegion[Int(country)]
            }
            var hasUnits = [Bool](repeating: false, count: world.regions.count)
            for country in viewCountryOfUnit where country >= 0 { hasUnits[Int(country)] = true }
            countryHasUnits = hasUnits
            var byCode: [String: Int32] = [:]
            for region in subdivisions.regions where region.level == .province { byCode[region.code] = region.index }
            subdivisionOfChinaRegion = china.regions.map { region in
                region.level == .province ? Self.chinaProvinceISOCodes[region.code].flatMap { byCode[$0] } ?? -1 : -1
            }
        } else {
            subdivisionView = nil
            subdivisionOfUnit = []
            viewCountryOfUnit = []
            viewCountryOfSubdivision = []
            countryHasUnits = []
            subdivisionOfChinaRegion = []
        }
    }

    /// Bytes the locator holds beyond the tables themselves: both tables' jump tables and chunk
    /// boxes (built when the locator is created) and the leaf grids' lines (reserved; with lazy
    /// grids, pages are touched only as leaves are built).
    public var indexByteCount: Int {
        worldView.lookup.byteCount + chinaView.lookup.byteCount + (subdivisionView?.lookup.byteCount ?? 0)
    }

    /// Loads the worldview's country table and `china.bin` from a directory.
    public convenience init(directory: String, worldview: Worldview = .china, marginRadius: Double = 300) throws {
        try self.init(tables: try TableSet(directory: directory, worldview: worldview), marginRadius: marginRadius)
    }

    /// Metres per quantum north–south (and east–west at the equator).
    static let metresPerQuantum = 111_320 * TableFormat.quantum

    /// Longitude −180° as +180°: one meridian, which the tables draw on their east edge, so that
    /// both spellings of a point on it get one answer (Taveuni, Fiji, at 16.8 S).
    @inline(__always)
    static func canonicalLongitude(_ longitude: Double) -> Double {
        longitude == -180 ? 180 : longitude
    }

    /// Locates a WGS-84 point. Latitudes beyond ±90 and longitudes beyond ±180 are rejected, not
    /// wrapped: in GPS data they are corruption, and wrapping would place them confidently wrong.
    /// Longitude −180 is located as +180 (the same meridian).
    public func locate(latitude: Double, longitude: Double) throws -> Placement {
        guard latitude.isFinite, longitude.isFinite else { throw LocatorError(reason: "coordinate is not a finite number") }
        guard abs(latitude) <= 90 else { throw LocatorError(reason: "latitude \(latitude) is outside -90…90") }
        guard abs(longitude) <= 180 else { throw LocatorError(reason: "longitude \(longitude) is outside -180…180") }
        let longitude = Self.canonicalLongitude(longitude)
        let x = quantise(longitude), y = quantise(latitude)
        var placement = fourLevels(latitude: latitude, longitude: longitude, x: x, y: y)
        if subdivisionView != nil, placement.country.region != nil { subdivide(&placement, x: x, y: y) }
        return placement
    }

    /// Country, province, city and county of a checked point (`x`, `y`: its quantised position).
    @inline(__always)
    private func fourLevels(latitude: Double, longitude: Double, x: Int64, y: Int64) -> Placement {
        var placement = Placement()
        let found = worldView.lookup.find(x: x, y: y)
        placement.country = place(worldView, x: x, y: y, found: found).0
        // In the international worldview the country table alone decides the country (no gate:
        // the China table draws Taiwan, Hong Kong, Macau and Arunachal Pradesh as China).
        if placement.country.region != chinaCountry, tables.worldview == .international { return placement }
        if placement.country.region != chinaCountry {
            // Not China by the world table. At sea (no country, not even at an edge), or near a
            // world arc that bounds China, the China table decides (only within the datum's
            // rectangle, which holds all of China: the shift is not defined far outside it).
            guard ChinaRectangle().appliesShift(latitude: latitude, longitude: longitude),
                  placement.country.region == nil || (!clear(found, y: y, radius: gateRadius) && nearChina(x: x, y: y)) else { return placement }
            return gatedIntoChina(placement, latitude: latitude, longitude: longitude)
        }
        let gcj = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
        placement.gcj02 = gcj
        let gx = quantise(gcj.longitude), gy = quantise(gcj.latitude)
        (placement.province, placement.city, placement.county, _) = place(chinaView, x: gx, y: gy, found: chinaView.lookup.find(x: gx, y: gy))
        if !notChina.isEmpty, [placement.province.region, placement.county.region].contains(where: { $0.map(notChina.contains) == true }) {
            (placement.province, placement.city, placement.county) = (.outside, .outside, .outside)
            return placement
        }
        // The China table's outer arcs are its coast and its land border: an edge beside the land
        // border is between two regions (a province and the neighbouring country).
        if placement.county.uncontested || placement.city.uncontested || placement.province.uncontested,
           worldView.lookup.nearestSegment(toX: x, y: y, radius: gateRadius, accept: { chinaLandBorder[$0] }) != nil {
            placement.province.uncontested = false
            placement.city.uncontested = false
            placement.county.uncontested = false
        }
        return placement
    }

    /// The subdivision of a placement with a country (docs/locator.md, "Subdivisions"): in China's
    /// view, China's is its province in the China table; elsewhere the subdivision table's unit at
    /// the point when it is the answered country's, else the answered country's subdivision
    /// nearest the point (the two tables draw a border differently, or the view assigns the land
    /// to another country than Natural Earth's admin-1 does), at a margin of 0 m; none when the
    /// country has none near. Its status never says more than the country's: `edge` where the country is.
    private func subdivide(_ placement: inout Placement, x: Int64, y: Int64) {
        guard let view = subdivisionView, let country = placement.country.region else { return }
        if country == chinaCountry, tables.worldview == .china {
            if let province = placement.province.region, subdivisionOfChinaRegion[Int(province)] >= 0 {
                placement.subdivision = placement.province
                placement.subdivision.region = subdivisionOfChinaRegion[Int(province)]
            }
            return
        }
        let found = view.lookup.find(x: x, y: y)
        var answer = LevelPlacement.outside
        // Inside a unit of the country, or in no unit (then the edge zone, when it is the country's).
        if found.unit.map({ viewCountryOfUnit[Int($0)] == country }) ?? true {
            let level = place(view, x: x, y: y, found: found).1
            if let region = level.region, viewCountryOfSubdivision[Int(region)] == country { answer = level }
        }
        if answer.region == nil {
            guard countryHasUnits[Int(country)] else { return }
            let unit = nearestUnit(view, x: x, y: y, country: country, metres: Self.subdivisionSearch.near)
                ?? nearestUnit(view, x: x, y: y, country: country, metres: Self.subdivisionSearch.far)
            guard let unit else { return }
            // Outside every unit of the country: no margin can be measured, and a step may enter
            // another unit, so it says it is at the border (0 m: a lookup there is never reused,
            // and a point confirms it only as the third of its segment).
            answer = LevelPlacement(region: subdivisionOfUnit[Int(unit)], status: placement.country.status, marginMetres: 0)
        }
        if placement.country.status != .inside, answer.status == .inside {
            answer.status = placement.country.status
            answer.marginMetres = placement.country.marginMetres
        }
        placement.subdivision = answer
    }

    /// The unit of `country` (a region of the view's country table) whose border arc is nearest
    /// (x, y) within `metres`, in the subdivision table.
    private func nearestUnit(_ view: TableView, x: Int64, y: Int64, country: Int32, metres: Double) -> Int32? {
        let radius = Int64((metres / Self.metresPerQuantum).rounded(.up))
        let mine = viewCountryOfUnit
        guard let nearest = view.lookup.nearestSegment(toX: x, y: y, radius: radius, accept: { arc in
            let left = view.lookup.arcLeft[arc], right = view.lookup.arcRight[arc]
            return (left >= 0 && mine[Int(left)] == country) || (right >= 0 && mine[Int(right)] == country)
        }) else { return nil }
        let left = view.lookup.arcLeft[nearest.arc]
        return left >= 0 && mine[Int(left)] == country ? left : view.lookup.arcRight[nearest.arc]
    }

    /// Locates every point of `points` (WGS-84) into `placements` (same count), each as
    /// ``locate(latitude:longitude:)`` places it. Throws at the first point that cannot be
    /// located, naming its index; the placements before it are written.
    public func locate(_ points: UnsafeBufferPointer<Coordinate>, into placements: UnsafeMutableBufferPointer<Placement>) throws {
        precondition(placements.count == points.count, "RegionLocator.locate: \(placements.count) placements for \(points.count) points")
        for (k, p) in points.enumerated() {
            do {
                placements[k] = try locate(latitude: p.latitude, longitude: p.longitude)
            } catch let error as LocatorError {
                throw LocatorError(reason: "point \(k): \(error.reason)")
            }
        }
    }

    /// The China table's regions (province, city, county) at a point already in GCJ-02, by one
    /// unit lookup: no datum gate, no world lookup, no edge zone, no margins. For callers that
    /// know their points are in China and in GCJ-02 (and for the benchmark's province-only figure).
    /// Coordinates that are not finite or beyond ±90/±180 are in no region.
    public func chinaRegions(gcj02Latitude latitude: Double, longitude: Double) -> (province: Int32?, city: Int32?, county: Int32?) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              let unit = chinaView.lookup.find(x: quantise(longitude), y: quantise(latitude)).unit else { return (nil, nil, nil) }
        func region(_ k: Int) -> Int32? {
            let r = chinaView.region(ofUnit: unit, slot: k)
            return r < 0 ? nil : r
        }
        return (region(0), region(1), region(2))
    }

    /// The world table's country at a WGS-84 point by one unit lookup: no China gate, no edge
    /// zone, no margins (the benchmark's country-only figure). Invalid coordinates are in none.
    public func worldCountry(latitude: Double, longitude: Double) -> Int32? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              let unit = worldView.lookup.find(x: quantise(longitude), y: quantise(latitude)).unit else { return nil }
        let r = worldView.region(ofUnit: unit, slot: 0)
        return r < 0 ? nil : r
    }

    /// Whether every point within `metres` of this one that stays farther than its margins from
    /// its placement's borders gets the same placement (what lets a track reuse a lookup). Not so
    /// for a point in China missing a province, city or county (off the China table's coast, in
    /// the world table's wider outline: walking ashore would find one), nor for a point in
    /// another country within the datum gate's reach of China's border (the China table could
    /// take over there).
    public func placementIsStable(_ placement: Placement, latitude: Double, longitude: Double, within metres: Double) -> Bool {
        let longitude = Self.canonicalLongitude(longitude)
        guard let country = placement.country.region, placement.country.status == .inside else { return false }
        if country == chinaCountry {
            return [placement.province, placement.city, placement.county].allSatisfy { $0.region != nil && $0.status == .inside }
        }
        guard ChinaRectangle().appliesShift(latitude: latitude, longitude: longitude) else { return true }
        let radius = gateRadius + Int64((metres / Self.metresPerQuantum).rounded(.up))
        return worldView.lookup.nearestSegment(toX: quantise(longitude), y: quantise(latitude), radius: radius, accept: { bordersChina[$0] }) == nil
    }

    /// True when a world arc that bounds China lies within the gate radius of (x, y).
    private func nearChina(x: Int64, y: Int64) -> Bool {
        worldView.lookup.nearestSegment(toX: x, y: y, radius: gateRadius, accept: { bordersChina[$0] }) != nil
    }

    /// `placement` (the world table's answer, not China) for a point near China's border: in
    /// China after all when the China table has it inside one of its units.
    private func gatedIntoChina(_ placement: Placement, latitude: Double, longitude: Double) -> Placement {
        let gcj = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
        let gx = quantise(gcj.longitude), gy = quantise(gcj.latitude)
        let found = chinaView.lookup.find(x: gx, y: gy)
        guard found.unit != nil else { return placement }
        var result = placement
        let levels = place(chinaView, x: gx, y: gy, found: found)
        (result.province, result.city, result.county) = (levels.0, levels.1, levels.2)
        result.country = LevelPlacement(region: chinaCountry, status: .inside, marginMetres: levels.3)
        result.gcj02 = gcj
        return result
    }

    /// `Int64((degrees / quantum).rounded())` (halves away from zero), without the libm call:
    /// the truncation and the fraction are exact for |v| < 2^53.
    @inline(__always)
    private func quantise(_ degrees: Double) -> Int64 {
        let v = degrees / TableFormat.quantum
        let whole = Int64(v), fraction = v - Double(whole)
        return whole + (fraction >= 0.5 ? 1 : fraction <= -0.5 ? -1 : 0)
    }

    /// True when the lookup answered from a uniform cell and no cell side is within `radius`
    /// quanta (east–west scaled by cos(latitude)): no arc of the table is that near.
    @inline(__always)
    private func clear(_ found: UnitLookupResult, y: Int64, radius: Int64) -> Bool {
        radius <= 0 || (found.clearanceY >= radius && Double(found.clearanceX) * cosineOfLatitude(Double(y) * TableFormat.quantum) >= Double(radius))
    }

    /// The placements of one point in one table at its level slots 0, 1, 2 (slots the table lacks
    /// are `.outside`), and the margin to the coverage's outer boundary (the national border, for
    /// the China table) when a unit holds the point. One unit lookup (`found`) and at most one
    /// segment search serve all levels.
    private func place(_ view: TableView, x: Int64, y: Int64, found: UnitLookupResult)
        -> (LevelPlacement, LevelPlacement, LevelPlacement, Double?) {
        let table = view.table
        var result = (LevelPlacement.outside, LevelPlacement.outside, LevelPlacement.outside, Double?.none)
        if let unit = found.unit {
            // Margins at level slots 0, 1, 2 and to the coverage's outer boundary (no array: this
            // runs for every point).
            var margins: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
            let radius = Int64((marginRadius / Self.metresPerQuantum).rounded(.up))
            if !clear(found, y: y, radius: radius) {
                view.lookup.visitArcsNear(x: x, y: y, radius: radius) { arc, metres in
                    let bits = view.arcBorders[arc]
                    let left = view.lookup.arcLeft[arc], right = view.lookup.arcRight[arc]
                    for k in 0..<view.levelCount where bits & (1 << UInt8(k)) != 0 {
                        let region = view.region(ofUnit: unit, slot: k)
                        // The arc bounds the point's region at this level when one of its sides is in it.
                        guard (left >= 0 && view.region(ofUnit: left, slot: k) == region) || (right >= 0 && view.region(ofUnit: right, slot: k) == region) else { continue }
                        switch k {
                        case 0: margins.0 = min(margins.0 ?? metres, metres)
                        case 1: margins.1 = min(margins.1 ?? metres, metres)
                        default: margins.2 = min(margins.2 ?? metres, metres)
                        }
                    }
                    if bits & 0x80 != 0 { margins.3 = min(margins.3 ?? metres, metres) }
                }
            }
            func level(_ k: Int, _ margin: Double?) -> LevelPlacement {
                guard k < view.levelCount else { return .outside }
                let region = view.region(ofUnit: unit, slot: k)
                return region < 0 ? .outside : LevelPlacement(region: region, status: .inside, marginMetres: margin)
            }
            result = (level(0, margins.0), level(1, margins.1), level(2, margins.2), margins.3)
            return result
        }
        // Outside every unit: the edge zone is the buffer around arcs with nothing on one side.
        let radius = Int64((table.buffer / Self.metresPerQuantum).rounded(.up))
        guard let nearest = view.lookup.nearestSegment(toX: x, y: y, radius: radius, accept: { view.arcBorders[$0] & 0x80 != 0 }) else {
            return result
        }
        let unit = max(view.lookup.arcLeft[nearest.arc], view.lookup.arcRight[nearest.arc])
        // Contested at level slot k when an outer arc of another region at that level is within
        // the buffer too (a strait between two countries, where two provinces' coasts meet).
        var contested: UInt8 = 0
        view.lookup.visitArcsNear(x: x, y: y, radius: radius) { arc, _ in
            guard view.arcBorders[arc] & 0x80 != 0 else { return }
            let other = max(view.lookup.arcLeft[arc], view.lookup.arcRight[arc])
            guard other != unit else { return }
            for k in 0..<view.levelCount where view.region(ofUnit: other, slot: k) != view.region(ofUnit: unit, slot: k) { contested |= 1 << UInt8(k) }
        }
        func level(_ k: Int) -> LevelPlacement {
            guard k < view.levelCount else { return .outside }
            let region = view.region(ofUnit: unit, slot: k)
            return region < 0 ? .outside : LevelPlacement(region: region, status: .edge, marginMetres: -nearest.metres,
                                                          uncontested: contested & (1 << UInt8(k)) == 0)
        }
        result = (level(0), level(1), level(2), nil)
        return result
    }
}

/// The border arcs around a located point: nearby points in the same regions get the margins a
/// fresh lookup would give by measuring to these arcs alone, without searching the index again
/// (the audit needs exact margins for every point near a border, most of them close together).
public struct MarginNeighbourhood: Sendable {
    /// Where it was made (WGS-84), and how far from there it serves (metres).
    public let latitude: Double
    public let longitude: Double
    public let reach: Double
    /// The regions it serves (every level inside at the centre).
    public let placement: Placement
    /// The segments (x0, y0, x1, y1 quantised, four entries each) near enough to matter of the
    /// world arcs bounding the centre's country, and of the China arcs bounding the centre's
    /// regions, with bit k of `chinaSlots` set when the segment's arc bounds the region at level slot k.
    let worldSegments: [Int32]
    let chinaSegments: [Int32]
    let chinaSlots: [UInt8]
}

extension RegionLocator {
    /// A neighbourhood of `placement` (the fresh answer at the point), serving points within
    /// `reach` metres; nil when the answer is not inside at every level it has, or came through
    /// the China gate, or lies outside the datum's rectangle for a point in China.
    public func neighbourhood(latitude: Double, longitude: Double, placement: Placement, reach: Double) -> MarginNeighbourhood? {
        let longitude = Self.canonicalLongitude(longitude)
        guard let country = placement.country.region, placement.country.status == .inside else { return nil }
        let inChina = country == chinaCountry
        guard !inChina || (placement.gcj02 != nil && [placement.province, placement.city, placement.county].allSatisfy({ $0.status == .inside })) else { return nil }
        guard inChina || (placement.gcj02 == nil && !ChinaRectangle().appliesShift(latitude: latitude, longitude: longitude)) else { return nil }
        let radius = Int64(((marginRadius + reach) / Self.metresPerQuantum).rounded(.up))
        let x = Int64((longitude / TableFormat.quantum).rounded()), y = Int64((latitude / TableFormat.quantum).rounded())
        // A segment farther than this from the centre is farther than the margin radius from every
        // point within reach (2% and 2 quanta spare for the cosine's change over the reach).
        let keep = Double(radius) * 1.02 + 2
        func segments(of arc: Int, in table: RegionTable, x: Int64, y: Int64, slots: UInt8, into out: inout [Int32], _ slotsOut: inout [UInt8]) {
            let cosine = cosineOfLatitude(Double(y) * TableFormat.quantum)
            let vertices = table.vertices
            for i in Int(table.arcStart[arc])..<Int(table.arcStart[arc + 1]) - 1 {
                let ax = Double(Int64(vertices[2 * i]) - x) * cosine, ay = Double(Int64(vertices[2 * i + 1]) - y)
                let bx = Double(Int64(vertices[2 * i + 2]) - x) * cosine, by = Double(Int64(vertices[2 * i + 3]) - y)
                guard RegionTable.distanceToOrigin(ax, ay, bx, by) <= keep else { continue }
                out += vertices[(2 * i)..<(2 * i + 4)]
                slotsOut.append(slots)
            }
        }
        var worldSegments: [Int32] = [], chinaSegments: [Int32] = [], chinaSlots: [UInt8] = [], unused: [UInt8] = []
        for (arc, _) in world.arcsNear(x: x, y: y, radius: radius) where arcBounds(worldView, arc: arc, slot: 0, region: country) {
            segments(of: arc, in: world, x: x, y: y, slots: 1, into: &worldSegments, &unused)
        }
        if inChina, let gcj = placement.gcj02 {
            let regions = [placement.province.region, placement.city.region, placement.county.region]
            let gx = Int64((gcj.longitude / TableFormat.quantum).rounded()), gy = Int64((gcj.latitude / TableFormat.quantum).rounded())
            for (arc, _) in china.arcsNear(x: gx, y: gy, radius: radius) {
                var slots: UInt8 = 0
                for k in 0..<3 where regions[k].map({ arcBounds(chinaView, arc: arc, slot: k, region: $0) }) == true { slots |= 1 << UInt8(k) }
                if slots != 0 { segments(of: arc, in: china, x: gx, y: gy, slots: slots, into: &chinaSegments, &chinaSlots) }
            }
        }
        let result = MarginNeighbourhood(latitude: latitude, longitude: longitude, reach: reach, placement: placement,
                                         worldSegments: worldSegments, chinaSegments: chinaSegments, chinaSlots: chinaSlots)
        // It must reproduce the fresh answer where it was made (the gate's answers do not); it does
        // not measure a subdivision's margin of its own (only China's view's, the province's).
        var fresh = placement
        if !(inChina && tables.worldview == .china) { fresh.subdivision.marginMetres = nil }
        return self.placement(latitude: latitude, longitude: longitude, in: result) == fresh ? result : nil
    }

    /// The placement of a point within the neighbourhood's reach that is in the neighbourhood's
    /// regions at every level (the caller knows: e.g. it reused the same lookup): the regions,
    /// and margins as a fresh lookup gives them. Nil beyond the reach.
    public func placement(latitude: Double, longitude: Double, in neighbourhood: MarginNeighbourhood) -> Placement? {
        let longitude = Self.canonicalLongitude(longitude)
        let dy = (latitude - neighbourhood.latitude) * 111_320
        let dx = (longitude - neighbourhood.longitude) * 111_320 * cosineOfLatitude(latitude)
        guard (dx * dx + dy * dy).squareRoot() * 1.01 + 1 <= neighbourhood.reach else { return nil }
        var result = neighbourhood.placement
        let radius = Int64((marginRadius / Self.metresPerQuantum).rounded(.up))
        let x = Int64((longitude / TableFormat.quantum).rounded()), y = Int64((latitude / TableFormat.quantum).rounded())
        result.country.marginMetres = Self.nearest(neighbourhood.worldSegments, slots: nil, x: x, y: y, radius: radius).0
        if result.gcj02 != nil {
            let position = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
            let gx = Int64((position.longitude / TableFormat.quantum).rounded()), gy = Int64((position.latitude / TableFormat.quantum).rounded())
            (result.province.marginMetres, result.city.marginMetres, result.county.marginMetres)
                = Self.nearest(neighbourhood.chinaSegments, slots: neighbourhood.chinaSlots, x: gx, y: gy, radius: radius)
            result.gcj02 = position
        }
        result.subdivision.marginMetres = result.gcj02 != nil && tables.worldview == .china ? result.province.marginMetres : nil
        return result
    }

    /// True when `arc` is a border at level slot `k` with `region` on one side.
    private func arcBounds(_ view: TableView, arc: Int, slot k: Int, region: Int32) -> Bool {
        guard view.arcBorders[arc] & (1 << UInt8(k)) != 0 else { return false }
        let left = view.table.arcLeft[arc], right = view.table.arcRight[arc]
        return (left >= 0 && view.region(ofUnit: left, slot: k) == region) || (right >= 0 && view.region(ofUnit: right, slot: k) == region)
    }

    /// Per level slot k: the distance (metres) from (x, y) to the nearest of the segments with bit
    /// k set in `slots` (all in slot 0 when nil), when within `radius` quanta, measured exactly as
    /// ``RegionTable/arcsNear(x:y:radius:)`` measures.
    private static func nearest(_ segments: [Int32], slots: [UInt8]?, x: Int64, y: Int64, radius: Int64) -> (Double?, Double?, Double?) {
        let cosine = cosineOfLatitude(Double(y) * TableFormat.quantum)
        var best = (Double.infinity, Double.infinity, Double.infinity)
        for s in 0..<segments.count / 4 {
            let ax = Double(Int64(segments[4 * s]) - x) * cosine, ay = Double(Int64(segments[4 * s + 1]) - y)
            let bx = Double(Int64(segments[4 * s + 2]) - x) * cosine, by = Double(Int64(segments[4 * s + 3]) - y)
            let d = RegionTable.distanceToOrigin(ax, ay, bx, by) * metresPerQuantum
            let bits = slots?[s] ?? 1
            if bits & 1 != 0 { best.0 = min(best.0, d) }
            if bits & 2 != 0 { best.1 = min(best.1, d) }
            if bits & 4 != 0 { best.2 = min(best.2, d) }
        }
        let limit = Double(radius) * metresPerQuantum
        return (best.0 <= limit ? best.0 : nil, best.1 <= limit ? best.1 : nil, best.2 <= limit ? best.2 : nil)
    }
}
