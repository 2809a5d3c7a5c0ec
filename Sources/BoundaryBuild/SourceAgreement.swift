import CPROJ
import ChinaDatum
import RegionTables
import TextFormats
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// The full-resolution source as the reference answer for point location, with GEOS.
///
/// For each China level: the regions' polygons as the source has them (GCJ-02 lon/lat), prepared
/// for containment behind a grid of bounding-box candidates (what an STRtree does for points),
/// and the level's whole border network (every ring of every region: shared borders, coastline
/// and national border) projected to the table build's Albers metres (``ChinaTableBuilder/projection``,
/// the metric of the manifest's deviation figures), densified first so that its segments stay
/// the straight lon/lat lines they are, and prepared for distance.
///
/// The country level (only when the catalog read the world, ``SourceCatalog/hasCountryLevel``)
/// is **WGS-84**, like world.bin: the countries as ``WorldTableBuilder`` reads its source (China's
/// outline converted vertex by vertex, invalid polygons repaired with MakeValid), prepared for
/// containment behind the same kind of grid, without a border network.
public final class SourceReference {
    /// The levels it answers, coarsest first: `.country` only when the catalog read the world.
    public let levels: [RegionLevel]
    /// Countries whose source polygon was invalid and was repaired with GEOS MakeValid (as the
    /// world build does), with GEOS's reason: code → reason.
    public private(set) var repairedCountries: [String: String] = [:]
    private let context = GEOSContext()
    private let projection: Projection
    private var byLevel: [RegionLevel: Level] = [:]

    /// One level's prepared regions, their candidate grid and its border network.
    private final class Level {
        /// Grid cell of the candidate lists, degrees.
        let cell: Double
        var prepared: [PreparedGeometry] = []
        var boxes: [(Double, Double, Double, Double)] = []
        var codes: [String] = []
        var codeSet: Set<String> = []
        var grid: [Int: [Int32]] = [:]
        var network: PreparedGeometry?
        /// Country level: each region's area (square degrees) and China's index, for overlaps.
        var areas: [Double] = []
        var china: Int?

        init(cell: Double) { self.cell = cell }

        func key(_ x: Double, _ y: Double) -> Int {
            Int((x / cell).rounded(.down)) &* 100_003 &+ Int((y / cell).rounded(.down))
        }

        /// Lists region `index` in every grid cell `box` touches (once per cell).
        func add(_ index: Int, box b: (Double, Double, Double, Double)) {
            for gx in Int((b.0 / cell).rounded(.down))...Int((b.2 / cell).rounded(.down)) {
                for gy in Int((b.1 / cell).rounded(.down))...Int((b.3 / cell).rounded(.down)) {
                    let key = gx &* 100_003 &+ gy
                    if grid[key]?.last != Int32(index) { grid[key, default: []].append(Int32(index)) }
                }
            }
        }
    }

    /// The longest source segment projected as it is, metres. A segment is straight in lon/lat
    /// (the source's and the tables' geometry) but its projection is curved: an east–west segment
    /// of length L bows L²/(8ρ) away from its Albers chord (ρ, the parallel's radius in the
    /// projection, is about 8,200 km at 40°N: 14 m for 30 km). Longer segments are cut into pieces of at most this
    /// length before projecting (bow below 1 cm), so distances are to the source's real border.
    static let densifyMetres = 500.0

    /// Appends `ring`'s vertices to `xs`/`ys`, with every segment longer than `maximumMetres`
    /// (local metres) cut into equal pieces, each straight in lon/lat.
    static func densify(_ ring: [Position], maximumMetres: Double, xs: inout [Double], ys: inout [Double]) {
        for (k, b) in ring.enumerated() {
            if k > 0 {
                let a = ring[k - 1]
                let dx = (b.x - a.x) * cos((a.y + b.y) / 2 * Double.pi / 180) * 111_320, dy = (b.y - a.y) * 110_574
                let pieces = Int(((dx * dx + dy * dy).squareRoot() / maximumMetres).rounded(.up))
                for i in stride(from: 1, to: max(pieces, 1), by: 1) {
                    let t = Double(i) / Double(pieces)
                    xs.append(a.x + t * (b.x - a.x))
                    ys.append(a.y + t * (b.y - a.y))
                }
            }
            xs.append(b.x)
            ys.append(b.y)
        }
    }

