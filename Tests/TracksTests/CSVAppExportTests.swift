import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// CSV the reader once refused or misread: saved as UTF-16 (with its byte order mark, as Windows'
/// "Unicode" text and Excel write: "no latitude and longitude columns"), with Google's integer
/// `latitudeE7,longitudeE7` columns, and the exports of OpenTracks (`#time`, rows without a
/// position), MemoLanes (`timestamp_ms`) and Reitti (a WKT `POINT` column). The apps' own files
/// against Python's csv module (`Scripts/fixtures/make-csv-app-fixture-expectations`).
final class CSVAppExportTests: XCTestCase {
    func testUTF16AndE7FilesMatchAnIndependentDecoder() throws {
        let fixtures = FixtureSet("csv-apps")
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 7)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let (sink, error) = ReaderVerifier.verifyEvents(try fixtures.bytes(name)) {
                try TrackCSVReader.read($0, path: name, timeZone: .utc, into: &$1)
            }
            XCTAssertNil(error, name)
            XCTAssertEqual(sink.problems, [], name)
            // Timed logs are timed (MemoLanes' `timestamp_ms`, OpenTracks' `#time` were read as
            // plans); OpenTracks' rows without a position are passed over, not unreadable, and its
            // segment starts are breaks.
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            XCTAssertEqual(sink.breaks, facts["segmentStarts"] as? Int, name)
            let summary = try TrackCSVReader.read(MemorySource(try fixtures.bytes(name)), path: name, timeZone: .utc, into: &Discard.sink)
            XCTAssertEqual(summary.rowsWithoutPosition, facts["rowsWithoutPosition"] as? Int, name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }

    func testUTF16SurrogatesAndOddBytes() throws {
        let text = "lat,lon,name\n1.5,2.5,𝄞é\n3,4,x\n"
        let units = Array(text.utf16)
        var little: [UInt8] = [0xFF, 0xFE], big: [UInt8] = [0xFE, 0xFF]
        for unit in units {
            little += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            big += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        big.append(0x41)  // an odd final byte
        for bytes in [little, big] {
            let (sink, error) = ReaderVerifier.verifyEvents(bytes) { try TrackCSVReader.read($0, path: "t.csv", into: &$1) }
            XCTAssertNil(error)
            XCTAssertEqual(sink.points.map { $0.latitude }, [1.5, 3])
        }
        // Not UTF-16: passed through unchanged, a lone 0xFF included.
        var sink = TrackEventRecorder()
        try TrackCSVReader.read(MemorySource(Array("lat,lon\n1,2\n".utf8) + [0xFF] + Array("\n3,4\n".utf8)), path: "t.csv", into: &sink)
        XCTAssertEqual(sink.points.map(\.latitude), [1, 3])
        XCTAssertEqual(sink.problems.count, 1)
    }
}
