import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// KML the reader once misread: `gx:Track`s whose `gx:coord`s come before their `when`s (两步路's
/// layout, coordinate-first pairs), and GPSBabel's default KML, whose fixes' times are only in
/// `Point` + `TimeStamp` placemarks. Real files (GPSBabel 1.8.0's output for gpsd's receiver logs,
/// GPSBabel's own reference files) against Python's xml.etree (`Scripts/make-kml-fixture-expectations`).
final class KMLTimedTrackTests: XCTestCase {
    let fixtures = FixtureSet("kml/gpsbabel")

    func testGPSBabelFilesMatchAnIndependentDecoder() throws {
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 7)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try fixtures.bytes(name)
            let (sink, error) = ReaderVerifier.verifyEvents(bytes) { try KMLReader.read($0, path: name, into: &$1) }
            XCTAssertNil(error, name)
            let summary = try KMLReader.read(MemorySource(bytes), path: name, into: &Discard.sink)
            XCTAssertEqual(summary.points, facts["points"] as? Int, name)
            XCTAssertEqual(summary.pins, facts["pins"] as? Int, name)
            XCTAssertEqual(summary.tracks, facts["tracks"] as? Int, name)
            XCTAssertEqual(summary.timedFixes, facts["timedFixes"] as? Int, name)
            XCTAssertEqual(summary.pathsThroughFixes, facts["pathsThroughFixes"] as? Int, name)
            XCTAssertEqual(summary.unreadablePoints, 0, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }

    /// OpenTracks' own KML: an empty `<gx:coord/>` is a pause, a segment break and no point (once
    /// each an unreadable point); a coordinate left without a `when` is still unreadable.
    func testOpenTracksPausesAreSegmentBreaks() throws {
        let fixtures = FixtureSet("kml/opentracks")
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, 3)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try fixtures.bytes(name)
            let (sink, error) = ReaderVerifier.verifyEvents(bytes) { try KMLReader.read($0, path: name, into: &$1) }
            XCTAssertNil(error, name)
            let summary = try KMLReader.read(MemorySource(bytes), path: name, into: &Discard.sink)
            XCTAssertEqual(summary.pauses, facts["pauses"] as? Int, name)
            XCTAssertEqual(summary.unreadablePoints, facts["unreadablePoints"] as? Int, name)
            XCTAssertEqual(sink.problems.count, facts["unreadablePoints"] as? Int, name)
            // One break for the track, one per pause.
            XCTAssertEqual(sink.breaks, (facts["tracks"] as? Int ?? 0) + (facts["pauses"] as? Int ?? 0), name)
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                assertPoint(got, want, "\(name) point \(index)", tolerance: 1e-12)
            }
        }
    }

    func testCoordinatesBeforeTheirTimesPairInOrder() throws {
        let times = ["2024-05-01T09:00:00Z", "2024-05-01T09:00:10Z", "2024-05-01T09:00:20Z"]
        let whens = times.map { "<when>\($0)</when>" }.joined()
        let coords = "<gx:coord>1 2 0</gx:coord><gx:coord>3 4 0</gx:coord><gx:coord>5 6 0</gx:coord>"
        for body in [coords + whens,                                                          // 两步路
                     zip(coords.components(separatedBy: "</gx:coord>").dropLast(), times).map { "\($0)</gx:coord><when>\($1)</when>" }.joined()] {  // pairs, coordinate first
            let (sink, summary) = try readKML(kml("<Placemark><gx:Track>\(body)</gx:Track></Placemark>"))
            XCTAssertEqual(sink.points.map(\.longitude), [1, 3, 5], body)
            XCTAssertEqual(sink.points.map(\.time), times.map { Timestamp.parse($0) }, body)
            XCTAssertEqual(summary.unreadablePoints, 0, body)
        }
        // A coordinate left over at the end is reported with its own line.
        let (left, summary) = try readKML(kml("<Placemark><gx:Track>\n<gx:coord>1 2</gx:coord>\n<gx:coord>3 4</gx:coord><when>2024-05-01T09:00:00Z</when></gx:Track></Placemark>"))
        XCTAssertEqual(left.points.map(\.longitude), [1])
        XCTAssertEqual(summary.unreadablePoints, 1)
        XCTAssertEqual(left.problems.first?.line, 5)
    }

    /// `count` GPSBabel-style timed placemarks `seconds` apart, `metres` apart northwards.
    func placemarks(_ count: Int, seconds: Int = 1, metres: Double = 1, start: Int = 0) -> String {
        (0..<count).map { i in
            let time = Date(timeIntervalSince1970: 1_700_000_000 + Double((start + i) * seconds))
            let stamp = ISO8601DateFormatter().string(from: time)
            let latitude = 30 + Double(start + i) * metres / 111_195
            return "<Placemark><TimeStamp><when>\(stamp)</when></TimeStamp><Point><coordinates>120,\(latitude),5</coordinates></Point></Placemark>"
        }.joined(separator: "\n")
    }

    func testTimedPlacemarksInSequenceAreATrack() throws {
        let (sink, summary) = try readKML(kml("<Folder>\(placemarks(6))</Folder>"))
        XCTAssertEqual(sink.points.count, 6)
        XCTAssertTrue(sink.points.allSatisfy { $0.time != nil })
        XCTAssertEqual(summary.pins, 0)
        XCTAssertEqual(sink.breaks, 1)
        // Too few, too far apart in time, or too fast: pins, as before.
        for body in [placemarks(4), placemarks(6, seconds: 301), placemarks(6, seconds: 1, metres: 150)] {
            let (pins, summary) = try readKML(kml("<Folder>\(body)</Folder>"))
            XCTAssertEqual(pins.points.count, 0, body)
            XCTAssertEqual(summary.pins, body.components(separatedBy: "<Placemark>").count - 1)
        }
        // After a gx:Track, timed placemarks repeat it (GPSBabel's track=1): pins.
        let (afterTrack, withTrack) = try readKML(kml("<Placemark><gx:Track><when>2023-11-14T22:13:20Z</when><gx:coord>120 30</gx:coord></gx:Track></Placemark><Folder>\(placemarks(6))</Folder>"))
        XCTAssertEqual(afterTrack.points.count, 1)
        XCTAssertEqual(withTrack.pins, 6)
        // The path drawn through the fixes is not read again; another line is.
        let path = (0..<6).map { "120,\(30 + Double($0) / 111_195),5" }.joined(separator: " ")
        let (once, onceSummary) = try readKML(kml("<Folder><Folder>\(placemarks(6))</Folder><Placemark><LineString><coordinates>\(path)</coordinates></LineString></Placemark></Folder>"))
        XCTAssertEqual(once.points.count, 6)
        XCTAssertEqual(onceSummary.pathsThroughFixes, 1)
        let (other, _) = try readKML(kml("<Folder><Folder>\(placemarks(6))</Folder><Placemark><LineString><coordinates>\(path) 121,31</coordinates></LineString></Placemark></Folder>"))
        XCTAssertEqual(other.points.count, 13)
    }
}

/// A sink that keeps nothing.
enum Discard {
    struct Sink: TrackSink {
        mutating func segmentBreak() {}
        mutating func point(_ point: TrackPoint) {}
        mutating func unreadablePoint(_ problem: InputError) {}
    }
    nonisolated(unsafe) static var sink = Sink()  // discarded events; each test writes it on its own thread
}
