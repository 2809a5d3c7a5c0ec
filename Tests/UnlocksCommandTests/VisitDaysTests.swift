import Foundation
import XCTest
import UnlocksTestSupport

/// Per unlock `visitDays` and `lastVisit`: the local days with a ground point in the region,
/// counted here from the generated points' own times (UTC+8 by hand), flights and vehicle
/// crossings left out; the same through a state, merged states and after `forget`.
final class VisitDaysTests: XCTestCase {
    static let tables = Repository.tables
    static let dongcheng = "110101"
    /// 2024-05-01T00:00:00+08:00.
    static let may1 = 1_714_492_800

    /// A leg eastward along latitude 39.915 at `speed` m/s, a point every `step` s, from
    /// `longitude` at `start` for `seconds`.
    static func leg(from longitude: Double, start: Int, seconds: Int, speed: Double, step: Int = 5) -> [TimedPoint] {
        TimedWalks.eastward(39.915, longitude, start: start, seconds: seconds, speed: speed, step: step)
    }

    /// Dongcheng District spans longitudes 116.385–116.445 along latitude 39.915 (well inside: 116.400–116.430).
    static func inDongcheng(_ p: TimedPoint) -> Bool { p.lon > 116.400 && p.lon < 116.430 }

    func dongcheng(_ arguments: [String]) throws -> (days: Int, last: String?) {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--utc-offset", "+08:00"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let counties = try XCTUnwrap((report["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]])
        let unlock = try XCTUnwrap(counties.first { $0["code"] as? String == Self.dongcheng })
        return (try XCTUnwrap(unlock["visitDays"] as? Int), unlock["lastVisit"] as? String)
    }

    func testVisitDaysCountLocalDaysOnTheGroundThroughStatesMergesAndForget() throws {
        let dir = try temporaryDirectory()
        let day = 86_400, hour = 3600
        // Walks (1.4 m/s) in Dongcheng on May 1 and May 3; one across local midnight May 6/7.
        let walks = [Self.leg(from: 116.405, start: Self.may1 + 9 * hour, seconds: 900, speed: 1.4),
                     Self.leg(from: 116.405, start: Self.may1 + 2 * day + 15 * hour, seconds: 900, speed: 1.4)]
        let midnight = Self.leg(from: 116.405, start: Self.may1 + 6 * day - 10 * 60, seconds: 1200, speed: 1.4)
        // May 4: a drive at 60 km/h from Xicheng (116.360) through Dongcheng into Chaoyang: passed through.
        let drive = Self.leg(from: 116.360, start: Self.may1 + 3 * day + 10 * hour, seconds: 600, speed: 16.7)
        // May 5: a flight at 800 km/h over Dongcheng from Xicheng far east (a walk before and after).
        let before = Self.leg(from: 116.355, start: Self.may1 + 4 * day + 8 * hour, seconds: 300, speed: 1.4)
        let flight = Self.leg(from: before.last!.lon, start: before.last!.time + 10, seconds: 600, speed: 222, step: 10)
        let after = Self.leg(from: flight.last!.lon, start: flight.last!.time + 10, seconds: 300, speed: 1.4)
        try TimedWalks.gpx(walks[0]).write(toFile: dir + "/walk1.gpx", atomically: true, encoding: .utf8)
        try TimedWalks.gpx(walks[1]).write(toFile: dir + "/walk2.gpx", atomically: true, encoding: .utf8)
        try TimedWalks.gpx(midnight).write(toFile: dir + "/midnight.gpx", atomically: true, encoding: .utf8)
        try TimedWalks.gpx(drive).write(toFile: dir + "/drive.gpx", atomically: true, encoding: .utf8)
        try TimedWalks.gpx(before + flight + after).write(toFile: dir + "/flight.gpx", atomically: true, encoding: .utf8)
        XCTAssertTrue(drive.contains(where: Self.inDongcheng) && flight.contains(where: Self.inDongcheng), "both cross Dongcheng")

        let onGround = (walks[0] + walks[1] + midnight).filter(Self.inDongcheng)
        let expectedDays = Set(onGround.map { TimedWalks.date($0.time) })
        XCTAssertEqual(expectedDays.count, 4, "May 1, 3, 6 and 7")
        let files = ["walk1", "walk2", "midnight", "drive", "flight"].map { dir + "/\($0).gpx" }

        let oneRun = try dongcheng(files)
        XCTAssertEqual(oneRun.days, expectedDays.count)
        XCTAssertEqual(oneRun.last, expectedDays.max())

        // Through a state in two runs, and two states merged.
        XCTAssertEqual(try dongcheng(Array(files.prefix(2)) + ["--state", dir + "/s"]).days, 2)
        XCTAssertEqual(try dongcheng(Array(files.dropFirst(2)) + ["--state", dir + "/s"]).days, expectedDays.count)
        _ = try dongcheng(Array(files.prefix(3)) + ["--state", dir + "/a"])
        _ = try dongcheng(Array(files.suffix(3)) + ["--state", dir + "/b"])
        let merged = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/a", dir + "/b", "--state", dir + "/ab"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let mergedReport = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(merged.stdout.utf8)) as? [String: Any])
        let mergedCounties = try XCTUnwrap((mergedReport["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]])
        XCTAssertEqual(mergedCounties.first { $0["code"] as? String == Self.dongcheng }?["visitDays"] as? Int, expectedDays.count)

        // Forgetting the midnight walk takes its two days away.
        let forgot = try CommandRunner.run(["forget", "--tables", Self.tables, files[2], "--state", dir + "/s"])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        let withoutMidnight = Set((walks[0] + walks[1]).filter(Self.inDongcheng).map { TimedWalks.date($0.time) })
        let afterForget = try dongcheng(["--state", dir + "/s", files[0]])
        XCTAssertEqual(afterForget.days, withoutMidnight.count)
        XCTAssertEqual(afterForget.last, withoutMidnight.max())
    }
}
