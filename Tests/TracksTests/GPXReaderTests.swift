import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

func readGPX(_ text: String, trickle: Bool = false) throws -> (TrackEventRecorder, GPXReader.Summary) {
    try readGPX(Array(text.utf8), trickle: trickle)
}

func readGPX(_ bytes: [UInt8], trickle: Bool = false) throws -> (TrackEventRecorder, GPXReader.Summary) {
    var sink = TrackEventRecorder()
    let summary = trickle ? try GPXReader.read(FedSource(bytes, feeding: .trickle), path: "t.gpx", into: &sink)
                          : try GPXReader.read(MemorySource(bytes), path: "t.gpx", into: &sink)
    return (sink, summary)
}

/// The error a read throws, and what was delivered before it.
func gpxFailure(_ bytes: [UInt8]) -> (InputError?, TrackEventRecorder) {
    var sink = TrackEventRecorder()
    do {
        try GPXReader.read(MemorySource(bytes), path: "bad.gpx", into: &sink)
        return (nil, sink)
    } catch {
        return (error as? InputError, sink)
    }
}

func gpxFailure(_ text: String) -> (InputError?, TrackEventRecorder) { gpxFailure(Array(text.utf8)) }

func gpx(_ body: String, creator: String = "test") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="\(creator)" xmlns="http://www.topografix.com/GPX/1/1">
    \(body)
    </gpx>
    """
}

final class GPXReaderTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/gpx")

    // MARK: Real files (gpxpy's test suite), against counts made by Python's xml.etree

    func testFixturesMatchAnIndependentParse() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        XCTAssertGreaterThanOrEqual(expected.count, 16)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let path = Self.fixtures.appendingPathComponent(name).path
            var sink = TrackEventRecorder()
            let summary = try GPXReader.read(try FileSource(path: path), path: path, into: &sink)
            XCTAssertEqual(sink.problems, [], name)
            XCTAssertEqual(sink.points.count, facts["points"] as? Int, name)
            XCTAssertEqual(summary.points, sink.points.count, name)
            XCTAssertEqual(sink.breaks, facts["segments"] as? Int, name)
            XCTAssertEqual(summary.segments, facts["segments"] as? Int, name)
            XCTAssertEqual(summary.waypoints, facts["waypoints"] as? Int, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            for (key, point) in [("first", sink.points.first), ("last", sink.points.last)] {
                guard let want = facts[key] as? [String: Any] else {
                    XCTAssertNil(point, name)
                    continue
                }
                let got = try XCTUnwrap(point, "\(name) \(key)")
                XCTAssertEqual(got.latitude, want["lat"] as? Double, "\(name) \(key)")
                XCTAssertEqual(got.longitude, want["lon"] as? Double, "\(name) \(key)")
                XCTAssertEqual(got.time, (want["time"] as? NSNumber)?.int64Value, "\(name) \(key)")
                XCTAssertEqual(got.elevation, want["ele"] as? Double, "\(name) \(key)")
                XCTAssertEqual(got.accuracy, (want["hdop"] as? Double).map { $0 * 5 }, "\(name) \(key)")
            }
        }
    }

    func testFixturesReadTheSameInTinyChunks() throws {
        for name in ["korita-zbevnica.gpx", "gpx1.1_with_all_fields.gpx", "unicode_with_bom.gpx", "gpx-with-node-with-comments.gpx"] {
            let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            let whole = try readGPX(bytes)
            let trickled = try readGPX(bytes, trickle: true)
            XCTAssertEqual(whole.0.events, trickled.0.events, name)
            XCTAssertEqual(whole.1, trickled.1, name)
        }
    }

    func testFixtureDetails() throws {
        // NikePlus writes lon before lat and local times with an offset and milliseconds.
        let nike = try readGPX(Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("track-with-less-sec-time.gpx")))).0.points
        XCTAssertEqual(nike.map(\.time), [Timestamp.parse("2015-12-11T14:43:13Z"), Timestamp.parse("2015-12-11T14:43:13.994Z")])
        // Ultra GPS Logger: a CDATA name and a comment after the point.
        let ultra = try readGPX(Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("gpx-with-node-with-comments.gpx")))).0.points
        XCTAssertEqual(ultra, [TrackPoint(latitude: 51.519402, longitude: -0.134462, time: Timestamp.parse("2014-05-06T12:29:33Z"), elevation: 81)])
    }

    // MARK: Mapping

    func testAttributesInAnyOrderQuotingAndSpacing() throws {
        let (sink, _) = try readGPX(gpx("""
        <trk><trkseg>
        <trkpt lat="1.5" lon="2.5"/>
        <trkpt lon='4.5' lat='3.5'></trkpt>
        <trkpt
            lon = "6.5"
            lat	=	"5.5" ><ele> 12.5 </ele></trkpt>
        </trkseg></trk>
        """))
        XCTAssertEqual(sink.points.map { [$0.latitude, $0.longitude] }, [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]])
        XCTAssertEqual(sink.points.last?.elevation, 12.5)
    }

    func testPrefixedNamesSegmentsRoutesAndWaypoints() throws {
        let text = """
        <?xml version="1.0"?>
        <g:gpx xmlns:g="http://www.topografix.com/GPX/1/0" version="1.0">
        <g:wpt lat="9" lon="9"><g:time>2020-01-01T00:00:00Z</g:time></g:wpt>
        <g:trk><g:trkseg><g:trkpt lat="1" lon="1"><g:time>2020-01-01T00:00:01Z</g:time></g:trkpt></g:trkseg>
        <g:trkseg><g:trkpt lat="2" lon="2"/></g:trkseg></g:trk>
        <g:rte><g:rtept lat="3" lon="3"/><g:rtept lat="4" lon="4"/></g:rte>
        </g:gpx>
        """
        let (sink, summary) = try readGPX(text)
        let p = { (lat: Double) in TrackEventRecorder.Event.point(TrackPoint(latitude: lat, longitude: lat)) }
        XCTAssertEqual(sink.events, [
            .annotation(.pin),
            .segmentBreak, .point(TrackPoint(latitude: 1, longitude: 1, time: 1_577_836_801_000)),
            .segmentBreak, p(2),
            .segmentBreak, .annotation(.route), p(3), p(4),
        ])
        XCTAssertEqual(summary.waypoints, 1)
        XCTAssertEqual(summary.segments, 3)
    }

    func testAccuracyMapping() throws {
        let body = """
        <trk><trkseg>
        <trkpt lat="1" lon="1"><hdop>1.6</hdop></trkpt>
        <trkpt lat="1" lon="1"><hdop>1.6</hdop><extensions><ot:accuracy_horizontal>4</ot:accuracy_horizontal></extensions></trkpt>
        <trkpt lat="1" lon="1"><extensions><x:TrackPointExtension><x:hAcc>7.5</x:hAcc></x:TrackPointExtension></extensions></trkpt>
        <trkpt lat="1" lon="1"><extensions><e:horaccur>10</e:horaccur></extensions></trkpt>
        <trkpt lat="1" lon="1"><accuracy>12</accuracy></trkpt>
        <trkpt lat="1" lon="1"><extensions><vdop>3</vdop></extensions></trkpt>
        </trkseg></trk>
        """
        XCTAssertEqual(try readGPX(gpx(body)).0.points.map(\.accuracy), [8, 4, 7.5, 10, 12, nil])
        // OsmAnd and Locus write Android's accuracy (metres) in <hdop>.
        XCTAssertEqual(try readGPX(gpx(body, creator: "OsmAnd~ 4.6.10")).0.points.first?.accuracy, 1.6)
        XCTAssertEqual(try readGPX(gpx(body, creator: "Locus Map, Android")).0.points.first?.accuracy, 1.6)
    }

    func testValuesWithEntitiesCDATACommentsAndSpaces() throws {
        let (sink, _) = try readGPX(gpx("""
        <trk><trkseg>
        <trkpt lat="&#52;5.5" lon="1"><time><![CDATA[2020-01-01T00:00:00Z]]></time></trkpt>
        <trkpt lat="1" lon="1"><time>
            2020-01-01T00:00:02Z
        </time><!-- <trkpt lat="0" lon="0"/> --><ele><!-- none --></ele><name>a &amp; b &lt;c&gt;</name></trkpt>
        </trkseg></trk>
        """))
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 45.5, longitude: 1, time: 1_577_836_800_000),
            TrackPoint(latitude: 1, longitude: 1, time: 1_577_836_802_000),
        ])
    }

    func testBadPointsAreReportedWithTheirLineAndReadingContinues() throws {
        let (sink, summary) = try readGPX(gpx("""
        <trk><trkseg>
        <trkpt lat="abc" lon="1"/>
        <trkpt lon="1"/>
        <trkpt lat="1" lon="2"><time>yesterday</time></trkpt>
        <trkpt lat="1" lon="2"><hdop>-1</hdop></trkpt>
        <trkpt lat="1" lon="2"><ele>high</ele></trkpt>
        <trkpt lat="95" lon="200"><time></time><ele/></trkpt>
        </trkseg></trk>
        """))
        XCTAssertEqual(sink.problems, [
            InputError(path: "t.gpx", line: 4, reason: "lat 'abc' is not a number"),
            InputError(path: "t.gpx", line: 5, reason: "point without a lat attribute"),
            InputError(path: "t.gpx", line: 6, reason: "<time> 'yesterday' is not an ISO-8601 time"),
            InputError(path: "t.gpx", line: 7, reason: "<hdop> '-1' is not a non-negative number"),
            InputError(path: "t.gpx", line: 8, reason: "<ele> 'high' is not a number"),
        ])
        // Out of range is delivered as read: the pipeline's range filter counts it.
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 95, longitude: 200)])
        XCTAssertEqual(summary.unreadablePoints, 5)
        XCTAssertEqual(summary.points, 1)
    }

    // MARK: Bad files

    func assertFails(_ bytes: [UInt8], line: Int?, _ reason: String, points: Int = 0,
                     file: StaticString = #filePath, sourceLine: UInt = #line) {
        let (error, sink) = gpxFailure(bytes)
        guard let error else { return XCTFail("no error", file: file, line: sourceLine) }
        XCTAssertEqual(error.path, "bad.gpx", file: file, line: sourceLine)
        XCTAssertEqual(error.line, line, "\(error)", file: file, line: sourceLine)
        XCTAssertTrue(error.reason.contains(reason), "\(error)", file: file, line: sourceLine)
        XCTAssertEqual(sink.points.count, points, file: file, line: sourceLine)
    }

    func assertFails(_ text: String, line: Int?, _ reason: String, points: Int = 0,
                     file: StaticString = #filePath, sourceLine: UInt = #line) {
        assertFails(Array(text.utf8), line: line, reason, points: points, file: file, sourceLine: sourceLine)
    }

    func testTruncatedFileKeepsThePointsBeforeTheCut() throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("korita-zbevnica.gpx")))
        let cut = Array(bytes[..<(bytes.count / 2)])
        let lines = cut.filter { $0 == 10 }.count + 1
        let (error, sink) = gpxFailure(cut)
        XCTAssertEqual(error?.line, lines)
        XCTAssertTrue(error?.reason.contains("truncated") == true, "\(String(describing: error))")
        // Every complete point before the cut was delivered.
        let text = String(decoding: cut, as: UTF8.self)
        let complete = text.components(separatedBy: "</trkpt>").count + text.components(separatedBy: "</rtept>").count - 2
        XCTAssertEqual(sink.points.count, complete)
        XCTAssertGreaterThan(complete, 300)

        assertFails("<gpx>\n<trk>\n<trkseg><trkpt lat=\"1\" lon=\"1\"/>", line: 3, "still open", points: 1)
        assertFails("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"><time>2020-01", line: 1, "truncated")
        assertFails("<gpx><!-- comment", line: 1, "truncated")
    }

    func testNotXMLBinaryAndWrongDocuments() {
        assertFails("lat,lon\n1,2\n", line: 1, "not an XML document")
        assertFails("", line: 1, "empty or not XML")
        assertFails("<?xml version=\"1.0\"?>\n<kml><Document/></kml>", line: 2, "root element is <kml>")
        assertFails([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0xCD], line: 1, "not an XML document")
        assertFails(Array("<gpx>\n<trk>".utf8) + [0x00, 0x01, 0xFF, 0xFE] + Array("</trk></gpx>".utf8), line: 2, "byte 0x0 is not allowed")
        assertFails("<gpx>\n<trk></trkseg></gpx>", line: 2, "does not close <trk>")
        assertFails("<gpx></gpx>\n<gpx></gpx>", line: 2, "second root element")
        assertFails("<gpx></gpx>\ntrailing", line: 2, "text after the end")
        assertFails("<gpx><trkpt lat=\"1\" lon=\"1\"></gpx>", line: 1, "does not close <trkpt>")
        assertFails("<gpx><trkpt lat=1 lon=2/></gpx>", line: 1, "not quoted")
        assertFails("<gpx><trkpt lat=\"1\"lon=\"2\"/></gpx>", line: 1, "not separated")
    }

    func testUTF16IsRefusedClearly() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><gpx/>"
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        assertFails(utf16, line: 1, "UTF-16")
        assertFails(Array(utf16.dropFirst(2)), line: 1, "UTF-16")
        assertFails(text, line: 1, "encoding 'utf-16'")
    }

    func testByteOrderMarkIsSkipped() throws {
        let (sink, _) = try readGPX([0xEF, 0xBB, 0xBF] + Array(gpx("<rte><rtept lat=\"1\" lon=\"2\"/></rte>").utf8))
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 1, longitude: 2)])
    }

    func testEntityDeclarationsAreRefused() {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [
          <!ENTITY lol "lol">
          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
        ]>
        <gpx><trk><trkseg><trkpt lat="1" lon="1"><name>&lol3;</name></trkpt></trkseg></trk></gpx>
        """
        assertFails(laughs, line: 3, "declares entities")
        let external = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>
        <gpx><wpt lat="1" lon="1"><name>&x;</name></wpt></gpx>
        """
        assertFails(external, line: 2, "declares entities")
    }

    func testHarmlessDoctypeIsAcceptedAndUndeclaredEntitiesSpoilOnlyTheirPoint() throws {
        let (sink, _) = try readGPX("""
        <?xml version="1.0"?>
        <!DOCTYPE gpx SYSTEM "gpx.dtd" [ <!-- nothing declared --> ]>
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>&x;</time></trkpt>
        <trkpt lat="2" lon="2"/>
        </trkseg></trk></gpx>
        """)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 2, longitude: 2)])
        XCTAssertEqual(sink.problems.map(\.line), [4])
    }

    func testDeepNestingIsRefused() {
        let depth = GPXReader.maximumDepth + 10
        let text = "<gpx>\n" + String(repeating: "<e>", count: depth) + String(repeating: "</e>", count: depth) + "</gpx>"
        assertFails(text, line: 2, "nested deeper than \(GPXReader.maximumDepth)")
        // Exactly at the limit is fine.
        let ok = "<gpx>" + String(repeating: "<e>", count: GPXReader.maximumDepth - 1) + String(repeating: "</e>", count: GPXReader.maximumDepth - 1) + "</gpx>"
        XCTAssertNoThrow(try readGPX(ok))
    }

    func testHugeTokensAreRefusedButLongTextIsNot() throws {
        let huge = String(repeating: "x", count: GPXReader.maximumTokenLength + 10)
        assertFails("<gpx>\n<trk>\n<trkpt lat=\"1\" lon=\"1\" junk=\"\(huge)\"/></trk></gpx>", line: 3, "longer than")
        assertFails("<gpx>\n<!-- \(huge) --></gpx>", line: 2, "longer than")
        // A long description is skipped, not held.
        let (sink, _) = try readGPX(gpx("<trk><desc>\(huge)</desc><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk>"))
        XCTAssertEqual(sink.points.count, 1)
        // An over-long value spoils its point only.
        let long = String(repeating: "1", count: 200)
        let (bad, _) = try readGPX(gpx("<trk><trkseg><trkpt lat=\"1\" lon=\"1\"><time>\(long)</time></trkpt></trkseg></trk>"))
        XCTAssertEqual(bad.problems.map(\.reason), ["<time> value longer than 128 bytes"])
    }

    /// Every prefix of a real file, and thousands of damaged copies, either read or fail with an
    /// error naming the file: never a crash, a hang or a point invented from nothing.
    func testCutAndDamagedFilesNeverCrash() throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("gpx1.1_with_all_fields.gpx")))
        let complete = try readGPX(bytes).0.points.count
        for cut in 0..<bytes.count {
            let (error, sink) = gpxFailure(Array(bytes[..<cut]))
            if error == nil {
                XCTAssertEqual(sink.points.count, complete, "cut at \(cut) read without error")
            }
            XCTAssertLessThanOrEqual(sink.points.count, complete)
        }
        var seed: UInt64 = 20_261_130  // a fixed linear congruential sequence: reproducible
        for _ in 0..<3000 {
            var damaged = bytes
            for _ in 0..<1 + Int(seed % 4) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let at = Int(seed >> 33) % damaged.count
                damaged[at] = UInt8(truncatingIfNeeded: seed >> 20)
            }
            let (error, sink) = gpxFailure(damaged)
            if let error { XCTAssertEqual(error.path, "bad.gpx") }
            XCTAssertLessThanOrEqual(sink.points.count + sink.problems.count, complete + 2)
        }
    }

    func testLineNumbersSurviveBufferRefills() throws {
        // Points far apart, so the buffer is refilled between them.
        var text = "<gpx><trk><trkseg>\n"
        var lines = 1
        var expected: [Int] = []
        for k in 0..<40 {
            text += String(repeating: "<!-- filler filler filler filler -->\n", count: 1000)
            lines += 1000
            text += "<trkpt lat=\"x\(k)\" lon=\"1\"/>\n"
            lines += 1
            expected.append(lines)
        }
        text += "</trkseg></trk></gpx>\n"
        let (sink, _) = try readGPX(text)
        XCTAssertEqual(sink.problems.map(\.line), expected)
    }
    // MARK: Fast paths

    /// The parser reads common point tags through fast paths; with and without them, whole and
    /// in 7-byte reads, it must deliver the same points, problems, summary and error.
    private func assertFastPathsChangeNothing(_ bytes: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        func run(fast: Bool, trickle: Bool) -> (events: [TrackEventRecorder.Event], summary: GPXReader.Summary?, error: InputError?) {
            var sink = TrackEventRecorder()
            do {
                let summary = trickle ? try GPXReader.read(FedSource(bytes, feeding: .trickle), path: "f.gpx", into: &sink, fastPaths: fast)
                                      : try GPXReader.read(MemorySource(bytes), path: "f.gpx", into: &sink, fastPaths: fast)
                return (sink.events, summary, nil)
            } catch {
                return (sink.events, nil, error as? InputError)
            }
        }
        for trickle in [false, true] {
            let general = run(fast: false, trickle: trickle), fast = run(fast: true, trickle: trickle)
            XCTAssertEqual(fast.events, general.events, "\(name), trickle \(trickle)", file: file, line: line)
            XCTAssertEqual(fast.summary, general.summary, "\(name), trickle \(trickle)", file: file, line: line)
            XCTAssertEqual(fast.error, general.error, "\(name), trickle \(trickle)", file: file, line: line)
        }
    }

    static let pointVariants = gpx("""
    <trk><trkseg>
    <trkpt lat="39.9" lon="116.4"><ele>43.5</ele><time>2024-03-01T00:00:00Z</time><hdop>1.5</hdop></trkpt>
    <rtept lat='1' lon='2'><time>2024-03-01T00:00:00.123Z</time></rtept>
    <trkpt lon="116.4"  lat="39.9" x="a&amp;b"><ele> 43.5 </ele><time>2024-02-30T00:00:00Z</time></trkpt>
    <trkpt lat=" 39.9" lon="1e2"><ele>1e400</ele></trkpt>
    <trkpt lat="39.9" lon="116.4" lat="40"><ele></ele><hdop>-1</hdop></trkpt>
    <trkpt lat="39.9" lon="116.4" ><time>2016-12-31T23:59:60Z</time><ele>12<!-- c -->3</ele></trkpt>
    <gpx:trkpt lat="1" lon="2"><gpx:ele>3</gpx:ele></gpx:trkpt>
    <trkpt lat="1" lon="2"><ele>1</ele ><time>2024-03-01T00:00:00Z</time ><time>2024-03-01T00:00:01Z</time></trkpt>
    <trkpt lat="1" lon="2"><ELE>1</ELE><extensions><hacc>3</hacc></extensions><ele>&#52;</ele></trkpt>
    <trkpt lat="1" lon="2"><ele>1</ele><ele>x</ele><ele>2</ele></trkpt>
    <trkpt lat="1" lon="2"><time>2024-03-01 00:00:00+08:00</time><hdop>0</hdop><hdop>7</hdop></trkpt>
    <trkpt lat="1" lon="2"><time>\(String(repeating: "1", count: 140))</time></trkpt>
    <trkpt lat="1" lon="2"><time>2024-03-01T00:00:00.\(String(repeating: "1", count: 120))Z</time></trkpt>
    <trkpt lat="1" lon="2"/><trkpt lat="1" lon="2"></trkpt><trkpt lat="1"><ele>1</ele></trkpt>
    <trkpt lat="-0" lon="+7"><ele>-12.25e1</ele><hdop>.5</hdop><time>2024-13-01T00:00:00Z</time></trkpt>
    <trkpt lat="1" lon="2"><sat>4</sat><time>2024-03-01T00:00:00Z<![CDATA[]]></time><wpt/></trkpt>
    <trkpt lat="1" lon="2"><trkpt lat="3" lon="4"><ele>5</ele></trkpt><ele>6</ele></trkpt>
    <trkpt lat="1" lon="2"><time>2024-03-01T00<!-- c -->:00:00Z</time></trkpt>	
     <trkpt lat="1" lon="2"><time>2024-03-01T00:00:00Z<b/></time></trkpt>junk<trkpt lat="1" lon="2"><time>2024-03-01T00:00:00,123Z</time></trkpt>
    <trkpt lat="1" lon="2"><time>2024-02-29T23:59:59Z</time></trkpt><trkpt lat="1" lon="2"><time>2024-02-30T23:00:00Z</time></trkpt>
    <trkpt lat="1" lon="2"><time>2024-03-01T00:00:00.12</time></trkpt><trkpt lat="1" lon="2"><time>2024-03-01T00:00:0Z</time></trkpt>
    </trkseg></trk>
    <wpt lat="1" lon="2"><ele>3</ele></wpt>
    """)

    func testFastPathsReadAsTheGeneralPathDoes() throws {
        let variants = Array(Self.pointVariants.utf8)
        assertFastPathsChangeNothing(variants, "variants")
        XCTAssertGreaterThan(try readGPX(variants).0.points.count, 5)
        for fixture in ["gpx1.1_with_all_fields.gpx", "korita-zbevnica.gpx"] {
            assertFastPathsChangeNothing(Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(fixture))), fixture)
        }
        // Errors the fast paths must leave to the general path, and nesting at the depth limit.
        let deep = String(repeating: "<e>", count: GPXReader.maximumDepth - 2)
        for (k, text) in [
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>1</elev></trkpt></trkseg></trk></gpx>",
            "<gpx><trk><trkseg><trkpt lat=\"1\"lon=\"2\"></trkpt></trkseg></trk></gpx>",
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>1\u{1}</ele></trkpt></trkseg></trk></gpx>",
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2<\"></trkpt></trkseg></trk></gpx>",
            "<trkpt lat=\"1\" lon=\"2\"><ele>1</ele></trkpt>",
            "<gpx>\(deep)<trkpt lat=\"1\" lon=\"2\"></trkpt><trkpt lat=\"1\" lon=\"2\"><ele>1</ele></trkpt></gpx>",
            "<gpx>\(deep)<e><trkpt lat=\"1\" lon=\"2\"></trkpt></e></gpx>",
        ].enumerated() {
            assertFastPathsChangeNothing(Array(text.utf8), "case \(k)")
        }
        // Every cut, and damaged copies with bytes from XML's own alphabet.
        for cut in stride(from: 0, to: variants.count, by: 3) {
            assertFastPathsChangeNothing(Array(variants[..<cut]), "cut at \(cut)")
        }
        let alphabet = Array("<>/=\"' &;#!-.:\n\t1e9Zlatonhp\u{1}".utf8)
        var seed: UInt64 = 20_261_130
        for round in 0..<1500 {
            var damaged = variants
            for _ in 0..<1 + Int(seed % 3) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                damaged[Int(seed >> 33) % damaged.count] = alphabet[Int(seed >> 20) % alphabet.count]
            }
            assertFastPathsChangeNothing(damaged, "damaged copy \(round)")
        }
    }
}
