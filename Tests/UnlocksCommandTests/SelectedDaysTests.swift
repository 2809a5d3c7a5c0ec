import Foundation
import XCTest
import UnlocksTestSupport

/// `--since` / `--until` on the command line: dates checked, not taken with a state, and in the
/// report's options. What they select is checked in process, in FootprintRulesTests/SelectedDaysTests.
final class SelectedDaysTests: XCTestCase {
    static let tables = Repository.tables

    func testDatesAreCheckedAndNotTakenWithAState() throws {
        let dir = try temporaryDirectory()
        try TimedWalks.gpx(TimedWalks.eastward(39.915, 116.405, start: 1_714_525_200, seconds: 60)).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        for bad in [["--since", "2024-02-30"], ["--until", "24-05-01"], ["--since", "2024-05-02", "--until", "2024-05-01"],
                    ["--since", "2024-05-01", "--state", dir + "/s"]] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx"] + bad)
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--since") || result.stderr.contains("--until"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/s"), "no state written")
        let taken = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--utc-offset", "+08:00", "--since", "2024-01-01", "--until", "2024-05-01"])
        XCTAssertEqual(taken.status, 0, taken.stderr)
        let options = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(taken.stdout.utf8)) as? [String: Any])?["options"] as? [String: Any])
        XCTAssertEqual(options["since"] as? String, "2024-01-01")
        XCTAssertEqual(options["until"] as? String, "2024-05-01")
        // The map takes them too (and refuses them with --state).
        let refused = try CommandRunner.run(["map", "--tables", Self.tables, "--state", dir + "/none", "--since", "2024-05-02", "--out", dir + "/map"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        let drawn = try CommandRunner.run(["map", "--tables", Self.tables, dir + "/a.gpx", "--since", "2024-05-01", "--out", dir + "/map"])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/map/footprint.html"))
    }
}
