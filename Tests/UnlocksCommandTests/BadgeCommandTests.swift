import Foundation
import XCTest
import UnlocksTestSupport

/// `classify --badges` through runs, `forget` and `merge`: the expected values come from what the
/// walks were made of (two provinces on two days), never from the program's output.
final class BadgeCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    /// 2024-05-01T01:00:00Z, 09:00 in Beijing.
    static let start = 1_714_525_200

    /// A 40-minute walk eastward from a point, one fix a second, on the given day after `start`.
    static func walk(latitude: Double, longitude: Double, day: Int) -> String {
        let formatter = ISO8601DateFormatter()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        for second in stride(from: 0, through: 2400, by: 1) {
            let east = 1.4 * Double(second), north = 20 * sin(Double(second) / 200)
            let lat = latitude + north / 111_000, lon = longitude + east / (111_320 * cos(latitude * .pi / 180))
            let time = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + day * 86_400 + second)))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", lat, lon, time)
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    static let catalog = """
    {"badges": [
      {"id": "provinces-4", "track": "china", "metric": "chinaProvinceCount", "target": 4},
      {"id": "days-3", "track": "consistency", "metric": "metrics.recordedDays", "target": 3},
      {"id": "country-1", "track": "world", "metric": "countryCount", "target": 1, "title": "the app's own member"}
    ]}
    """

    /// The folder: Beijing (Tiananmen, east along Chang'an Avenue) on day 0, Shanghai (People's
    /// Square) on day 1, and the badge file.
    func archive() throws -> String {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/tracks", withIntermediateDirectories: true)
        try Self.walk(latitude: 39.9075, longitude: 116.3975, day: 0).write(toFile: dir + "/tracks/beijing.gpx", atomically: true, encoding: .utf8)
        try Self.walk(latitude: 31.2304, longitude: 121.4737, day: 1).write(toFile: dir + "/tracks/shanghai.gpx", atomically: true, encoding: .utf8)
        try Self.catalog.write(toFile: dir + "/badges.json", atomically: true, encoding: .utf8)
        return dir
    }

    func badges(_ arguments: [String]) throws -> [String: [String: Any]] {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let list = try XCTUnwrap(report["badges"] as? [[String: Any]])
        XCTAssertEqual(list.map { $0["id"] as? String }, ["provinces-4", "days-3", "country-1"], "in the catalog's order")
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0) })
    }

    /// percent and reportedPercent of a badge, with the integer percent computed here.
    func assertBadge(_ badge: [String: Any]?, value: Double, target: Double, reported: Int, file: StaticString = #filePath, line: UInt = #line) {
        let percent = value >= target ? 100 : Int((value / target * 100).rounded(.down))
        XCTAssertEqual(badge?["value"] as? Double, value, file: file, line: line)
        XCTAssertEqual(badge?["target"] as? Double, target, file: file, line: line)
        XCTAssertEqual(badge?["percent"] as? Int, percent, file: file, line: line)
        XCTAssertEqual(badge?["reportedPercent"] as? Int, reported, file: file, line: line)
        XCTAssertEqual(badge?["achieved"] as? Bool, value >= target, file: file, line: line)
    }

    func testForgetLowersThePercentButNeverTheReportedPercent() throws {
        let dir = try archive()
        let state = dir + "/state", catalog = dir + "/badges.json"
        // Two provinces (Beijing, Shanghai) on two local days, one country.
        var b = try badges([dir + "/tracks", "--state", state, "--badges", catalog])
        assertBadge(b["provinces-4"], value: 2, target: 4, reported: 50)
        assertBadge(b["days-3"], value: 2, target: 3, reported: 66)
        assertBadge(b["country-1"], value: 1, target: 1, reported: 100)
        XCTAssertEqual(b["provinces-4"]?["track"] as? String, "china")
        XCTAssertEqual(b["days-3"]?["metric"] as? String, "metrics.recordedDays")

        let forgot = try CommandRunner.run(["forget", "--tables", Self.tables, dir + "/tracks/shanghai.gpx", "--state", state])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        b = try badges([dir + "/tracks/beijing.gpx", "--state", state, "--badges", catalog])
        assertBadge(b["provinces-4"], value: 1, target: 4, reported: 50)
        assertBadge(b["days-3"], value: 1, target: 3, reported: 66)
        assertBadge(b["country-1"], value: 1, target: 1, reported: 100)

        // Without a state nothing was reported before: reportedPercent is the percent.
        b = try badges([dir + "/tracks/beijing.gpx", "--badges", catalog])
        assertBadge(b["provinces-4"], value: 1, target: 4, reported: 25)

        // A run without --badges keeps what the state says was reported.
        let plain = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/tracks/beijing.gpx", "--state", state])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stdout.contains("\"badges\""))
        b = try badges([dir + "/tracks/beijing.gpx", "--state", state, "--badges", catalog])
        assertBadge(b["days-3"], value: 1, target: 3, reported: 66)

        // Merging a state that reported less keeps the higher percent; the text report says both.
        let other = dir + "/other.state"
        _ = try badges([dir + "/tracks/beijing.gpx", "--state", other, "--badges", catalog])
        let merged = dir + "/merged.state"
        let merge = try CommandRunner.run(["merge", "--tables", Self.tables, other, state, "--state", merged, "--badges", catalog])
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("\"reportedPercent\": 50"), merge.stdout)
        b = try badges([dir + "/tracks/beijing.gpx", "--state", merged, "--badges", catalog])
        assertBadge(b["provinces-4"], value: 1, target: 4, reported: 50)
        let text = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/tracks/beijing.gpx", "--state", merged, "--badges", catalog, "--format", "text"])
        XCTAssertTrue(text.stdout.contains("\nBadges\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("provinces-4  china         25% (reported 50%)  chinaProvinceCount 1 of 4\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("country-1    world        100%  countryCount 1 of 1  achieved\n"), text.stdout)
    }

    func testBadBadgeFilesFailBeforeAnyInputIsReadNamingTheFile() throws {
        let dir = try archive()
        let state = dir + "/state"
        func refusal(_ catalog: String, _ file: StaticString = #filePath, _ line: UInt = #line) throws -> String {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/tracks", "--state", state, "--badges", catalog])
            XCTAssertEqual(result.status, 1, result.stderr, file: file, line: line)
            XCTAssertEqual(result.stdout, "", file: file, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: state), "the state is not written", file: file, line: line)
            return result.stderr
        }
        try #"{"badges": [{"id": "x", "track": "pro", "metric": "explorer.tiles[15].maxSquare", "target": 5}]}"#.write(toFile: dir + "/unknown.json", atomically: true, encoding: .utf8)
        XCTAssertTrue(try refusal(dir + "/unknown.json").contains("\(dir)/unknown.json: badge 1 (\"x\"): \"explorer.tiles[15].maxSquare\" names no number in the report"))
        try "{\"badges\": [{".write(toFile: dir + "/broken.json", atomically: true, encoding: .utf8)
        XCTAssertTrue(try refusal(dir + "/broken.json").contains("\(dir)/broken.json: not JSON: byte "))
        XCTAssertTrue(try refusal("/dev/zero").contains("/dev/zero: not a regular file"))
        XCTAssertTrue(try refusal(dir + "/missing.json").contains("\(dir)/missing.json: no such file"))
    }
}
