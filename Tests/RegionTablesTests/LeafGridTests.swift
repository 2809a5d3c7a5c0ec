import ChinaDatum
import Dispatch
import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The leaves' sub-cell grids (`LeafGrids`) give the answers the ray casts give without them, bit
/// for bit, whether built at creation (`.eager`) or leaf by leaf on first lookup (`.lazy`, the
/// default, also from several threads at once): the unit at quantised probes on and beside
/// vertices and segments and in the coast bands of both tables, the lazily built lines byte for
/// byte against the eager ones, and whole placements (regions, statuses, margins, `uncontested`,
/// GCJ-02) on random points over China's box and the world, around real places and beside the
/// China table's borders.
final class LeafGridTests: XCTestCase {
    /// The default locator must be ready in milliseconds (docs/locator.md): its grids are lazy,
    /// and creating a lazy lookup builds no leaf.
    func testTheDefaultLocatorBuildsNoGridsAtCreation() throws {
        XCTAssertEqual(try RegionLocator(tables: BundledTables.tables).leafGrids, .lazy)
        for table in [BundledTables.tables.world, BundledTables.tables.china] {
            let grids = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .lazy).grids!
            XCTAssertEqual((0..<grids.nodeCount).filter { grids.isReady(node: $0) }.count, 0)
        }
    }

    /// The nodes whose grids are ready, and their lines' bytes.
    private func readyLines(_ grids: LeafGrids) -> [Int: [UInt8]] {
        var lines: [Int: [UInt8]] = [:]
        for node in 0..<grids.nodeCount where grids.isReady(node: node) {
            lines[node] = Array(UnsafeRawBufferPointer(start: grids.lines + node * LeafGrids.lineBytes, count: LeafGrids.lineBytes))
        }
        return lines
    }

    /// Units at `probes` through `lookup` that differ from the table's ray casts.
    private func mismatches(_ lookup: UnitLookup, _ table: RegionTable, _ probes: [(x: Int64, y: Int64)], _ name: String) -> Int {
        var mismatches = 0
        for (x, y) in probes {
            let found = lookup.find(x: x, y: y).unit
            if found != table.unit(atX: x, y: y) {
                mismatches += 1
                if mismatches <= 5 { XCTFail("\(name): (\(x), \(y)): grid \(String(describing: found)), ray \(String(describing: table.unit(atX: x, y: y)))") }
            }
        }
        return mismatches
    }

    func testGridUnitsEqualTheRayCasts() {
        for (name, table) in [("world", BundledTables.tables.world), ("china", BundledTables.tables.china)] {
            let eager = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .eager)
            let grids = eager.grids!
            let eagerLines = readyLines(grids)
            XCTAssertEqual(eagerLines.count, grids.gridLeaves().count, "\(name): every leaf at least 32 quanta wide")
            var clear = 0
            for node in eagerLines.keys {
                clear += (0..<LeafGrids.cellsPerLeaf).filter { grids.unit(node: node, cell: $0) != nil }.count
            }
            XCTAssertGreaterThan(clear, eagerLines.count * LeafGrids.cellsPerLeaf / 2, "\(name): most sub-cells are clear")
            let probes = NearbyArcSearchTests.probes(table, seed: 25, count: 20_000)
            XCTAssertEqual(mismatches(eager, table, probes, name + " eager"), 0, "\(name): eager grids differ from the ray casts")
            XCTAssertGreaterThan(probes.filter { eager.find(x: $0.x, y: $0.y).clearanceY > 0 }.count, 0, "\(name): some probes answered from a clear cell")
            // Lazily: the same answers, and every line built on the way the same bytes as eagerly.
            let lazy = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .lazy)
            XCTAssertEqual(mismatches(lazy, table, probes, name + " lazy"), 0, "\(name): lazy grids differ from the ray casts")
            let lazyLines = readyLines(lazy.grids!)
            XCTAssertGreaterThan(lazyLines.count, 100, "\(name): the probes built leaves")
            XCTAssertEqual(lazyLines.filter { eagerLines[$0.key] != $0.value }.count, 0, "\(name): lazy lines differ from the eager ones")
        }
    }

    /// A leaf another thread is building (state 1) is answered by its ray cast meanwhile.
    func testALeafBeingBuiltCastsItsRay() {
        let table = BundledTables.tables.china
        let lookup = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .lazy)
        let grids = lookup.grids!
        for leaf in grids.gridLeaves() {
            grids.lines.storeBytes(of: LeafGrids.building, toByteOffset: leaf.node * LeafGrids.lineBytes + LeafGrids.stateOffset, as: UInt8.self)
        }
        let probes = NearbyArcSearchTests.probes(table, seed: 27, count: 5_000)
        XCTAssertEqual(mismatches(lookup, table, probes, "china, every leaf building"), 0)
        // Not even the clearances come from a grid: they are those of a lookup without grids.
        let none = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .none)
        XCTAssertEqual(probes.filter {
            let a = lookup.find(x: $0.x, y: $0.y), b = none.find(x: $0.x, y: $0.y)
            return a.clearanceX != b.clearanceX || a.clearanceY != b.clearanceY
        }.count, 0)
        XCTAssertEqual((0..<grids.nodeCount).filter { grids.isReady(node: $0) }.count, 0, "no grid was built over a builder's claim")
    }

    /// Several threads making their first lookups at once, in the same leaves in the same order
    /// (so that they race for every leaf): the ray casts' answers on every thread, and the lines
    /// the same bytes as eagerly built; then whole placements from one shared locator.
    func testConcurrentFirstLookups() throws {
        let threads = 6
        for (name, table) in [("world", BundledTables.tables.world), ("china", BundledTables.tables.china)] {
            let probes = NearbyArcSearchTests.probes(table, seed: 28, count: 20_000)
            let expected = probes.map { table.unit(atX: $0.x, y: $0.y) }
            let lazy = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .lazy)
            let wrong = Self.mismatchesPerThread(threads, count: probes.count) { i in lazy.find(x: probes[i].x, y: probes[i].y).unit != expected[i] }
            XCTAssertEqual(wrong, [Int](repeating: 0, count: threads), "\(name): answers differ on some thread")
            let eager = readyLines(UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth, leafGrids: .eager).grids!)
            let built = readyLines(lazy.grids!)
            XCTAssertGreaterThan(built.count, 100)
            XCTAssertEqual(built.filter { eager[$0.key] != $0.value }.count, 0, "\(name): lines built concurrently differ from the eager ones")
        }
        // One default locator shared by the threads, against one without grids.
        var rng = SplitMix64(seed: 29)
        let points = (0..<20_000).map { _ in Coordinate(latitude: rng.uniform(18, 54), longitude: rng.uniform(73, 136)) }
        let reference = try RegionLocator(tables: BundledTables.tables, marginRadius: 300, leafGrids: .none)
        let expected = try points.map { try reference.locate(latitude: $0.latitude, longitude: $0.longitude) }
        let locator = try RegionLocator(tables: BundledTables.tables, marginRadius: 300)
        let wrong = Self.mismatchesPerThread(threads, count: points.count) { i in
            (try? locator.locate(latitude: points[i].latitude, longitude: points[i].longitude)) != expected[i]
        }
        XCTAssertEqual(wrong, [Int](repeating: 0, count: threads), "placements differ on some thread")
    }

    /// Runs `differs` on every index 0..<count on each of `threads` threads at once (all in the
    /// same order, so they race for the same leaves); per thread, how many indices differed.
    static func mismatchesPerThread(_ threads: Int, count: Int, _ differs: (Int) -> Bool) -> [Int] {
        let wrong = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
        defer { wrong.deallocate() }
        wrong.initialize(repeating: 0)
        withoutActuallyEscaping(differs) { differs in
            let shared = Unchecked(differs: differs, wrong: wrong)
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                shared.wrong[thread] = (0..<count).filter(shared.differs).count
            }
        }
        return Array(wrong)
    }

    /// What the threads of `testConcurrentFirstLookups` share (each writes only its own `wrong` slot).
    /// The race's closure and counts, handed to the threads: the closure only reads what it
    /// captured, and each thread writes its own count.
    private struct Unchecked: @unchecked Sendable {
        let differs: (Int) -> Bool
        let wrong: UnsafeMutableBufferPointer<Int>
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
            for mode in [LeafGridMode.lazy, .eager] {
            let with = try RegionLocator(tables: tables, marginRadius: radius, leafGrids: mode)
            let without = try RegionLocator(tables: tables, marginRadius: radius, leafGrids: .none)
            var mismatches = 0
            for p in points {
                let a = try with.locate(latitude: p.latitude, longitude: p.longitude), b = try without.locate(latitude: p.latitude, longitude: p.longitude)
                if a != b {
                    mismatches += 1
                    if mismatches <= 5 { XCTFail("\(mode), radius \(radius): \(p): \(a) against \(b)") }
                }
            }
            XCTAssertEqual(mismatches, 0, "\(mode), radius \(radius): \(mismatches) of \(points.count) placements differ")
            }
        }
    }
}
