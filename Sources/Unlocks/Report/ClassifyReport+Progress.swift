import ChinaDatum
import Foundation
import RegionTables
import TextFormats

// Progress a person can act on: the regions most explored, how many of each unlocked region's
// children are unlocked, and the nearest city and county not yet unlocked
// (docs/report-format.md, `progress`).

extension ClassifyReport {
    public struct Progress: Equatable, Sendable {
        /// A region with its explored share.
        public struct Ranked: Equatable, Sendable {
            public var code: String
            public var name: String
            public var englishName: String
            public var exploredPercent: Double
        }

        /// An unlocked region and how many of its children (the next level down) are unlocked.
        public struct Children: Equatable, Sendable {
            public var level: RegionLevel
            public var code: String
            public var name: String
            public var englishName: String
            public var childLevel: RegionLevel
            public var unlocked: Int
            public var total: Int
        }

        /// A region not unlocked, and its distance from ``from``.
        public struct Nearest: Equatable, Sendable {
            public var code: String
            public var name: String
            public var englishName: String
            public var parentCode: String?
            public var distanceMetres: Double
            /// The straight way there crosses more than ``Progress/waterMetres`` outside every
            /// country (a strait, the sea, a large lake): a person reads the distance as a crossing.
            public var acrossSea = false
            /// The countries other than the one `from` lies in that the straight way crosses (ISO
            /// codes of the world table, in order of passage): the region is near only through them.
            public var through: [String] = []
        }

        /// Water (metres along the straight way, outside every country of the world table) from
        /// which the way to a nearest region is "across the sea": more than a harbour or a river.
        public static let waterMetres = 3_000.0

        /// How many regions per level ``mostExplored`` lists.
        public static let rankedPerLevel = 10
        /// Per level, the counted unlocks with the largest explored share, largest first (ties by code).
        public var mostExplored: [RegionLevel: [Ranked]] = [:]
        /// Each counted unlock with more than one child in the tables (China and its provinces; their
        /// cities; every other country and its subdivisions).
        public var children: [Children] = []
        /// Where the nearest regions are measured from: the centre of the cell explored last in
        /// China (the timed cell with the latest first visit; ties by cell), else of the cell
        /// explored last anywhere; nil when no cell is timed.
        public var from: Visit?
        /// The nearest city and county (China's levels) not counted as unlocked, by distance from
        /// ``from`` to their stored outlines (0 when ``from`` lies in one).
        public var nearest: [RegionLevel: Nearest] = [:]
    }

