import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The ray-casting invariants (``TableGeometryCheck``) on small hand-made geometry whose answer is
/// known by construction, and on the committed tables.
final class TableGeometryCheckTests: XCTestCase {
    /// A closed arc through `points` (closed here), as interleaved quanta.
    func ring(_ points: [(Int32, Int32)]) -> [Int32] {
        (points + [points[0]]).flatMap { [$0.0, $0.1] }
    }

    /// The check over `arcs`; sides from the rings that use them (`sides` overrides them).
    func check(_ arcs: [[Int32]], rings: [[(isHole: Bool, references: [Int32])]], sides: [(Int32, Int32)]? = nil) -> TableGeometryCheck {
        var vertices: [Int32] = [], starts = [0]
        for arc in arcs {
            vertices += arc
            starts.append(vertices.count / 2)
        }
        var left = [Int32](repeating: -1, count: arcs.count), right = left
        for (unit, list) in rings.enumerated() {
            for ring in list {
                for r in ring.references { if r < 0 { right[Int(~r)] = Int32(unit) } else { left[Int(r)] = Int32(unit) } }
            }
        }
        if let sides { left = sides.map(\.0); right = sides.map(\.1) }
        return TableGeometryCheck(vertices: vertices, arcStart: starts, arcLeft: left, arcRight: right, unitRings: rings)
    }

    let square: [(Int32, Int32)] = [(0, 0), (100, 0), (100, 100), (0, 100)]

    func testACounterClockwiseOuterRingHolds() {
        let result = check([ring(square)], rings: [[(false, [0])]])
        XCTAssertTrue(result.holds)
        XCTAssertEqual(result.rings, 1)
        XCTAssertEqual(result.segments, 4)
    }

    func testAnOuterRingRunningClockwiseIsFound() {
        // The same square used backwards: the unit would be on its right, i.e. outside it.
        let result = check([ring(square)], rings: [[(false, [~0])]])
        XCTAssertFalse(result.holds)
        XCTAssertEqual(result.ringProblems.count, 1)
        XCTAssertEqual(result.ringProblems.first?.isHole, false)
        XCTAssertEqual(result.ringProblems.first.map { $0.doubledArea }, -20_000)
    }

    func testAHoleMustRunClockwise() {
        let hole: [(Int32, Int32)] = [(25, 25), (75, 25), (75, 75), (25, 75)]
        XCTAssertTrue(check([ring(square), ring(hole)], rings: [[(false, [0]), (true, [~1])]]).holds)
        let wrong = check([ring(square), ring(hole)], rings: [[(false, [0]), (true, [1])]])
        XCTAssertEqual(wrong.ringProblems.map(\.ring), [1])
    }

    func testARingOfNoAreaIsAProblem() {
        let flat: [(Int32, Int32)] = [(0, 0), (50, 0), (100, 0)]
        XCTAssertEqual(check([ring(flat)], rings: [[(false, [0])]]).ringProblems.count, 1)
    }

    func testABowTieCrossesItself() {
        // (0,0) → (100,100) → (100,0) → (0,100): its first and third segments cross at (50, 50).
        let bowTie: [(Int32, Int32)] = [(0, 0), (100, 100), (100, 0), (0, 100)]
        let result = check([ring(bowTie)], rings: [])
        XCTAssertEqual(result.crossings.filter(\.proper).count, 1, "\(result.crossings)")
        XCTAssertFalse(result.holds)
        XCTAssertTrue(result.crossings.allSatisfy { $0.arcA == 0 && $0.arcB == 0 })
    }

    func testArcsMeetingAtTheirEndsDoNotCross() {
        // Two units side by side sharing the arc x = 100: a clean coverage.
        let shared: [Int32] = [100, 0, 100, 100]
        let west: [Int32] = [100, 100, 0, 100, 0, 0, 100, 0]
        let east: [Int32] = [100, 0, 200, 0, 200, 100, 100, 100]
        let result = check([shared, west, east], rings: [[(false, [1, 0])], [(false, [2, ~0])]])
        XCTAssertTrue(result.holds, "\(result.ringProblems) \(result.crossings)")
        XCTAssertEqual(result.touches, 0)
    }

