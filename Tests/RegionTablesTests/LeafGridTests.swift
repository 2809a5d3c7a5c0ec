import ChinaDatum
import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The leaves' sub-cell grids (`LeafGrids`, `leafGrids: true`) give the answers the ray casts give
/// without them, bit for bit: the unit at quantised probes on and beside vertices and segments and
/// in the coast bands of both tables, and whole placements (regions, statuses, margins,
/// `uncontested`, GCJ-02) on random points over China's box and the world, around real places
/// and beside the China table's borders.
final class LeafGridTests: XCTestCase {
    /// The default locator must be ready in milliseconds (docs/locator.md): it holds no grids
    /// (grids add their megabytes to `indexByteCount`).
    func testTheDefaultLocatorBuildsNoGrids() throws {
        let tables = BundledTables.tables
        let plain = try RegionLocator(tables: tables, marginRadius: 300, leafGrids: false)
        XCTAssertEqual(try RegionLocator(tables: tables).indexByteCount, plain.indexByteCount)
    }

    func testGridUnitsEqualTheRayCasts() {
        for (name, table) in [("world", BundledTables.tables.world), ("china", BundledTables.tables.china)] {
            let lookup = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: true)
            let grids = lookup.grids!
            var clear = 0, gridded = 0
            for node in 0..<grids.nodeCount where grids.lines.load(fromByteOffset: node * LeafGrids.lineBytes, as: UInt64.self) != UInt64.max {
                gridded += 1
                clear += (0..<LeafGrids.cellsPerLeaf).filter { grids.unit(node: node, cell: $0) != nil }.count
            }
            XCTAssertGreaterThan(clear, gridded * LeafGrids.cellsPerLeaf / 2, "\(name): most sub-cells are clear")
            var mismatches = 0, fromGrid = 0
            let probes = NearbyArcSearchTests.probes(table, seed: 25, count: 20_000)
            for (x, y) in probes {
                let found = lookup.find(x: x, y: y).unit
                if found != table.unit(atX: x, y: y) {
                    mismatches += 1
                    if mismatches <= 5 { XCTFail("\(name): (\(x), \(y)): grid \(String(describing: found)), ray \(String(describing: table.unit(atX: x, y: y)))") }
                }
                if lookup.find(x: x, y: y).clearanceY > 0 { fromGrid += 1 }
            }
            XCTAssertEqual(mismatches, 0, "\(name): \(mismatches) of \(probes.count) probes differ")
            XCTAssertGreaterThan(fromGrid, 0, "\(name): some probes answered from a clear cell")
        }
    }

    func testPlacementsWithGridsEqualThoseWithout() throws {
        let tables = BundledTables.tables
        var rng = SplitMix64(seed: 2_025)
        var points: [Coordinate] = []
        for _ in 0..<30_000 { points.append(Coordinate(latitude: rng.uniform(18, 54), longitude: rng.uniform(73, 136))) }
        for _ in 0..<15_000 { points.append(Coordinate(latitude: rng.uniform(-60, 75), longitude: rng.uniform(-180, 180))) }
        // Around real places, and beside the China table's borders (GCJ-02 probes shifted back).
        let places = try String(contentsOfFile: Repository.root + "/Tests/RegionTablesTests/Fixtures/real-places.csv", encoding: .utf8)
        for line in places.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            guard f.count >= 5, let lon = Double(f[3]), let lat = Double(f[4]) else { continue }
            for _ in 0..<4 { points.append(GCJ02.toWGS84(Coordinate(latitude: lat + rng.uniform(-0.02, 0.02), longitude: lon + rng.uniform(-0.02, 0.02)))) }
        }
        for (x, y) in NearbyArcSearchTests.probes(tables.china, seed: 26, count: 10_000) {
            points.append(GCJ02.toWGS84(Coordinate(latitude: Double(y) * 1e-5, longitude: Double(x) * 1e-5)))
        }
        for radius in [300.0, 0] {
            let with = try RegionLocator(tables: tables, marginRadius: radius, leafGrids: true)
            let without = try RegionLocator(tables: tables, marginRadius: radius, leafGrids: false)
            var mismatches = 0
            for p in points {
                let a = try with.locate(latitude: p.latitude, longitude: p.longitude), b = try without.locate(latitude: p.latitude, longitude: p.longitude)
                if a != b {
                    mismatches += 1
                    if mismatches <= 5 { XCTFail("radius \(radius): \(p): \(a) against \(b)") }
                }
            }
            XCTAssertEqual(mismatches, 0, "radius \(radius): \(mismatches) of \(points.count) placements differ")
        }
    }
}
