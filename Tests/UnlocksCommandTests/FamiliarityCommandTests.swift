import Foundation
import XCTest
import UnlocksTestSupport

/// Cell familiarity on the command line: `--familiarity-levels` checked, a state's levels kept,
/// the map's levels. The rule itself (passes 4 h apart, levels, overlaps, stores, forget, merge)
/// is tested in process: FootprintRulesTests/FamiliarityTests.
final class FamiliarityCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments + ["--tables", Self.tables])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func report(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `explorer.cells` and the explored cell count of a report.
    func familiarity(_ text: String) throws -> (lit: Int, bright: Int, gold: Int, cells: Int) {
        let r = try report(text)
        let cells = try XCTUnwrap((r["explorer"] as? [String: Any])?["cells"] as? [String: Int])
        let explored = try XCTUnwrap((r["metrics"] as? [String: Any])?["exploredCellCount"] as? Int)
        return (try XCTUnwrap(cells["lit"]), try XCTUnwrap(cells["bright"]), try XCTUnwrap(cells["gold"]), explored)
    }

    func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A state refuses other levels, like the other rules, and says which (the rule itself:
    /// FootprintRulesTests/FamiliarityTests).
    func testAStateRefusesOtherLevelsNamingBoth() throws {
        let dir = try temporaryDirectory()
        try write(RepeatedWalks.gpx(starts: [0]), dir + "/b.gpx")
        _ = try run(["classify", dir + "/b.gpx", "--state", dir + "/s.state", "--familiarity-levels", "1,2,3"])
        let refused = try CommandRunner.run(["classify", dir + "/b.gpx", "--state", dir + "/s.state", "--familiarity-levels", "1,5,20", "--tables", Self.tables])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("the logbook was made with --familiarity-levels 1,2,3; this run uses 1,5,20"), refused.stderr)
    }

    func testBadLevelsAreAUsageError() throws {
        for bad in ["1,5", "0,5,20", "5,1,20", "1,5,x", "1,,20"] {
            let result = try CommandRunner.run(["classify", ClassifyCommandTests.samples, "--familiarity-levels", bad, "--tables", Self.tables])
            XCTAssertEqual(result.status, 2, bad)
            XCTAssertTrue(result.stderr.contains("--familiarity-levels"), result.stderr)
        }
    }

    /// The footprint draws each cell at its level: the GeoJSON's explored features carry
    /// `familiarity`, their cell counts per level add up to the report's, and the page has a
    /// legend and one path per level present.
    func testTheMapDrawsLevels() throws {
        let dir = try temporaryDirectory()
        let starts = (0..<5).map { $0 * (4 * 3600 + 120) }
        try write(RepeatedWalks.gpx(starts: starts), dir + "/commute.gpx")
        try write(RepeatedWalks.gpx(starts: [0]).replacingOccurrences(of: "lat=\"39.91", with: "lat=\"39.92"), dir + "/once.gpx")
        let out = try run(["classify", dir + "/commute.gpx", dir + "/once.gpx"])
        let f = try familiarity(out)
        _ = try run(["map", dir + "/commute.gpx", dir + "/once.gpx", "--out", dir + "/map"])
        let geo = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/map/footprint.geojson"))) as? [String: Any])
        var byLevel: [String: Int] = [:]
        for feature in try XCTUnwrap(geo["features"] as? [[String: Any]]) {
            let properties = try XCTUnwrap(feature["properties"] as? [String: Any])
            guard properties["kind"] as? String == "explored" else { continue }
            byLevel[try XCTUnwrap(properties["familiarity"] as? String), default: 0] += try XCTUnwrap(properties["cells"] as? Int)
        }
        XCTAssertEqual(byLevel, ["lit": f.lit - f.bright, "bright": f.bright - f.gold])
        XCTAssertGreaterThan(f.bright, 10)
        XCTAssertGreaterThan(f.lit - f.bright, 10)
        let html = try String(contentsOfFile: dir + "/map/footprint.html", encoding: .utf8)
        // The page's legend counts the cells at each level as the GeoJSON does (the viewer draws
        // them from the page's data: MapPageBrowserTests).
        XCTAssertTrue(html.contains("id=\"familiarity\""))
        XCTAssertTrue(html.contains("lit 已踏足 (≥1 passes) \(f.lit - f.bright)</span>"), "lit count")
        XCTAssertTrue(html.contains("bright 熟悉 (≥5) \(f.bright - f.gold)</span>"), "bright count")
        XCTAssertTrue(html.contains("gold 精通 (≥20) 0</span>"), "no gold cell")
    }
}