    /// Grid cell of the China levels' candidate lists, degrees.
    static let cell = 0.25
    /// Grid cell of the country level's candidate lists, degrees: countries are large, and each
    /// polygon is listed under its own box (Russia's mainland alone covers 6,000 1° cells).
    static let countryCell = 1.0

    /// Prepares every China level present in `catalog`, and the country level when it read the world.
    public init(_ catalog: SourceCatalog) throws {
        projection = try Projection(ChinaTableBuilder.projection)
        let china = [RegionLevel.province, .city, .county].filter { level in catalog.china.contains { $0.level == level } }
        levels = (catalog.hasCountryLevel ? [.country] : []) + china
        for level in china {
            let entry = Level(cell: Self.cell)
            var lines: [[Double]] = []
            for region in catalog.china where region.level == level {
                let geometry = try context.multiPolygon(region.polygons.map { $0.rings.map { ring in ring.flatMap { [$0.x, $0.y] } } })
                let b = try geometry.bounds()
                entry.prepared.append(try PreparedGeometry(geometry))
                entry.boxes.append(b)
                entry.codes.append(region.code)
                entry.codeSet.insert(region.code)
                entry.add(entry.prepared.count - 1, box: b)
                for polygon in region.polygons {
                    for ring in polygon.rings {
                        var xs: [Double] = [], ys: [Double] = []
                        Self.densify(ring, maximumMetres: Self.densifyMetres, xs: &xs, ys: &ys)
                        try projection.transform(PJ_FWD, first: &xs, second: &ys)
                        var xy = [Double]()
                        xy.reserveCapacity(2 * xs.count)
                        for k in xs.indices { xy.append(xs[k]); xy.append(ys[k]) }
                        lines.append(xy)
                    }
                }
            }
            entry.network = try PreparedGeometry(try context.multiLineString(lines))
            byLevel[level] = entry
        }
        if catalog.hasCountryLevel { try addCountries(WorldTableBuilder.sourceCountries(catalog), seamCountry: "CHN") }
    }

    /// The country level alone, from `countries` (WGS-84) as a world build reads them: another
    /// worldview's source (``NaturalEarthSource``). `seamCountry` wins overlaps as China does in
    /// the default view; nil for a source drawn in one datum, where the smallest claimant does.
    public init(countries: [SourceRegion], seamCountry: String?) throws {
        projection = try Projection(ChinaTableBuilder.projection)
        levels = [.country]
        try addCountries(countries, seamCountry: seamCountry)
    }

    /// Prepares the country level (invalid polygons repaired with MakeValid, as the build does).
    private func addCountries(_ countries: [SourceRegion], seamCountry: String?) throws {
        let entry = Level(cell: Self.countryCell)
        for country in countries {
            let (geometry, invalidity) = try WorldTableBuilder.sourceGeometry(country, context: context)
            if let invalidity { repairedCountries[country.code] = invalidity }
            let index = entry.prepared.count
            entry.prepared.append(try PreparedGeometry(geometry))
            entry.boxes.append(try geometry.bounds())
            entry.codes.append(country.code)
            entry.codeSet.insert(country.code)
            entry.areas.append(try geometry.area())
            if country.code == seamCountry { entry.china = index }
            for part in try geometry.parts() { entry.add(index, box: try part.bounds()) }
        }
        byLevel[.country] = entry
    }

    /// True when the source has a region `code` at `level`.
    public func hasRegion(_ code: String, at level: RegionLevel) -> Bool {
        byLevel[level]?.codeSet.contains(code) ?? false
    }

