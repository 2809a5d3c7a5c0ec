import CGEOS
import CPROJ
import RegionTables
import TextFormats

#if canImport(Glibc)
import Glibc
#endif

/// Figures measured while building one table, for the manifest.
public struct TableReport: Sendable {
    public struct LevelFigures: Sendable {
        public var level: RegionLevel
        public var regions = 0
        /// Vertices of this level's own source polygons (each polygon separately, as published).
        public var sourceVertices = 0
        /// Distinct vertices on this level's borders after simplification.
        public var tableVertices = 0
        /// Hausdorff distance between source and simplified borders of this level, metres.
        public var maximumDeviation = 0.0
        public var meanDeviation = 0.0
        /// Σ|area(table region) − area(source region)| / Σ area(source), percent.
        public var areaChangePercent = 0.0
        /// Overlap between neighbours (Σ areas − area of the union), km².
        public var overlapKm2 = 0.0
        /// Interior gaps (holes in the union that the source's union lacks), km².
        public var gapKm2 = 0.0
    }

    public var file = ""
    public var levels: [LevelFigures] = []
    public var units = 0
    public var arcs = 0
    public var bytes = 0
    public var sha256 = ""
    public var buildSeconds = 0.0
    /// Closed arcs the simplifier would have collapsed, kept unsimplified.
    public var collapsedRingsKept = 0
    /// What the build did to make the stored rings wind as their sides say and keep segments
    /// from crossing (``GeometryRepair``); nil before the arcs are stored.
    var geometryRepair: GeometryRepair?
    /// The world table's grid scan against the full-resolution source (nil for the China table).
    var gridScan: CountryGridScan?
    /// Units whose simplified polygons GEOS found invalid (then reported; never silently dropped).
    public var invalidUnits = 0
    public var invalidReasons: [String] = []
    /// Source levels that do not nest exactly: pieces of a parent no child covers (became units
    /// with no region at the child level), and their total area.
    public var uncoveredPieces = 0
    public var uncoveredKm2 = 0.0
    /// Outer (coast and national border) arcs: deviation of the simplified outline, metres.
    public var outlineMaximumDeviation = 0.0
    public var notes: [String] = []
}

/// Builds the China table: province, city and county levels over one shared-arc topology whose
/// units are the counties (plus any piece of a city that no county covers), so the levels nest
/// exactly and every border is simplified once.
public struct ChinaTableBuilder {
    public static let projection = "+proj=aea +lat_1=25 +lat_2=47 +lon_0=105 +ellps=WGS84"
    /// Longest stored segment, metres in the Albers plane: the table's segments are straight in
    /// longitude and latitude, and a longer Albers segment would bow away from where the
    /// simplifier put it (37 m over a 49 km border segment in Xinjiang; under 0.1 m at 2 km).
    public static let maximumSegmentMetres = 2_000.0

    public let tolerance: Double
    public let buffer: Double

    public init(tolerance: Double, buffer: Double) {
        self.tolerance = tolerance
        self.buffer = buffer
    }

