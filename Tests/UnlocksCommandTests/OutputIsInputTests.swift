import Foundation
import XCTest
import UnlocksTestSupport

/// No output may be one of the inputs: `--out`, `--state` and the map's and audit's files are
/// compared with the inputs by device and inode (links followed) before anything is written.
/// Links written through, dangling ones refused, and standard output's file never read back.
final class OutputIsInputTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    let walk = "latitude,longitude,time\n39.9000,116.3900,1700000000\n39.9004,116.3900,1700000005\n39.9008,116.3900,1700000010\n"

    func unlocks(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.run(arguments + ["--tables", Self.tables])
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Asserts a usage error naming the clash and that `path` still holds `expected`.
    func assertRefused(_ result: CommandRunner.Result, keeps path: String, _ expected: Data?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains("writing it would replace this input; nothing was written"), result.stderr, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        XCTAssertEqual(bytes(path), expected, "the input was changed", file: file, line: line)
    }

    func testClassifyOutputNamingAnInputIsRefused() throws {
        let dir = try temporaryDirectory()
        let track = dir + "/walk.csv"
        try walk.write(toFile: track, atomically: true, encoding: .utf8)
        let original = bytes(track)
        // The file itself, through a symbolic link, through a hard link, and found in a folder.
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: "walk.csv")
        XCTAssertEqual(link(track, dir + "/hard.txt"), 0)
        assertRefused(try unlocks(["classify", track, "--out", track]), keeps: track, original)
        assertRefused(try unlocks(["classify", track, "--out", dir + "/link.json"]), keeps: track, original)
        assertRefused(try unlocks(["classify", track, "--out", dir + "/hard.txt"]), keeps: track, original)
        assertRefused(try unlocks(["classify", dir, "--out", dir + "/hard.txt"]), keeps: track, original)
        assertRefused(try unlocks(["classify", track, "--state", track]), keeps: track, original)
        XCTAssertFalse(FileManager.default.fileExists(atPath: track + ".lock"), "the refused run created the state's lock")
        // A report in the folder is the tool's own: a second run replaces it.
        XCTAssertEqual(try unlocks(["classify", dir + "/walk.csv", "--out", dir + "/r.json"]).status, 0)
        let again = try unlocks(["classify", dir, "--out", dir + "/r.json"])
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    func testMergeOutputNamingAStateIsRefused() throws {
        let dir = try temporaryDirectory()
        try walk.write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        for name in ["a.st", "b.st"] {
            XCTAssertEqual(try unlocks(["classify", dir + "/walk.csv", "--state", dir + "/" + name, "--out", dir + "/" + name + ".json"]).status, 0)
        }
        let a = bytes(dir + "/a.st"), b = bytes(dir + "/b.st")
        assertRefused(try unlocks(["merge", dir + "/a.st", dir + "/b.st", "--out", dir + "/a.st"]), keeps: dir + "/a.st", a)
        assertRefused(try unlocks(["merge", dir + "/a.st", dir + "/b.st", "--state", dir + "/b.st"]), keeps: dir + "/b.st", b)
        assertRefused(try unlocks(["forget", dir + "/walk.csv", "--state", dir + "/a.st", "--out", dir + "/walk.csv"]), keeps: dir + "/a.st", a)
    }

    func testMapAndAuditFilesNamingAnInputAreRefused() throws {
        let dir = try temporaryDirectory()
        let track = dir + "/walk.csv"
        try walk.write(toFile: track, atomically: true, encoding: .utf8)
        let original = bytes(track)
        for (command, name) in [("map", "footprint.html"), ("map", "tiles-z17.geojson"), ("audit", "audit.json")] {
            let out = dir + "/" + command + "-" + name
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: out + "/" + name, withDestinationPath: track)
            assertRefused(try unlocks([command, track, "--out", out]), keeps: track, original)
        }
    }

    /// `--state LINK` opens the link's target (followed once, before opening); the link stays a link.
    /// A dangling `--out` link is refused with its target and the reason.
    func testLinksAreWrittenThroughAndDanglingOnesNamed() throws {
        let dir = try temporaryDirectory()
        try walk.write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/states", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/current.st", withDestinationPath: "states/real.st")
        let first = try unlocks(["classify", dir + "/walk.csv", "--state", dir + "/states/real.st"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let run = try unlocks(["classify", dir + "/walk.csv", "--state", dir + "/current.st"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("1 input already in the state"), run.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/current.st"), "states/real.st")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/states"), ["real.st"], "nothing beside the logbook")

        try FileManager.default.createSymbolicLink(atPath: dir + "/gone.json", withDestinationPath: "missing/report.json")
        let dangling = try unlocks(["classify", dir + "/walk.csv", "--out", dir + "/gone.json"])
        XCTAssertEqual(dangling.status, 1)
        XCTAssertTrue(dangling.stderr.contains("gone.json: is a symbolic link to missing/report.json") && dangling.stderr.contains("No such file or directory"), dangling.stderr)
        try FileManager.default.createSymbolicLink(atPath: dir + "/gone-map", withDestinationPath: "missing-folder")
        let map = try unlocks(["map", dir + "/walk.csv", "--out", dir + "/gone-map"])
        XCTAssertEqual(map.status, 1)
        XCTAssertTrue(map.stderr.contains("gone-map: is a symbolic link to missing-folder") && map.stderr.contains("No such file or directory"), map.stderr)
    }

    /// `classify . > report.json` in the track folder: the shell creates the empty report first;
    /// it is this run's standard output, skipped as the tool's own, and the run succeeds.
    func testStandardOutputFileInTheFolderIsNotRead() throws {
        let dir = try temporaryDirectory()
        try walk.write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.currentDirectoryURL = URL(fileURLWithPath: dir)
        shell.arguments = ["-c", "\"$0\" classify . --tables \"$1\" > report.json", CommandRunner.executable, Self.tables]
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(bytes(dir + "/report.json"))) as? [String: Any])
        let files = try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        let own = try XCTUnwrap(files.first { $0["path"] as? String == "./report.json" })
        XCTAssertEqual(own["reason"] as? String, "the tool's own output")
    }
}
