import Foundation
import Intake
import LogbookStore
import Unlocks
import UnlocksTestSupport
import XCTest

/// Cell familiarity: effective passes 4 h apart, levels lit, bright and gold, and the same counts
/// whatever the overlaps, a stored logbook, a forget or a merge. Every walk here follows one path,
/// so each of its cells gets one pass candidate per walk at the same offset from the walk's start:
/// a cell's effective passes are the test's own greedy over the walks' start times
/// (``expectedPasses(_:)``), the same for every cell.
final class FamiliarityTests: XCTestCase {

    /// The rules with familiarity levels `lit`, `bright`, `gold` (1, 5, 20 unless told).
    static func rules(_ levels: (Int32, Int32, Int32) = (1, 5, 20)) -> ClassifyOptions {
        var rules = Footprints.rules(utcOffsetHours: 0)
        rules.familiarityLevels = FamiliarityLevels(lit: levels.0, bright: levels.1, gold: levels.2)!
        return rules
    }

    /// The test's own count: the first start, then each more than 4 h after the last counted.
    static func expectedPasses(_ starts: [Int]) -> Int {
        var counted = 0, last = Int.min
        for start in starts.sorted() where counted == 0 || start - last > 4 * 3600 {
            counted += 1
            last = start
        }
        return counted
    }

    func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Every explored cell at the level `passes` reaches with thresholds `levels`.
    func assertLevels(_ report: ClassifyReport, passes: Int, levels: (Int, Int, Int) = (1, 5, 20), file: StaticString = #filePath, line: UInt = #line) {
        let f = report.metrics.familiarCells, cells = report.metrics.exploredCellCount
        XCTAssertGreaterThan(cells, 10, "the walk explores cells", file: file, line: line)
        XCTAssertEqual(f.lit, passes >= levels.0 ? cells : 0, "lit", file: file, line: line)
        XCTAssertEqual(f.bright, passes >= levels.1 ? cells : 0, "bright", file: file, line: line)
        XCTAssertEqual(f.gold, passes >= levels.2 ? cells : 0, "gold", file: file, line: line)
    }

