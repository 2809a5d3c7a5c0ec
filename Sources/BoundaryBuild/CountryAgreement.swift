import ChinaDatum
import RegionTables
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// The source countries' outlines as segments in lon/lat, filed in a grid, for "how far is this
/// point from the outline of country X", in metres on the point's local plane (longitude scaled
/// by the cosine of its latitude: exact enough over the few kilometres the harness asks about).
///
/// The countries are read as ``WorldTableBuilder`` reads them (``WorldTableBuilder/sourceCountries(_:)``:
/// China converted to WGS-84), unrepaired: MakeValid moves no vertex of a valid ring, and the
/// repaired ones differ only where their rings cross themselves.
public struct SourceOutlines {
    /// Grid cell, degrees.
    static let cell = 0.05
    public let codes: [String]
    private var segments: [(ax: Double, ay: Double, bx: Double, by: Double, country: Int32)] = []
    private var cells: [Int64: [Int32]] = [:]

    public init(_ catalog: SourceCatalog) {
        self.init(countries: WorldTableBuilder.sourceCountries(catalog))
    }

    /// The outlines of `countries` (WGS-84), indexed in their order.
    public init(countries: [SourceRegion]) {
        codes = countries.map(\.code)
        for (c, country) in countries.enumerated() {
            for polygon in country.polygons {
                for ring in polygon.rings {
                    for (a, b) in zip(ring, ring.dropFirst()) where a != b {
                        let id = Int32(segments.count)
                        segments.append((a.x, a.y, b.x, b.y, Int32(c)))
                        for gx in Self.cellIndex(min(a.x, b.x))...Self.cellIndex(max(a.x, b.x)) {
                            for gy in Self.cellIndex(min(a.y, b.y))...Self.cellIndex(max(a.y, b.y)) {
                                cells[Self.key(gx, gy), default: []].append(id)
                            }
                        }
                    }
                }
            }
        }
    }

    static func cellIndex(_ degrees: Double) -> Int64 { Int64((degrees / cell).rounded(.down)) }
    static func key(_ gx: Int64, _ gy: Int64) -> Int64 { gx << 32 ^ (gy & 0xFFFF_FFFF) }

    /// Metres from the point to the nearest outline segment of any of `countries` (indices into
    /// ``codes``), or infinity when none is within `radius` metres.
    public func distance(longitude: Double, latitude: Double, to countries: Set<Int32>, within radius: Double) -> Double {
        guard !countries.isEmpty else { return .infinity }
        let cosine = max(cos(latitude * Double.pi / 180), 0.01)
        let ry = radius / 110_574, rx = radius / (111_320 * cosine)
        var best = Double.infinity
        var seen = Set<Int32>()
        for gx in Self.cellIndex(longitude - rx)...Self.cellIndex(longitude + rx) {
            for gy in Self.cellIndex(latitude - ry)...Self.cellIndex(latitude + ry) {
                for id in cells[Self.key(gx, gy)] ?? [] {
                    let s = segments[Int(id)]
                    guard countries.contains(s.country), seen.insert(id).inserted else { continue }
                    let d = StoredArcs.distance(0, 0, (s.ax - longitude) * cosine * 111_320, (s.ay - latitude) * 110_574,
                                                (s.bx - longitude) * cosine * 111_320, (s.by - latitude) * 110_574)
                    best = min(best, d)
                }
            }
        }
        return best <= radius ? best : .infinity
    }
}

/// How the world table's country answers compare with the source's, on one set of points: per
/// kind of border and band of distance to the source outline, how many points agree, and every
/// disagreement beyond the kind's tolerance.
///
/// A point agrees when the locator's country with status `inside` is the source country that
/// contains it (``SourceReference/region(at:longitude:latitude:)``, overlaps decided as the build
/// does), or when the locator says `edge`/`outside` and no source country contains it. A
/// disagreement is a **land border** when both answers are countries, the **datum seam** when one
/// of them is China and the other a country, and a **coast** when one answer is no country. Its
/// distance is to the source outline of the countries named (the one the source puts the point
/// in, the one the locator does): how far the point lies from where the source changes its answer.
/// Where the locator answers `inside` a country whose source polygon does not hold the point, the
/// distance is at least the one to that country's own outline: an answer 12 km from the answered
/// country's land is 12 km wrong, however near another outline (China's, on the datum seam) it is.
public struct CountryAgreementReport {
    public enum Kind: String, CaseIterable, Sendable { case landBorder = "land border", seam = "China's datum seam", coast = "coast" }

