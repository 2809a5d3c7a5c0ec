import Foundation
import UnlocksTestSupport
import XCTest

/// The audit's output budget (docs/audit-format.md, "Output budget"): audit.json and
/// audit.geojson together at most 200 bytes per flagged point, everything included.
final class AuditBudgetTests: XCTestCase {
    func testTheFilesStayWithinTheirBudget() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["audit", Repository.samples, "--tables", Repository.tables, "--out", out, "--source", ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try Data(contentsOf: URL(fileURLWithPath: out + "/audit.json"))
        let geoJSON = try Data(contentsOf: URL(fileURLWithPath: out + "/audit.geojson"))
        let summary = try XCTUnwrap((JSONSerialization.jsonObject(with: json) as? [String: Any])?["summary"] as? [String: Any])
        let flagged = try XCTUnwrap(summary["flaggedPoints"] as? Int)
        XCTAssertGreaterThan(flagged, 3000, "the samples run along borders")
        let perPoint = Double(json.count + geoJSON.count) / Double(flagged)
        XCTAssertLessThanOrEqual(perPoint, 200, "\(json.count) + \(geoJSON.count) bytes for \(flagged) flagged points")
    }
}