    func testTwoArcsCrossingAreFoundAndAnEndOnAnotherIsOnlyATouch() {
        let a: [Int32] = [0, 0, 100, 100], b: [Int32] = [0, 100, 100, 0], c: [Int32] = [50, 0, 50, 50]
        let crossing = check([a, b], rings: [])
        XCTAssertEqual(crossing.crossings.count, 1)
        XCTAssertEqual(crossing.crossings.first?.proper, true)
        XCTAssertEqual(crossing.crossings.first.map { [$0.x, $0.y] }, [50, 50])
        // c ends at (50, 50) on a's interior: a touch, which ray casting tolerates.
        let touch = check([a, c], rings: [])
        XCTAssertTrue(touch.holds)
        XCTAssertEqual(touch.touches, 1)
        // Overlapping along a line is a problem.
        let overlap = check([[0, 0, 100, 0], [50, 0, 150, 0]], rings: [])
        XCTAssertEqual(overlap.crossings.filter(\.proper).count, 1)
    }

    func testAnIslandInsideItsOwnMainlandIsFound() {
        // Unit 0's mainland, a 1000-quantum square, and an island of unit 0 inside it (as when a
        // coast is simplified past an island): west of the island the sea is expected, unit 0 found.
        let mainland = ring([(0, 0), (1_000, 0), (1_000, 1_000), (0, 1_000)])
        let island = ring([(400, 400), (600, 400), (600, 600), (400, 600)])
        let inside = check([mainland, island], rings: [[(false, [0]), (false, [1])]])
        XCTAssertEqual(inside.ringProblems.count, 0)
        XCTAssertEqual(inside.crossings.count, 0)
        XCTAssertEqual(inside.misplaced.map(\.arc), [1], "\(inside.misplaced)")
        XCTAssertEqual(inside.misplaced.first?.expected, -1)
        XCTAssertEqual(inside.misplaced.first?.found, 0)
        XCTAssertEqual(inside.misplaced.first?.metArc, 0)
        // The same island beside the mainland, in the sea: where its sides say.
        let beside = ring([(1_400, 400), (1_600, 400), (1_600, 600), (1_400, 600)])
        XCTAssertTrue(check([mainland, beside], rings: [[(false, [0]), (false, [1])]]).holds)
        // An island of unit 1 in a lake (a hole of unit 0, itself of unit 2 inside): holds.
        let lake = ring([(300, 300), (700, 300), (700, 700), (300, 700)])
        let nested = check([mainland, lake, island], rings: [[(false, [0]), (true, [~1])], [(false, [1]), (true, [~2])], [(false, [2])]])
        XCTAssertTrue(nested.holds, "\(nested.ringProblems) \(nested.misplaced)")
    }

    func testLongSegmentsAcrossManyCellsAreStillCompared() {
        // One long east–west segment and a short one crossing it far from its ends.
        let result = check([[0, 0, 10_000_000, 0], [7_000_000, -5, 7_000_000, 5]], rings: [])
        XCTAssertEqual(result.crossings.filter(\.proper).count, 1)
    }

    func testTheCommittedTablesHoldBothInvariants() throws {
        for name in ["world.bin", "china.bin"] {
            let table = try RegionTable(contentsOf: Repository.tables + "/" + name)
            let result = TableGeometryCheck(table)
            XCTAssertGreaterThan(result.rings, 5_000, name)
            XCTAssertEqual(result.ringProblems.count, 0, "\(name): \(result.ringProblems.prefix(5))")
            XCTAssertEqual(result.crossings.filter(\.proper).count, 0, "\(name): \(result.crossings.prefix(5))")
        }
    }
}