    /// The code of the source region at `level` whose polygon contains the point (GEOS
    /// PreparedContains: a point exactly on a border is in neither region), or nil.
    ///
    /// The point is **GCJ-02** for the China levels and **WGS-84** for `.country` (each level in
    /// its table's datum). Where country sources overlap (China's converted line against its
    /// GCJ-02-snapped neighbours; a few enclaves), the world build's rule decides: China, else the
    /// smallest country. Only the countries the catalog holds take part; the narrow gaps the build
    /// gives to a neighbour are in no country here.
    public func region(at level: RegionLevel, longitude: Double, latitude: Double) throws -> String? {
        guard let entry = byLevel[level], let candidates = entry.grid[entry.key(longitude, latitude)] else { return nil }
        var point: Geometry?
        var claimants: [Int] = []
        for c in candidates {
            let b = entry.boxes[Int(c)]
            guard b.0 <= longitude, longitude <= b.2, b.1 <= latitude, latitude <= b.3 else { continue }
            if point == nil { point = try context.point(x: longitude, y: latitude) }
            guard try entry.prepared[Int(c)].contains(point!) else { continue }
            if level != .country { return entry.codes[Int(c)] }
            claimants.append(Int(c))
        }
        return claimants.isEmpty ? nil : entry.codes[WorldTableBuilder.winner(claimants, china: entry.china, areas: entry.areas)]
    }

    /// Every source country whose polygon contains the WGS-84 point (before the overlap rule picks
    /// one), in code order: for looking into a disagreement.
    public func countryClaimants(longitude: Double, latitude: Double) throws -> [String] {
        guard let entry = byLevel[.country], let candidates = entry.grid[entry.key(longitude, latitude)] else { return [] }
        let point = try context.point(x: longitude, y: latitude)
        var codes: [String] = []
        for c in candidates where try entry.prepared[Int(c)].contains(point) { codes.append(entry.codes[Int(c)]) }
        return codes.sorted()
    }

    /// Distance in Albers metres from the GCJ-02 point to the nearest source border at a China
    /// `level` (any region's boundary, coastline included): for a point inside a region, the
    /// distance to that region's boundary. Infinite for a level the reference does not hold.
    /// The country level has no border network (no single projection suits the world): asking
    /// for it throws rather than answer a distance that is not one.
    public func borderDistance(at level: RegionLevel, longitude: Double, latitude: Double) throws -> Double {
        guard level != .country || byLevel[level] == nil else {
            throw SourceError(path: "SourceReference", reason: "no border distance at the country level (only province, city and county)")
        }
        guard let network = byLevel[level]?.network else { return .infinity }
        let p = try projection.forward(longitude: longitude, latitude: latitude)
        return try network.distance(to: try context.point(x: p.x, y: p.y))
    }
}

/// How the locator's answers compare with the source's, for one set of points: per level and per
/// band of distance to the source border, how many points and how many agree.
///
/// A level agrees when the locator's region with status `inside` is the region whose source
/// polygon contains the point, or when the locator says `edge` or `outside` and no source polygon
/// contains it. `edge` therefore counts as "in no region" (it is the locator's answer for a point
/// inside no polygon); how many `edge` answers there were is reported separately. Points are
/// compared in GCJ-02: the WGS-84 input goes to the locator, and its GCJ-02 conversion (the
/// locator's own, ``GCJ02/fromWGS84(_:)``) to the source. When the reference holds only some
/// provinces, a locator answer outside them counts as "in no region". Only the China levels are
/// compared (a reference's country level is left out).
public struct AgreementReport {
    /// One point the locator and the source disagree on.
    public struct Disagreement: CustomStringConvertible {
        public var wgs84: Coordinate
        public var gcj02: Coordinate
        public var level: RegionLevel
        public var locatorCode: String?
        public var locatorStatus: PlacementStatus
        public var sourceCode: String?
        public var distanceMetres: Double

        public var description: String {
            "\(level.name) at WGS-84 \(wgs84.latitude),\(wgs84.longitude) (GCJ-02 \(gcj02.latitude),\(gcj02.longitude)): "
                + "locator \(locatorCode ?? "none") (\(locatorStatus.rawValue)), source \(sourceCode ?? "none"), "
                + "\(fixedDecimals(distanceMetres, 1)) m from the source border"
        }
    }

