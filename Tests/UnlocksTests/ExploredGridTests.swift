import Foundation
import XCTest
@testable import Unlocks

final class ExploredGridTests: XCTestCase {
    /// Every row's cells cover 625 m² within 0.5% up to ±80° (the bound), measured with
    /// the exact ellipsoidal zone area, not the grid's own arithmetic.
    func testCellAreaIsNearly625SquareMetresAtEveryLatitude() {
        var latitude = -80.0
        while latitude <= 80 {
            let row = Int64(ExploredGrid.rowCoordinate(latitude: latitude).rounded(.down))
            let area = ExploredGrid.cellArea(row: row)
            XCTAssertEqual(area, 625, accuracy: 625 * 0.005, "latitude \(latitude)")
            latitude += 0.37
        }
    }

    /// Meridian distance against the textbook figures: equator to pole 10,001,965.729 m on WGS-84.
    func testMeridianDistanceMatchesTheKnownQuadrant() {
        XCTAssertEqual(ExploredGrid.meridianDistance(latitude: 90), 10_001_965.729, accuracy: 0.01)
        XCTAssertEqual(ExploredGrid.meridianDistance(latitude: 0), 0)
        for latitude in stride(from: -89.0, through: 89, by: 7.3) {
            XCTAssertEqual(ExploredGrid.latitude(meridianDistance: ExploredGrid.meridianDistance(latitude: latitude)), latitude, accuracy: 1e-8)  // 1 mm
        }
        // One degree of latitude at 45°: 111132.954 − 559.822 cos 2φ + 1.175 cos 4φ = 111,131.779 m (the standard series).
        let degree = ExploredGrid.meridianDistance(latitude: 45.5) - ExploredGrid.meridianDistance(latitude: 44.5)
        XCTAssertEqual(degree, 111_131.779, accuracy: 0.05)
    }

    func testKeysRoundTripAndPointsFallInTheirCell() {
        for (lat, lon) in [(39.9, 116.4), (-33.9, 151.2), (0.0, -180.0), (89.99, 179.999), (-89.99, 0.0)] {
            let key = ExploredGrid.key(latitude: lat, longitude: lon)
            let cell = ExploredGrid.cell(ofKey: key)
            XCTAssertEqual(ExploredGrid.key(row: cell.row, column: cell.column), key)
            let south = ExploredGrid.latitude(meridianDistance: Double(cell.row) * 25)
            let north = ExploredGrid.latitude(meridianDistance: Double(cell.row + 1) * 25)
            XCTAssertTrue(south <= lat && lat < north, "\(lat) not in [\(south), \(north))")
            let width = 360 / Double(ExploredGrid.columnCount(row: cell.row))
            XCTAssertEqual(-180 + (Double(cell.column) + 0.5) * width, lon, accuracy: width)
        }
    }

    /// The analytic answer: a straight walk of 10 km sweeps a swath one cell wide, 10 km × 25 m =
    /// 0.25 km², within 1%, along a meridian and along parallels at 20°, 40° and 60° N.
    func testStraightTenKilometreWalksExploreTenKilometresTimesTwentyFiveMetres() {
        for latitude in [20.0, 40.0, 60.0] {
            // Along the meridian at 116.3° E: 10 km north of `latitude`.
            let north = ExploredGrid.latitude(meridianDistance: ExploredGrid.meridianDistance(latitude: latitude) + 10_000)
            XCTAssertEqual(sweptArea(from: (latitude, 116.3), to: (north, 116.3), steps: 2000), 250_000, accuracy: 2_500, "meridian at \(latitude)")
            // Along the parallel: 10 km of longitude at this latitude (radius of the parallel N cos φ).
            let span = 10_000 / ExploredGrid.parallelRadius(latitude: latitude) * 180 / .pi
            XCTAssertEqual(sweptArea(from: (latitude, 116.3), to: (latitude, 116.3 + span), steps: 2000), 250_000, accuracy: 2_500, "parallel at \(latitude)")
        }
    }