    public struct Disagreement: CustomStringConvertible {
        public var point: Coordinate
        public var kind: Kind
        public var locatorCode: String?
        public var locatorStatus: PlacementStatus
        public var sourceCode: String?
        /// Metres to the source outline; infinity when beyond the search radius.
        public var distanceMetres: Double

        public var description: String {
            "\(point.latitude),\(point.longitude): locator \(locatorCode ?? "none") (\(locatorStatus.rawValue)), source \(sourceCode ?? "none"), "
                + "\(kind.rawValue), " + (distanceMetres.isFinite ? "\(fixedDecimals(distanceMetres, 0)) m" : "> \(Int(CountryAgreementReport.searchRadius / 1000)) km")
                + " from the source outline"
        }
    }

    /// Tolerance per kind, metres: a disagreement farther from the source outline is a failure.
    public let limits: [Kind: Double]
    /// Distances to the source outline are searched this far (metres); farther is "beyond".
    public static let searchRadius = 20_000.0
    public private(set) var points = 0
    public private(set) var agreeing = 0
    /// Disagreements per kind, within and beyond the kind's tolerance.
    public private(set) var within: [Kind: Int] = [:]
    public private(set) var beyond: [Kind: Int] = [:]
    public private(set) var edgeAnswers = 0
    /// Every disagreement beyond tolerance (all of them: the target is none).
    public private(set) var failures: [Disagreement] = []

    /// The tolerances: land borders the table's stated land deviation + 1 m; coasts the coast
    /// tolerance + the edge zone (a point on land may be `edge` that far from the source's coast),
    /// but an `inside` answer at sea only the coast tolerance + 1 m (the stored coast is within it);
    /// China's datum seam 1 km.
    public static func limits(world: RegionTable, landDeviation: Double, coastTolerance: Double) -> [Kind: Double] {
        [.landBorder: landDeviation + 1, .coast: coastTolerance + world.buffer, .seam: 1_000]
    }

    /// The kind of a disagreement and its distance (metres) to the source outline of the countries
    /// the answers name. Where one answer is no country and the other a neighbour of China within
    /// the seam's tolerance of China's source outline, it is the datum seam (the build gives the
    /// gaps the seam opened to the neighbour, `docs/boundaries.md`), measured to the nearer of
    /// the two outlines. `mineClaims`: whether the source polygon of the locator's country holds
    /// the point (an overlap another country won); when it does not, the distance is at least the
    /// one to the locator's country's own outline.
    static func judge(mine: String?, theirs: String?, mineClaims: Bool, at p: Coordinate, outlines: SourceOutlines, index: [String: Int32],
                      limits: [Kind: Double]) -> (Kind, Double) {
        let (kind, distance) = judgeByNearestOutline(mine: mine, theirs: theirs, at: p, outlines: outlines, index: index, limits: limits)
        guard let mine, !mineClaims, let own = index[mine] else { return (kind, distance) }
        return (kind, max(distance, outlines.distance(longitude: p.longitude, latitude: p.latitude, to: [own], within: searchRadius)))
    }

    /// ``judge(mine:theirs:mineClaims:at:outlines:index:limits:)`` before the answered country's own outline is asked.
    private static func judgeByNearestOutline(mine: String?, theirs: String?, at p: Coordinate, outlines: SourceOutlines, index: [String: Int32],
                                              limits: [Kind: Double]) -> (Kind, Double) {
        let involved = Set([mine, theirs].compactMap { $0.flatMap { index[$0] } })
        let distance = outlines.distance(longitude: p.longitude, latitude: p.latitude, to: involved, within: searchRadius)
        if let mine, let theirs { return (mine == "CHN" || theirs == "CHN" ? .seam : .landBorder, distance) }
        if let other = mine ?? theirs, other != "CHN", let china = index["CHN"] {
            let toChina = outlines.distance(longitude: p.longitude, latitude: p.latitude, to: [china], within: limits[.seam]!)
            if toChina <= limits[.seam]! { return (.seam, min(distance, toChina)) }
        }
        return (.coast, distance)
    }