    /// Builds the table bytes and the figures that describe them.
    public func build(_ catalog: SourceCatalog, sourceSHA256: String, log: (String) -> Void = { _ in }) throws -> (bytes: [UInt8], report: TableReport) {
        let started = Stopwatch.seconds()
        var report = TableReport()
        let context = GEOSContext()
        let provinces = catalog.china.filter { $0.level == .province }
        let cities = catalog.china.filter { $0.level == .city }
        let counties = catalog.china.filter { $0.level == .county }

        // Regions: provinces, cities, counties, each sorted by code; parents by index.
        var contents = TableContents(datum: .gcj02, levels: [.province, .city, .county], tolerance: tolerance, buffer: buffer, sourceSHA256: sourceSHA256)
        var regionIndex: [String: Int32] = [:]  // "level/code"
        for region in provinces + cities + counties {
            let parent: Int32
            switch region.level {
            case .province: parent = -1
            case .city: parent = regionIndex["province/\(region.parentCode)"] ?? -1
            default: parent = regionIndex["city/\(region.parentCode)"] ?? -1
            }
            guard region.level == .province || parent >= 0 else {
                throw SourceError(path: region.path, reason: "\(region.level.name) \(region.code) has unknown parent \(region.parentCode)")
            }
            regionIndex["\(region.level.name)/\(region.code)"] = Int32(contents.regions.count)
            contents.regions.append(.init(level: region.level, code: region.code, name: region.name, englishName: region.englishName,
                                          parent: parent, boundingBox: (0, 0, 0, 0)))
        }
        func parentIndex(_ region: Int32) -> Int32 { contents.regions[Int(region)].parent }

        // Units: counties, then the pieces of cities that no county covers.
        var unitPolygons: [[PolygonRings]] = counties.map(\.polygons)
        contents.unitRegions = counties.map { county in
            let c = regionIndex["county/\(county.code)"]!
            let city = parentIndex(c)
            return [parentIndex(city), city, c]
        }
        for city in cities {
            let members = counties.filter { $0.parentCode == city.code }
            let cityGeometry = try context.multiPolygon(city.polygons.map(Self.flat))
            let covered = try context.multiPolygon(members.flatMap(\.polygons).map(Self.flat)).coverageUnion()
            let rest = try cityGeometry.difference(covered)
            for piece in try rest.parts() where try piece.typeID == GEOS_POLYGON.rawValue && piece.area() > 1e-10 {
                let rings = try piece.polygonRings().map(Self.positions)
                unitPolygons.append([PolygonRings(rings: rings)])
                let c = regionIndex["city/\(city.code)"]!
                contents.unitRegions.append([parentIndex(c), c, -1])
                report.uncoveredPieces += 1
            }
        }
        log("units: \(unitPolygons.count) (\(report.uncoveredPieces) city pieces without a county)")

        let topology = CoverageTopology(units: unitPolygons)
        log("topology: \(topology.vertices.count) vertices, \(topology.arcs.count) arcs")
        let projection = try Projection(Self.projection)
        var xs = topology.vertices.map(\.x), ys = topology.vertices.map(\.y)
        try projection.transform(PJ_FWD, first: &xs, second: &ys)
        // Quantisation can move a vertex by up to TableFormat.quantisationErrorMetres: leave room for it.
        let arcTolerance = max(0, tolerance - TableFormat.quantisationErrorMetres)
        var simplifier = try CoverageSimplifier(topology, projectedX: xs, projectedY: ys, tolerance: arcTolerance, context: context)
        report.collapsedRingsKept = simplifier.collapsedRingsKept
        log("simplified: \(simplifier.originalArcs.reduce(0) { $0 + $1.count / 2 }) → \(simplifier.arcs.reduce(0) { $0 + $1.count / 2 }) arc vertices")

        // Quantise (unprojected to degrees), rings, bounding boxes.
        let toDegrees = { (arc: [Double]) throws -> (lon: [Double], lat: [Double]) in
            var lon = stride(from: 0, to: arc.count, by: 2).map { arc[$0] }
            var lat = stride(from: 1, to: arc.count, by: 2).map { arc[$0] }
            try projection.transform(PJ_INV, first: &lon, second: &lat)
            return (lon, lat)
        }
        var stored = try StoredArcs(simplifier, topology, into: &contents, maximumSegment: Self.maximumSegmentMetres, toDegrees: toDegrees)
        let repair = try GeometryRepair(simplifier: &simplifier, stored: &stored, contents: &contents, topology: topology,
                                        context: context, toDegrees: toDegrees)
        report.geometryRepair = repair
        report.collapsedRingsKept = simplifier.collapsedRingsKept
        log("geometry: " + repair.summary)

        let measuring = Stopwatch.seconds()
        try measure(&report, contents: contents, stored: stored, simplifier: simplifier, catalog: catalog, context: context, projection: projection)
        log("measured deviation, areas, overlaps and gaps (\(rounded(Stopwatch.seconds() - measuring, 1)) s)")
        let indexing = Stopwatch.seconds()

        contents.buildIndex(buffer: buffer)
        log("index: \(contents.index.nodes.count) nodes, \(contents.index.leafCount) leaves, \(contents.index.chunkReferenceCount) chunk references, \(contents.index.leaves.count) leaf bytes")
        log("indexed (\(rounded(Stopwatch.seconds() - indexing, 1)) s)")
        let bytes = contents.finish(&report, started: started)
        return (bytes, report)
    }

