import Foundation
@testable import LogbookStore
import SeededRandom
import UnlocksTestSupport
import Unlocks
import XCTest

/// `unlocks classify --state` killed with SIGKILL at random moments: SQLite's own check finds the
/// logbook sound every time, and it holds what it held before the run or what the whole run
/// gives, never anything between.
final class KilledRunTests: XCTestCase {
    /// A walk of `count` points a second apart, east through a city, as CSV.
    func walk(count: Int, latitude: Double, longitude: Double, start: Int) -> String {
        var text = "latitude,longitude,time\n"
        for i in 0..<count {
            text += "\(latitude + Double(i % 600) * 0.00001),\(longitude + Double(i) * 0.000012),\(start + i)\n"
        }
        return text
    }

    func report(_ path: String) async throws -> String {
        let logbook = try Logbook(at: URL(fileURLWithPath: path), locator: LogbookTests.locator)
        var report = try await logbook.report()
        report.changes = nil
        return report.json().rendered()
    }

    func testAKilledRunLeavesTheLogbookAsBeforeOrAsAfter() async throws {
        let dir = try temporaryDirectory()
        try walk(count: 2_000, latitude: 39.90, longitude: 116.30, start: 1_714_525_200).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try walk(count: 60_000, latitude: 31.20, longitude: 121.40, start: 1_714_625_200).write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let tables = Repository.tables
        XCTAssertEqual(try CommandRunner.run(["classify", dir + "/a.csv", "--state", dir + "/base", "--tables", tables]).status, 0)
        // How long the run the trials kill takes: the shorter of two (a busy machine only lengthens one).
        var elapsed = Double.infinity
        for attempt in 0..<2 {
            try FileManager.default.copyItem(atPath: dir + "/base", toPath: dir + "/both-\(attempt)")
            let started = Date()
            let whole = try CommandRunner.run(["classify", dir + "/b.csv", "--state", dir + "/both-\(attempt)", "--tables", tables])
            XCTAssertEqual(whole.status, 0, whole.stderr)
            elapsed = min(elapsed, Date().timeIntervalSince(started))
        }
        let before = try await report(dir + "/base"), after = try await report(dir + "/both-0")
        XCTAssertNotEqual(before, after)

        var random = SplitMix64(seed: 31)
        var outcomes: [String: Int] = [:]
        for trial in 0..<10 {
            let work = dir + "/work-\(trial)"
            try FileManager.default.copyItem(atPath: dir + "/base", toPath: work)
            // Eight trials killed somewhere in the run, two given time to finish.
            let share = trial < 8 ? random.uniform(0.02, 0.8) : 3
            let run = try CommandRunner.run(["classify", dir + "/b.csv", "--state", work, "--tables", tables], timeout: elapsed * share)
            let database = try SQLiteDatabase(path: work)
            XCTAssertEqual(try database.integrityCheck(), ["ok"], "trial \(trial)")
            let now = try await report(work)
            XCTAssertTrue(now == before || now == after, "trial \(trial) (status \(run.status)) left a logbook between before and after")
            outcomes[run.status == 128 + SIGKILL ? "killed" : "finished", default: 0] += 1
        }
        XCTAssertGreaterThan(outcomes["killed"] ?? 0, 0, "no run was killed: \(outcomes)")
    }
}