    /// The tolerance for a disagreement of `kind` where the locator answered `inside` (`true`) or not.
    static func limit(_ kind: Kind, inside: Bool, limits: [Kind: Double], coastTolerance: Double) -> Double {
        kind == .coast && inside ? min(limits[.coast]!, coastTolerance + 1) : limits[kind]!
    }

    /// The coast tolerance (metres), the limit of an `inside` answer at sea.
    public let coastTolerance: Double

    public init(_ wgs84: [Coordinate], locator: RegionLocator, reference: SourceReference, outlines: SourceOutlines,
                limits: [Kind: Double], coastTolerance: Double) throws {
        try self.init(wgs84, answer: { p in
            let answer = try locator.locate(latitude: p.latitude, longitude: p.longitude).country
            return (answer.region.map { locator.world.region($0).code }, answer.status)
        }, reference: reference, outlines: outlines, limits: limits, coastTolerance: coastTolerance)
    }

    /// The same with any answer: `answer` gives the code of the region a point is placed in (nil
    /// for none) and its status (the subdivision harness asks the subdivision table).
    public init(_ wgs84: [Coordinate], answer ask: (Coordinate) throws -> (code: String?, status: PlacementStatus), reference: SourceReference,
                outlines: SourceOutlines, limits: [Kind: Double], coastTolerance: Double) throws {
        self.limits = limits
        self.coastTolerance = coastTolerance
        var index: [String: Int32] = [:]
        for (k, code) in outlines.codes.enumerated() { index[code] = Int32(k) }
        for p in wgs84 {
            points += 1
            let answer = try ask(p)
            if answer.status == .edge { edgeAnswers += 1 }
            let mine = answer.status == .inside ? answer.code : nil
            let theirs = try reference.region(at: .country, longitude: p.longitude, latitude: p.latitude)
            if mine == theirs {
                agreeing += 1
                continue
            }
            let mineClaims = try mine.map { try reference.countryClaimants(longitude: p.longitude, latitude: p.latitude).contains($0) } ?? false
            let (kind, distance) = Self.judge(mine: mine, theirs: theirs, mineClaims: mineClaims, at: p, outlines: outlines, index: index, limits: limits)
            if distance <= Self.limit(kind, inside: mine != nil, limits: limits, coastTolerance: coastTolerance) {
                within[kind, default: 0] += 1
            } else {
                beyond[kind, default: 0] += 1
                failures.append(Disagreement(point: p, kind: kind, locatorCode: mine ?? answer.code,
                                             locatorStatus: answer.status, sourceCode: theirs, distanceMetres: distance))
            }
        }
    }

    /// A Markdown table: agreement, and disagreements per kind within and beyond tolerance.
    public func markdownTable() -> [String] {
        var lines = ["| | points | within tolerance | beyond tolerance |", "|---|---|---|---|",
                     "| agree | \(agreeing) / \(points) (\(fixedDecimals(100 * Double(agreeing) / Double(max(points, 1)), 4))%) | | |"]
        for kind in Kind.allCases {
            let tolerance = kind == .coast ? "\(fixedDecimals(coastTolerance + 1, 0)) m for `inside` at sea, \(fixedDecimals(limits[kind]!, 0)) m otherwise" : "\(fixedDecimals(limits[kind]!, 0)) m"
            lines.append("| disagree at a \(kind.rawValue) (tolerance \(tolerance)) | \((within[kind] ?? 0) + (beyond[kind] ?? 0)) | \(within[kind] ?? 0) | \(beyond[kind] ?? 0) |")
        }
        lines.append("| `edge` answers (counted as no country) | \(edgeAnswers) | | |")
        return lines
    }
}