    /// Deviation, area change, overlap/gap and validity figures.
    private func measure(_ report: inout TableReport, contents: TableContents, stored: StoredArcs, simplifier: CoverageSimplifier,
                         catalog: SourceCatalog, context: GEOSContext, projection: Projection) throws {
        let deviation = try stored.deviations(contents, originals: simplifier.originalArcs, metresPerUnit: 1, curveStep: 0.005) { lon, lat in
            var x = lon, y = lat
            try projection.transform(PJ_FWD, first: &x, second: &y)
            return (x, y)
        }
        var unitGeometries: [Geometry] = []
        var unitAreas: [Double] = []
        for (unit, rings) in contents.unitRings.enumerated() {
            let geometry = try context.multiPolygon(try projectedPolygons(rings, contents: contents, projection: projection))
            if !(try geometry.isValid()) {
                report.invalidUnits += 1
                if report.invalidReasons.count < 10 { report.invalidReasons.append("unit \(unit): \(try geometry.validityReason())") }
            }
            unitGeometries.append(geometry)
            unitAreas.append(try geometry.area())
        }
        let levels: [RegionLevel] = [.province, .city, .county]
        for (slot, level) in levels.enumerated() {
            var figures = TableReport.LevelFigures(level: level)
            figures.regions = contents.regions.filter { $0.level == level }.count
            figures.sourceVertices = catalog.china.filter { $0.level == level }.reduce(0) { $0 + $1.polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count - 1 } } }
            var borderVertices = Set<Int64>()
            var sum = 0.0, count = 0
            for (index, arc) in contents.arcs.enumerated() {
                let left = arc.leftUnit < 0 ? -1 : contents.unitRegions[Int(arc.leftUnit)][slot]
                let right = arc.rightUnit < 0 ? -1 : contents.unitRegions[Int(arc.rightUnit)][slot]
                guard left != right else { continue }
                figures.maximumDeviation = max(figures.maximumDeviation, deviation[index])
                sum += deviation[index]
                count += 1
                for k in stride(from: 0, to: arc.vertices.count, by: 2) {
                    borderVertices.insert(Int64(arc.vertices[k]) << 32 | Int64(UInt32(bitPattern: arc.vertices[k + 1])))
                }
            }
            figures.meanDeviation = count > 0 ? sum / Double(count) : 0
            figures.tableVertices = borderVertices.count

