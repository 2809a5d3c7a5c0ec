import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import Tracks
import TextFormats
import UnlocksTestSupport

final class LineReaderTests: XCTestCase {
    func lines(_ text: String) throws -> [String] {
        var reader = LineReader(FedSource(Array(text.utf8), feeding: .trickle), path: "t.csv")
        defer { reader.close() }
        var result: [String] = []
        try reader.forEachLine { line, number in
            XCTAssertEqual(number, result.count + 1)
            result.append(String(decoding: line, as: UTF8.self))
        }
        return result
    }

    func testSplitsOnNewlinesAcrossChunkBoundaries() throws {
        XCTAssertEqual(try lines("a,b\n1,2\n\n3,4"), ["a,b", "1,2", "", "3,4"])
        XCTAssertEqual(try lines("a\r\nbb\r\n"), ["a", "bb"])
        XCTAssertEqual(try lines(""), [])
        XCTAssertEqual(try lines("\n"), [""])
    }

    /// However the bytes arrive: once a read brought the newline in with the rest of an overlong
    /// line, the line used to be returned (up to twice the limit) instead of refused.
    func testOverlongLineIsAnErrorNamingFileAndLine() {
        let long = "1,2\n" + String(repeating: "9", count: LineReader<FedSource>.maximumLineLength + 10) + "\n"
        let outcome = ReaderVerifier.verify(Array(long.utf8), feedings: [.whole, .fixed(4096), .random(seed: 3, largest: 1 << 16)]) { source -> Int in
            var reader = LineReader(source, path: "big.csv")
            defer { reader.close() }
            var count = 0
            try reader.forEachLine { _, _ in count += 1 }
            return count
        }
        XCTAssertEqual(outcome, .error("InputError: big.csv:2: line longer than 1048576 bytes"))
    }

    func testMissingFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try FileSource(path: "/nonexistent/points.csv")) { error in
            XCTAssertEqual((error as? InputError)?.path, "/nonexistent/points.csv")
        }
        XCTAssertThrowsError(try FileSource(path: "/tmp")) { error in
            XCTAssertEqual((error as? InputError)?.reason, "is a directory, expected a file")
        }
    }
}

final class CoordinateCSVTests: XCTestCase {
    func parse(_ text: String) throws -> CoordinateLine {
        try Array(text.utf8).withUnsafeBytes { try CoordinateCSV.parse($0) }
    }

    func header(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { CoordinateCSV.isHeader($0) }
    }

    func testParsesPlainPaddedQuotedAndExtraColumns() throws {
        XCTAssertEqual(try parse("39.9,116.4"), CoordinateLine(latitude: 39.9, longitude: 116.4, restOffset: nil))
        XCTAssertEqual(try parse(" -33.5 , \"151.25\" "), CoordinateLine(latitude: -33.5, longitude: 151.25, restOffset: nil))
        XCTAssertEqual(try parse("1e1,2,x,y"), CoordinateLine(latitude: 10, longitude: 2, restOffset: 5))
        XCTAssertEqual(try parse("90,-180"), CoordinateLine(latitude: 90, longitude: -180, restOffset: nil))
    }

    func testRejectsWithAReason() {
        let cases: [(String, CoordinateCSV.LineError)] = [
            ("39.9", .missingLongitude),
            ("abc,1", .notANumber(field: "latitude", text: "abc")),
            ("NaN,1", .notANumber(field: "latitude", text: "NaN")),
            ("1,inf", .notANumber(field: "longitude", text: "inf")),
            ("0x10,1", .notANumber(field: "latitude", text: "0x10")),
            (",1", .notANumber(field: "latitude", text: "")),
            ("1,1e999", .notANumber(field: "longitude", text: "1e999")),
            ("1.2.3,1", .notANumber(field: "latitude", text: "1.2.3")),
            ("90.0001,1", .outOfRange(field: "latitude", value: 90.0001, limit: 90)),
            ("1,-180.5", .outOfRange(field: "longitude", value: -180.5, limit: 180)),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try parse(text), text) { XCTAssertEqual($0 as? CoordinateCSV.LineError, expected, text) }
        }
    }

    /// The fast path must give the same bits as the C library's correctly rounded strtod.
    func testFastNumberParsingIsCorrectlyRounded() {
        var state: UInt64 = 12345
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        for _ in 0..<100_000 {
            let integer = Int(next() % 400) - 200
            let fractionLength = Int(next() % 18)
            var text = "\(integer)."
            for _ in 0..<fractionLength { text += "\(next() % 10)" }
            if next() % 5 == 0 { text = "-0" + text.drop(while: { $0 == "-" }) }
            let fast = Array(text.utf8).withUnsafeBytes { DecimalNumber.parse($0) }
            XCTAssertEqual(fast?.bitPattern, strtod(text, nil).bitPattern, text)
        }
        for text in ["0", "-0", "+7", "007.50", ".5", "5.", "1e2", "0.0000000000000000000000001", "123456789012345678"] {
            let fast = Array(text.utf8).withUnsafeBytes { DecimalNumber.parse($0) }
            XCTAssertEqual(fast?.bitPattern, strtod(text, nil).bitPattern, text)
        }
        for text in ["", "-", ".", "-.", "1..2", "1-2", "e5"] {
            XCTAssertNil(Array(text.utf8).withUnsafeBytes { DecimalNumber.parse($0) }, text)
        }
    }

    func testHeaderDetection() {
        XCTAssertTrue(header("lat,lon"))
        XCTAssertTrue(header("\"latitude\",\"longitude\",name"))
        XCTAssertFalse(header("39.9,116.4"))
        XCTAssertFalse(header("nan,1"))
        XCTAssertFalse(header("-Inf,1"))
    }
}