/// The grid scan of the country harness: the locator over a lattice of points, the area it
/// answers `inside` a country where the source puts the point elsewhere beyond tolerance, summed
/// and clustered (8-connected lattice cells with the same answer), so that a misassigned band
/// cannot hide among millions of good points.
public struct CountryGridScan: Sendable {
    public struct Cluster: CustomStringConvertible, Sendable {
        public var code: String
        public var km2: Double
        public var cells: Int
        public var south: Double, west: Double, north: Double, east: Double
        public var description: String {
            "\(code) \(fixedDecimals(km2, 1)) km² (\(cells) cells, \(fixedDecimals(south, 2))–\(fixedDecimals(north, 2)) N, \(fixedDecimals(west, 2))–\(fixedDecimals(east, 2)) E)"
        }
    }

    public let latitudeStep: Double, longitudeStep: Double
    public private(set) var points = 0
    public private(set) var insidePoints = 0
    public private(set) var misassignedKm2 = 0.0
    public private(set) var clusters: [Cluster] = []

    /// Scans rows `latitudes` (south to north) × columns over `longitudes`, cell centres at half
    /// steps, with the locator's country against the source reference's.
    public init(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>, latitudeStep: Double, longitudeStep: Double,
                locator: RegionLocator, reference: SourceReference, outlines: SourceOutlines, limits: [CountryAgreementReport.Kind: Double],
                coastTolerance: Double) throws {
        try self.init(latitudes: latitudes, longitudes: longitudes, latitudeStep: latitudeStep, longitudeStep: longitudeStep,
                      outlines: { outlines }, limits: limits, coastTolerance: coastTolerance, answer: { lat, lon in
            let answer = try locator.locate(latitude: lat, longitude: lon).country
            return answer.status == .inside ? answer.region.map { locator.world.region($0).code } : nil
        }, source: { lat, lon in try reference.region(at: .country, longitude: lon, latitude: lat) },
        claims: { code, lat, lon in try reference.countryClaimants(longitude: lon, latitude: lat).contains(code) })
    }

    /// The scan with any answer: `answer` gives the country a point is `inside` by the table (nil
    /// when none), `source` the source's, `claims` whether a country's source polygon holds a
    /// point (before overlaps are decided); `outlines` is asked for only once a point disagrees.
    public init(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>, latitudeStep: Double, longitudeStep: Double,
                outlines makeOutlines: () throws -> SourceOutlines, limits: [CountryAgreementReport.Kind: Double], coastTolerance: Double,
                answer: (Double, Double) throws -> String?, source: (Double, Double) throws -> String?,
                claims: (String, Double, Double) throws -> Bool) throws {
        self.latitudeStep = latitudeStep
        self.longitudeStep = longitudeStep
        var outlines: SourceOutlines?
        var index: [String: Int32] = [:]
        let rows = Int(((latitudes.upperBound - latitudes.lowerBound) / latitudeStep).rounded())
        let columns = Int(((longitudes.upperBound - longitudes.lowerBound) / longitudeStep).rounded())
        // Misassigned cells: (row, column) → the locator's answer.
        var bad: [Int64: String] = [:]
        for row in 0..<rows {
            let lat = latitudes.lowerBound + (Double(row) + 0.5) * latitudeStep
            for column in 0..<columns {
                let lon = longitudes.lowerBound + (Double(column) + 0.5) * longitudeStep
                points += 1
                guard let mine = try answer(lat, lon) else { continue }
                insidePoints += 1
                let theirs = try source(lat, lon)
                guard mine != theirs else { continue }
                if outlines == nil {
                    outlines = try makeOutlines()
                    for (k, code) in outlines!.codes.enumerated() { index[code] = Int32(k) }
                }
                let (kind, distance) = CountryAgreementReport.judge(mine: mine, theirs: theirs, mineClaims: try claims(mine, lat, lon),
                                                                    at: Coordinate(latitude: lat, longitude: lon),
                                                                    outlines: outlines!, index: index, limits: limits)
                guard distance > CountryAgreementReport.limit(kind, inside: true, limits: limits, coastTolerance: coastTolerance) else { continue }
                bad[Int64(row) << 32 | Int64(column)] = mine
            }
        }
        // Clusters: flood fill over 8-neighbours with the same answer.
        var visited = Set<Int64>()
        for start in bad.keys.sorted() where !visited.contains(start) {
            let code = bad[start]!
            var stack = [start]
            visited.insert(start)
            var cluster = Cluster(code: code, km2: 0, cells: 0, south: 90, west: 180, north: -90, east: -180)
            while let cell = stack.popLast() {
                let row = Int(cell >> 32), column = Int(cell & 0xFFFF_FFFF)
                let lat = latitudes.lowerBound + (Double(row) + 0.5) * latitudeStep
                let lon = longitudes.lowerBound + (Double(column) + 0.5) * longitudeStep
                let km2 = latitudeStep * 110.574 * longitudeStep * 111.320 * cos(lat * Double.pi / 180)
                cluster.km2 += km2
                cluster.cells += 1
                cluster.south = min(cluster.south, lat); cluster.north = max(cluster.north, lat)
                cluster.west = min(cluster.west, lon); cluster.east = max(cluster.east, lon)
                for dr in -1...1 {
                    for dc in -1...1 where dr != 0 || dc != 0 {
                        let next = Int64(row + dr) << 32 | Int64(column + dc)
                        if bad[next] == code, visited.insert(next).inserted { stack.append(next) }
                    }
                }
            }
            misassignedKm2 += cluster.km2
            clusters.append(cluster)
        }
        clusters.sort { ($0.km2, $1.code) > ($1.km2, $0.code) }
    }
}

