import Foundation
import XCTest
import UnlocksTestSupport

/// Each unlock's `areaKm2` and `exploredPercent` in the classify report.
final class RegionAreaReportTests: XCTestCase {
    func testEveryUnlockHasItsAreaAndExploredPercent() throws {
        let result = try CommandRunner.run(["classify", "--tables", ClassifyCommandTests.tables, ClassifyCommandTests.samples])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        var seen = 0
        for (_, rows) in unlocks {
            for row in rows {
                let explored = try XCTUnwrap(row["exploredKm2"] as? Double), area = try XCTUnwrap(row["areaKm2"] as? Double)
                let percent = try XCTUnwrap(row["exploredPercent"] as? Double, "\(row["code"]!)")
                XCTAssertGreaterThan(area, 0)
                // exploredKm2 is rounded to 4 decimals and areaKm2 to 3: the percent lies within that rounding.
                let low = min(100, max(0, explored - 0.00005) / (area + 0.0005) * 100), high = min(100, (explored + 0.00005) / (area - 0.0005) * 100)
                XCTAssertTrue(percent >= low - 1e-6 && percent <= high + 1e-6, "\(row["code"]!): \(percent) not in \(low)...\(high)")
                seen += 1
            }
        }
        XCTAssertGreaterThan(seen, 20)
        // Beijing: 16,410.54 km² (Beijing Statistical Yearbook); Dongcheng 41.84 km².
        let provinces = try XCTUnwrap(unlocks["provinces"]), counties = try XCTUnwrap(unlocks["counties"])
        let beijing = try XCTUnwrap(provinces.first { $0["code"] as? String == "110000" })
        XCTAssertEqual(try XCTUnwrap(beijing["areaKm2"] as? Double), 16_410.54, accuracy: 80)
        XCTAssertEqual(beijing["englishName"] as? String, "Beijing Municipality")
        let dongcheng = try XCTUnwrap(counties.first { $0["code"] as? String == "110101" })
        XCTAssertEqual(try XCTUnwrap(dongcheng["areaKm2"] as? Double), 41.84, accuracy: 0.3)
        // Dongcheng's explored share: its cells (exploredKm2) over its area, a few tenths of a percent.
        XCTAssertGreaterThan(try XCTUnwrap(dongcheng["exploredPercent"] as? Double), 0.1)

        let text = try CommandRunner.run(["classify", "--tables", ClassifyCommandTests.tables, "--format", "text", ClassifyCommandTests.samples])
        XCTAssertTrue(text.stdout.contains("东城区 Dongcheng District"), text.stdout)
        XCTAssertTrue(text.stdout.contains(" km² of "), text.stdout)
    }
}
