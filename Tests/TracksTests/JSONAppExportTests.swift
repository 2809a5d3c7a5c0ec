import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// JSON that shares one top-level key with Google's formats and was once taken for them:
/// Overland's and Polarsteps' `{"locations": …}` (read as Takeout `Records.json` and rejected),
/// Huawei Health's array of activities (read as an iOS Timeline: 0 points, nothing flagged).
/// Against plain Python (`Scripts/fixtures/make-line-format-fixture-expectations`).
final class JSONAppExportTests: XCTestCase {
    func testAppExportsAreToldApartAndReadInFull() throws {
        let fixtures = FixtureSet("json-apps")
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 5)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try fixtures.bytes(name)
            var format: JSONTrackFormat?
            // A Polar file without an offset is read in the zone its expectation names.
            let zone = try (facts["timeZone"] as? String).map { try XCTUnwrap(LocalTimeZone(identifier: $0)) } ?? TrackCSVReader.defaultTimeZone
            let (sink, error) = ReaderVerifier.verifyEvents(bytes) { format = try JSONTrackReader.read($0, path: name, timeZone: zone, into: &$1) }
            XCTAssertNil(error, name)
            XCTAssertEqual(format?.rawValue, facts["format"] as? String, name)
            XCTAssertEqual(sink.problems, [], name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            if let segments = facts["segments"] as? Int { XCTAssertEqual(sink.breaks, segments, name) }
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }

    func read(_ text: String) throws -> (TrackEventRecorder, JSONTrackFormat) {
        var sink = TrackEventRecorder()
        let format = try JSONTrackReader.read(MemorySource(Array(text.utf8)), path: "t.json", into: &sink)
        return (sink, format)
    }

    func testPolarstepsTimesInSecondsAndTakeoutStillTakeout() throws {
        let (polarsteps, format) = try read(#"{"locations": [{"lat": 52.52, "lon": 13.405, "time": 1717236000.5}, {"lat": 52.53}]}"#)
        XCTAssertEqual(format, .polarstepsLocations)
        XCTAssertEqual(polarsteps.points, [TrackPoint(latitude: 52.52, longitude: 13.405, time: 1_717_236_000_500)])
        XCTAssertEqual(polarsteps.problems.count, 1)  // without lon: unreadable, not lost
        let (takeout, takeoutFormat) = try read(#"{"locations": [{"latitudeE7": 525200000, "longitudeE7": 134050000, "timestampMs": "1717236000000"}]}"#)
        XCTAssertEqual(takeoutFormat, .takeoutRecords)
        XCTAssertEqual(takeout.points.count, 1)
    }

    func testHuaweiActivitiesAreSegmentsAndIOSTimelineStillReads() throws {
        let huawei = #"[{"sportType": 4, "startTime": 1551732120000, "endTime": 1551732590000, "attribute": "HW_EXT_TRACK_DETAIL@istp=lbs;k=0;lat=50.1;lon=-3.5;alt=0.0;t=1.55173212E12;\\ntp=lbs;k=1;lat=90.0;lon=-80.0;alt=0.0;t=1.551732121E12;\\ntp=lbs;k=2;lat=50.2;lon=x;t=1.551732122E12;\n&&HW_EXT_TRACK_SIMPLIFY@is{}"}]"#
        let (sink, format) = try read(huawei)
        XCTAssertEqual(format, .huaweiMotionPaths)
        XCTAssertEqual(sink.points.map(\.time), [1_551_732_120_000])
        XCTAssertEqual(sink.problems.count, 1)
        XCTAssertEqual(sink.breaks, 1)
        let (ios, iosFormat) = try read(#"[{"startTime": "2024-01-01T10:00:00Z", "endTime": "2024-01-01T11:00:00Z", "timelinePath": [{"point": "geo:39.9,116.4", "durationMinutesOffsetFromStartTime": "5"}]}]"#)
        XCTAssertEqual(iosFormat, .timelineIOS)
        XCTAssertEqual(ios.points.count, 1)
    }

    /// Polar's `dateTime` has no offset: the exercise's `timezoneOffset` before its samples, else
    /// the session's `timeZoneOffset` before `exercises`, else the run's zone; an offset written
    /// after the route cannot reach it (the route streams) and is not used; `Z` is kept.
    func testPolarZoneRulesAndUnreadableSamples() throws {
        func times(_ text: String, zone: LocalTimeZone = .utc) throws -> (TrackEventRecorder, JSONTrackFormat) {
            var sink = TrackEventRecorder()
            let format = try JSONTrackReader.read(MemorySource(Array(text.utf8)), path: "training-session-1.json", timeZone: zone, into: &sink)
            return (sink, format)
        }
        let route = #""samples": {"recordedRoute": [{"dateTime": "2021-01-30T13:24:11.000", "latitude": 60.1, "longitude": 24.9, "altitude": 12.5}]}"#
        // 2021-01-30T13:24:11 is 1612013051 s after 1970 in UTC.
        let utc: Int64 = 1_612_013_051_000
        let (session, format) = try times(#"{"timeZoneOffset": 120, "exercises": [{\#(route)}]}"#)
        XCTAssertEqual(format, .polarTrainingSession)
        XCTAssertEqual(session.points, [TrackPoint(latitude: 60.1, longitude: 24.9, time: utc - 7_200_000, elevation: 12.5)])
        let (exercise, _) = try times(#"{"timeZoneOffset": 120, "exercises": [{"timezoneOffset": -300, \#(route)}]}"#)
        XCTAssertEqual(exercise.points.map(\.time), [utc + 18_000_000])
        let (late, _) = try times(#"{"exercises": [{\#(route), "timezoneOffset": -300}], "timeZoneOffset": 120}"#, zone: .fixed(minutesEast: 480))
        XCTAssertEqual(late.points.map(\.time), [utc - 28_800_000])
        let (zoned, _) = try times(#"{"timeZoneOffset": 120, "exercises": [{"samples": {"recordedRoute": [{"dateTime": "2021-01-30T13:24:11Z", "latitude": 1, "longitude": 2}]}}]}"#)
        XCTAssertEqual(zoned.points.map(\.time), [utc])
        let (bad, _) = try times(#"{"exercises": [{"samples": {"recordedRoute": [{"dateTime": "yesterday", "latitude": 1, "longitude": 2}, {"latitude": 1}, 7, {"latitude": 3, "longitude": 4}]}}, {"sport": "OTHER_INDOOR"}]}"#)
        XCTAssertEqual(bad.points, [TrackPoint(latitude: 3, longitude: 4)])
        XCTAssertEqual(bad.problems.count, 3)
        XCTAssertEqual(bad.breaks, 1)  // the indoor exercise has no route: no segment
    }
}