extension AgreementPoints {
    /// `count` points uniform on the sphere (sea included).
    public static func uniformOnSphere(count: Int, seed: UInt64) -> [Coordinate] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let z = generator.uniform(-1, 1)
            return Coordinate(latitude: asin(z) * 180 / Double.pi, longitude: generator.uniform(-180, 180))
        }
    }

    /// Points along the world table's arcs: every `spacing` metres along each arc (land borders
    /// when `coasts` is false, arcs with the outside on one side when true), one point in a random
    /// direction at a random distance of up to `width` metres. The table's borders are within its
    /// tolerances of the source's, so these are points near the source's borders too.
    public static func nearWorldArcs(_ world: RegionTable, coasts: Bool, spacing: Double, width: Double, seed: UInt64,
                                     within box: (south: Double, west: Double, north: Double, east: Double)? = nil) -> [Coordinate] {
        var generator = SplitMix64(seed: seed)
        var result: [Coordinate] = []
        for arc in 0..<world.arcCount {
            let outer = world.arcLeft[arc] < 0 || world.arcRight[arc] < 0
            guard outer == coasts else { continue }
            let v = world.arcVertices(arc).map { (x: Double($0.x) * TableFormat.quantum, y: Double($0.y) * TableFormat.quantum) }
            var carried = generator.uniform(0, spacing)
            for (a, b) in zip(v, v.dropFirst()) {
                let cosine = cos((a.y + b.y) / 2 * Double.pi / 180)
                let dx = (b.x - a.x) * cosine * 111_320, dy = (b.y - a.y) * 110_574
                let length = (dx * dx + dy * dy).squareRoot()
                var along = carried
                while along < length {
                    let t = along / length
                    let angle = generator.uniform(0, 2 * Double.pi), r = generator.uniform(0, width)
                    let lon = a.x + t * (b.x - a.x) + r * cos(angle) / (max(cosine, 0.01) * 111_320)
                    let lat = a.y + t * (b.y - a.y) + r * sin(angle) / 110_574
                    if abs(lat) <= 90, abs(lon) <= 180,
                       box.map({ lat >= $0.south && lat <= $0.north && lon >= $0.west && lon <= $0.east }) ?? true {
                        result.append(Coordinate(latitude: lat, longitude: lon))
                    }
                    along += spacing
                }
                carried = along - length
            }
        }
        return result
    }
}
