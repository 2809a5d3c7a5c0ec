import CPROJ
import Foundation
import RegionTables
import XCTest
import UnlocksTestSupport

/// Region areas (``RegionTable/areas(ofRegions:)``) against two independent references: PROJ's
/// geodesic polygon area (Karney's algorithm, `geod_polygonarea`) over the same stored rings, and
/// published areas of well-known regions.
final class RegionAreaTests: XCTestCase {
    static let root = Repository.root

    /// Geodesic area of one unit's stored polygons, m². The table's edges are straight in
    /// longitude and latitude, a geodesic bows away from that, so every edge is first cut into
    /// pieces of at most 0.01° (then the two curves differ by centimetres).
    func geodesicArea(_ table: RegionTable, unit: Int32) -> Double {
        var geod = geod_geodesic()
        geod_init(&geod, 6_378_137, 1 / 298.257223563)
        var total = 0.0
        for polygon in table.unitPolygons(unit) {
            for (k, ring) in polygon.enumerated() {
                var lats: [Double] = [], lons: [Double] = []
                let points = ring.map { (Double($0.x) * 1e-5, Double($0.y) * 1e-5) }
                for i in 0..<points.count - 1 {
                    let (x0, y0) = points[i], (x1, y1) = points[i + 1]
                    let pieces = max(1, Int((max(abs(x1 - x0), abs(y1 - y0)) / 0.01).rounded(.up)))
                    for p in 0..<pieces {
                        let t = Double(p) / Double(pieces)
                        lons.append(x0 + (x1 - x0) * t)
                        lats.append(y0 + (y1 - y0) * t)
                    }
                }
                var area = 0.0, perimeter = 0.0
                geod_polygonarea(&geod, &lats, &lons, Int32(lats.count), &area, &perimeter)
                total += k == 0 ? abs(area) : -abs(area)
            }
        }
        return total
    }

    func testAreasAgreeWithPROJGeodesicsOnTheSameRings() throws {
        for name in ["china", "world"] {
            let table = try RegionTable(contentsOf: Self.root + "/Data/regions/\(name).bin")
            // Every 37th region: provinces, cities, counties, countries of every size.
            let sample = Array(stride(from: Int32(0), to: Int32(table.regionCount), by: 37))
            let areas = table.areas(ofRegions: sample)
            var reference = [Int32: Double]()
            for unit in 0..<Int32(table.unitCount) {
                let owners = table.levels.compactMap { table.region(ofUnit: unit, at: $0) }.filter(sample.contains)
                guard !owners.isEmpty else { continue }
                let area = geodesicArea(table, unit: unit)
                for owner in owners { reference[owner, default: 0] += area }
            }
            for region in sample {
                let expected = reference[region] ?? 0, got = try XCTUnwrap(areas[region])
                XCTAssertEqual(got, expected, accuracy: max(1e-5 * expected, 1), "\(name) \(table.region(region).code)")
            }
        }
    }

    /// Published areas: Beijing 16,410.54 km² and Dongcheng 41.84 km² (Beijing Municipal Bureau of
    /// Statistics, Beijing Statistical Yearbook), Japan 377,975 km² (Statistics Bureau of Japan). The tables follow their source within 30 m
    /// (China) and 2 km coasts (world): 0.5% and 1% cover that.
    func testAreasMatchPublishedFigures() throws {
        let china = try RegionTable(contentsOf: Self.root + "/Data/regions/china.bin")
        let world = try RegionTable(contentsOf: Self.root + "/Data/regions/world.bin")
        func area(_ table: RegionTable, _ code: String) throws -> Double {
            let region = try XCTUnwrap(table.regions.first { $0.code == code }?.index, code)
            return try XCTUnwrap(table.areas(ofRegions: [region])[region]) / 1e6
        }
        XCTAssertEqual(try area(china, "110000"), 16_410.54, accuracy: 16_410.54 * 0.005)
        XCTAssertEqual(try area(china, "110101"), 41.84, accuracy: 41.84 * 0.005)
        XCTAssertEqual(try area(world, "JPN"), 377_975, accuracy: 377_975 * 0.01)
        // A province is the sum of its cities, a city of its counties (the levels nest exactly).
        let provinces = china.regions.filter { $0.level == .province }.map(\.index)
        let cities = china.regions.filter { $0.level == .city }
        let all = china.areas(ofRegions: provinces + cities.map(\.index))
        for province in provinces {
            let children = cities.filter { $0.parent == province }.reduce(0.0) { $0 + all[$1.index]! }
            XCTAssertEqual(children, all[province]!, accuracy: 1e-9 * all[province]!, china.region(province).code)
        }
    }
}
