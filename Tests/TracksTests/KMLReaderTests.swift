import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

func readKML(_ text: String, trickle: Bool = false) throws -> (TrackEventRecorder, KMLReader.Summary) {
    try readKML(Array(text.utf8), trickle: trickle)
}

func readKML(_ bytes: [UInt8], trickle: Bool = false) throws -> (TrackEventRecorder, KMLReader.Summary) {
    var sink = TrackEventRecorder()
    let summary = trickle ? try KMLReader.read(FedSource(bytes, feeding: .trickle), path: "t.kml", into: &sink)
                          : try KMLReader.read(MemorySource(bytes), path: "t.kml", into: &sink)
    return (sink, summary)
}

func kml(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
    \(body)
    </Document></kml>
    """
}

final class KMLReaderTests: XCTestCase {
    let fixtures = FixtureSet("kml")

    // MARK: Real files, against fastkml

    func testFixturesMatchAnIndependentDecoder() throws {
        let expected = try fixtures.expected()
        XCTAssertGreaterThanOrEqual(expected.count, 8)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            var sink = TrackEventRecorder()
            let summary = try KMLReader.read(try FileSource(path: fixtures.path(name)), path: name, into: &sink)
            XCTAssertEqual(sink.problems, [], name)
            XCTAssertEqual(sink.points.count, facts["points"] as? Int, name)
            XCTAssertEqual(summary.points, sink.points.count, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            XCTAssertEqual(sink.breaks, facts["segments"] as? Int, name)
            XCTAssertEqual(summary.lineStrings, facts["lineStrings"] as? Int, name)
            XCTAssertEqual(summary.tracks, facts["tracks"] as? Int, name)
            XCTAssertEqual(summary.pins, facts["pins"] as? Int, name)
            XCTAssertEqual(sink.pins, facts["pins"] as? Int, name)
            XCTAssertEqual(summary.polygons, facts["polygons"] as? Int, name)
            // fastkml's coordinates can be a unit in the last place off the correctly rounded
            // double (google_earth_kml.kml: -122.4428340530617 reads as -122.44283405306172).
            assertPoint(sink.points.first, facts["first"], "\(name) first", tolerance: 1e-12)
            assertPoint(sink.points.last, facts["last"], "\(name) last", tolerance: 1e-12)
        }
    }

    func testFixturesReadTheSameInTinyChunks() throws {
        for name in ["handmade-gx-track.kml", "google_earth_kml.kml", "using_the_cdata_element.kml"] {
            let bytes = try fixtures.bytes(name)
            let whole = try readKML(bytes)
            let trickled = try readKML(bytes, trickle: true)
            XCTAssertEqual(whole.0.events, trickled.0.events, name)
            XCTAssertEqual(whole.1, trickled.1, name)
        }
    }

    // MARK: LineString coordinates

    func testLineStringsMultiGeometryAndIgnoredAreas() throws {
        let (sink, summary) = try readKML(kml("""
        <Placemark><LineString><tessellate>1</tessellate><coordinates>
          116.1,39.1,10 116.2,39.2
          116.3, 39.3 ,12
        </coordinates></LineString></Placemark>
        <Placemark><MultiGeometry>
          <LineString><coordinates>1,2</coordinates></LineString>
          <Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,0</coordinates></LinearRing></outerBoundaryIs></Polygon>
          <Point><coordinates>5,6</coordinates></Point>
        </MultiGeometry></Placemark>
        <Folder><LineString><coordinates>7,8 9,10</coordinates></LineString></Folder>
        """))
        XCTAssertEqual(sink.events, [
            .segmentBreak,
            .point(TrackPoint(latitude: 39.1, longitude: 116.1, elevation: 10)),
            .point(TrackPoint(latitude: 39.2, longitude: 116.2)),
            .point(TrackPoint(latitude: 39.3, longitude: 116.3, elevation: 12)),
            .segmentBreak,
            .point(TrackPoint(latitude: 2, longitude: 1)),
            .annotation(.pin),
        ])
        XCTAssertEqual(summary.polygons, 1)
        XCTAssertEqual(summary.lineStrings, 2)
    }

    func testALongLineStringStreamsAndBadTuplesAreUnreadable() throws {
        var tuples: [String] = []
        for k in 0..<50_000 { tuples.append("\(100 + Double(k) / 1000),\(30 + Double(k) / 2000),\(k % 100)") }
        let text = kml("<Placemark><LineString><coordinates>" + tuples.joined(separator: "\n") + " 1,north 1,2,3,4 5</coordinates></LineString></Placemark>")
        let whole = try readKML(text)
        XCTAssertEqual(whole.1.points, 50_000)
        XCTAssertEqual(whole.0.points.last, TrackPoint(latitude: 30 + 49_999.0 / 2000, longitude: 100 + 49_999.0 / 1000, elevation: 99))
        XCTAssertEqual(whole.0.problems.count, 3)
        XCTAssertEqual(whole.0.problems.first?.line, 3)
        XCTAssertTrue(whole.0.problems.first?.reason.hasSuffix("coordinates: '1,north' is not 'longitude,latitude[,altitude]'") ?? false)
        let trickled = try readKML(text, trickle: true)
        XCTAssertEqual(whole.0.events, trickled.0.events)
    }

    // MARK: gx:Track

    func testTrackPairsTimesAndCoordinatesInOrder() throws {
        let (sink, summary) = try readKML(kml("""
        <Placemark><gx:Track>
          <when>2024-05-01T09:00:00Z</when><when>2024-05-01T09:00:10Z</when>
          <gx:coord>121.49 31.24 5</gx:coord><gx:coord>121.5 31.25</gx:coord>
        </gx:Track></Placemark>
        <Placemark><Track><when>2024-05-01T10:00:00Z</when><coord>1 2 3</coord></Track></Placemark>
        """))
        XCTAssertEqual(sink.events, [
            .segmentBreak,
            .point(TrackPoint(latitude: 31.24, longitude: 121.49, time: Timestamp.parse("2024-05-01T09:00:00Z"), elevation: 5)),
            .point(TrackPoint(latitude: 31.25, longitude: 121.5, time: Timestamp.parse("2024-05-01T09:00:10Z"))),
            .segmentBreak,
            .point(TrackPoint(latitude: 2, longitude: 1, time: Timestamp.parse("2024-05-01T10:00:00Z"), elevation: 3)),
        ])
        XCTAssertEqual(summary.tracks, 2)
    }

    func testTrackCountsThatDifferAreReportedNotTrapped() throws {
        // Three times, two coordinates: two points, and the left-over time is unreadable.
        let moreTimes = try readKML(kml("""
        <Placemark><gx:Track>
        <when>2024-05-01T09:00:00Z</when><when>2024-05-01T09:00:10Z</when><when>2024-05-01T09:00:20Z</when>
        <gx:coord>1 2 0</gx:coord><gx:coord>3 4 0</gx:coord>
        </gx:Track></Placemark>
        """))
        XCTAssertEqual(moreTimes.0.points.map(\.longitude), [1, 3])
        XCTAssertEqual(moreTimes.1.unreadablePoints, 1)
        XCTAssertEqual(moreTimes.0.problems.first?.line, 3)  // the gx:Track's
        XCTAssertTrue(moreTimes.0.problems.first?.reason.hasSuffix("gx:Track: 3 <when> and 2 <gx:coord> elements; a <when> without a <gx:coord>") ?? false)
        // One time, three coordinates: one point, two unreadable coordinates; no times at all.
        let moreCoords = try readKML(kml("""
        <Placemark><gx:Track><when>2024-05-01T09:00:00Z</when><gx:coord>1 2</gx:coord><gx:coord>3 4</gx:coord><gx:coord>5 6</gx:coord></gx:Track></Placemark>
        <Placemark><gx:Track><gx:coord>7 8</gx:coord></gx:Track></Placemark>
        """))
        XCTAssertEqual(moreCoords.0.points.count, 1)
        XCTAssertEqual(moreCoords.1.unreadablePoints, 3)
        XCTAssertTrue(moreCoords.0.problems.allSatisfy { $0.reason.hasSuffix("gx:coord without a <when> to pair with (gx:Track counts differ)") })
        // Bad values: a time that does not parse, a coordinate that is not two or three numbers.
        let bad = try readKML(kml("""
        <Placemark><gx:Track><when>soon</when><when></when><when>2024-05-01T09:00:00Z</when>
        <gx:coord>1 2</gx:coord><gx:coord>3 4</gx:coord><gx:coord>5</gx:coord></gx:Track></Placemark>
        """))
        XCTAssertEqual(bad.0.points, [TrackPoint(latitude: 4, longitude: 3)])
        XCTAssertEqual(bad.1.unreadablePoints, 2)
    }

    func testFixtureTrackDetails() throws {
        let (sink, summary) = try readKML(try fixtures.bytes("handmade-gx-track.kml"))
        XCTAssertEqual(summary.tracks, 3)
        XCTAssertEqual(sink.points[2].time, Timestamp.parse("2024-05-01T09:00:20.500Z"))
        XCTAssertEqual(sink.points[3].time, Timestamp.parse("2024-05-01T09:00:30Z"))  // 17:00:30+08:00
        XCTAssertNil(sink.points[3].elevation)
        XCTAssertEqual(sink.events.first, .annotation(.pin))
    }

    // MARK: Safety

    func testRefusalsNameLineAndByte() {
        func failure(_ text: String) -> InputError? {
            var sink = TrackEventRecorder()
            do { _ = try KMLReader.read(MemorySource(Array(text.utf8)), path: "bad.kml", into: &sink) } catch { return error as? InputError }
            return nil
        }
        XCTAssertEqual(failure("<gpx></gpx>")?.reason, "byte 0: not a KML document: the root element is <gpx>")
        XCTAssertEqual(failure("<kml:kml xmlns:kml=\"http://www.opengis.net/kml/2.2\">\n<Document>")?.reason,
                       "byte 63: the document ends with <Document> and 1 enclosing element(s) still open (truncated?)")
        XCTAssertEqual(failure("<!DOCTYPE kml [<!ENTITY a \"b\">]><kml/>")?.reason.contains("entity expansion is refused"), true)
        XCTAssertEqual(failure("<kml><Placemark><LineString><coordinates>1,2 3,4")?.reason,
                       "byte 48: the document ends with <coordinates> and 3 enclosing element(s) still open (truncated?)")
    }

    func testEveryCutAndDamagedCopyEndsInDeliveredPointsOrAnInputError() throws {
        let bytes = try fixtures.bytes("handmade-gx-track.kml")
        let complete = bytes.offset(of: "</kml>") + 6
        for cut in stride(from: 0, to: complete, by: 5) {
            var sink = TrackEventRecorder()
            XCTAssertThrowsError(try KMLReader.read(MemorySource(Array(bytes[0..<cut])), path: "cut.kml", into: &sink), "cut at \(cut)")
        }
        var generator = SplitMix64(seed: 1003)
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<3 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            var sink = TrackEventRecorder()
            _ = try? KMLReader.read(MemorySource(damaged), path: "damaged.kml", into: &sink)  // returns or throws, never traps
        }
    }

    func testCDATAEntitiesAndCommentsInValues() throws {
        let (sink, _) = try readKML(kml("""
        <Placemark><description><![CDATA[<b>not markup</b>]]></description>
        <LineString><coordinates><!-- start -->1&#44;2 <![CDATA[3,4]]> 5,6&amp;</coordinates></LineString></Placemark>
        """))
        XCTAssertEqual(sink.points.map(\.longitude), [1, 3])
        XCTAssertEqual(sink.problems.count, 1)  // 5,6& is not a tuple
    }
}
