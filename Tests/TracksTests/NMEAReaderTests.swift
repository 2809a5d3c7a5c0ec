import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

func readNMEA(_ text: String, trickle: Bool = false) throws -> (TrackEventRecorder, NMEAReader.Summary) {
    var sink = TrackEventRecorder()
    let bytes = Array(text.utf8)
    let summary = trickle ? try NMEAReader.read(FedSource(bytes, feeding: .trickle), path: "t.nmea", into: &sink)
                          : try NMEAReader.read(MemorySource(bytes), path: "t.nmea", into: &sink)
    return (sink, summary)
}

/// `$body*hh` with the checksum computed (or deliberately wrong).
func sentence(_ body: String, wrongChecksum: Bool = false) -> String {
    var checksum = body.utf8.reduce(UInt8(0), ^)
    if wrongChecksum { checksum ^= 0x5A }
    let hex = String(checksum, radix: 16, uppercase: true)
    return "$" + body + "*" + (hex.count < 2 ? "0" : "") + hex
}

final class NMEAReaderTests: XCTestCase {
    let fixtures = FixtureSet("nmea")

    // MARK: Files, against pynmea2

    func testFixturesMatchAnIndependentDecoder() throws {
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 2)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            var sink = TrackEventRecorder()
            let summary = try NMEAReader.read(try FileSource(path: fixtures.path(name)), path: name, into: &sink)
            XCTAssertEqual(summary.points, facts["points"] as? Int, name)
            XCTAssertEqual(summary.unreadablePoints, facts["unreadablePoints"] as? Int, name)
            XCTAssertEqual(sink.problems.count, summary.unreadablePoints, name)
            XCTAssertEqual(summary.sentencesWithoutFix, facts["sentencesWithoutFix"] as? Int, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            XCTAssertEqual(sink.breaks, 0, name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }

    func testFixtureDetailsAndTinyChunks() throws {
        let text = String(decoding: try fixtures.bytes("handmade-logger.nmea"), as: UTF8.self)
        let (sink, summary) = try readNMEA(text)
        XCTAssertEqual(sink.problems.map(\.line), [13])
        XCTAssertTrue(sink.problems[0].reason.hasPrefix("$GPGGA: checksum '"), sink.problems[0].reason)
        XCTAssertEqual(summary.badChecksums, 1)
        XCTAssertEqual(summary.otherSentences, 5)  // GPGSV, GPGSA, GPVTG, GLGSV and the proprietary PGRME
        let trickled = try readNMEA(text, trickle: true)
        XCTAssertEqual(trickled.0.events, sink.events)
    }

    // MARK: Rules

    func testRMCAndGGAOfOneTimeAreOnePointInEitherOrder() throws {
        let (sink, summary) = try readNMEA([
            sentence("GPGGA,120000.00,3954.2520,N,11624.4440,E,1,08,1.5,44.0,M,-8.0,M,,"),
            sentence("GPRMC,120000.00,A,3954.2520,N,11624.4440,E,0.0,0.0,020324,,,A"),
            sentence("GNRMC,120001.00,A,3954.2530,N,11624.4450,E,0.0,0.0,020324,,,D"),
            sentence("GNGGA,120001.00,3954.2530,N,11624.4450,E,2,08,0.8,45.0,M,-8.0,M,,"),
        ].joined(separator: "\n"))
        let noon = Timestamp.parse("2024-03-02T12:00:00Z")!
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 39 + 54.2520 / 60, longitude: 116 + 24.4440 / 60, time: noon, accuracy: 7.5, elevation: 44),
            TrackPoint(latitude: 39 + 54.2530 / 60, longitude: 116 + 24.4450 / 60, time: noon + 1000, accuracy: 4, elevation: 45),
        ])
        XCTAssertEqual(summary.sentences, 4)
    }

    func testGGATakesTheLatestDateAndRollsOverAtMidnight() throws {
        let (sink, _) = try readNMEA([
            sentence("GPGGA,235950,0100.0000,N,00100.0000,E,1,05,1.0,0,M,,M,,"),  // before any date: untimed
            sentence("GPRMC,235958,A,0100.0000,N,00100.0000,E,0,0,280224,,,A"),
            sentence("GPGGA,235959,0100.0000,N,00100.0000,E,1,05,1.0,0,M,,M,,"),
            sentence("GPGGA,235958,0100.0000,N,00100.0000,E,1,05,1.0,0,M,,M,,"),  // a step back, not a new day
            sentence("GPGGA,000000,0100.0000,N,00100.0000,E,1,05,1.0,0,M,,M,,"),
            sentence("GPGGA,000001,0100.0000,N,00100.0000,E,1,05,1.0,0,M,,M,,"),
            sentence("GPRMC,000002,A,0100.0000,N,00100.0000,E,0,0,290224,,,A"),
            sentence("GPRMC,235959,A,0100.0000,N,00100.0000,E,0,0,291299,,,A"),  // 1999: two-digit years 80-99
        ].joined(separator: "\r\n"))
        XCTAssertEqual(sink.points.map(\.time), [
            nil,
            Timestamp.parse("2024-02-28T23:59:58Z"), Timestamp.parse("2024-02-28T23:59:59Z"), Timestamp.parse("2024-02-28T23:59:58Z"),
            Timestamp.parse("2024-02-29T00:00:00Z"), Timestamp.parse("2024-02-29T00:00:01Z"), Timestamp.parse("2024-02-29T00:00:02Z"),
            Timestamp.parse("1999-12-29T23:59:59Z"),
        ])
    }

    func testBadChecksumsAndFieldsAreUnreadableWithTheirLine() throws {
        let (sink, summary) = try readNMEA([
            sentence("GPRMC,120000,A,3954.2520,N,11624.4440,E,0,0,020324,,,A", wrongChecksum: true),
            sentence("GPRMC,120001,A,3975.0000,N,11624.4440,E,0,0,020324,,,A"),
            sentence("GPRMC,120002,A,3954.2520,X,11624.4440,E,0,0,020324,,,A"),
            sentence("GPRMC,250000,A,3954.2520,N,11624.4440,E,0,0,020324,,,A"),
            sentence("GPRMC,120003,A,3954.2520,N,11624.4440,E,0,0,310224,,,A"),
            sentence("GPGGA,120004,3954.2520,N,abc,E,1,08,1.5,44.0,M,,M,,"),
            sentence("GPGGA,120005,3954.2520,N,11624.4440,E,x,08,1.5,44.0,M,,M,,"),
            sentence("GPGGA,120006,3954.2520,N"),
            "$GPGGA,120007,3954.2520,N,11624.4440,E,1,08,-1,44.0,M,,M,,",  // no checksum: accepted, but HDOP is negative
            "2024-03-02 12:00:08 " + sentence("GPRMC,120008,A,3954.2520,N,11624.4440,E,0,0,020324,,,A"),
        ].joined(separator: "\n"))
        XCTAssertEqual(sink.problems.map(\.line), Array(1...9))
        XCTAssertEqual(summary.unreadablePoints, 9)
        XCTAssertEqual(sink.points.count, 1)
        let reasons = sink.problems.map(\.reason)
        XCTAssertTrue(reasons[0].hasPrefix("$GPRMC: checksum '"), reasons[0])
        XCTAssertEqual(reasons[1], "$GPRMC: latitude '3975.0000' has 60 or more minutes")
        XCTAssertEqual(reasons[2], "$GPRMC: latitude hemisphere 'X' is not N or S")
        XCTAssertEqual(reasons[3], "$GPRMC: time '250000' is not hhmmss[.sss]")
        XCTAssertEqual(reasons[4], "$GPRMC: date '310224' is not ddmmyy")
        XCTAssertEqual(reasons[5], "$GPGGA: longitude 'abc' is not a number")
        XCTAssertEqual(reasons[6], "$GPGGA: fix quality 'x' is not a number")
        XCTAssertEqual(reasons[7], "$GPGGA: 3 fields, at least 9 expected")
        XCTAssertEqual(reasons[8], "$GPGGA: HDOP '-1' is not a non-negative number")
    }

    func testNoFixOtherTalkersAndSentencesArePassedOver() throws {
        let (sink, summary) = try readNMEA([
            sentence("GPRMC,120000,V,,,,,,,020324,,,N"),
            sentence("GPRMC,120001,A,3954.2520,N,11624.4440,E,0,0,020324,,,N"),
            sentence("GNRMC,120001,A,3954.2520,N,11624.4440,E,0,0,020324,,,A,V"),
            sentence("GPGGA,120002,3954.2520,N,11624.4440,E,0,00,,,M,,M,,"),
            sentence("GPGGA,120003,3954.2520,N,11624.4440,E,6,04,2.0,40,M,,M,,"),
            sentence("IIRMC,120004,A,3954.2520,N,11624.4440,E,0,0,020324,,,A"),
            sentence("GPGSV,1,1,01,01,40,083,46"),
            "",
            "not a sentence",
            sentence("GPRMC,120005,A,3954.2520,S,11624.4440,W,0,0,020324,,,A", wrongChecksum: false),
        ].joined(separator: "\n"))
        // The GNRMC's NMEA 4.10 navigational status V is "not provided" (u-blox M9/F9, Quectel):
        // it is a fix (issue 22; it was once counted as none).
        XCTAssertEqual(summary.sentencesWithoutFix, 4)
        XCTAssertEqual(summary.otherSentences, 2)
        XCTAssertEqual(sink.points.map(\.latitude), [39 + 54.2520 / 60, -(39 + 54.2520 / 60)])
        XCTAssertEqual(sink.points.map(\.longitude), [116 + 24.4440 / 60, -(116 + 24.4440 / 60)])
        XCTAssertEqual(sink.problems, [])
    }

    func testDamagedLogsNeverTrapAndEveryReadSentenceIsAccounted() throws {
        let bytes = try fixtures.bytes("handmade-logger.nmea")
        var generator = SplitMix64(seed: 1004)
        for _ in 0..<500 {
            var damaged = bytes
            for _ in 0..<4 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            var sink = TrackEventRecorder()
            guard let summary = try? NMEAReader.read(MemorySource(damaged), path: "damaged.nmea", into: &sink) else { continue }
            // Every RMC or GGA read is a point (alone or merged), unreadable, or not a fix.
            XCTAssertLessThanOrEqual(summary.points + summary.unreadablePoints + summary.sentencesWithoutFix, summary.sentences)
            XCTAssertEqual(sink.points.count, summary.points)
            XCTAssertEqual(sink.problems.count, summary.unreadablePoints)
        }
    }

    func testFilesThatAreNotNMEAAreRefused() {
        func failure(_ bytes: [UInt8]) -> InputError? {
            var sink = TrackEventRecorder()
            do { _ = try NMEAReader.read(MemorySource(bytes), path: "x.nmea", into: &sink) } catch { return error as? InputError }
            return nil
        }
        XCTAssertEqual(failure(Array("\nlat,lon\n1,2\n".utf8)), InputError(path: "x.nmea", line: 2, reason: "not an NMEA 0183 log: no line holds a $-sentence"))
        XCTAssertEqual(failure(Array("$GPRMC".utf8).flatMap { [$0, 0] })?.reason.hasPrefix("zero bytes in the text"), true)
        XCTAssertNil(failure([]))  // an empty log is empty, not wrong
    }
}