    /// Two reports count the same: metrics and every unlock (the inputs' list aside).
    func assertSameFootprint(_ a: ClassifyReport, _ b: ClassifyReport, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.metrics, b.metrics, message, file: file, line: line)
        XCTAssertEqual(a.unlocks, b.unlocks, message, file: file, line: line)
    }

    func testPassesCountOnlyMoreThanFourHoursApart() async throws {
        let dir = try temporaryDirectory()
        for (gap, passes) in [(3 * 3600 + 59 * 60, 1), (4 * 3600 + 60, 2)] {
            XCTAssertEqual(Self.expectedPasses([0, gap]), passes)
            try write(RepeatedWalks.gpx(starts: [0]), dir + "/morning.gpx")
            try write(RepeatedWalks.gpx(starts: [gap]), dir + "/later.gpx")
            let report = try await Footprints.report(of: [dir + "/morning.gpx", dir + "/later.gpx"], rules: Self.rules((1, 2, 3)))
            assertLevels(report, passes: passes, levels: (1, 2, 3))
            // Per region: the walk lies in Dongcheng (110101), so the county counts every cell.
            let county = try XCTUnwrap(report.unlocks[.county]?.first { $0.code == "110101" })
            XCTAssertEqual(county.familiarCells, report.metrics.familiarCells)
        }
    }

    func testFiveAndTwentyPassesReachBrightAndGold() async throws {
        let dir = try temporaryDirectory()
        for walks in [4, 5, 19, 20] {
            let starts = (0..<walks).map { $0 * (4 * 3600 + 120) }
            XCTAssertEqual(Self.expectedPasses(starts), walks)
            try write(RepeatedWalks.gpx(starts: starts), dir + "/commute.gpx")
            assertLevels(try await Footprints.report(of: [dir + "/commute.gpx"], rules: Self.rules()), passes: walks)
        }
        // Thirty walks 2 h 30 min apart: every other one counts (and 2 h apart every third: a
        // pass exactly 4 h after the last counted one does not count).
        XCTAssertEqual(Self.expectedPasses((0..<30).map { $0 * 7200 }), 10)
        let starts = (0..<30).map { $0 * 9000 }
        XCTAssertEqual(Self.expectedPasses(starts), 15)
        try write(RepeatedWalks.gpx(starts: starts), dir + "/commute.gpx")
        assertLevels(try await Footprints.report(of: [dir + "/commute.gpx"], rules: Self.rules((1, 15, 16))), passes: 15, levels: (1, 15, 16))
    }

    func testAStationaryRecordingLightsNothing() async throws {
        let dir = try temporaryDirectory()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        for s in stride(from: 0, through: 600, by: 5) {
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(RepeatedWalks.day + s)))
            text += "<trkpt lat=\"39.9150000\" lon=\"116.4000000\"><time>\(time)</time></trkpt>\n"
        }
        try write(text + "</trkseg></trk></gpx>\n", dir + "/parked.gpx")
        let report = try await Footprints.report(of: [dir + "/parked.gpx"], rules: Self.rules())
        XCTAssertEqual(report.metrics.exploredCellCount, 1)
        XCTAssertEqual(report.metrics.familiarCells.lit, 0)
    }

    /// The same walk recorded by two apps (another creator, coordinates to 5 decimals) counts
    /// once: its candidates lie seconds apart.
    func testTheSameWalkInTwoFilesCountsOnce() async throws {
        let dir = try temporaryDirectory()
        try write(RepeatedWalks.gpx(starts: [0]), dir + "/watch.gpx")
        try write(RepeatedWalks.gpx(starts: [0], creator: "phone", decimals: 5), dir + "/phone.gpx")
        let report = try await Footprints.report(of: [dir + "/watch.gpx", dir + "/phone.gpx"], rules: Self.rules((1, 2, 3)))
        assertLevels(report, passes: 1, levels: (1, 2, 3))
    }

    /// Candidates are kept per input, not reduced: B at 0 h, A at 3 h and 6 h count 0 h and 6 h
    /// (A reduced alone to 3 h would give one pass). The same through a stored logbook in two
    /// imports, in either order, and through a merge; forgetting B equals A alone, and so does
    /// bringing B's mark back (what was forgotten is not read again).
    func testStoredForgottenAndMergedLogbooksGiveOneImportsCounts() async throws {
        let dir = try temporaryDirectory()
        let a = dir + "/a.gpx", b = dir + "/b.gpx"
        try write(RepeatedWalks.gpx(starts: [3 * 3600, 6 * 3600]), a)
        try write(RepeatedWalks.gpx(starts: [0]), b)
        XCTAssertEqual(Self.expectedPasses([0, 3 * 3600, 6 * 3600]), 2)
        XCTAssertEqual(Self.expectedPasses([3 * 3600, 6 * 3600]), 1)
        let rules = Self.rules((1, 2, 3))
        let one = try await Footprints.report(of: [a, b], rules: rules)
        assertLevels(one, passes: 2, levels: (1, 2, 3))
        for (first, second) in [(a, b), (b, a)] {
            let logbook = try Footprints.logbook(at: dir + "/\(UUID().uuidString).logbook", rules: rules)
            _ = try await logbook.importSources([.path(first)])
            let after = try await logbook.importSources([.path(second)])
            assertSameFootprint(after.report, one, "\(first) then \(second)")
        }
        _ = try await Footprints.logbook(at: dir + "/sa.logbook", rules: rules).importSources([.path(a)])
        let merged = try Footprints.logbook(at: dir + "/sb.logbook", rules: rules)
        _ = try await merged.importSources([.path(b)])
        assertSameFootprint(try await merged.merge(contentsOf: URL(fileURLWithPath: dir + "/sa.logbook")), one, "merged")

        // Forget B: the logbook and its report are A's alone (one pass).
        let both = try Footprints.logbook(at: dir + "/both.logbook", rules: rules)
        _ = try await both.importSources([.path(a), .path(b)])
        let forgotten = try await both.forget([.path(b)])
        let alone = try await Footprints.report(of: [a], rules: rules)
        assertLevels(alone, passes: 1, levels: (1, 2, 3))
        assertSameFootprint(forgotten.report, alone, "forgotten")
        let undone = try await both.unforget([.path(b)])
        assertSameFootprint(undone.report, alone, "the forget undone: B is not read again")
        let reopened = try await Footprints.logbook(at: dir + "/both.logbook", rules: rules).report()
        assertSameFootprint(reopened, alone, "reopened")

        // A logbook refuses other levels, like the other rules.
        do {
            let other = try Footprints.logbook(at: dir + "/both.logbook", rules: Self.rules())
            _ = try await other.importSources([.path(b)])
            XCTFail("a logbook made with levels 1,2,3 took 1,5,20")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .rulesDiffer, "\(error)")
        }
    }
}