    public let levels: [RegionLevel]
    /// Upper edges of the distance bands, metres (the last is +∞). `limit` is one of them.
    public let bandEdges: [Double]
    /// Disagreements farther than this from the source border are failures (the table's stated
    /// maximum deviation + 1 m).
    public let limit: Double
    /// `points[level][band]` and `agreeing[level][band]`, levels in ``levels`` order.
    public private(set) var points: [[Int]]
    public private(set) var agreeing: [[Int]]
    /// How many answers were `edge`, per level.
    public private(set) var edgeAnswers: [Int]
    /// Every disagreement farther than `limit` from the source border.
    public private(set) var beyondLimit: [Disagreement] = []
    /// The nearest and farthest source-border distance among disagreements, per level.
    public private(set) var disagreementDistances: [(min: Double, max: Double)?]

    /// Compares `wgs84` points.
    public init(_ wgs84: [Coordinate], locator: RegionLocator, reference: SourceReference, limit: Double) throws {
        let levels = reference.levels.filter { $0 != .country }
        self.levels = levels
        self.limit = limit
        let edges = Set([1, 10, limit, 100, 1000]).sorted() + [.infinity]
        bandEdges = edges
        points = levels.map { _ in edges.map { _ in 0 } }
        agreeing = points
        edgeAnswers = levels.map { _ in 0 }
        disagreementDistances = levels.map { _ in nil }
        for p in wgs84 {
            let placement = try locator.locate(latitude: p.latitude, longitude: p.longitude)
            let gcj = GCJ02.fromWGS84(p)
            for (k, level) in levels.enumerated() {
                let answer: LevelPlacement
                switch level {
                case .province: answer = placement.province
                case .city: answer = placement.city
                default: answer = placement.county
                }
                if answer.status == .edge { edgeAnswers[k] += 1 }
                // A region the reference does not hold (it may cover a few provinces only) is no region.
                let mine = answer.status == .inside ? answer.region.map { locator.china.region($0).code }.flatMap { reference.hasRegion($0, at: level) ? $0 : nil } : nil
                let theirs = try reference.region(at: level, longitude: gcj.longitude, latitude: gcj.latitude)
                let distance = try reference.borderDistance(at: level, longitude: gcj.longitude, latitude: gcj.latitude)
                let band = edges.firstIndex { distance <= $0 }!
                points[k][band] += 1
                if mine == theirs {
                    agreeing[k][band] += 1
                    continue
                }
                let seen = disagreementDistances[k]
                disagreementDistances[k] = (min(seen?.min ?? distance, distance), max(seen?.max ?? distance, distance))
                if distance > limit {
                    beyondLimit.append(Disagreement(wgs84: p, gcj02: gcj, level: level, locatorCode: answer.region.map { locator.china.region($0).code },
                                                    locatorStatus: answer.status, sourceCode: theirs, distanceMetres: distance))
                }
            }
        }
    }

    /// Points and agreeing points at `level` within `limit` of the source border, and beyond it.
    public func split(_ level: RegionLevel) -> (within: (points: Int, agreeing: Int), beyond: (points: Int, agreeing: Int)) {
        let k = levels.firstIndex(of: level)!
        let cut = bandEdges.firstIndex(of: limit)!
        return ((points[k][...cut].reduce(0, +), agreeing[k][...cut].reduce(0, +)),
                (points[k][(cut + 1)...].reduce(0, +), agreeing[k][(cut + 1)...].reduce(0, +)))
    }

    /// A Markdown table: one row per distance band, per level the agreeing points out of all.
    public func markdownTable() -> [String] {
        var lines = ["| distance to source border | " + levels.map(\.name).joined(separator: " | ") + " |",
                     "|---|" + levels.map { _ in "---|" }.joined()]
        for band in bandEdges.indices {
            let low = band == 0 ? 0 : bandEdges[band - 1], high = bandEdges[band]
            let label = high.isInfinite ? "> \(metres(low))" : "\(metres(low))–\(metres(high))"
            lines.append("| \(label) | " + levels.indices.map { k in
                Self.share(agreeing[k][band], of: points[k][band])
            }.joined(separator: " | ") + " |")
        }
        lines.append("| **within \(metres(limit))** | " + levels.map { level in
            let s = split(level).within
            return Self.share(s.agreeing, of: s.points)
        }.joined(separator: " | ") + " |")
        lines.append("| **beyond \(metres(limit))** | " + levels.map { level in
            let s = split(level).beyond
            return Self.share(s.agreeing, of: s.points)
        }.joined(separator: " | ") + " |")
        lines.append("| `edge` answers | " + edgeAnswers.map(String.init).joined(separator: " | ") + " |")
        return lines
    }

