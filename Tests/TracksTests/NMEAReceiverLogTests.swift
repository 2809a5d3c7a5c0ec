import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Real receivers' logs (gpsd's regression logs, GPSBabel's reference recordings) against pynmea2
/// (`Scripts/make-nmea-fixture-expectations`), and the defects they showed, each on the smallest
/// input that shows it.
final class NMEAReceiverLogTests: XCTestCase {
    func testReceiverLogsMatchAnIndependentDecoder() throws {
        var files = 0
        for folder in ["nmea/gpsd", "nmea/gpsbabel"] {
            let fixtures = FixtureSet(folder)
            for (name, facts) in try fixtures.expected().sorted(by: { $0.key < $1.key }) {
                files += 1
                var sink = TrackEventRecorder()
                let summary = try NMEAReader.read(try FileSource(path: fixtures.path(name)), path: name, into: &sink)
                XCTAssertEqual(summary.points, facts["points"] as? Int, name)
                XCTAssertEqual(summary.unreadablePoints, facts["unreadablePoints"] as? Int, name)
                XCTAssertEqual(summary.sentencesWithoutFix, facts["sentencesWithoutFix"] as? Int, name)
                XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
                let all = try XCTUnwrap(facts["all"] as? [Any], name)
                XCTAssertEqual(sink.points.count, all.count, name)
                for (index, (got, want)) in zip(sink.points, all).enumerated() {
                    // Accuracy apart, within 1e-9: Foundation's JSON reader on Linux does not
                    // give back every double it was written (2.8000000000000003 reads 2.800000000000001).
                    var exact = try XCTUnwrap(want as? [String: Any])
                    let accuracy = exact.removeValue(forKey: "accuracy") as? Double
                    assertPoint(got, exact, "\(name) point \(index)", tolerance: 1e-12)
                    XCTAssertEqual(got.accuracy ?? -1, accuracy ?? -1, accuracy: 1e-9, "\(name) point \(index)")
                }
                // However the bytes arrive.
                let fed = ReaderVerifier.verifyEvents(try fixtures.bytes(name)) { try NMEAReader.read($0, path: name, into: &$1) }
                XCTAssertEqual(fed.events, sink, name)
                // Every gpsd log opens with comment lines, and is still recognised by its content.
                let prefix = Array(try fixtures.bytes(name).prefix(4096))
                XCTAssertTrue(NMEAReader.recognizes(prefix), name)
            }
        }
        XCTAssertEqual(files, 10)
    }

    func testCommentLinesBeforeTheFirstSentenceAreRecognised() {
        let log = (0..<12).map { "# header line \($0)\n" }.joined() + sentence("GPGGA,120000,3000.0,N,12000.0,E,1,08,1.0,10.0,M,,M,,") + "\n"
        XCTAssertTrue(NMEAReader.recognizes(Array(log.utf8)))
        // Text that is neither comments nor sentences is not NMEA.
        XCTAssertFalse(NMEAReader.recognizes(Array("lat,lon\n1,2\n3,4\n5,6\n7,8\n9,10\n\(sentence("GPGGA,1"))\n".utf8)))
        // A comment that quotes a sentence is not one.
        XCTAssertFalse(NMEAReader.recognizes(Array("# \(sentence("GPGGA,120000,3000.0,N,12000.0,E,1,08,1.0,10.0,M,,M,,"))\nhello\n".utf8)))
    }

    func testNavigationalStatusVIsNotProvidedNotInvalid() throws {
        // NMEA 4.10 RMC, u-blox M9/F9: mode D (differential), navigational status V on every fix.
        let (sink, summary) = try readNMEA([
            sentence("GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V"),
            sentence("GNRMC,223746.00,A,3806.62965,N,12237.61383,W,0.040,,110720,,,A,V"),
            sentence("GNRMC,223747.00,V,,,,,,,110720,,,N,V"),
        ].joined(separator: "\n"))
        XCTAssertEqual(sink.points.count, 2)
        XCTAssertEqual(sink.points.first?.time, Timestamp.parse("2020-07-11T22:37:45Z"))
        XCTAssertEqual(summary.sentencesWithoutFix, 1)
    }

    func testGGAWithZDATakesZDAsDate() throws {
        let (sink, summary) = try readNMEA([
            sentence("GPGGA,235959.00,3000.0,N,12000.0,E,1,08,1.0,10.0,M,,M,,"),  // before any date: untimed
            sentence("GPZDA,235959.00,31,12,2023,00,00"),  // the same epoch: it dates the fix above
            sentence("GPGGA,000000.00,3000.1,N,12000.1,E,1,08,1.0,10.0,M,,M,,"),  // midnight passed
            sentence("GPZDA,000000.00,01,01,2024,00,00"),
            sentence("GPZDA,000001.00,,,,,"),  // no date yet: ignored
        ].joined(separator: "\n"))
        XCTAssertEqual(sink.points.map(\.time), [Timestamp.parse("2023-12-31T23:59:59Z"), Timestamp.parse("2024-01-01T00:00:00Z")])
        XCTAssertEqual(summary.dateSentences, 2)
        // ZDA first, then the GGA of a later second.
        let (later, _) = try readNMEA([
            sentence("GPZDA,101010.00,02,03,2024,00,00"),
            sentence("GPGGA,101011.00,3000.0,N,12000.0,E,1,08,1.0,10.0,M,,M,,"),
        ].joined(separator: "\n"))
        XCTAssertEqual(later.points.map(\.time), [Timestamp.parse("2024-03-02T10:10:11Z")])
    }

    func testTimesWithATrailingDotOrSpacesReadAsGPSBabelReadsThem() throws {
        let (sink, summary) = try readNMEA([
            sentence("GPRMC,222509.,A,4249.96546,S,14726.73184,E,0.006,,231019,,,A"),
            sentence("GPRMC,222517 ,A,4249.96551,S,14726.73171,E,0.042,,231019,,,A"),
            sentence("GPRMC, 222519,A,4249.96551,S,14726.73171,E,0.042,,231019,,,A"),
            sentence("GPRMC,222515.x,A,4249.96551,S,14726.73171,E,0.042,,231019,,,A"),
        ].joined(separator: "\n"))
        XCTAssertEqual(sink.points.map(\.time), ["2019-10-23T22:25:09Z", "2019-10-23T22:25:17Z", "2019-10-23T22:25:19Z"].map { Timestamp.parse($0) })
        XCTAssertEqual(summary.unreadablePoints, 1)  // `222515.x` is no time
    }

    func testTheFixBeforeAFatalErrorIsKept() {
        let text = sentence("GPRMC,120000,A,3000.0,N,12000.0,E,0.0,,010124,,,A") + "\n" + String(repeating: "x", count: LineReader<FedSource>.maximumLineLength + 10) + "\n"
        let (sink, error) = ReaderVerifier.verifyEvents(Array(text.utf8), feedings: ReaderVerifier.feedings(randomRuns: 1, largest: 1 << 16).filter { $0 != .fixed(1) }) {
            try NMEAReader.read($0, path: "t.nmea", into: &$1)
        }
        XCTAssertNotNil(error)
        XCTAssertEqual(sink.points.map(\.time), [Timestamp.parse("2024-01-01T12:00:00Z")])
    }
}