            // Areas (projected, m²) of each region: source polygons vs the table's units.
            var tableArea = [Double](repeating: 0, count: contents.regions.count)
            for unit in unitGeometries.indices {
                let region = contents.unitRegions[unit][slot]
                if region >= 0 { tableArea[Int(region)] += unitAreas[unit] }
            }
            var sourceTotal = 0.0, changed = 0.0
            var indexByCode: [String: Int] = [:]
            for (index, region) in contents.regions.enumerated() where region.level == level { indexByCode[region.code] = index }
            for source in catalog.china where source.level == level {
                let rings = source.polygons.map { polygon in polygon.rings.map { ring in ring.flatMap { [$0.x, $0.y] } } }
                var area = 0.0
                for polygon in rings {
                    for (k, ring) in polygon.enumerated() {
                        var lon = stride(from: 0, to: ring.count, by: 2).map { ring[$0] }, lat = stride(from: 1, to: ring.count, by: 2).map { ring[$0] }
                        try projection.transform(PJ_FWD, first: &lon, second: &lat)
                        let a = abs(Self.shoelace(lon, lat))
                        area += k == 0 ? a : -a
                    }
                }
                sourceTotal += area
                if let index = indexByCode[source.code] {
                    changed += abs(tableArea[index] - area)
                }
            }
            figures.areaChangePercent = sourceTotal > 0 ? 100 * changed / sourceTotal : 0
            // Overlap and gaps among this level's regions, with GEOS: each region is the union of
            // its units; overlap = Σ areas − area of the union of all regions; gaps = holes in it.
            var byRegion: [Int32: [Geometry]] = [:]
            for (unit, geometry) in unitGeometries.enumerated() { byRegion[contents.unitRegions[unit][slot], default: []].append(geometry) }
            var regionGeometries: [Geometry] = []
            for key in byRegion.keys.sorted() where key >= 0 {
                regionGeometries.append(try context.collection(of: byRegion[key]!).coverageUnion())
            }
            let union = try context.collection(of: regionGeometries).unaryUnion()
            let total = try regionGeometries.reduce(0.0) { $0 + (try $1.area()) }
            figures.overlapKm2 = max(0, total - (try union.area())) / 1e6
            figures.gapKm2 = try Self.holeArea(union) / 1e6
            report.levels.append(figures)
        }
        report.outlineMaximumDeviation = contents.arcs.indices.filter { contents.arcs[$0].leftUnit < 0 || contents.arcs[$0].rightUnit < 0 }
            .map { deviation[$0] }.max() ?? 0
    }

    /// Total area of the holes of a (multi)polygon, m².
    static func holeArea(_ geometry: Geometry) throws -> Double {
        var total = 0.0
        for part in try geometry.parts() where part.typeID == GEOS_POLYGON.rawValue {
            for ring in try part.polygonRings().dropFirst() {
                total += abs(shoelace(stride(from: 0, to: ring.count, by: 2).map { ring[$0] }, stride(from: 1, to: ring.count, by: 2).map { ring[$0] }))
            }
        }
        return total
    }

    private func projectedPolygons(_ rings: [TableContents.RingEntry], contents: TableContents, projection: Projection) throws -> [[[Double]]] {
        var polygons: [[[Double]]] = []
        for ring in rings {
            var lon: [Double] = [], lat: [Double] = []
            for reference in ring.references {
                let arc = contents.arcs[Int(reference < 0 ? ~reference : reference)].vertices
                var points = stride(from: 0, to: arc.count, by: 2).map { (Double(arc[$0]) * TableFormat.quantum, Double(arc[$0 + 1]) * TableFormat.quantum) }
                if reference < 0 { points.reverse() }
                if !lon.isEmpty { points.removeFirst() }
                for p in points { lon.append(p.0); lat.append(p.1) }
            }
            try projection.transform(PJ_FWD, first: &lon, second: &lat)
            var xy: [Double] = []
            for k in lon.indices { xy.append(lon[k]); xy.append(lat[k]) }
            while xy.count < 8 { xy += xy.prefix(2) }
            if ring.isHole, !polygons.isEmpty { polygons[polygons.count - 1].append(xy) } else { polygons.append([xy]) }
        }
        return polygons
    }

    static func shoelace(_ x: [Double], _ y: [Double]) -> Double {
        var sum = 0.0
        for i in 0..<x.count {
            let j = (i + 1) % x.count
            sum += (x[i] - x[0]) * (y[j] - y[0]) - (x[j] - x[0]) * (y[i] - y[0])
        }
        return sum / 2
    }

    static func flat(_ polygon: PolygonRings) -> [[Double]] {
        polygon.rings.map { ring in ring.flatMap { [$0.x, $0.y] } }
    }

    static func positions(_ ring: [Double]) -> [Position] {
        stride(from: 0, to: ring.count, by: 2).map { Position(x: ring[$0], y: ring[$0 + 1]) }
    }
}

/// Monotonic seconds, for build timings.
enum Stopwatch {
    static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
