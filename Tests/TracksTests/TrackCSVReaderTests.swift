import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

final class TrackCSVReaderTests: XCTestCase {
    func read(_ text: String) throws -> (TrackEventRecorder, TrackCSVReader.Summary) {
        var sink = TrackEventRecorder()
        let summary = try TrackCSVReader.read(FedSource(Array(text.utf8), feeding: .trickle), path: "t.csv", into: &sink)
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
        XCTAssertEqual(epoch("253402300799999"), 253_402_300_799_999)   // 9999-12-31T23:59:59.999Z
        XCTAssertNil(epoch("253402300800000"))                          // the year 10000
        XCTAssertNil(epoch("1714521600000000"))                         // microseconds: refused, not misread
        XCTAssertNil(epoch("-99999999999"))                             // seconds before the year 0
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
        var sink = TrackEventRecorder()
        XCTAssertThrowsError(try TrackCSVReader.read(FedSource(Array("name,when\nx,y\n".utf8), feeding: .trickle), path: "t.csv", into: &sink)) { error in
            XCTAssertEqual((error as? InputError)?.line, 1)
            XCTAssertTrue((error as? InputError)?.reason.contains("no latitude and longitude") == true)
        }
    }

    func testOverlongLineStopsTheFileNamingIt() {
        var sink = TrackEventRecorder()
        let text = "1,2\n" + String(repeating: "3", count: 2 * LineReader<FedSource>.maximumLineLength + 5) + "\n"
        XCTAssertThrowsError(try TrackCSVReader.read(MemorySource(Array(text.utf8)), path: "t.csv", into: &sink)) { error in
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
                    guard let fast = TrackCSVReader.parseSimple(bytes, columns, zone: LocalTimeZone.china) else { return }
                    simple += 1
                    XCTAssertEqual(fast, try? TrackCSVReader.parse(bytes, columns, zone: LocalTimeZone.china), String(decoding: line, as: UTF8.self))
                }
            }
        }
        XCTAssertGreaterThan(simple, 2000)
    }
}

