import Foundation
import XCTest
import UnlocksTestSupport

/// `forget` and a state on the command line: a state inside the archive it records is skipped,
/// `forget` is a command, and a forget that matches nothing says which name and exits 1. One
/// moment counting once (overlaps, grown files, forget, merge) is tested in process:
/// FootprintRulesTests/OverlapAndForgetTests.
final class OverlapAndForgetTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func classify(_ arguments: [String]) throws -> [String: Any] {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// A ten-minute walk through central Beijing as GPX.
    static let walk = TimedWalks.gpx(TimedWalks.eastward(39.9050, 116.3900, start: 1_714_525_200, seconds: 600))

    /// A state kept inside the archive it records (whatever its name) is the tool's own output.
    func testAStateInsideTheArchiveIsSkipped() throws {
        let dir = try temporaryDirectory()
        try Self.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
        _ = try classify([dir, "--state", dir + "/state.csv"])
        let again = try classify([dir, "--state", dir + "/state.csv"])
        let files = try XCTUnwrap((again["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        let entry = try XCTUnwrap(files.first { $0["path"] as? String == dir + "/state.csv" })
        XCTAssertEqual(entry["reason"] as? String, "the tool's own output")
    }

    func testForgetIsInTheCommandList() throws {
        let help = try CommandRunner.run(["--help"])
        XCTAssertTrue(help.stdout.contains("  forget "), help.stdout)
        let usage = try CommandRunner.run(["forget", "--tables", Self.tables, "x.gpx"])
        XCTAssertEqual(usage.status, 2, usage.stderr)
    }

    /// A name that matches nothing: exit 1, the name in the message, the state unchanged.
    func testAForgetMatchingNothingNamesItAndChangesNothing() throws {
        let dir = try temporaryDirectory()
        try Self.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
        _ = try classify([dir + "/walk.gpx", "--state", dir + "/state"])
        let before = try ReportText.shown(dir + "/state", tables: Self.tables)
        let nothing = try CommandRunner.run(["forget", "--tables", Self.tables, dir + "/walk.gpx", dir + "/nowhere.gpx", "--state", dir + "/state"])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("no input has the path or the content of '\(dir)/nowhere.gpx'"), nothing.stderr)
        XCTAssertEqual(try ReportText.shown(dir + "/state", tables: Self.tables), before)
    }
}
