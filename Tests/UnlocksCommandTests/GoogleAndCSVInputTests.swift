import Foundation
import XCTest
import UnlocksTestSupport

/// The defects of issue 12 in Google's exports and CSV dialects, end to end through `classify`.
final class GoogleAndCSVInputTests: XCTestCase {
    static let root = Repository.root

    func classify(_ file: String, contents: String, _ extra: [String] = []) throws -> (CommandRunner.Result, [String: Any]) {
        let directory = try temporaryDirectory()
        let path = directory + "/" + file
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", Self.root + "/Data/regions", path] + extra)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (result, report)
    }

    func metric(_ report: [String: Any], _ name: String) -> Double? {
        ((report["metrics"] as? [String: Any])?[name] as? NSNumber)?.doubleValue
    }

    func pointsRead(_ report: [String: Any]) -> Int? {
        (report["points"] as? [String: Any])?["read"] as? Int
    }

    /// A 3.9 km run in an Android export whose path and raw fixes both hold it measured 6.9 km.
    func testAndroidRunIsMeasuredOnce() throws {
        func time(_ seconds: Int) -> String {
            let date = Date(timeIntervalSince1970: 1_714_521_600 + Double(seconds))
            let formatter = ISO8601DateFormatter()
            return formatter.string(from: date)
        }
        let path = (0...20).map { #"{"point": "\#(39.9 + Double($0) * 195 / 111_195)°, 116.4°", "time": "\#(time($0 * 60))"}"# }
        let raw = stride(from: 3, to: 1200, by: 6).map {
            #"{"position": {"LatLng": "\#(39.9 + Double($0) * 3.25 / 111_195)°, 116.40002°", "accuracyMeters": 5, "timestamp": "\#(time($0))"}}"#
        }
        let text = #"{"semanticSegments": [{"startTime": "\#(time(0))", "endTime": "\#(time(1200))", "timelinePath": [\#(path.joined(separator: ","))]}], "rawSignals": [\#(raw.joined(separator: ","))]}"#
        let (result, report) = try classify("Timeline.json", contents: text)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(pointsRead(report), 21)
        XCTAssertEqual(try XCTUnwrap(metric(report, "totalDistanceKilometers")), 3.9, accuracy: 0.05)
    }

    /// The fuzzer's crash: an iOS offset of Int64.max minutes trapped in `startTime + minutes * 60_000`.
    func testIOSOffsetOverflowIsAnUnreadablePoint() throws {
        let text = #"[{"startTime": "2024-05-01T08:00:00.000+08:00", "endTime": "2024-05-01T10:00:00.000+08:00", "timelinePath": [{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "9223372036854775807"}, {"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "3"}]}]"#
        let (result, report) = try classify("location-history.json", contents: text)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(((report["points"] as? [String: Any])?["dropped"] as? [String: Any])?["unreadable"] as? Int, 1)
        XCTAssertEqual(pointsRead(report), 2)
        XCTAssertTrue(result.stderr.contains("durationMinutesOffsetFromStartTime"), result.stderr)
    }

    /// A Semantic Location History month was "read in full" with 0 points.
    func testSemanticHistoryMonthHasPoints() throws {
        let text = #"{"timelineObjects": [{"activitySegment": {"simplifiedRawPath": {"points": [{"latE7": 399061234, "lngE7": 1164102345, "accuracyMeters": 8, "timestamp": "2023-05-01T01:08:48Z"}, {"latE7": 399098765, "lngE7": 1164187654, "accuracyMeters": 11, "timestampMs": "1682904024250"}]}}}]}"#
        let (result, report) = try classify("2023_MAY.json", contents: text)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(pointsRead(report), 2)
        let files = (report["inputs"] as? [String: Any])?["files"] as? [[String: Any]]
        XCTAssertEqual(files?.first?["format"] as? String, "json/takeoutSemanticHistory")
    }

    /// A CR-only CSV read as one header line: 0 points, status ok. Local times follow --utc-offset.
    func testCROnlyCSVAndLocalTimes() throws {
        let text = "type,date time,latitude,longitude,accuracy(m)\rT,2024-05-01 07:30:00.000,39.904211,116.407395,4.0\rT,2024-05-01 07:30:05.000,39.904290,116.407512,3.0\r"
        let (result, report) = try classify("20240501.csv", contents: text, ["--utc-offset", "-05:00"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(pointsRead(report), 2)
        // 07:30 at -05:00 is 12:30 UTC, the same local day: one recorded day.
        XCTAssertEqual(metric(report, "recordedDays"), 1)
        let firstVisit = (((report["unlocks"] as? [String: Any])?["countries"] as? [[String: Any]])?.first?["firstVisit"] as? [String: Any])?["time"] as? String
        XCTAssertEqual(firstVisit, "2024-05-01T07:30:00.000-05:00")
    }
}
