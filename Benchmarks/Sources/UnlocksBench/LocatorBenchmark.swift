import BoundaryBuild
import ChinaDatum
import RegionTables
import TextFormats
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// Point location: the table locator (all four levels from WGS-84, datum conversion included)
/// against GEOS prepared geometries on the full-resolution source polygons (county and province
/// level, points already in GCJ-02, bounding-box grid prefilter: the fastest peer recipe), in the
/// same process, on the same points.
enum LocatorBenchmark {
    /// GEOS baseline: prepared polygons of one level with a 0.25° grid of candidate lists.
    final class PreparedLevel {
        let context = GEOSContext()
        var prepared: [PreparedGeometry] = []
        var boxes: [(Double, Double, Double, Double)] = []
        var codes: [String] = []
        var grid: [Int: [Int]] = [:]
        static let cell = 0.25

        init(_ regions: [SourceRegion]) throws {
            for region in regions {
                let geometry = try context.multiPolygon(region.polygons.map { $0.rings.map { ring in ring.flatMap { [$0.x, $0.y] } } })
                let b = try geometry.bounds()
                prepared.append(try PreparedGeometry(geometry))
                boxes.append(b)
                codes.append(region.code)
                for gx in Int((b.0 / Self.cell).rounded(.down))...Int((b.2 / Self.cell).rounded(.down)) {
                    for gy in Int((b.1 / Self.cell).rounded(.down))...Int((b.3 / Self.cell).rounded(.down)) {
                        grid[gx &* 100_003 &+ gy, default: []].append(prepared.count - 1)
                    }
                }
            }
        }

        func locate(lon: Double, lat: Double) throws -> Int? {
            guard let candidates = grid[Int((lon / Self.cell).rounded(.down)) &* 100_003 &+ Int((lat / Self.cell).rounded(.down))] else { return nil }
            var point: Geometry?
            for c in candidates {
                let b = boxes[c]
                guard b.0 <= lon, lon <= b.2, b.1 <= lat, lat <= b.3 else { continue }
                if point == nil { point = try context.point(x: lon, y: lat) }
                if try prepared[c].contains(point!) { return c }
            }
            return nil
        }
    }

    static func run(source: String, tables: String, repeats: Int) throws -> [String] {
        let locator = try RegionLocator(directory: tables)
        let plain = try RegionLocator(tables: locator.tables, marginRadius: 0)
        let catalog = try SourceCatalog(try SourceArchive(location: source), includeWorld: false)
        let counties = try PreparedLevel(catalog.china.filter { $0.level == .county })
        let provinces = try PreparedLevel(catalog.china.filter { $0.level == .province })

        // Real-place-like points: around the centre of every county's bounding box (±0.02°),
        // 40 per county, as WGS-84 (the locator's input) and GCJ-02 (the baseline's).
        var generator = SplitMix64(seed: 7)
        var gcj: [Coordinate] = []
        for b in counties.boxes {
            let cx = (b.0 + b.2) / 2, cy = (b.1 + b.3) / 2
            for _ in 0..<40 { gcj.append(Coordinate(latitude: cy + generator.uniform(-0.02, 0.02), longitude: cx + generator.uniform(-0.02, 0.02))) }
        }
        let wgs = gcj.map(GCJ02.toWGS84)

        var sink = 0
        let table = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in wgs { sink &+= Int(try locator.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        let tablePlain = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in wgs { sink &+= Int(try plain.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        var placements = [Placement](repeating: Placement(), count: wgs.count)
        let tableBatch = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            try wgs.withUnsafeBufferPointer { p in try placements.withUnsafeMutableBufferPointer { try locator.locate(p, into: $0) } }
            sink &+= Int(placements[7].county.region ?? -1)
        }
        let tablePlainBatch = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            try wgs.withUnsafeBufferPointer { p in try placements.withUnsafeMutableBufferPointer { try plain.locate(p, into: $0) } }
            sink &+= Int(placements[7].county.region ?? -1)
        }
        let tableProvince = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in gcj { sink &+= Int(locator.chinaRegions(gcj02Latitude: p.latitude, longitude: p.longitude).province ?? -1) }
        }
        // GEOS builds a prepared polygon's indexes lazily, at its first query: the first pass pays
        // for that (as an application locating one batch of points would); later passes are its
        // steady state.
        let geosCounty = try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) { for p in gcj { sink &+= try counties.locate(lon: p.longitude, lat: p.latitude) ?? -1 } }
        let geosProvince = try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) { for p in gcj { sink &+= try provinces.locate(lon: p.longitude, lat: p.latitude) ?? -1 } }
        let geosCountySteady = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) { for p in gcj { sink &+= try counties.locate(lon: p.longitude, lat: p.latitude) ?? -1 } }

        // Agreement at county level (the table is simplified, so points near a border may differ).
        var agree = 0, both = 0
        for (w, g) in zip(wgs, gcj) {
            let mine = try locator.locate(latitude: w.latitude, longitude: w.longitude).county.region.map { locator.china.region($0).code }
            let theirs = try counties.locate(lon: g.longitude, lat: g.latitude).map { counties.codes[$0] }
            if theirs != nil { both += 1; if mine == theirs { agree += 1 } }
        }
        if sink == 42 { print("") }
        let n = Double(gcj.count)
        return [
            "| measure | points/s | ratio |",
            "|---|---|---|",
            "| GEOS prepared, county (source, GCJ-02 in) | \(millions(n / geosCounty)) M | 1 |",
            "| GEOS prepared, province (source, GCJ-02 in) | \(millions(n / geosProvince)) M | 1 |",
            "| GEOS prepared, county, steady state (indexes already built, best of \(repeats)) | \(millions(n / geosCountySteady)) M | \(ratio(geosCounty / geosCountySteady))× GEOS county first pass |",
            "| table locator, all four levels from WGS-84 (datum, world gate, margins within 300 m) | \(millions(n / table)) M | \(ratio(geosCounty / table))× GEOS county |",
            "| table locator, all four levels from WGS-84 (datum, world gate), no margins | \(millions(n / tablePlain)) M | \(ratio(geosCounty / tablePlain))× GEOS county |",
            "| table locator, batch (`locate(_:into:)`), margins within 300 m | \(millions(n / tableBatch)) M | \(ratio(geosCounty / tableBatch))× GEOS county |",
            "| table locator, batch, no margins | \(millions(n / tablePlainBatch)) M | **\(ratio(geosCounty / tablePlainBatch))× GEOS county** (\(ratio(geosCountySteady / tablePlainBatch))× steady state) |",
            "| table, province only (GCJ-02 in, one unit lookup: `chinaRegions`) | \(millions(n / tableProvince)) M | \(ratio(geosProvince / tableProvince))× GEOS province |",
            "",
            "\(gcj.count) points (40 around the centre of each county's bounding box). County agreement with the full-resolution source where GEOS finds a county: \(agree) of \(both) (\(fixed(100 * Double(agree) / Double(max(both, 1)), 3))%); every disagreement classified by distance to the source border: `Scripts/bench agreement`.",
        ]
    }
}
