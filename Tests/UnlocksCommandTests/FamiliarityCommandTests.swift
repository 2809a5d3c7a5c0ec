import Foundation
import XCTest
import UnlocksTestSupport

/// Cell familiarity through the real command: effective passes 4 h apart, levels lit, bright and
/// gold, and the same counts whatever the overlaps, `forget`, `--state` or `merge`. Every walk
/// here follows one path, so each of its cells gets one pass candidate per walk at the same
/// offset from the walk's start: a cell's effective passes are the test's own greedy over the
/// walks' start times (``expectedPasses(_:)``), the same for every cell.
final class FamiliarityCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    /// 2024-05-01T00:00:00Z, 08:00 in Beijing.
    static let day = 1_714_521_600

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

    /// A 5-minute walk north-east through Dongcheng at 1.4 m/s, a point every 2 s, as GPX track
    /// segments, one per start time (seconds after ``day``).
    static func gpx(starts: [Int], creator: String = "test", decimals: Int = 7) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"\(creator)\"><trk>\n"
        for start in starts {
            text += "<trkseg>\n"
            for s in stride(from: 0, through: 300, by: 2) {
                let north = 0.6 * Double(s), east = 1.27 * Double(s)
                let lat = 39.9150 + north / 111_000, lon = 116.4000 + east / (111_320 * cos(39.915 * .pi / 180))
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(day + start + s)))
                text += String(format: "<trkpt lat=\"%.\(decimals)f\" lon=\"%.\(decimals)f\"><time>%@</time></trkpt>\n", lat, lon, time)
            }
            text += "</trkseg>\n"
        }
        return text + "</trk></gpx>\n"
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
    func assertLevels(_ text: String, passes: Int, levels: (Int, Int, Int) = (1, 5, 20), file: StaticString = #filePath, line: UInt = #line) throws {
        let f = try familiarity(text)
        XCTAssertGreaterThan(f.cells, 10, "the walk explores cells", file: file, line: line)
        XCTAssertEqual(f.lit, passes >= levels.0 ? f.cells : 0, "lit", file: file, line: line)
        XCTAssertEqual(f.bright, passes >= levels.1 ? f.cells : 0, "bright", file: file, line: line)
        XCTAssertEqual(f.gold, passes >= levels.2 ? f.cells : 0, "gold", file: file, line: line)
    }

    func testPassesCountOnlyMoreThanFourHoursApart() throws {
        let dir = try temporaryDirectory()
        for (gap, passes) in [(3 * 3600 + 59 * 60, 1), (4 * 3600 + 60, 2)] {
            XCTAssertEqual(Self.expectedPasses([0, gap]), passes)
            try write(Self.gpx(starts: [0]), dir + "/morning.gpx")
            try write(Self.gpx(starts: [gap]), dir + "/later.gpx")
            let out = try run(["classify", dir + "/morning.gpx", dir + "/later.gpx", "--familiarity-levels", "1,2,3"])
            try assertLevels(out, passes: passes, levels: (1, 2, 3))
            // Per region: the walk lies in Dongcheng (110101), so the county counts every cell.
            let county = try XCTUnwrap(((try report(out)["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]])?.first { $0["code"] as? String == "110101" })
            let f = try familiarity(out)
            XCTAssertEqual(county["cells"] as? [String: Int], ["lit": f.lit, "bright": f.bright, "gold": f.gold])
        }
    }

    func testFiveAndTwentyPassesReachBrightAndGold() throws {
        let dir = try temporaryDirectory()
        for walks in [4, 5, 19, 20] {
            let starts = (0..<walks).map { $0 * (4 * 3600 + 120) }
            XCTAssertEqual(Self.expectedPasses(starts), walks)
            try write(Self.gpx(starts: starts), dir + "/commute.gpx")
            try assertLevels(try run(["classify", dir + "/commute.gpx"]), passes: walks)
        }
        // Thirty walks 2 h 30 min apart: every other one counts (and 2 h apart every third: a
        // pass exactly 4 h after the last counted one does not count).
        XCTAssertEqual(Self.expectedPasses((0..<30).map { $0 * 7200 }), 10)
        let starts = (0..<30).map { $0 * 9000 }
        XCTAssertEqual(Self.expectedPasses(starts), 15)
        try write(Self.gpx(starts: starts), dir + "/commute.gpx")
        try assertLevels(try run(["classify", dir + "/commute.gpx", "--familiarity-levels", "1,15,16"]), passes: 15, levels: (1, 15, 16))
    }

    func testAStationaryRecordingLightsNothing() throws {
        let dir = try temporaryDirectory()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        for s in stride(from: 0, through: 600, by: 5) {
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(Self.day + s)))
            text += "<trkpt lat=\"39.9150000\" lon=\"116.4000000\"><time>\(time)</time></trkpt>\n"
        }
        try write(text + "</trkseg></trk></gpx>\n", dir + "/parked.gpx")
        let f = try familiarity(try run(["classify", dir + "/parked.gpx"]))
        XCTAssertEqual(f.cells, 1)
        XCTAssertEqual(f.lit, 0)
    }

    /// The same walk recorded by two apps (another creator, coordinates to 5 decimals) counts
    /// once: its candidates lie seconds apart.
    func testTheSameWalkInTwoFilesCountsOnce() throws {
        let dir = try temporaryDirectory()
        try write(Self.gpx(starts: [0]), dir + "/watch.gpx")
        try write(Self.gpx(starts: [0], creator: "phone", decimals: 5), dir + "/phone.gpx")
        try assertLevels(try run(["classify", dir + "/watch.gpx", dir + "/phone.gpx", "--familiarity-levels", "1,2,3"]), passes: 1, levels: (1, 2, 3))
    }

    /// Candidates are kept per input, not reduced: B at 0 h, A at 3 h and 6 h count 0 h and 6 h
    /// (A reduced alone to 3 h would give one pass). The same through `--state` in two runs, in
    /// either order, and through `merge`; `forget` of B equals a fresh run of A alone.
    func testStateForgetAndMergeGiveOneRunsCounts() throws {
        let dir = try temporaryDirectory()
        let a = dir + "/a.gpx", b = dir + "/b.gpx"
        try write(Self.gpx(starts: [3 * 3600, 6 * 3600]), a)
        try write(Self.gpx(starts: [0]), b)
        XCTAssertEqual(Self.expectedPasses([0, 3 * 3600, 6 * 3600]), 2)
        XCTAssertEqual(Self.expectedPasses([3 * 3600, 6 * 3600]), 1)
        let levels = ["--familiarity-levels", "1,2,3"]
        let one = try run(["classify", a, b] + levels)
        try assertLevels(one, passes: 2, levels: (1, 2, 3))
        for (first, second) in [(a, b), (b, a)] {
            let state = dir + "/\(UUID().uuidString).state"
            _ = try run(["classify", first, "--state", state] + levels)
            XCTAssertEqual(ReportText.withoutChanges(try run(["classify", second, "--state", state] + levels)), one)
        }
        let sa = dir + "/sa.state", sb = dir + "/sb.state"
        _ = try run(["classify", a, "--state", sa] + levels)
        _ = try run(["classify", b, "--state", sb] + levels)
        XCTAssertEqual(try run(["merge", sb, sa] + levels), one)
        // Forget B: the state and the report are a fresh run's of A alone (one pass).
        let both = dir + "/both.state", alone = dir + "/alone.state"
        _ = try run(["classify", a, b, "--state", both] + levels)
        let forgotten = try run(["forget", b, "--state", both] + levels)
        let fresh = try run(["classify", a, "--state", alone] + levels)
        try assertLevels(fresh, passes: 1, levels: (1, 2, 3))
        XCTAssertEqual(ReportText.withoutChanges(forgotten), ReportText.withoutChanges(fresh))
        // The state remembers what was forgotten; with that undone it is the fresh run's.
        _ = try run(["forget", "--undo", b, "--state", both] + levels)
        XCTAssertEqual(try ReportText.shown(both, tables: Self.tables), try ReportText.shown(alone, tables: Self.tables))
        // A state refuses other levels, like the other rules.
        let refused = try CommandRunner.run(["classify", b, "--state", both, "--familiarity-levels", "1,5,20", "--tables", Self.tables])
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
        try write(Self.gpx(starts: starts), dir + "/commute.gpx")
        try write(Self.gpx(starts: [0]).replacingOccurrences(of: "lat=\"39.91", with: "lat=\"39.92"), dir + "/once.gpx")
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
