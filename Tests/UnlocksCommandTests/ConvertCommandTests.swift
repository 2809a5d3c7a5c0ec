import Foundation
import XCTest
import UnlocksTestSupport

final class ConvertCommandTests: XCTestCase {
    func testConvertsWithHeaderAndPassesExtraColumnsThrough() throws {
        let input = "lat,lon,name\n39.9087,116.3975,Tiananmen,Beijing\n-33.8568,151.2153,Sydney\n"
        let result = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data(input.utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[0], "lat,lon,name")
        XCTAssertTrue(lines[1].hasSuffix(",Tiananmen,Beijing"), lines[1])
        // Sydney is outside the China rectangle: unchanged, printed with 9 decimals.
        XCTAssertEqual(lines[2], "-33.856800000,151.215300000,Sydney")
        // Beijing moves by the GCJ-02 offset: a few hundred metres north-east.
        let fields = lines[1].split(separator: ",").prefix(2).map { Double($0)! }
        XCTAssertEqual(fields[0] - 39.9087, 0.0014, accuracy: 0.0003)
        XCTAssertEqual(fields[1] - 116.3975, 0.0062, accuracy: 0.0003)
        XCTAssertEqual(lines[1].split(separator: ",")[0].split(separator: ".")[1].count, 9)
    }

    func testRoundTripThroughEveryDatumPair() throws {
        var input = ""
        for i in 0..<200 {
            input += "\(20 + Double(i) * 0.15),\(80 + Double(i) * 0.27)\n"
        }
        for (a, b) in [("wgs84", "gcj02"), ("wgs84", "bd09"), ("gcj02", "bd09")] {
            let there = try CommandRunner.run(["convert", "--from", a, "--to", b], input: Data(input.utf8))
            XCTAssertEqual(there.status, 0, there.stderr)
            let back = try CommandRunner.run(["convert", "--from", b, "--to", a], input: Data(there.stdout.utf8))
            XCTAssertEqual(back.status, 0, back.stderr)
            for (original, returned) in zip(input.split(separator: "\n"), back.stdout.split(separator: "\n")) {
                let o = original.split(separator: ",").map { Double($0)! }
                let r = returned.split(separator: ",").map { Double($0)! }
                // 9 printed decimals twice: within 1e-8° of the start.
                XCTAssertEqual(o[0], r[0], accuracy: 1e-8, "\(a)→\(b)→\(a) \(original)")
                XCTAssertEqual(o[1], r[1], accuracy: 1e-8, "\(a)→\(b)→\(a) \(original)")
            }
        }
    }

