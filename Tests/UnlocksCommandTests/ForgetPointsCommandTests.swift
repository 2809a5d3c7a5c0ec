import Foundation
import XCTest
import UnlocksTestSupport

/// The command-line contract of `unlocks forget --area` and `--since/--until` (the rules are
/// `ForgetPointsTests`' in the library): exit codes, the report's changes, the unreadable input
/// named, usage errors, help.
final class ForgetPointsCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    /// Northward along a meridian in Beijing from 09:00 local time on 1 May 2024, 12 m every 10 s:
    /// point i is |i − 50| × 12 m from point 50.
    static func walk(startingOn start: Int) -> [TimedPoint] {
        (0..<101).map { (i: Int) -> TimedPoint in (start + 10 * i, 39.9000 + Double(i) * 12 / metresPerDegree, 116.3975) }
    }
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static let firstDay = 1_714_525_200  // 2024-05-01T01:00:00Z

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func dropped(_ report: [String: Any]) -> [String: Double] {
        ((report["points"] as? [String: Any])?["dropped"] as? [String: Double]) ?? [:]
    }

    func withoutChanges(_ report: [String: Any]) -> NSDictionary {
        var report = report
        report["changes"] = nil
        return report as NSDictionary
    }

    func testAnAreaAndAPeriodAreForgottenAndBroughtBack() throws {
        let dir = try temporaryDirectory()
        try TimedWalks.gpx(Self.walk(startingOn: Self.firstDay)).write(toFile: dir + "/may1.gpx", atomically: true, encoding: .utf8)
        try TimedWalks.gpx(Self.walk(startingOn: Self.firstDay + 86_400)).write(toFile: dir + "/may2.gpx", atomically: true, encoding: .utf8)
        let state = dir + "/footprint.logbook"
        let common = ["--state", state, "--tables", Self.tables, "--time-zone", "Asia/Shanghai"]
        let classified = try CommandRunner.run(["classify", dir + "/may1.gpx", dir + "/may2.gpx"] + common)
        XCTAssertEqual(classified.status, 0, classified.stderr)
        let original = try json(classified.stdout)

        // 306 m around point 50: points 25…75 of each day (51 × 2).
        let area = "\(39.9000 + 50 * 12 / Self.metresPerDegree),116.3975,306"
        let forgot = try CommandRunner.run(["forget", "--area", area] + common)
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        XCTAssertTrue(forgot.stderr.contains("read 2 inputs again"), forgot.stderr)
        let report = try json(forgot.stdout)
        XCTAssertEqual(dropped(report)["forgotten"], 102)
        let changes = try XCTUnwrap(report["changes"] as? [String: Any])
        XCTAssertLessThan(try XCTUnwrap(changes["distanceKilometers"] as? Double), 0, "the changes say what was removed")

        // The second day, by its local date: each of its 101 points; undo brings them back.
        let day = try CommandRunner.run(["forget", "--since", "2024-05-02", "--until", "2024-05-02"] + common)
        XCTAssertEqual(day.status, 0, day.stderr)
        XCTAssertEqual(dropped(try json(day.stdout))["forgotten"], 51 + 101)
        let back = try CommandRunner.run(["forget", "--undo", "--since", "2024-05-02", "--until", "2024-05-02"] + common)
        XCTAssertEqual(back.status, 0, back.stderr)
        let areaBack = try CommandRunner.run(["forget", "--undo", "--area", area] + common)
        XCTAssertEqual(areaBack.status, 0, areaBack.stderr)
        XCTAssertEqual(withoutChanges(try json(areaBack.stdout)), withoutChanges(original))

        // A file gone: named, exit 1, the logbook unchanged; --keep-unreadable goes on without it.
        try FileManager.default.removeItem(atPath: dir + "/may1.gpx")
        let refused = try CommandRunner.run(["forget", "--area", area] + common)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains(dir + "/may1.gpx") && refused.stderr.contains("--keep-unreadable"), refused.stderr)
        let shown = try CommandRunner.run(["show", state, "--tables", Self.tables, "--format", "json"])
        XCTAssertEqual(withoutChanges(try json(shown.stdout)), withoutChanges(original))
        let kept = try CommandRunner.run(["forget", "--area", area, "--keep-unreadable"] + common)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual(dropped(try json(kept.stdout))["forgotten"], 51)
    }

    func testBadAreasAndMixedTargetsAreUsageErrorsAndHelpNamesTheOptions() throws {
        let dir = try temporaryDirectory()
        for arguments in [["--area", "91,0,10"], ["--area", "39.9,116.4"], ["--area", "39.9,116.4,0"], ["--since", "2024-05-03", "--until", "2024-05-01"],
                          ["x.gpx", "--area", "39.9,116.4,100"], ["x.gpx", "--keep-unreadable"]] {
            let result = try CommandRunner.run(["forget", "--state", dir + "/none.logbook", "--tables", Self.tables] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
        }
        let help = try CommandRunner.run(["forget", "--help"])
        for option in ["--area LAT,LON,RADIUS_M", "--since DATE", "--until DATE", "--keep-unreadable"] {
            XCTAssertTrue(help.stdout.contains(option), help.stdout)
        }
    }
}
