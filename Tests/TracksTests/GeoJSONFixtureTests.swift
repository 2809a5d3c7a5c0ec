import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// GeoJSON the reader once refused whole: a position with a `null` elevation (or latitude), a
/// FeatureCollection nested in `features`. Built around Reitti's real trip by
/// `Scripts/fixtures/make-geojson-fixtures`, expected values by Python's json module.
final class GeoJSONFixtureTests: XCTestCase {
    func testFixturesMatchPythonsJSON() throws {
        let fixtures = FixtureSet("geojson")
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 3)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let (sink, error) = ReaderVerifier.verifyEvents(try fixtures.bytes(name)) { try JSONTrackReader.read($0, path: name, into: &$1) }
            XCTAssertNil(error, name)
            XCTAssertEqual(sink.problems.count, facts["unreadablePoints"] as? Int, name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }
}
