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
        XCTAssertEqual(expected.count, 3)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try fixtures.bytes(name)
            var format: JSONTrackFormat?
            let (sink, error) = ReaderVerifier.verifyEvents(bytes) { format = try JSONTrackReader.read($0, path: name, into: &$1) }
            XCTAssertNil(error, name)
            XCTAssertEqual(format?.rawValue, facts["format"] as? String, name)
            XCTAssertEqual(sink.problems, [], name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
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
}