    /// The progress over `unlocks`; `cells` gives ``Progress/from``.
    static func progress(unlocks: [RegionLevel: [Unlock]], counts: (Unlock) -> Bool, cells: CellList, tables: TableSet) -> Progress {
        var progress = Progress()
        for (level, list) in unlocks {
            let ranked = list.filter { counts($0) && ($0.exploredPercent ?? 0) > 0 }
                .sorted { ($0.exploredPercent!, $1.code) > ($1.exploredPercent!, $0.code) }
                .prefix(Progress.rankedPerLevel)
                .map { Progress.Ranked(code: $0.code, name: $0.name, englishName: $0.englishName, exploredPercent: $0.exploredPercent!) }
            if !ranked.isEmpty { progress.mostExplored[level] = ranked }
        }

        let china = tables.china
        let counted = Dictionary(grouping: unlocks.values.joined().filter(counts), by: \.level).mapValues { Set($0.map(\.code)) }
        var childCount: [Int32: (total: Int, unlocked: Int)] = [:]
        var provinces = (total: 0, unlocked: 0)
        for region in china.regions {
            let unlocked = counted[region.level]?.contains(region.code) == true
            if region.level == .province {
                provinces.total += 1
                if unlocked { provinces.unlocked += 1 }
            }
            if let parent = region.parent, china.region(parent).level.rawValue + 1 == region.level.rawValue {
                childCount[parent, default: (0, 0)].total += 1
                if unlocked { childCount[parent, default: (0, 0)].unlocked += 1 }
            }
        }
        // Other countries' children are their subdivisions (states, provinces, prefectures).
        var subdivisionsOf: [String: (total: Int, unlocked: Int)] = [:]
        if let table = tables.subdivisions {
            for region in table.regions where region.level == .province {
                guard let parent = region.parent else { continue }
                let country = table.region(parent).code
                subdivisionsOf[country, default: (0, 0)].total += 1
                if counted[.subdivision]?.contains(region.code) == true { subdivisionsOf[country, default: (0, 0)].unlocked += 1 }
            }
        }
        let indexByCode = Dictionary(china.regions.map { ($0.code, $0.index) }, uniquingKeysWith: { a, _ in a })
        for level in [RegionLevel.country, .province, .city] {
            for u in unlocks[level] ?? [] where counts(u) {
                let figures: (total: Int, unlocked: Int)?
                let childLevel: RegionLevel
                switch level {
                case .country where u.code == "CHN": (figures, childLevel) = (provinces, .province)
                case .country: (figures, childLevel) = (subdivisionsOf[u.code], .subdivision)
                default: (figures, childLevel) = (indexByCode[u.code].flatMap { childCount[$0] }, level == .province ? .city : .county)
                }
                // A municipality's one city (itself) says nothing.
                guard let figures, figures.total > 1 else { continue }
                progress.children.append(Progress.Children(level: level, code: u.code, name: u.name, englishName: u.englishName,
                                                           childLevel: childLevel, unlocked: figures.unlocked, total: figures.total))
            }
        }

        // The newest timed cell in China (the levels measured are China's), else the newest of all.
        var newest: (time: Int64, key: Int64, visit: CellVisit)?, newestInChina: (time: Int64, key: Int64, visit: CellVisit)?
        cells.forEachCell { key, visit in
            guard visit.time != Int64.max else { return }
            if newest == nil || (visit.time, key) > (newest!.time, newest!.key) { newest = (visit.time, key, visit) }
            if visit.chinaRegion >= 0, newestInChina == nil || (visit.time, key) > (newestInChina!.time, newestInChina!.key) {
                newestInChina = (visit.time, key, visit)
            }
        }
        guard let last = newestInChina ?? newest else { return progress }
        let cell = ExploredGrid.cell(ofKey: last.key)
        let latitude = ExploredGrid.centreLatitude(row: cell.row)
        let longitude = -180 + (Double(cell.column) + 0.5) * 360 / Double(ExploredGrid.columnCount(row: cell.row))
        progress.from = Visit(time: last.time, latitude: latitude, longitude: longitude)
        let point = china.datum == .gcj02
            ? DatumConverter().convert(Coordinate(latitude: latitude, longitude: longitude), from: .wgs84, to: .gcj02)
            : Coordinate(latitude: latitude, longitude: longitude)
        var search = NearestRegionSearch(table: china, latitude: point.latitude, longitude: point.longitude)
        for level in [RegionLevel.city, .county] {
            let unlocked = counted[level] ?? []
            // The region of the cell itself, when it is not unlocked (tentative evidence): distance 0.
            var inside: Int32?
            if last.visit.chinaRegion >= 0 {
                var r: Int32? = last.visit.chinaRegion
                while let index = r, china.region(index).level.rawValue > level.rawValue { r = china.region(index).parent }
                if let index = r, china.region(index).level == level, !unlocked.contains(china.region(index).code) { inside = index }
            }
            let found = inside.map { ($0, 0.0, (0.0, 0.0)) } ?? search.nearest(at: level) { !unlocked.contains(china.region($0).code) }
            guard let (index, metres, offset) = found else { continue }
            let region = china.region(index)
            var nearest = Progress.Nearest(code: region.code, name: region.name, englishName: region.englishName,
                                           parentCode: region.parent.map { china.region($0).code }, distanceMetres: metres)
            (nearest.acrossSea, nearest.through) = way(from: (latitude, longitude), east: offset.0, north: offset.1, datum: china.datum, world: tables.world)
            progress.nearest[level] = nearest
        }
        return progress
    }
}

/// What the straight way from `from` (WGS-84) to a point `east` and `north` metres away (on the
/// plane tangent at `from`, in `datum`'s coordinates) crosses: more than
/// ``ClassifyReport/Progress/waterMetres`` outside every country, and the countries other than
/// `from`'s, sampled every 500 m through the world table.
func way(from: (latitude: Double, longitude: Double), east: Double, north: Double, datum: TableDatum, world: RegionTable) -> (acrossSea: Bool, through: [String]) {
    let length = (east * east + north * north).squareRoot()
    guard length > ClassifyReport.Progress.waterMetres else { return (false, []) }
    let metresPerDegree = 6_371_008.8 * .pi / 180, cosine = cos(from.latitude * .pi / 180)
    let converter = DatumConverter()
    let start = datum == .gcj02 ? converter.convert(Coordinate(latitude: from.latitude, longitude: from.longitude), from: .wgs84, to: .gcj02)
                                : Coordinate(latitude: from.latitude, longitude: from.longitude)
    func country(at fraction: Double) -> Int32? {
        var c = Coordinate(latitude: start.latitude + north * fraction / metresPerDegree,
                           longitude: start.longitude + east * fraction / (metresPerDegree * cosine))
        if datum == .gcj02 { c = converter.convert(c, from: .gcj02, to: .wgs84) }
        let unit = world.unit(atX: Int64((c.longitude / TableFormat.quantum).rounded()), y: Int64((c.latitude / TableFormat.quantum).rounded()))
        return unit.flatMap { world.region(ofUnit: $0, at: .country) }
    }
    let samples = min(2000, Int(length / 500) + 1)
    let home = country(at: 0)
    var water = 0.0, longestWater = 0.0, through: [String] = []
    for k in 1...samples {
        guard let here = country(at: Double(k) / Double(samples)) else {
            water += length / Double(samples)
            longestWater = max(longestWater, water)
            continue
        }
        water = 0
        let code = world.region(here).code
        if here != home, !through.contains(code), k < samples { through.append(code) }
    }
    return (longestWater > ClassifyReport.Progress.waterMetres, through)
}