    /// Area of the cells a walk from `a` to `b` in `steps` straight legs passes through.
    func sweptArea(from a: (Double, Double), to b: (Double, Double), steps: Int) -> Double {
        var cells = Set<Int64>()
        for i in 0..<steps {
            let t0 = Double(i) / Double(steps), t1 = Double(i + 1) / Double(steps)
            ExploredGrid.rasterise(from: (a.0 + (b.0 - a.0) * t0, a.1 + (b.1 - a.1) * t0),
                                   to: (a.0 + (b.0 - a.0) * t1, a.1 + (b.1 - a.1) * t1)) { key, _ in cells.insert(key) }
        }
        return cells.reduce(0) { $0 + ExploredGrid.cellArea(row: ExploredGrid.cell(ofKey: $1).row) }
    }

    /// A diagonal leg visits a connected chain of cells including every cell its line crosses:
    /// check against dense sampling of the line (an independent, slower way to find them).
    func testSupercoverContainsEveryCellTheLineCrosses() {
        let a = (39.9, 116.3), b = (39.9031, 116.3057)
        var covered = Set<Int64>()
        ExploredGrid.rasterise(from: a, to: b) { key, _ in covered.insert(key) }
        var sampled = Set<Int64>()
        for i in 0...20_000 {
            let t = Double(i) / 20_000
            sampled.insert(ExploredGrid.key(latitude: a.0 + (b.0 - a.0) * t, longitude: a.1 + (b.1 - a.1) * t))
        }
        XCTAssertTrue(sampled.isSubset(of: covered))
        // Supercover adds at most the corner cells: never more than 2 × the crossed cells.
        XCTAssertLessThanOrEqual(covered.count, 2 * sampled.count)
    }

    /// Walking steps (1.4 m) in four quarters of the globe and across the antimeridian: a step
    /// whose ends lie in one cell (each end's cell found on its own) visits that cell alone, at
    /// the step's start; any other step visits both ends' cells.
    func testStepsVisitTheCellsOfTheirEnds() {
        var oneCell = 0
        for (latitude, longitude) in [(39.9, 116.3), (-33.87, 151.21), (51.5, -0.1276), (-22.9, -43.2), (10.0, 179.9999)] {
            var a = (latitude, longitude)
            for i in 0..<2_000 {
                let heading = Double(i) * 0.37
                let b = (a.0 + 1.4 / 111_000 * cos(heading), a.1 + 1.4 / 111_000 / cos(a.0 * .pi / 180) * sin(heading))
                let end = (b.0, b.1 > 180 ? b.1 - 360 : b.1)
                var visits: [(Int64, Double)] = []
                ExploredGrid.rasterise(from: a, to: end) { visits.append(($0, $1)) }
                let first = ExploredGrid.key(latitude: a.0, longitude: a.1), last = ExploredGrid.key(latitude: end.0, longitude: end.1)
                if first == last {
                    oneCell += 1
                    XCTAssertEqual(visits.map(\.0), [first])
                    XCTAssertEqual(visits.map(\.1), [0])
                } else {
                    XCTAssertTrue(visits.contains { $0.0 == first } && visits.contains { $0.0 == last })
                }
                a = end
            }
        }
        XCTAssertGreaterThan(oneCell, 5_000)  // most steps stay in their cell
    }

    /// The linearised row coordinate agrees with the exact one to 1e-6 rows (25 µm) on a walk.
    func testLinearisedRowCoordinateMatchesTheExactOne() {
        var rows = ExploredGrid.RowCache()
        var latitude = 39.0
        while latitude < 41 {
            XCTAssertEqual(rows.rowCoordinate(latitude: latitude), ExploredGrid.rowCoordinate(latitude: latitude), accuracy: 1e-6)
            latitude += 0.000_137
        }
    }

    func testLegsAcrossTheAntimeridianTakeTheShortWay() {
        var cells = Set<Int64>()
        ExploredGrid.rasterise(from: (10, 179.9995), to: (10, -179.9995)) { key, _ in cells.insert(key) }
        XCTAssertLessThanOrEqual(cells.count, 6)
    }
}