/// The dialects real loggers write (Fixtures/csv, hand-made: SOURCE.md), every line ending, the
/// local time offset.
final class TrackCSVDialectTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/csv")

    func read(_ text: String, zone: LocalTimeZone = LocalTimeZone.china) throws -> TrackEventRecorder {
        try read(bytes: Array(text.utf8), zone: zone)
    }

    func read(bytes: [UInt8], zone: LocalTimeZone = LocalTimeZone.china) throws -> TrackEventRecorder {
        var sink = TrackEventRecorder()
        try TrackCSVReader.read(FedSource(bytes, feeding: .trickle), path: "t.csv", timeZone: zone, into: &sink)
        return sink
    }

    func fixture(_ name: String, zone: LocalTimeZone = LocalTimeZone.china) throws -> TrackEventRecorder {
        let path = Self.fixtures.appendingPathComponent(name).path
        var sink = TrackEventRecorder()
        try TrackCSVReader.read(try FileSource(path: path), path: path, timeZone: zone, into: &sink)
        XCTAssertEqual(sink.problems, [], name)
        return sink
    }

    /// 2024-05-01T00:00:00Z.
    static let mayDay: Int64 = 1_714_521_600_000

    func testBasicAirDataLocalTimes() throws {
        let sink = try fixture("basicairdata-gpslogger.csv")
        // "2024-05-01 07:30:00.000" is local time at +08:00: 2024-04-30T23:30:00Z.
        XCTAssertEqual(sink.points.first, TrackPoint(latitude: 39.904211, longitude: 116.407395, time: Self.mayDay - 30 * 60_000, accuracy: 4, elevation: 44.2))
        XCTAssertEqual(sink.points.map(\.time), [-1_800_000, -1_794_750, -1_790_000].map { Self.mayDay + $0 })
        // Read at another offset, the same wall-clock times are other instants.
        XCTAssertEqual(try fixture("basicairdata-gpslogger.csv", zone: .fixed(minutesEast: -300)).points.first?.time, Self.mayDay + (7 * 60 + 30 + 300) * 60_000)
    }

    func testYishengzujiEpochSeconds() throws {
        let sink = try fixture("yishengzuji.csv")
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 31.230416, longitude: 121.473701, time: 1_714_519_800_000, accuracy: 10, elevation: 5),
            TrackPoint(latitude: 31.231001, longitude: 121.474502, time: 1_714_519_860_000, accuracy: 8, elevation: 5.4),
            TrackPoint(latitude: 31.23159, longitude: 121.475318, time: 1_714_519_920_000, accuracy: 12, elevation: 5.1),
        ])
    }

    func testColumbusHemispheresAndDateTimePair() throws {
        // Columbus times are UTC (GPSBabel's v900 reader agrees), whatever the run's offset.
        let sink = try fixture("columbus-v990.csv", zone: .fixed(minutesEast: -300))
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json"))
        let expected = try XCTUnwrap((JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])?["columbus-v990.csv"]?["points"] as? [[String: Any]])
        XCTAssertEqual(sink.points.count, expected.count)
        for (got, want) in zip(sink.points, expected) {
            XCTAssertEqual(got.latitude, want["lat"] as? Double)
            XCTAssertEqual(got.longitude, want["lon"] as? Double)
            XCTAssertEqual(got.elevation, want["ele"] as? Double)
            XCTAssertEqual(got.time, (want["time"] as? NSNumber)?.int64Value)
        }
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 25.033964, longitude: 121.564468, time: Self.mayDay + 30 * 60_000, elevation: 12),
            TrackPoint(latitude: 25.03412, longitude: 121.564701, time: Self.mayDay + 30 * 60_000 + 5000, elevation: 13),
            TrackPoint(latitude: -33.86882, longitude: 151.209296, time: Self.mayDay + 30 * 60_000 + 10_000, elevation: 5),
        ])
        // Without a header too: a number with a hemisphere letter is data, not a header.
        XCTAssertEqual(try read("25.2736N,121.5E\n25.2737N,121.5001E\n").points.map(\.longitude), [121.5, 121.5001])
        let hemispheres = try read("lat,lon\n25.2736 N,121.5W\n1.5s,2e\n12.5E,3E\n-4S,5E\nnan,1\n")
        XCTAssertEqual(hemispheres.points.map { [$0.latitude, $0.longitude] }, [[25.2736, -121.5], [-1.5, 2]])
        XCTAssertEqual(hemispheres.problems.map(\.reason), [
            "latitude '12.5E' has a hemisphere other than N or S",
            "latitude '-4S' is not a non-negative number with a hemisphere",
            "latitude 'nan' is not a number",
        ])
    }

    func testSeparatorsAndDecimalCommas() throws {
        XCTAssertEqual(try fixture("semicolon-decimal-comma.csv").points, [
            TrackPoint(latitude: 48.137154, longitude: 11.576124, time: Self.mayDay + 6 * 3_600_000, accuracy: 6, elevation: 519.5),
            TrackPoint(latitude: 48.137301, longitude: 11.576402, time: Self.mayDay + 6 * 3_600_000 + 10_000, accuracy: 5, elevation: 520.1),
        ])
        XCTAssertEqual(try fixture("tab-separated.csv").points.map(\.time), [Self.mayDay + 2 * 86_400_000 + 3_600_000, Self.mayDay + 2 * 86_400_000 + 3_630_000])
        // Without a header the first line decides; a quoted separator does not count.
        XCTAssertEqual(try read("39.9;116.4;2024-05-01T00:00:00Z\n").points.first?.time, Self.mayDay)
        XCTAssertEqual(try read("39.9\t116.4\n39.91\t116.41\n").points.count, 2)
        for (line, separator) in [("a,b;c", ","), ("a;b;c,d", ";"), ("\"x;y;z\",lat,lon", ","), ("a\tb\tc,d", "\t"), ("a,b\tc;d", ",")] {
            let found = Array(line.utf8).withUnsafeBytes { TrackCSVReader.detectSeparator($0) }
            XCTAssertEqual(found, UInt8(ascii: Unicode.Scalar(separator)!), line)
        }
    }

    func testTimeColumnNames() throws {
        for name in ["time", "Timestamp", "date time", "Date_Time", "datetime", "dataTime", "UTC", "date"] {
            let sink = try read("lat,lon,\(name)\n39.9,116.4,2024-05-01T00:00:00Z\n")
            XCTAssertEqual(sink.points.first?.time, Self.mayDay, name)
        }
        // A date + time pair, in several layouts; a time column holding a whole timestamp wins.
        let pairs = "lat,lon,date,time\n1,2,2024-05-01,08:00:00\n1,2,2024/05/01,08:00:01.5\n1,2,20240501,080002\n1,2,240501,080003\n1,2,,2024-05-01T00:00:04Z\n1,2,,\n1,2,2024-13-01,08:00:00\n"
        let sink = try read(pairs)
        XCTAssertEqual(sink.points.map(\.time), [Self.mayDay, Self.mayDay + 1500, Self.mayDay + 2000, Self.mayDay + 3000, Self.mayDay + 4000, nil])
        XCTAssertEqual(sink.problems.map(\.line), [8])
        // Epoch values by magnitude in any time column; slashes in a single column.
        let epochs = try read("lat,lon,datetime\n1,2,1714521600\n1,2,1714521600123\n1,2,2024/05/01 08:00:00\n1,2,99999999999999999\n")
        XCTAssertEqual(epochs.points.map(\.time), [Self.mayDay, Self.mayDay + 123, Self.mayDay])
        XCTAssertEqual(epochs.problems.count, 1)
    }

    /// Every line ending in use gives the same points; today's CR-only file read as one header
    /// line with no points.
    func testEveryLineEnding() throws {
        let lines = ["lat,lon,time,accuracy", "39.9,116.4,2024-05-01T00:00:00Z,5", "", "39.91,116.41,2024-05-01T00:00:05Z,6", "39.92,116.42,,7"]
        let expected = try read(lines.joined(separator: "\n")).points
        XCTAssertEqual(expected.count, 3)
        for ending in ["\n", "\r\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"] {
            for trailing in [false, true] {
                let text = lines.joined(separator: ending) + (trailing ? ending : "")
                let sink = try read(text)
                XCTAssertEqual(sink.points, expected, "\(ending.unicodeScalars.map { $0.value })")
                XCTAssertEqual(sink.problems, [])
            }
        }
        // Line numbers follow the file's own ending.
        XCTAssertEqual(try read("lat,lon\r1,2\rx,3\r").problems.map(\.line), [3])
        // The first ending decides: a U+2028 inside a line of an LF file is part of that line.
        XCTAssertEqual(try read("lat,lon,name\n1,2,a\u{2028}b\n3,4,c\n").points.count, 2)
        // A lone lead byte of a multi-byte ending is data.
        XCTAssertEqual(try read(bytes: Array("lat,lon\u{85}1,2\u{85}3,4".utf8) + [0xC2]).points.count, 1)
    }
}