    /// A thousand lines with bad lines and extra columns among them: every output line keeps its
    /// own columns, in order, and converts back (what any buffering of lines must keep).
    func testManyLinesKeepTheirOrderAndColumns() throws {
        var input = "", expectedTags: [String] = []
        for i in 0..<1_000 {
            if i == 300 || i == 700 { input += "not,a number\n"; continue }
            let lat = 20 + Double(i % 97) * 0.3, lon = i % 5 == 0 ? -70 - Double(i) * 0.01 : 80 + Double(i) * 0.05
            input += i % 3 == 0 ? "\(lat),\(lon),p\(i),x\n" : "\(lat),\(lon)\n"
            expectedTags.append(i % 3 == 0 ? ",p\(i),x" : "")
        }
        let there = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data(input.utf8))
        XCTAssertEqual(there.status, 3, "two bad lines")
        let lines = there.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 998)
        for (line, tag) in zip(lines, expectedTags) {
            let fields = line.split(separator: ",", maxSplits: 2)
            XCTAssertEqual(fields.count > 2 ? "," + fields[2] : "", tag, line)
        }
        let back = try CommandRunner.run(["convert", "--from", "gcj02", "--to", "wgs84"], input: Data(there.stdout.utf8))
        let originals = input.split(separator: "\n").filter { !$0.hasPrefix("not") }
        XCTAssertEqual(back.stdout.split(separator: "\n").count, 998)
        for (original, returned) in zip(originals, back.stdout.split(separator: "\n")) {
            let o = original.split(separator: ",").prefix(2).map { Double($0)! }, r = returned.split(separator: ",").prefix(2).map { Double($0)! }
            XCTAssertEqual(o[0], r[0], accuracy: 1e-8, String(original))
            XCTAssertEqual(o[1], r[1], accuracy: 1e-8, String(original))
        }
    }

    func testBadLinesAreReportedSkippedAndExitThree() throws {
        let input = "39.9,116.4\nabc,1\nNaN,1\n95,1\n1,200\n39.9\n\n30,120\n"
        let result = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02", "-"], input: Data(input.utf8))
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2, "the two good lines are converted")
        let errors = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(errors, [
            "unlocks: <stdin>:2: latitude 'abc' is not a number",
            "unlocks: <stdin>:3: latitude 'NaN' is not a number",
            "unlocks: <stdin>:4: latitude 95.0 is outside -90…90",
            "unlocks: <stdin>:5: longitude 200.0 is outside -180…180",
            "unlocks: <stdin>:6: expected 'lat,lon', found only one field",
        ])
    }

    func testFileArgumentErrorsNameTheFile() throws {
        let directory = URL(fileURLWithPath: try temporaryDirectory())
        let file = directory.appendingPathComponent("points.csv")
        try Data("31.23,121.47\n31.23,x\n".utf8).write(to: file)
        let result = try CommandRunner.run(["convert", "--from=gcj02", "--to=wgs84", file.path])
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "unlocks: \(file.path):2: longitude 'x' is not a number\n")

        let missing = try CommandRunner.run(["convert", "--from", "gcj02", "--to", "wgs84", directory.appendingPathComponent("nope.csv").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope.csv: cannot open: No such file or directory"), missing.stderr)
    }

    func testUsageErrorsExitTwo() throws {
        for arguments in [["convert", "--from", "wgs84"],
                          ["convert", "--from", "wgs84", "--to", "mars"],
                          ["convert", "--from", "wgs84", "--to", "gcj02", "--bogus"],
                          ["convert", "--from", "wgs84", "--to", "gcj02", "a.csv", "b.csv"],
                          ["convert", "--from"],
                          ["frobnicate"],
                          []] {
            let result = try CommandRunner.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments)")
        }
    }

    func testHelpForEveryLevel() throws {
        for arguments in [["--help"], ["help"], ["convert", "--help"], ["help", "convert"]] {
            let result = try CommandRunner.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stdout.contains("Usage: unlocks"), "\(arguments): \(result.stdout)")
        }
    }

    /// Streaming: peak memory does not grow with the input. 4 MB and 48 MB of input must peak
    /// at (nearly) the same resident size.
    func testMemoryDoesNotGrowWithInput() throws {
        var block = ""
        for i in 0..<20_000 { block += "\(30 + Double(i % 1000) * 0.01),\(110 + Double(i % 777) * 0.01),extra\n" }
        let data = Data(block.utf8)
        let small = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: data, inputRepeats: 4_000_000 / data.count)
        let large = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: data, inputRepeats: 48_000_000 / data.count)
        XCTAssertEqual(small.status, 0)
        XCTAssertEqual(large.status, 0)
        XCTAssertEqual(large.stdout.utf8.count / 12, small.stdout.utf8.count, accuracy: small.stdout.utf8.count / 10)
        XCTAssertGreaterThan(small.peakResidentBytes, 0)
        XCTAssertLessThan(large.peakResidentBytes, small.peakResidentBytes + 4 << 20,
                          "peak RSS \(small.peakResidentBytes >> 20) MiB for 4 MB, \(large.peakResidentBytes >> 20) MiB for 48 MB")
    }
}

final class LocateCommandTests: XCTestCase {
    static let tables = Repository.tables

    func testLocatesCSVWithTheContractHeaderAndReportsBadLines() throws {
        let input = "lat,lon\n39.9087,116.3975\n14.5995,120.9842\nx,1\n0,-30\n"
        let result = try CommandRunner.run(["locate", "--tables", Self.tables], input: Data(input.utf8))
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "unlocks: <stdin>:4: latitude 'x' is not a number\n")
        // The subdivision: Beijing's (CN-BJ, China's province in China's view) and Manila's, as
        // apache-superset's ISO-coded features hold the places (Scripts/fixtures/make-subdivision-places).
        XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), [
            "lat,lon,country,province,city,county,status,subdivision",
            "39.9087,116.3975,CHN,110000,110100,110101,inside,\(SubdivisionPlaces.code(of: "Beijing Tiananmen"))",
            "14.5995,120.9842,PHL,,,,inside,\(SubdivisionPlaces.code(of: "Manila"))",
            "0.0,-30.0,,,,,outside,",
        ])
    }

    func testGCJ02InputAndJSONLines() throws {
        // Tiananmen given in GCJ-02 (as a Chinese map app would export it).
        let result = try CommandRunner.run(["locate", "--tables", Self.tables, "--datum", "gcj02", "--format", "jsonl"],
                                           input: Data("39.910103499,116.403743573\n".utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let county = object["county"] as! [String: Any]
        XCTAssertEqual(county["code"] as? String, "110101")
        XCTAssertEqual(county["name"] as? String, "东城区")
        XCTAssertEqual(county["status"] as? String, "inside")
        let gcj = object["gcj02"] as! [Double]
        XCTAssertEqual(gcj[0], 39.910103499, accuracy: 1e-8)
    }

    func testMissingTablesIsAClearFailure() throws {
        let result = try CommandRunner.run(["locate", "--tables", "/nonexistent"], input: Data("1,1\n".utf8))
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("/nonexistent/world.bin"), result.stderr)
    }
}
