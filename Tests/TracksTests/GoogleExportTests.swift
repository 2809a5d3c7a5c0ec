import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Google's exports: Takeout `Records.json` and Semantic Location History against an independent
/// decode (Fixtures/google/SOURCE.md), the Android Timeline's two position lists counted once,
/// and times and numbers that must not trap.
final class GoogleExportTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/google")

    private func read(_ text: String, chunk: Int = 11) throws -> (TrackEventRecorder, JSONTrackFormat) {
        var sink = TrackEventRecorder()
        let format = try JSONTrackReader.read(FedSource(text, feeding: .fixed(chunk)), path: "in.json", into: &sink)
        return (sink, format)
    }

    // MARK: Fixtures

    func testFixturesMatchAnIndependentDecode() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        XCTAssertEqual(expected.count, 6)
        var semanticPoints = 0
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let path = Self.fixtures.appendingPathComponent(name).path
            var sink = TrackEventRecorder()
            let format = try JSONTrackReader.read(try FileSource(path: path), path: path, into: &sink)
            XCTAssertEqual(format, name.hasPrefix("records") ? .takeoutRecords : .takeoutSemanticHistory, name)
            XCTAssertEqual(sink.problems.map(\.reason), [], name)
            let want = try XCTUnwrap(facts["points"] as? [[String: Any]], name)
            XCTAssertEqual(sink.points.count, want.count, name)
            if let segments = facts["segments"] as? Int {
                XCTAssertEqual(sink.segments.count, segments, name)
                semanticPoints += want.count
            }
            let truncated = facts["timeTruncatedToSeconds"] as? Bool ?? false
            for (got, point) in zip(sink.points, want) {
                XCTAssertEqual(got.latitude, try XCTUnwrap(point["lat"] as? Double), accuracy: 1e-12, name)
                XCTAssertEqual(got.longitude, try XCTUnwrap(point["lon"] as? Double), accuracy: 1e-12, name)
                let time = try XCTUnwrap((point["time"] as? NSNumber)?.int64Value, name)
                XCTAssertEqual(truncated ? got.time.map { $0 / 1000 * 1000 } : got.time, time, name)
                XCTAssertEqual(got.accuracy, (point["accuracy"] as? NSNumber)?.doubleValue, name)
            }
        }
        // Not vacuous: the month files hold recorded points (today's defect read them as 0).
        XCTAssertEqual(semanticPoints, 7)
    }

    /// The hand-made Timeline exports (also the fuzzer's seeds for these formats).
    func testHandMadeTimelineFixtures() throws {
        var android = TrackEventRecorder()
        let androidPath = Self.fixtures.appendingPathComponent("timeline-android-handmade.json").path
        XCTAssertEqual(try JSONTrackReader.read(try FileSource(path: androidPath), path: androidPath, into: &android), .timelineAndroid)
        // 12 + 8 path points; of the 14 raw fixes, the 10 during the morning walk (inside its
        // path window) are the path's moments, the 4 at the office (12:20–12:50, no path) are read.
        XCTAssertEqual(android.segments.map(\.count), [12, 8, 4])
        XCTAssertEqual(android.segments[2].map(\.accuracy), [25, 25, 25, 25])
        XCTAssertEqual(android.problems, [])
        var ios = TrackEventRecorder()
        let iosPath = Self.fixtures.appendingPathComponent("timeline-ios-handmade.json").path
        XCTAssertEqual(try JSONTrackReader.read(try FileSource(path: iosPath), path: iosPath, into: &ios), .timelineIOS)
        XCTAssertEqual(ios.points.count, 10)
        XCTAssertEqual(ios.points.last, TrackPoint(latitude: 31.2376, longitude: 121.4818, time: 1_714_521_600_000 + 27 * 60_000))
    }

    // MARK: Semantic Location History

    func testSemanticHistoryReadsRecordedPathsOnly() throws {
        let text = """
        {"timelineObjects": [
          {"activitySegment": {"startLocation": {"latitudeE7": 10, "longitudeE7": 20},
            "waypointPath": {"waypoints": [{"latE7": 399000000, "lngE7": 1164000000}]},
            "simplifiedRawPath": {"points": [
              {"latE7": 399061234, "lngE7": 1164102345, "accuracyMeters": 8, "timestamp": "2023-05-01T01:08:48Z"},
              {"lngE7": 1164102345, "timestamp": "2023-05-01T01:09:48Z"},
              {"latE7": 399061234, "lngE7": 1164102345, "timestampMs": "9223372036854775807"},
              {"latE7": 399061234, "lngE7": 1e999, "timestamp": "2023-05-01T01:09:48Z"},
              {"latE7": 399061234, "lngE7": 1164102345, "timestamp": "yesterday"},
              {"latE7": 399061234, "lngE7": 1164102345},
              {"latE7": 399061234, "lngE7": 1164102345, "timestampMs": 1682903388000, "accuracyMeters": -3},
              {"latE7": 399061234, "lngE7": 1164102345, "timestampMs": 1682903388000, "accuracyMeters": null}
            ]}}},
          {"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 2}, "centerLatE7": 3, "centerLngE7": 4,
            "simplifiedRawPath": {"points": "none"}}},
          {"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 2}, "centerLatE7": 3, "centerLngE7": 4}},
          7
        ]}
        """
        let (sink, format) = try read(text)
        XCTAssertEqual(format, .takeoutSemanticHistory)
        XCTAssertEqual(sink.segments, [[
            TrackPoint(latitude: 39.9061234, longitude: 116.4102345, time: 1_682_903_328_000, accuracy: 8),
            TrackPoint(latitude: 39.9061234, longitude: 116.4102345, time: 1_682_903_388_000),
        ]])
        XCTAssertEqual(sink.problems.map(\.reason).map { $0.replacingOccurrences(of: #"byte \d+: "#, with: "", options: .regularExpression) }, [
            "activitySegment simplifiedRawPath point without latE7",
            "activitySegment simplifiedRawPath point timestampMs is not a whole number of milliseconds in the years 0000–9999",
            "activitySegment simplifiedRawPath point lngE7 is not a number in range",
            "activitySegment simplifiedRawPath point timestamp is not an ISO-8601 time",
            "activitySegment simplifiedRawPath point without timestamp",
            "activitySegment simplifiedRawPath point accuracyMeters is not a non-negative number",
            "placeVisit simplifiedRawPath without a \"points\" array",
            "timeline object is not an object",
        ])
    }

    // MARK: Android Timeline: each moment once

    /// A run north along a meridian, 3.9 km in 20 minutes: the path a point a minute (whole
    /// minutes, as Google writes it), the raw fixes every 6 s on odd seconds, a little to the side.
    static func overlappingRun(rawFirst: Bool = false, visitFixes: Bool = true) -> String {
        func time(_ seconds: Int) -> String {
            Timestamp.format(1_714_521_600_000 + Int64(seconds) * 1000, offsetMinutes: 480)
        }
        let metresPerDegree = 111_195.0
        let path = (0...20).map { minute in
            #"{"point": "\#(39.9 + Double(minute) * 195 / metresPerDegree)°, 116.4°", "time": "\#(time(minute * 60))"}"#
        }
        var raw = stride(from: 3, to: 1200, by: 6).map { second in
            #"{"position": {"LatLng": "\#(39.9 + Double(second) * 3.25 / metresPerDegree)°, 116.40002°", "accuracyMeters": 5, "timestamp": "\#(time(second))"}}"#
        }
        // A fix an hour later, when the path is silent (the phone at rest): read either way.
        if visitFixes { raw.append(#"{"position": {"LatLng": "39.935°, 116.4°", "accuracyMeters": 20, "timestamp": "\#(time(3 * 3600 + 7))"}}"#) }
        let segments = #""semanticSegments": [{"startTime": "\#(time(0))", "endTime": "\#(time(1200))", "timelinePath": [\#(path.joined(separator: ","))]}]"#
        let signals = #""rawSignals": [\#(raw.joined(separator: ","))]"#
        return "{" + (rawFirst ? signals + "," + segments : segments + "," + signals) + "}"
    }

    func testAndroidPositionsAreCountedOnce() throws {
        let (sink, _) = try read(Self.overlappingRun(), chunk: 4096)
        // The path (21 points) is read; the 200 raw fixes inside its window are passed over; the
        // raw fix three hours later is read.
        XCTAssertEqual(sink.segments.map(\.count), [21, 1])
        XCTAssertEqual(sink.segments[1].first?.accuracy, 20)
        XCTAssertEqual(pathLength(sink.segments[0]), 3900, accuracy: 5)

        let (reordered, _) = try read(Self.overlappingRun(rawFirst: true), chunk: 4096)
        // Raw signals first: they are read, and the path points within their time (and a minute
        // either side) are passed over; both path ends fall inside it.
        XCTAssertEqual(reordered.segments.map(\.count), [201])
        XCTAssertEqual(pathLength(reordered.segments[0].dropLast()), 3880, accuracy: 10)
    }

    private func pathLength<Points: Collection>(_ points: Points) -> Double where Points.Element == TrackPoint {
        zip(points, points.dropFirst()).reduce(0) { sum, leg in
            sum + abs(leg.1.latitude - leg.0.latitude) * 111_195
        }
    }

    func testTimeWindows() {
        var windows = TimeWindows()
        XCTAssertFalse(windows.contains(0))
        windows.add(100, 200)
        windows.add(150, 300)   // merged
        windows.add(10, 20)     // out of order
        windows.add(400, 399)   // empty, ignored
        windows.add(21, 22)
        for (time, covered) in [(9, false), (10, true), (20, true), (21, true), (23, false), (99, false), (100, true), (300, true), (301, false), (399, false)] {
            XCTAssertEqual(windows.contains(Int64(time)), covered, "\(time)")
        }
    }

    // MARK: Overflow

    /// The fuzzer's find: `startTime + minutes * 60_000` trapped (SIGILL) on this offset.
    func testIOSOffsetsThatOverflowAreUnreadable() throws {
        let offsets = ["9223372036854775807", "-9223372036854775808", "153722867280912931", "100000000000", "-40000000000"]
        let path = offsets.map { #"{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "\#($0)"}"# }
            + [#"{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "3"}"#]
        let text = #"[{"startTime": "2024-05-01T08:00:00.000+08:00", "timelinePath": [\#(path.joined(separator: ","))]}]"#
        let (sink, format) = try read(text)
        XCTAssertEqual(format, .timelineIOS)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 39.9, longitude: 116.4, time: 1_714_521_780_000)])
        XCTAssertEqual(sink.problems.count, offsets.count)
        XCTAssertTrue(sink.problems.map(\.reason).allSatisfy { $0.hasSuffix("without a readable time (startTime + durationMinutesOffsetFromStartTime)") }, "\(sink.problems.map(\.reason))")
        XCTAssertNil(GoogleTimeline.time(Int64.max - 1, plusMinutes: 1))
        XCTAssertEqual(GoogleTimeline.time(0, plusMinutes: -1), -60_000)
    }

    /// Millisecond times beyond the years 0000–9999 are unreadable, not passed on for later
    /// arithmetic (days, streaks) to overflow.
    func testMillisecondTimesOutOfRangeAreUnreadable() throws {
        let records = #"{"locations": [{"latitudeE7": 1, "longitudeE7": 2, "timestampMs": "999999999999999999"}, {"latitudeE7": 1, "longitudeE7": 2, "timestampMs": "-999999999999999999"}, {"latitudeE7": 999999999999999999999, "longitudeE7": -99999999999999999999, "timestampMs": 253402300799999}]}"#
        let (sink, _) = try read(records)
        XCTAssertEqual(sink.problems.count, 2)
        XCTAssertTrue(sink.problems.map(\.reason).allSatisfy { $0.hasSuffix("timestampMs is not a whole number of milliseconds in the years 0000–9999") })
        XCTAssertEqual(sink.points.count, 1)
        XCTAssertEqual(sink.points.first?.time, 253_402_300_799_999)
        let geoJSON = #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}, "properties": {"coordTimes": [8999999999999999, 0]}}"#
        let (geo, _) = try read(geoJSON)
        XCTAssertEqual(geo.points.map(\.time), [0])
        XCTAssertEqual(geo.problems.count, 1)
    }
}