/// The distance from one point to regions' stored outlines (their units' rings), in metres on a
/// plane tangent at the point (equirectangular; within 0.5% up to a few hundred kilometres):
/// regions are taken in order of their bounding boxes' distance, and the search stops once a
/// box lies farther than the nearest outline found.
struct NearestRegionSearch {
    let table: RegionTable
    let latitude: Double, longitude: Double
    private let metresPerDegree = 6_371_008.8 * .pi / 180
    private let cosine: Double
    /// Each arc's distance, and its nearest point (metres east and north).
    private var arcDistance: [Int: (Double, (Double, Double))] = [:]
    private var unitsByRegion: [RegionLevel: [Int32: [Int32]]] = [:]

    init(table: RegionTable, latitude: Double, longitude: Double) {
        self.table = table
        self.latitude = latitude
        self.longitude = longitude
        cosine = cos(latitude * .pi / 180)
    }

    /// Metres east and north of the point.
    private func plane(_ x: Double, _ y: Double) -> (Double, Double) {
        ((x - longitude) * cosine * metresPerDegree, (y - latitude) * metresPerDegree)
    }

    /// The distance to a quantised box (0 inside it).
    private func distance(toBox box: (minX: Int32, minY: Int32, maxX: Int32, maxY: Int32)) -> Double {
        let q = TableFormat.quantum
        let x = min(max(longitude, Double(box.minX) * q), Double(box.maxX) * q)
        let y = min(max(latitude, Double(box.minY) * q), Double(box.maxY) * q)
        let (dx, dy) = plane(x, y)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The distance to an arc's polyline and its nearest point, remembered (arcs are shared by
    /// the units on both sides).
    private mutating func distance(toArc arc: Int) -> (Double, (Double, Double)) {
        if let known = arcDistance[arc] { return known }
        let q = TableFormat.quantum
        var best = (Double.infinity, (0.0, 0.0))
        var previous: (Double, Double)?
        for v in table.arcVertices(arc) {
            let p = plane(Double(v.x) * q, Double(v.y) * q)
            var c = p
            if let a = previous {
                let ex = p.0 - a.0, ey = p.1 - a.1, length = ex * ex + ey * ey
                let t = length > 0 ? min(1, max(0, -(a.0 * ex + a.1 * ey) / length)) : 0
                c = (a.0 + t * ex, a.1 + t * ey)
            }
            let d = (c.0 * c.0 + c.1 * c.1).squareRoot()
            if d < best.0 { best = (d, c) }
            previous = p
        }
        arcDistance[arc] = best
        return best
    }

    /// The nearest region of `level` that `wanted` accepts, with its distance and the nearest
    /// point of its outline (metres east and north); nil when none.
    mutating func nearest(at level: RegionLevel, where wanted: (Int32) -> Bool) -> (Int32, Double, (Double, Double))? {
        if unitsByRegion[level] == nil {
            var units: [Int32: [Int32]] = [:]
            for unit in 0..<Int32(table.unitCount) {
                if let region = table.region(ofUnit: unit, at: level) { units[region, default: []].append(unit) }
            }
            unitsByRegion[level] = units
        }
        let units = unitsByRegion[level]!
        let candidates = units.keys.filter(wanted).map { ($0, distance(toBox: table.region($0).boundingBox)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        var best: (Int32, Double, (Double, Double))?
        for (region, boxDistance) in candidates {
            if let best, boxDistance > best.1 { break }
            var d = (Double.infinity, (0.0, 0.0))
            for unit in units[region]! {
                for ring in table.unitRings(unit) {
                    for reference in ring.arcs {
                        let arc = distance(toArc: Int(reference < 0 ? ~reference : reference))
                        if arc.0 < d.0 { d = arc }
                    }
                }
            }
            if best == nil || d.0 < best!.1 { best = (region, d.0, d.1) }
        }
        return best
    }
}
