import Foundation
import XCTest
import UnlocksTestSupport

/// Issue 32, build item 3: on a terminal `classify`, `merge` and `forget` print the text report;
/// to a pipe, a file or `--out` they write JSON, as `gh`, `ls` and `git` choose; `--format`
/// chooses either anywhere. The terminal is a real pseudo-terminal (util-linux `script`).
final class ReportFormatTests: XCTestCase {
    static let tables = Repository.tables
    static let walk = Repository.samples + "/2024-05-01-beijing-walk.gpx"

    /// `unlocks arguments…` with standard output a pseudo-terminal: what it printed.
    func onTerminal(_ arguments: [String]) throws -> String {
        let command = ([CommandRunner.executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TZ": CommandRunner.testZone]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // Standard error shares the terminal: the progress line ends with an erase (ESC [ K).
        let text = String(decoding: output, as: UTF8.self)
        return text.range(of: "\u{1B}[K", options: .backwards).map { String(text[$0.upperBound...]) } ?? text
    }

    func testATerminalGetsTextAndAPipeGetsJSON() throws {
        let dir = try temporaryDirectory()
        let terminal = try onTerminal(["classify", "--tables", Self.tables, Self.walk])
        XCTAssertTrue(terminal.hasPrefix("Inputs: 1 read in full"), String(terminal.prefix(200)))
        XCTAssertTrue(terminal.contains("What the words mean"))
        let piped = try CommandRunner.run(["classify", "--tables", Self.tables, Self.walk])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as? [String: Any], "JSON through a pipe")
        // --format wins either way; --out writes JSON.
        XCTAssertTrue(try onTerminal(["classify", "--tables", Self.tables, Self.walk, "--format", "json"]).hasPrefix("{"))
        XCTAssertTrue(try CommandRunner.run(["classify", "--tables", Self.tables, Self.walk, "--format", "text"]).stdout.hasPrefix("Inputs: "))
        _ = try onTerminal(["classify", "--tables", Self.tables, Self.walk, "--out", dir + "/report.json", "--state", dir + "/s"])
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/report.json"))) as? [String: Any])
        // merge and forget follow the same rule.
        XCTAssertTrue(try onTerminal(["merge", "--tables", Self.tables, dir + "/s"]).hasPrefix("Inputs: 1 read in full"))
        XCTAssertTrue(try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/s"]).stdout.hasPrefix("{"))
        XCTAssertTrue(try onTerminal(["forget", "--tables", Self.tables, Self.walk, "--state", dir + "/s"]).contains("Inputs: "))
        // The help says so.
        XCTAssertTrue(try CommandRunner.run(["classify", "--help"]).stdout.contains("Default: text when standard output is a terminal"))
    }
}
