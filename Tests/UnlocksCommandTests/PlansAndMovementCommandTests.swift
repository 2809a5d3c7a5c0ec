import Foundation
import XCTest
import UnlocksTestSupport

/// A large plan through `unlocks classify`: quick, small, told on standard error. How plans and
/// vehicle legs count is tested in process: FootprintRulesTests/PlansAndMovementTests.
final class PlansAndMovementCommandTests: XCTestCase {
    let tables = ClassifyCommandTests.tables

    func report(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// 40 random untimed points over eastern China as a CSV without a time column (the issue's
    /// 2.4 GB case): quick, small, a plan; with `--include-plans`, no leg drawn (every one is
    /// kilometres long), no distance, no day, nothing confirmed.
    func testFortyRandomUntimedPointsAreQuickSmallAndAPlan() throws {
        let dir = try temporaryDirectory()
        var state: UInt64 = 40
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let rows = (0..<40).map { _ in String(format: "%.6f,%.6f", 25 + next() * 15, 105 + next() * 15) }
        try ("lat,lon\n" + rows.joined(separator: "\n") + "\n").write(toFile: dir + "/random.csv", atomically: false, encoding: .utf8)
        for extra in [[], ["--include-plans"]] {
            let clock = Date()
            let result = try CommandRunner.run(["classify", "--tables", tables, dir + "/random.csv"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            // The case took minutes and gigabytes; a shared, loaded machine can take seconds.
            XCTAssertLessThan(Date().timeIntervalSince(clock), 60, "\(extra)")
            XCTAssertLessThan(result.peakResidentBytes, 100 << 20, "\(extra)")
            let json = try report(result.stdout)
            let file = try XCTUnwrap(((json["inputs"] as? [String: Any])?["files"] as? [[String: Any]])?.first)
            XCTAssertEqual(file["status"] as? String, "planned")
            XCTAssertEqual(file["pointsPlanned"] as? Int, 40)
            XCTAssertEqual((json["inputs"] as? [String: Any])?["planned"] as? Int, 1)
            let metrics = try XCTUnwrap(json["metrics"] as? [String: Any])
            XCTAssertEqual(metrics["totalDistanceKilometers"] as? Double, 0)
            XCTAssertEqual(metrics["recordedDays"] as? Int, 0)
            XCTAssertEqual(metrics["countyUnlockCount"] as? Int, 0)
            XCTAssertLessThanOrEqual(metrics["exploredCellCount"] as! Int, extra.isEmpty ? 0 : 1)
            if extra.isEmpty { XCTAssertTrue(result.stderr.contains("1 input is a plan"), result.stderr) }
        }
    }
}
