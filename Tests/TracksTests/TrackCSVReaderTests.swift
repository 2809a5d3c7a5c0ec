import XCTest
@testable import Tracks

final class TrackCSVReaderTests: XCTestCase {
    func read(_ text: String) throws -> (RecordingSink, TrackCSVReader.Summary) {
        var sink = RecordingSink()
        let summary = try TrackCSVReader.read(TrickleSource(bytes: Array(text.utf8)), path: "t.csv", into: &sink)
        return (sink, summary)
    }

    func testPositionalColumnsWithoutHeader() throws {
        let (sink, summary) = try read("39.9,116.4\n39.91, 116.41 ,2024-03-01T08:30:15Z\n39.92,116.42,1709281815,12.5\n\n39.93,116.43,,7\n")
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 39.9, longitude: 116.4),
            TrackPoint(latitude: 39.91, longitude: 116.41, time: 1_709_281_815_000),
            TrackPoint(latitude: 39.92, longitude: 116.42, time: 1_709_281_815_000, accuracy: 12.5),
            TrackPoint(latitude: 39.93, longitude: 116.43, accuracy: 7),
        ])
        XCTAssertFalse(summary.hasHeader)
        XCTAssertEqual(sink.breaks, 0)
    }

    func testHeaderNamesInAnyOrderAndCase() throws {
        let text = "\u{FEFF}Time,Accuracy,Name,LNG,Latitude,Altitude\n2024-03-01 08:30:15+00:00,5,home,116.4,39.9,44\n1709281816000,,x,116.5,40.0,\n"
        let (sink, summary) = try read(text)
        XCTAssertTrue(summary.hasHeader)
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 39.9, longitude: 116.4, time: 1_709_281_815_000, accuracy: 5, elevation: 44),
            TrackPoint(latitude: 40.0, longitude: 116.5, time: 1_709_281_816_000),
        ])
    }

    func testEpochSecondsAndMillisecondsAreToldApartByMagnitude() {
        func epoch(_ text: String) -> Int64? { Array(text.utf8).withUnsafeBytes { TrackCSVReader.epochMilliseconds($0) } }
        XCTAssertEqual(epoch("1709281815"), 1_709_281_815_000)
        XCTAssertEqual(epoch("1709281815.25"), 1_709_281_815_250)
        XCTAssertEqual(epoch("1709281815250"), 1_709_281_815_250)
        XCTAssertEqual(epoch("99999999999"), 99_999_999_999_000)       // just below 10¹¹: seconds (year 5138)
        XCTAssertEqual(epoch("100000000000"), 100_000_000_000)         // 10¹¹: milliseconds (March 1973)
        XCTAssertEqual(epoch("-86400"), -86_400_000)
        XCTAssertNil(epoch("1e9"))
        XCTAssertNil(epoch("12:00"))
        XCTAssertNil(epoch("99999999999999999"))
    }

    func testBadLinesAreReportedWithTheirNumbersAndReadingContinues() throws {
        let (sink, summary) = try read("lat,lon,time,accuracy\n1,2\nabc,2\n3\n4,5,noon\n6,7,,-3\n95,200\n8,9\n")
        XCTAssertEqual(sink.problems, [
            InputError(path: "t.csv", line: 3, reason: "latitude 'abc' is not a number"),
            InputError(path: "t.csv", line: 4, reason: "no longitude (expected 'lat,lon[,time][,accuracy]')"),
            InputError(path: "t.csv", line: 5, reason: "time 'noon' is neither ISO-8601 nor epoch seconds or milliseconds"),
            InputError(path: "t.csv", line: 6, reason: "accuracy '-3' is not a non-negative number"),
        ])
        // Out of range is delivered as read; the pipeline's range filter counts it.
        XCTAssertEqual(sink.points.map { [$0.latitude, $0.longitude] }, [[1, 2], [95, 200], [8, 9]])
        XCTAssertEqual(summary.points, 3)
        XCTAssertEqual(summary.unreadablePoints, 4)
    }

    func testHeaderWithoutCoordinatesStopsTheFile() {
        var sink = RecordingSink()
        XCTAssertThrowsError(try TrackCSVReader.read(TrickleSource(bytes: Array("name,when\nx,y\n".utf8)), path: "t.csv", into: &sink)) { error in
            XCTAssertEqual((error as? InputError)?.line, 1)
            XCTAssertTrue((error as? InputError)?.reason.contains("no latitude and longitude") == true)
        }
    }

    func testOverlongLineStopsTheFileNamingIt() {
        var sink = RecordingSink()
        let text = "1,2\n" + String(repeating: "3", count: 2 * LineReader<TrickleSource>.maximumLineLength + 5) + "\n"
        XCTAssertThrowsError(try TrackCSVReader.read(BytesSource(bytes: Array(text.utf8)), path: "t.csv", into: &sink)) { error in
            XCTAssertEqual((error as? InputError)?.line, 2)
        }
        XCTAssertEqual(sink.points.count, 1)
    }
    /// `parseSimple` reads the common lines at once; wherever it answers, `parse` must give the
    /// same point, on lines damaged with bytes from CSV's own alphabet.
    func testSimpleLinesReadAsTheGeneralParserDoes() throws {
        let header = Array("time,lon,acc,lat,ele,name".utf8)
        let layouts = [TrackCSVReader.Columns(), try XCTUnwrap(header.withUnsafeBytes { TrackCSVReader.Columns(header: $0) })]
        let lines = [
            "39.9012345,116.4012345,2024-03-01T00:00:00Z,5", "1,2", "-0.5,1e2,2024-03-01T00:00:00.123Z,0,12",
            "2024-03-01T00:00:00Z,116.4,3.5,39.9,44,x", "2024-02-29T23:59:59Z,-116.4,0,-39.9,-1e1,\"a\"", "+.5,5.,,1",
        ].map { Array($0.utf8) }
        let alphabet = Array("0123456789.,-+eE Z:T\"\tx".utf8)
        var seed: UInt64 = 20_261_130
        var simple = 0
        for round in 0..<20_000 {
            var line = lines[round % lines.count]
            if round >= lines.count {
                for _ in 0..<1 + Int(seed % 3) {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    line[Int(seed >> 33) % line.count] = alphabet[Int(seed >> 20) % alphabet.count]
                }
            }
            for columns in layouts {
                line.withUnsafeBytes { bytes in
                    guard let fast = TrackCSVReader.parseSimple(bytes, columns) else { return }
                    simple += 1
                    XCTAssertEqual(fast, try? TrackCSVReader.parse(bytes, columns), String(decoding: line, as: UTF8.self))
                }
            }
        }
        XCTAssertGreaterThan(simple, 2000)
    }
}
