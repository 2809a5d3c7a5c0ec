import Foundation
import XCTest
import UnlocksTestSupport

/// `changes` as the text report tells them first. What a run adds is checked in process, against
/// two fresh reports, in FootprintRulesTests/RunChangesTests.
final class RunChangesTests: XCTestCase {
    static let tables = Repository.tables

    func testTheTextReportTellsTheChangesFirst() throws {
        let dir = try temporaryDirectory()
        try TimedWalks.gpx(TimedWalks.eastward(39.9050, 116.3900, start: 1_714_525_200, seconds: 600, speed: 1.4, step: 5)).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--state", dir + "/s.state", "--format", "text"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("This run added: 1 input read\n  Unlocked: 1 country (中华人民共和国 China)"), result.stdout)
        let again = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--state", dir + "/s.state", "--format", "text"])
        XCTAssertTrue(again.stdout.hasPrefix("This run added: 0 inputs read, nothing new counted\n"), again.stdout)
    }
}
