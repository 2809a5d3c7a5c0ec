import Foundation
import XCTest
import UnlocksTestSupport

/// Errors a person can act on: a newer state says so, control bytes from files never reach the
/// terminal raw, and a file whose name is not UTF-8 is found when named on the command line.
final class ActionableErrorsTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func testANewerStateVersionSaysSo() throws {
        let dir = try temporaryDirectory()
        try Data("AUSTATE7".utf8 + [UInt8](repeating: 0, count: 24)).write(to: URL(fileURLWithPath: dir + "/new.st"))
        let merged = try CommandRunner.run(["merge", dir + "/new.st", "--tables", Self.tables])
        XCTAssertEqual(merged.status, 1)
        XCTAssertTrue(merged.stderr.contains("new.st: a state of version 7, newer than this unlocks reads (version 5)"), merged.stderr)
        try Data("GARBAGE!".utf8 + [UInt8](repeating: 0, count: 24)).write(to: URL(fileURLWithPath: dir + "/other.st"))
        let other = try CommandRunner.run(["merge", dir + "/other.st", "--tables", Self.tables])
        XCTAssertTrue(other.stderr.contains("other.st: not a logbook (an AdminUnlocks SQLite store) nor a state file of the previous format (unlocks classify TRACKS --state FILE makes a logbook)"), other.stderr)
    }

    /// ESC sequences, BEL and NUL inside a CSV field and a GPX: every message is one line of
    /// printable text, the bytes shown as `\xNN`, in both the errors and the text report.
    func testControlBytesFromFilesAreEscaped() throws {
        let dir = try temporaryDirectory()
        try Data("latitude,longitude,time\n39.9,116.39,1700000000\n\u{1B}[31mred\u{0}x,116.39,1700000005\n39.9002,116.39,1700000010\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/bad.csv"))
        try Data("<?xml version=\"1.0\"?><gpx><trk><trkseg><trkpt lat=\"39.9\" lon=\"116.39\"/>\u{1B}]0;title\u{7}\u{0}<zz".utf8)
            .write(to: URL(fileURLWithPath: dir + "/bad.gpx"))
        for format in ["json", "text"] {
            let result = try CommandRunner.run(["classify", dir + "/bad.csv", dir + "/bad.gpx", "--tables", Self.tables, "--format", format])
            XCTAssertEqual(result.status, 3)
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertTrue(lines.contains { $0.contains("bad.csv:3:") && $0.contains("\\x1B[31mred\\x00x") }, result.stderr)
            XCTAssertTrue(lines.contains { $0.contains("bad.gpx:1:") }, result.stderr)
            for text in [result.stderr, format == "text" ? result.stdout : ""] {
                XCTAssertFalse(text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }, text)
            }
        }
    }

    /// `unlocks classify café.csv` with the name in Latin-1 (byte E9): found, shown escaped.
    func testANonUTF8NameGivenAsAnArgumentIsFound() throws {
        let dir = try temporaryDirectory()
        let name = Array("caf".utf8) + [0xE9] + Array(".csv".utf8)
        let bytes = Array(dir.utf8) + [UInt8(ascii: "/")] + name
        let fd = open(bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let csv = Array("latitude,longitude,time\n39.9,116.39,1700000000\n39.9002,116.39,1700000010\n".utf8)
        XCTAssertEqual(write(fd, csv, csv.count), csv.count)
        close(fd)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.currentDirectoryURL = URL(fileURLWithPath: dir)
        shell.arguments = ["-c", "\"$0\" classify \"$(printf 'caf\\351.csv')\" --tables \"$1\"", CommandRunner.executable, Self.tables]
        let out = Pipe(), err = Pipe()
        shell.standardOutput = out
        shell.standardError = err
        try shell.run()
        let report = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0, stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: report) as? [String: Any])
        let files = try XCTUnwrap((json["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["path"] as? String }, ["caf\\xE9.csv"])
        XCTAssertEqual(files.first?["status"] as? String, "read")
    }

    /// `classify -` copies at most the limit (here 1 MB through the environment, 8 GiB by
    /// default): 3 MB of zeros fail with the size named, no report written.
    func testStandardInputBeyondItsLimitFailsWithTheSize() throws {
        let dir = try temporaryDirectory()
        signal(SIGPIPE, SIG_IGN)  // the run stops reading before the input ends
        setenv("ADMINUNLOCKS_STDIN_LIMIT", "1000000", 1)
        defer { unsetenv("ADMINUNLOCKS_STDIN_LIMIT") }
        let result = try CommandRunner.run(["classify", "-", "--tables", Self.tables, "--out", dir + "/r.json"],
                                           input: Data(count: 1 << 20), inputRepeats: 3)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("-: standard input is larger than 1000000 bytes (the copy's limit); name the file instead"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/r.json"))
        let small = try CommandRunner.run(["classify", "-", "--tables", Self.tables],
                                          input: Data("latitude,longitude,time\n39.9,116.39,1700000000\n39.9002,116.39,1700000010\n".utf8))
        XCTAssertEqual(small.status, 0, small.stderr)
    }

    /// A point in Antarctica is in no country (the source draws none south of 60°S): locate says so.
    func testLocateSaysAntarcticaIsInNoCountry() throws {
        let result = try CommandRunner.run(["locate", "--tables", Self.tables], input: Data("lat,lon\n-75,0\n-80.5,30\n39.9,116.4\n-45,170\n".utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("-75.0,0.0,,,,,outside"), result.stdout)
        XCTAssertTrue(result.stderr.contains("note: 2 points are in Antarctica, south of 60°S, which is in no country"), result.stderr)
    }
}
