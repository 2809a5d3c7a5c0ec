import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

func readTCX(_ text: String, trickle: Bool = false) throws -> (TrackEventRecorder, TCXReader.Summary) {
    try readTCX(Array(text.utf8), trickle: trickle)
}

func readTCX(_ bytes: [UInt8], trickle: Bool = false) throws -> (TrackEventRecorder, TCXReader.Summary) {
    var sink = TrackEventRecorder()
    let summary = trickle ? try TCXReader.read(FedSource(bytes, feeding: .trickle), path: "t.tcx", into: &sink)
                          : try TCXReader.read(MemorySource(bytes), path: "t.tcx", into: &sink)
    return (sink, summary)
}

func tcxFailure(_ text: String) -> (InputError?, TrackEventRecorder) {
    tcxFailure(Array(text.utf8))
}

func tcxFailure(_ bytes: [UInt8]) -> (InputError?, TrackEventRecorder) {
    failure { sink in _ = try TCXReader.read(MemorySource(bytes), path: "bad.tcx", into: &sink) }
}

func tcx(_ trackpoints: String, sport: String = "Biking") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
      <Activities><Activity Sport="\(sport)"><Id>2024-01-01T00:00:00Z</Id>
        <Lap StartTime="2024-01-01T00:00:00Z"><Track>
    \(trackpoints)
        </Track></Lap>
      </Activity></Activities>
    </TrainingCenterDatabase>
    """
}

final class TCXReaderTests: XCTestCase {
    let fixtures = FixtureSet("tcx")

    // MARK: Real files, against python-tcxparser and lxml

    func testFixturesMatchAnIndependentDecoder() throws {
        let expected = try fixtures.expected()
        XCTAssertGreaterThanOrEqual(expected.count, 11)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            var sink = TrackEventRecorder()
            let summary = try TCXReader.read(try FileSource(path: fixtures.path(name)), path: name, into: &sink)
            XCTAssertEqual(sink.problems, [], name)
            XCTAssertEqual(sink.points.count, facts["points"] as? Int, name)
            XCTAssertEqual(summary.points, sink.points.count, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            XCTAssertEqual(sink.breaks, facts["segments"] as? Int, name)
            XCTAssertEqual(summary.segments, facts["segments"] as? Int, name)
            XCTAssertEqual(summary.trackpointsWithoutPosition, facts["trackpointsWithoutPosition"] as? Int, name)
            XCTAssertEqual(summary.coursePoints, facts["coursePoints"] as? Int, name)
            XCTAssertEqual(sink.pins, facts["coursePoints"] as? Int, name)
            let sports = sink.annotations.compactMap { if case let .activityType(s) = $0 { return s } else { return nil } }
            XCTAssertEqual(sports, facts["activityTypes"] as? [String], name)
            let creators = sink.annotations.compactMap { if case let .creator(s) = $0 { return s } else { return nil } }
            XCTAssertEqual(creators, facts["creators"] as? [String], name)
            assertPoint(sink.points.first, facts["first"], "\(name) first")
            assertPoint(sink.points.last, facts["last"], "\(name) last")
        }
    }

    func testFixturesReadTheSameInTinyChunks() throws {
        for name in ["sample.tcx", "handmade-strava-leading-spaces.tcx", "handmade-course.tcx", "tcx_with_milliseconds.tcx"] {
            let bytes = try fixtures.bytes(name)
            let whole = try readTCX(bytes)
            let trickled = try readTCX(bytes, trickle: true)
            XCTAssertEqual(whole.0.events, trickled.0.events, name)
            XCTAssertEqual(whole.1, trickled.1, name)
        }
    }

    // MARK: Mapping

    func testTrackpointsSegmentsAndAnnotations() throws {
        let (sink, summary) = try readTCX(tcx("""
        <Trackpoint><Time>2024-01-01T00:00:00Z</Time>
          <Position><LatitudeDegrees>39.5</LatitudeDegrees><LongitudeDegrees>116.25</LongitudeDegrees></Position>
          <AltitudeMeters>50.5</AltitudeMeters></Trackpoint>
        <Trackpoint><Time>2024-01-01T00:00:01Z</Time><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>
        <Trackpoint>
          <Position><LongitudeDegrees> 116.5 </LongitudeDegrees><LatitudeDegrees>&#51;9.75</LatitudeDegrees></Position>
        </Trackpoint>
        """, sport: "Running"))
        XCTAssertEqual(sink.events, [
            .annotation(.activityType("Running")), .segmentBreak, .segmentBreak,
            .point(TrackPoint(latitude: 39.5, longitude: 116.25, time: Timestamp.parse("2024-01-01T00:00:00Z"), elevation: 50.5)),
            .point(TrackPoint(latitude: 39.75, longitude: 116.5)),
        ])
        XCTAssertEqual(summary.trackpointsWithoutPosition, 1)
    }

    func testCoursesAreUntimedSegmentsAndCoursePointsArePins() throws {
        let (sink, summary) = try readTCX(try fixtures.bytes("handmade-course.tcx"))
        XCTAssertEqual(sink.points.map(\.time), [nil, nil, nil])
        XCTAssertEqual(sink.points.map(\.elevation), [8, 9.5, 7])
        XCTAssertEqual(summary.coursePoints, 1)
        // Course, its Lap and its Track each open a segment; the Lap's Begin/EndPosition are not points.
        XCTAssertEqual(Array(sink.events.prefix(3)), [.segmentBreak, .segmentBreak, .segmentBreak])
        XCTAssertEqual(sink.events.last, .annotation(.pin))
    }

    func testBadTrackpointsAreUnreadableWithLineAndByteAndReadingGoesOn() throws {
        let text = tcx("""
        <Trackpoint><Time>yesterday</Time><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>
        <Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees></Position></Trackpoint>
        <Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>east</LongitudeDegrees></Position></Trackpoint>
        <Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>&bogus;2</LongitudeDegrees></Position></Trackpoint>
        <Trackpoint><Position><LatitudeDegrees>3</LatitudeDegrees><LongitudeDegrees>4</LongitudeDegrees></Position></Trackpoint>
        """)
        let (sink, summary) = try readTCX(text)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 3, longitude: 4)])
        XCTAssertEqual(summary.unreadablePoints, 4)
        XCTAssertEqual(sink.problems.map(\.line), [5, 6, 7, 8])
        let offset = Array(text.utf8).offset(of: "<Trackpoint><Time>yesterday")
        XCTAssertEqual(sink.problems[0].reason, "byte \(offset): Trackpoint: <Time> 'yesterday' is not an ISO-8601 time")
        XCTAssertTrue(sink.problems[1].reason.hasSuffix("<Position> without LongitudeDegrees"), sink.problems[1].reason)
        XCTAssertTrue(sink.problems[2].reason.hasSuffix("<LongitudeDegrees> 'east' is not a number"), sink.problems[2].reason)
    }

    // MARK: The scanner's safety (shared with KML)

    func testTruncatedDocumentNamesLineAndByteAndKeepsThePointsBefore() {
        let text = tcx("""
        <Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>
        <Trackpoint><Position><LatitudeDegrees>3</LatitudeDegrees><LongitudeDe
        """)
        let bytes = Array(Array(text.utf8).prefix(Array(text.utf8).offset(of: "3</LatitudeDegrees><LongitudeDe") + "3</LatitudeDegrees><LongitudeDe".utf8.count))
        let (error, sink) = tcxFailure(bytes)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 1, longitude: 2)])
        XCTAssertEqual(error?.path, "bad.tcx")
        XCTAssertEqual(error?.line, 6)
        let cut = bytes.count - "<LongitudeDe".utf8.count
        XCTAssertEqual(error?.reason, "byte \(cut): the document ends inside a tag, comment or declaration (truncated?)")

        let (open, _) = tcxFailure("<TrainingCenterDatabase><Activities>\n")
        XCTAssertEqual(open?.line, 2)
        XCTAssertEqual(open?.reason, "byte 37: the document ends with <Activities> and 1 enclosing element(s) still open (truncated?)")
    }

    func testWrongDocumentsAndEncodingsAreRefused() {
        XCTAssertEqual(tcxFailure("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"></gpx>").0?.reason,
                       "byte 22: not a TCX document: the root element is <gpx>")
        XCTAssertEqual(tcxFailure("").0?.reason, "byte 0: no <TrainingCenterDatabase> element: the file is empty or not XML")
        XCTAssertEqual(tcxFailure("lat,lon\n1,2\n").0?.reason, "byte 0: not an XML document: 'lat,lon' before the first element")
        XCTAssertEqual(tcxFailure([0xFF, 0xFE] + Array("<T".utf8).flatMap { [$0, 0] }).0?.reason,
                       "byte 0: the file is UTF-16 or UTF-32 encoded; TCX is read as UTF-8 (re-save it as UTF-8)")
        XCTAssertEqual(tcxFailure("  \0<\0T\0").0?.line, 1)
        XCTAssertTrue(tcxFailure("<?xml version=\"1.0\" encoding=\"UTF-16\"?><TrainingCenterDatabase/>").0?.reason.contains("declared encoding 'utf-16'") ?? false)
        XCTAssertTrue(tcxFailure("<TrainingCenterDatabase>\u{1}</TrainingCenterDatabase>").0?.reason.contains("byte 0x1 is not allowed") ?? false)
        XCTAssertTrue(tcxFailure("<TrainingCenterDatabase/><TrainingCenterDatabase/>").0?.reason.contains("a second root element") ?? false)
        XCTAssertTrue(tcxFailure("<TrainingCenterDatabase><a></b></TrainingCenterDatabase>").0?.reason.contains("'</b>' does not close <a>") ?? false)
        XCTAssertTrue(tcxFailure("<TrainingCenterDatabase><a x=1/></TrainingCenterDatabase>").0?.reason.contains("unquoted attribute") ?? false)
    }

    func testEntityDeclarationsAreRefusedAndNeverExpanded() {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        ]>
        <TrainingCenterDatabase>&lol2;</TrainingCenterDatabase>
        """
        let (error, _) = tcxFailure(laughs)
        XCTAssertEqual(error?.line, 3)
        XCTAssertTrue(error?.reason.contains("entity expansion is refused") ?? false)
        let external = "<!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><TrainingCenterDatabase>&xxe;</TrainingCenterDatabase>"
        XCTAssertTrue(tcxFailure(external).0?.reason.contains("entity expansion is refused") ?? false)
        // A DOCTYPE without entities is harmless.
        XCTAssertNoThrow(try readTCX("<!DOCTYPE TrainingCenterDatabase SYSTEM \"tcx.dtd\"><TrainingCenterDatabase/>"))
    }

    func testDepthAndTokenLimits() throws {
        let deep = "<TrainingCenterDatabase>" + String(repeating: "<a>", count: XMLScanner.maximumDepth) + "</TrainingCenterDatabase>"
        let (error, _) = tcxFailure(deep)
        XCTAssertTrue(error?.reason.hasSuffix("elements nested deeper than \(XMLScanner.maximumDepth)") ?? false, "\(String(describing: error))")
        let hugeComment = "<TrainingCenterDatabase><!--" + String(repeating: "x", count: XMLScanner.maximumTokenLength + 10) + "--></TrainingCenterDatabase>"
        XCTAssertTrue(tcxFailure(hugeComment).0?.reason.contains("longer than \(XMLScanner.maximumTokenLength) bytes") ?? false)
        let hugeAttribute = "<TrainingCenterDatabase a=\"" + String(repeating: "x", count: XMLScanner.maximumTokenLength + 10) + "\"/>"
        XCTAssertTrue(tcxFailure(hugeAttribute).0?.reason.contains("longer than \(XMLScanner.maximumTokenLength) bytes") ?? false)
        let longName = "<TrainingCenterDatabase><" + String(repeating: "n", count: 300) + "/></TrainingCenterDatabase>"
        XCTAssertTrue(tcxFailure(longName).0?.reason.contains("an element name longer than") ?? false)
        // Text that is not read may be any length; a value read that is too long spoils its point.
        let longNotes = tcx("<Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position><Notes>"
                            + String(repeating: "y", count: 3 * XMLScanner.maximumTokenLength) + "</Notes></Trackpoint>")
        XCTAssertEqual(try readTCX(longNotes).0.points, [TrackPoint(latitude: 1, longitude: 2)])
        let longValue = tcx("<Trackpoint><Position><LatitudeDegrees>1" + String(repeating: "0", count: 300) + "</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>")
        XCTAssertTrue(try readTCX(longValue).0.problems.first?.reason.contains("value longer than") ?? false)
    }

    func testEveryCutAndDamagedCopyEndsInDeliveredPointsOrAnInputError() throws {
        let bytes = try fixtures.bytes("handmade-strava-leading-spaces.tcx")
        for cut in stride(from: 0, to: bytes.offset(of: "</TrainingCenterDatabase>") + 24, by: 3) {
            let (error, _) = tcxFailure(Array(bytes[0..<cut]))
            XCTAssertNotNil(error, "cut at \(cut) read without an error")
        }
        var generator = SplitMix64(seed: 1005)
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<3 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = tcxFailure(damaged)  // must return, never trap
        }
    }
}

extension Array where Element == UInt8 {
    /// The offset of the first occurrence of `marker` (test helper; -1 when absent).
    func offset(of marker: String) -> Int {
        let needle = Array(marker.utf8)
        for start in 0...(count - needle.count) where Array(self[start..<(start + needle.count)]) == needle { return start }
        return -1
    }
}
