import Foundation
import XCTest
@testable import FootprintMap
import Unlocks

/// Merging cells into polygons, on shapes whose answer is known by construction.
final class CellPolygonsTests: XCTestCase {
    /// The ellipsoid's zone area from the equator to φ (Snyder, Map Projections: A Working
    /// Manual, eq. 3-12 for q), written here independently of the package.
    func zone(_ degrees: Double) -> Double {
        let a = 6_378_137.0, f = 1 / 298.257223563, e2 = f * (2 - f), e = e2.squareRoot()
        let s = sin(degrees * .pi / 180)
        return .pi * a * a * (1 - e2) * (s / (1 - e2 * s * s) - 1 / (2 * e) * log((1 - e * s) / (1 + e * s)))
    }

    /// Area of a ring whose edges run along meridians and parallels: only the parallels count,
    /// each −Δλ/360 of the zone up to it. Positive when counterclockwise.
    func rectilinearArea(_ ring: [(longitude: Double, latitude: Double)]) -> Double {
        var area = 0.0
        for (p, q) in zip(ring, ring.dropFirst()) {
            if p.latitude == q.latitude { area -= (q.longitude - p.longitude) / 360 * zone(p.latitude) }
            else { XCTAssertEqual(p.longitude, q.longitude, "an edge neither along a meridian nor a parallel") }
        }
        return area
    }

    func cellArea(_ key: Int64) -> Double {
        let row = ExploredGrid.cell(ofKey: key).row
        return ExploredGrid.cellArea(row: row)
    }

    func check(_ keys: [Int64], polygons expected: Int, holes: Int, file: StaticString = #filePath, line: UInt = #line) {
        let polygons = CellPolygons.polygons(of: keys)
        XCTAssertEqual(polygons.count, expected, "polygons", file: file, line: line)
        XCTAssertEqual(polygons.reduce(0) { $0 + $1.count - 1 }, holes, "holes", file: file, line: line)
        var total = 0.0
        for polygon in polygons {
            for (k, ring) in polygon.enumerated() {
                XCTAssertGreaterThanOrEqual(ring.count, 5, file: file, line: line)
                XCTAssertTrue(ring.first! == ring.last!, "ring not closed", file: file, line: line)
                let area = rectilinearArea(ring)
                XCTAssertEqual(area > 0, k == 0, "outer rings counterclockwise, holes clockwise", file: file, line: line)
                total += area
            }
        }
        let cells = keys.reduce(0.0) { $0 + cellArea($1) }
        XCTAssertEqual(total, cells, accuracy: cells * 1e-9, "area", file: file, line: line)
    }

    func testShapesWithHolesCornersAndMisalignedRows() {
        // Beijing's latitude: rows 177,000 and up, columns ≈ 1.2 million per row.
        let row = Int64(177_000), column = Int64(800_000)
        func key(_ dr: Int64, _ dc: Int64) -> Int64 {
            // The same longitude in every row: columns shift as rows' column counts differ.
            let r = row + dr
            let columns = ExploredGrid.columnCount(row: r)
            let c = Int64((Double(column) / Double(ExploredGrid.columnCount(row: row)) * Double(columns)).rounded(.down)) + dc
            return ExploredGrid.key(row: r, column: c)
        }
        check([key(0, 0)], polygons: 1, holes: 0)
        // A 3 × 3 block without its centre: one polygon with one hole.
        check((-1...1).flatMap { dr in (-1...1).compactMap { dc in dr == 0 && dc == 0 ? nil : key(dr, dc) } }, polygons: 1, holes: 1)
        // A 10 × 10 block: one polygon; its columns do not line up from row to row.
        check((0..<10).flatMap { dr in (0..<10).map { key(Int64(dr), Int64($0)) } }, polygons: 1, holes: 0)
        // Two separate cells of one row, and a long walk east then north.
        check([key(0, 0), key(0, 2)], polygons: 2, holes: 0)
        check((0..<200).map { key(0, Int64($0)) } + (1..<200).map { key(Int64($0), 199) }, polygons: 1, holes: 0)
        // Duplicates and order do not matter.
        XCTAssertEqual(CellPolygons.polygons(of: [key(0, 1), key(0, 0), key(0, 1)]).count, 1)
    }

    func testCellsTouchingOnlyAtACornerStaySeparate() {
        // Find two rows with the same column count, so a corner is shared exactly.
        var row = Int64(10)  // near the equator, where neighbouring rows often have equal column counts
        while ExploredGrid.columnCount(row: row) != ExploredGrid.columnCount(row: row + 1)
            || ExploredGrid.columnCount(row: row) != ExploredGrid.columnCount(row: row + 2) { row += 1 }
        let a = ExploredGrid.key(row: row, column: 500), b = ExploredGrid.key(row: row + 1, column: 501)
        check([a, b], polygons: 2, holes: 0)
        // And a ring of cells pinched at a corner: the enclosed cell's hole touches the outer ring.
        let ring = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)].map { ExploredGrid.key(row: row + Int64($0.0), column: 500 + Int64($0.1)) }
        check(ring, polygons: 1, holes: 1)
    }
}
