import Foundation
import XCTest
@testable import ChinaDatum

/// Checks the datum against vectors made by two independent PyPI implementations
/// (see Fixtures/README.md and Scripts/fixtures/make-datum-vectors).
final class GoldenVectorTests: XCTestCase {
    struct Row {
        let kind: String
        let wgs: Coordinate
        let gcjA, gcjB, bdA, bdB: Coordinate
    }

    static let rows: [Row] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/datum-vectors.csv")
        let text = try! String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            let d = f.dropFirst().map { Double(String($0))! }
            func c(_ i: Int) -> Coordinate { Coordinate(latitude: d[i], longitude: d[i + 1]) }
            return Row(kind: String(f[0]), wgs: c(0), gcjA: c(2), gcjB: c(4), bdA: c(6), bdB: c(8))
        }
    }()

    func testFixtureHasTheAdvertisedCoverage() {
        let rows = Self.rows
        XCTAssertGreaterThanOrEqual(rows.count, 2000)
        for kind in ["random", "city", "edge", "outside"] {
            XCTAssertGreaterThan(rows.filter { $0.kind == kind }.count, 100, kind)
        }
    }

    func testForwardAgreesWithBothImplementations() {
        let converter = DatumConverter()
        var worst = 0.0
        for row in Self.rows {
            let ours = converter.gcj02(fromWGS84: row.wgs)
            for reference in [row.gcjA, row.gcjB] {
                let error = max(abs(ours.latitude - reference.latitude), abs(ours.longitude - reference.longitude))
                worst = max(worst, error)
                XCTAssertLessThanOrEqual(error, 1e-9, "\(row.kind) \(row.wgs)")
            }
        }
        print("forward: worst disagreement with the two references \(worst)°")
    }

    /// The batch entry point over the same vectors: within 1e-9° of both references,
    /// unchanged bit for bit outside the rectangle.
    func testBatchForwardAgreesWithBothImplementations() {
        var batch = Self.rows.map(\.wgs)
        DatumConverter().convert(&batch, from: .wgs84, to: .gcj02)
        for (row, ours) in zip(Self.rows, batch) {
            for reference in [row.gcjA, row.gcjB] {
                XCTAssertLessThanOrEqual(max(abs(ours.latitude - reference.latitude), abs(ours.longitude - reference.longitude)), 1e-9, "\(row.kind) \(row.wgs)")
            }
            if !ChinaRectangle().appliesShift(latitude: row.wgs.latitude, longitude: row.wgs.longitude) {
                XCTAssertEqual(ours.latitude.bitPattern, row.wgs.latitude.bitPattern)
                XCTAssertEqual(ours.longitude.bitPattern, row.wgs.longitude.bitPattern)
            }
        }
    }

    func testPointsOutsideTheRectangleAreReturnedBitForBit() {
        let converter = DatumConverter()
        var outside = 0
        for row in Self.rows where !ChinaRectangle().appliesShift(latitude: row.wgs.latitude, longitude: row.wgs.longitude) {
            outside += 1
            let ours = converter.gcj02(fromWGS84: row.wgs)
            XCTAssertEqual(ours.latitude.bitPattern, row.wgs.latitude.bitPattern)
            XCTAssertEqual(ours.longitude.bitPattern, row.wgs.longitude.bitPattern)
            // The references agree that these points are not shifted.
            XCTAssertEqual(row.gcjB, row.wgs)
        }
        XCTAssertGreaterThan(outside, 300)
    }

    func testBD09AgreesWithTheReference() {
        // The reference B applies BD-09 everywhere, as Baidu does and as we do.
        for row in Self.rows {
            let ours = BD09.fromGCJ02(row.gcjB)
            XCTAssertEqual(ours.latitude, row.bdB.latitude, accuracy: 1e-9)
            XCTAssertEqual(ours.longitude, row.bdB.longitude, accuracy: 1e-9)
        }
    }

    func testInverseRecoversTheOriginalWithinOneCentimetre() {
        var worst = 0.0
        var evaluations = 0
        var count = 0
        for row in Self.rows where ChinaRectangle().appliesShift(latitude: row.wgs.latitude, longitude: row.wgs.longitude) {
            let (back, n) = GCJ02.toWGS84Counting(row.gcjB)
            evaluations += n
            count += 1
            worst = max(worst, abs(back.latitude - row.wgs.latitude), abs(back.longitude - row.wgs.longitude))
            let again = GCJ02.fromWGS84(back)
            XCTAssertEqual(again.latitude, row.gcjB.latitude, accuracy: 1e-7)
            XCTAssertEqual(again.longitude, row.gcjB.longitude, accuracy: 1e-7)
        }
        XCTAssertLessThan(worst, 1e-7)
        XCTAssertLessThanOrEqual(Double(evaluations) / Double(count), 4)
        print("inverse: worst error \(worst)°, \(Double(evaluations) / Double(count)) evaluations per point")
    }
}
