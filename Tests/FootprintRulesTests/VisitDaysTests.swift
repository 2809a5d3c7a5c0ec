import Foundation
import Intake
import LogbookStore
import Unlocks
import UnlocksTestSupport
import XCTest

/// Per unlock `visitDays` and `lastVisitDay`: the local days with a ground point in the region,
/// counted here from the generated points' own times (UTC+8 by hand), flights and vehicle
/// crossings left out; the same through a stored logbook, merged logbooks and after a forget.
final class VisitDaysTests: XCTestCase {
    static let dongcheng = "110101"
    /// 2024-05-01T00:00:00+08:00.
    static let may1 = 1_714_492_800
    static let rules = Footprints.rules(utcOffsetHours: 8)

    /// A leg eastward along latitude 39.915 at `speed` m/s, a point every `step` s, from
    /// `longitude` at `start` for `seconds`.
    static func leg(from longitude: Double, start: Int, seconds: Int, speed: Double, step: Int = 5) -> [TimedPoint] {
        TimedWalks.eastward(39.915, longitude, start: start, seconds: seconds, speed: speed, step: step)
    }

    /// Dongcheng District spans longitudes 116.385–116.445 along latitude 39.915 (well inside: 116.400–116.430).
    static func inDongcheng(_ p: TimedPoint) -> Bool { p.lon > 116.400 && p.lon < 116.430 }

    /// The local day (UTC+8) of a moment after 1970, as days since 1970-01-01.
    static func localDay(_ seconds: Int) -> Int64 { Int64((seconds + 8 * 3600) / 86_400) }

    func dongcheng(_ report: ClassifyReport) throws -> (days: Int, last: Int64?) {
        let unlock = try XCTUnwrap(report.unlocks[.county]?.first { $0.code == Self.dongcheng })
        return (unlock.visitDays, unlock.lastVisitDay)
    }

    func testVisitDaysCountLocalDaysOnTheGroundThroughStoresMergesAndForget() async throws {
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
        let expectedDays = Set(onGround.map { Self.localDay($0.time) })
        XCTAssertEqual(expectedDays.count, 4, "May 1, 3, 6 and 7")
        let files = ["walk1", "walk2", "midnight", "drive", "flight"].map { dir + "/\($0).gpx" }

        let oneRun = try dongcheng(await Footprints.report(of: files, rules: Self.rules))
        XCTAssertEqual(oneRun.days, expectedDays.count)
        XCTAssertEqual(oneRun.last, expectedDays.max())

        // A stored logbook imported in two runs (reopened between them), and two logbooks merged.
        let first = try await Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules).importSources(files.prefix(2).map { IntakeSource.path($0) })
        XCTAssertEqual(try dongcheng(first.report).days, 2)
        let stored = try Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules)
        let second = try await stored.importSources(files.dropFirst(2).map { IntakeSource.path($0) })
        XCTAssertEqual(try dongcheng(second.report).days, expectedDays.count)
        _ = try await Footprints.logbook(at: dir + "/a.logbook", rules: Self.rules).importSources(files.prefix(3).map { IntakeSource.path($0) })
        _ = try await Footprints.logbook(at: dir + "/b.logbook", rules: Self.rules).importSources(files.suffix(3).map { IntakeSource.path($0) })
        let merged = try Footprints.logbook(at: dir + "/ab.logbook", rules: Self.rules)
        _ = try await merged.merge(contentsOf: URL(fileURLWithPath: dir + "/a.logbook"))
        let both = try await merged.merge(contentsOf: URL(fileURLWithPath: dir + "/b.logbook"))
        XCTAssertEqual(try dongcheng(both).days, expectedDays.count)

        // Forgetting the midnight walk takes its two days away.
        let forgot = try await stored.forget([.path(files[2])])
        XCTAssertEqual(forgot.inputs.map(\.path), [files[2]])
        let withoutMidnight = Set((walks[0] + walks[1]).filter(Self.inDongcheng).map { Self.localDay($0.time) })
        let afterForget = try dongcheng(forgot.report)
        XCTAssertEqual(afterForget.days, withoutMidnight.count)
        XCTAssertEqual(afterForget.last, withoutMidnight.max())
        let reopened = try await Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules).report()
        XCTAssertEqual(try dongcheng(reopened).days, withoutMidnight.count, "the forget was saved")
    }
}