    private func metres(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) m" : "\(fixedDecimals(value, 2)) m"
    }

    /// "agreeing / points (percent)", or "–" for no points.
    static func share(_ agreeing: Int, of points: Int) -> String {
        guard points > 0 else { return "–" }
        let percent = 100 * Double(agreeing) / Double(points)
        return "\(agreeing) / \(points) (\(fixedDecimals(percent, agreeing == points ? 0 : 3))%)"
    }
}

/// `value` with `decimals` digits after the point.
func fixedDecimals(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let negative = value < 0
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    var fraction = String(Int(scaled - Double(whole) * scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    return (negative && scaled > 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + fraction : "")
}

/// The point sets of the agreement harness, reproducible from a seed.
public enum AgreementPoints {
    /// `count` WGS-84 points uniform in the box.
    public static func random(count: Int, longitudes: ClosedRange<Double>, latitudes: ClosedRange<Double>, seed: UInt64) -> [Coordinate] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            Coordinate(latitude: generator.uniform(latitudes.lowerBound, latitudes.upperBound),
                       longitude: generator.uniform(longitudes.lowerBound, longitudes.upperBound))
        }
    }

    /// Points near the borders of `regions` (GCJ-02 source polygons), returned in WGS-84: walking
    /// every ring, one point each `spacing` metres along it, placed in a random direction at a
    /// uniformly random distance of up to `width` metres from the ring (so within `width` of the
    /// border). Shared borders are walked once from each side.
    public static func nearBorders(of regions: [SourceRegion], spacing: Double, width: Double, seed: UInt64) -> [Coordinate] {
        var generator = SplitMix64(seed: seed)
        let metresPerDegree = 111_320.0
        var result: [Coordinate] = []
        for region in regions {
            for polygon in region.polygons {
                for ring in polygon.rings {
                    var carried = generator.uniform(0, spacing)
                    for (a, b) in zip(ring, ring.dropFirst()) {
                        let cosine = cos((a.y + b.y) / 2 * Double.pi / 180)
                        let dx = (b.x - a.x) * cosine * metresPerDegree, dy = (b.y - a.y) * metresPerDegree
                        let length = (dx * dx + dy * dy).squareRoot()
                        var along = carried
                        while along < length {
                            let t = along / length
                            let angle = generator.uniform(0, 2 * Double.pi), r = generator.uniform(0, width)
                            let lon = a.x + t * (b.x - a.x) + r * cos(angle) / (cosine * metresPerDegree)
                            let lat = a.y + t * (b.y - a.y) + r * sin(angle) / metresPerDegree
                            result.append(GCJ02.toWGS84(Coordinate(latitude: lat, longitude: lon)))
                            along += spacing
                        }
                        carried = along - length
                    }
                }
            }
        }
        return result
    }

    /// A real place with a known region: the seat of an administrative division.
    public struct Place {
        public var code: String
        public var level: RegionLevel
        public var name: String
        /// As the file gives them (GCJ-02, see the fixture's README).
        public var longitude: Double
        public var latitude: Double
    }

    /// Reads `real-places.csv` (`adcode,level,name,longitude,latitude`, made by Scripts/fixtures/make-real-places).
    public static func places(csv bytes: [UInt8], path: String) throws -> [Place] {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.first == "adcode,level,name,longitude,latitude" else {
            throw SourceError(path: path, reason: "expected the header adcode,level,name,longitude,latitude")
        }
        return try lines.dropFirst().enumerated().map { number, line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 5, let level = RegionLevel.allCases.first(where: { $0.name == f[1] }),
                  let lon = Double(f[3]), let lat = Double(f[4]) else {
                throw SourceError(path: path, reason: "line \(number + 2): expected adcode,level,name,longitude,latitude")
            }
            return Place(code: String(f[0]), level: level, name: String(f[2]), longitude: lon, latitude: lat)
        }
    }
}
