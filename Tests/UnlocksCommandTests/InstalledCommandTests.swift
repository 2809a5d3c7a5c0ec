import Foundation
import XCTest
@testable import UnlocksCommand
import UnlocksTestSupport

/// The CLI as a user installs and calls it: where it finds its tables, `--version`, standard
/// input for `classify -` and `audit -`, and choices in any case. (Running the built and the
/// installed binary from outside the repository is Scripts/check-install, in the test run.)
final class InstalledCommandTests: XCTestCase {
    static let root = Repository.root
    static let samples = Repository.samples

    func testTablesAreLookedForNextToTheExecutableThenInTheShareFolderThenInTheEnvironment() {
        let places = TableSearch.candidates(executable: "/opt/au/bin/unlocks", environment: ["ADMINUNLOCKS_TABLES": "/data/t", "HOME": "/root"])
        XCTAssertEqual(places.map(\.path), ["/opt/au/bin/AdminUnlocks_AdminUnlocks.resources", "/opt/au/share/adminunlocks", "/data/t"])
        XCTAssertEqual(TableSearch.candidates(executable: "/opt/au/bin/unlocks", environment: [:]).count, 2)
        // A binary in / has its share folder in /share.
        XCTAssertEqual(TableSearch.candidates(executable: "/unlocks", environment: [:]).last?.path, "/share/adminunlocks")
        let message = TableSearch.NotFound(places: TableSearch.candidates(executable: "/opt/au/bin/unlocks", environment: [:])).description
        for place in ["/opt/au/bin/AdminUnlocks_AdminUnlocks.resources", "/opt/au/share/adminunlocks", "$ADMINUNLOCKS_TABLES (not set)"] {
            XCTAssertTrue(message.contains(place), message)
        }
    }

    /// The built binary finds the tables the build put next to it: the repository's, byte for byte.
    func testTheBuiltBinaryHasTheRepositoryTablesNextToIt() throws {
        let folder = (CommandRunner.executable as NSString).deletingLastPathComponent + "/AdminUnlocks_AdminUnlocks.resources"
        for name in ["world.bin", "china.bin", "manifest.json"] {
            XCTAssertEqual(FileManager.default.contents(atPath: folder + "/" + name), FileManager.default.contents(atPath: Self.root + "/Data/regions/" + name), name)
        }
    }

    func testVersionNamesThePackageVersionAndTheTablesSourceAndHashes() throws {
        let result = try CommandRunner.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertNotNil(result.stdout.range(of: #"^unlocks \d+\.\d+\.\d+ \(AdminUnlocks\)\n"#, options: .regularExpression), result.stdout)
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.root + "/Data/regions/manifest.json"))) as? [String: Any])
        let source = try XCTUnwrap(manifest["source"] as? [String: Any])
        XCTAssertTrue(result.stdout.contains("source \(source["release"]!), sha256 \(source["sha256"]!)"), result.stdout)
        // Each table's hash, computed here by sha256sum, not taken from the manifest.
        for name in ["world.bin", "china.bin"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [Self.root + "/Data/regions/" + name]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let digest = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
            process.waitUntilExit()
            XCTAssertEqual(digest.count, 64)
            XCTAssertTrue(result.stdout.contains("\(name): ") && result.stdout.contains("sha256 \(digest)"), result.stdout)
        }
    }

    /// A sample read from standard input gives the report its file gives, but for the path.
    func testClassifyReadsStandardInputPlainGzipAndZip() throws {
        for name in ["2024-05-01-beijing-walk.gpx", "2024-05-02-hebei-tianjin.csv.gz", "2024-05-05-flight-tokyo.zip"] {
            let path = Self.samples + "/" + name
            let fromFile = try CommandRunner.run(["classify", path])
            let fromInput = try CommandRunner.run(["classify", "-"], input: try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(fromInput.status, fromFile.status, name + ": " + fromInput.stderr)
            let file = try report(fromFile.stdout), input = try report(fromInput.stdout)
            for key in ["points", "unlocks", "metrics"] {
                XCTAssertEqual(file[key] as? NSDictionary, input[key] as? NSDictionary, "\(name): \(key)")
            }
            let filePaths = try paths(file), inputPaths = try paths(input)
            XCTAssertFalse(inputPaths.isEmpty, name)
            XCTAssertEqual(inputPaths, filePaths.map { $0 == path ? "-" : $0.replacingOccurrences(of: path + ":", with: "-:") }, name)
            XCTAssertGreaterThan((file["points"] as? [String: Any])?["kept"] as? Int ?? 0, 0, "\(name): nothing kept: \(fromFile.stdout.prefix(300))")
        }
    }

    func testStandardInputTwiceIsAUsageError() throws {
        let result = try CommandRunner.run(["classify", "-", "-"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("standard input"), result.stderr)
    }

    func testAuditReadsStandardInput() throws {
        let path = Self.samples + "/2024-05-01-beijing-walk.gpx"
        let folder = try temporaryDirectory()
        let fromFile = try CommandRunner.run(["audit", path, "--out", folder + "/file", "--source", ""])
        let fromInput = try CommandRunner.run(["audit", "-", "--out", folder + "/input", "--source", ""], input: try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertEqual(fromInput.status, 0, fromInput.stderr)
        let file = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/file/audit.json"))) as? [String: Any])
        let input = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/input/audit.json"))) as? [String: Any])
        XCTAssertEqual(file["summary"] as? NSDictionary, input["summary"] as? NSDictionary)
        XCTAssertNotNil(file["summary"])
    }

    func testChoicesIgnoreCase() throws {
        let line = Data("39.9087,116.3975\n".utf8)
        let lower = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: line)
        let upper = try CommandRunner.run(["convert", "--from", "WGS84", "--to", "GCJ02"], input: line)
        XCTAssertEqual(upper.status, 0, upper.stderr)
        XCTAssertEqual(upper.stdout, lower.stdout)
        let path = Self.samples + "/2024-05-02-hebei-tianjin.csv.gz"
        let plain = try CommandRunner.run(["classify", path, "--format", "text", "--datum", "gcj02"])
        let mixed = try CommandRunner.run(["classify", path, "--format", "TEXT", "--datum", "GCJ02", "--datum-for", "*.gz=Gcj02"])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertEqual(mixed.stdout, plain.stdout)
        let wrong = try CommandRunner.run(["convert", "--from", "WGS85", "--to", "gcj02"], input: line)
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("expected one of wgs84|gcj02|bd09"), wrong.stderr)
    }

    func report(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func paths(_ report: [String: Any]) throws -> [String] {
        let inputs = try XCTUnwrap(report["inputs"] as? [String: Any])
        return try XCTUnwrap(inputs["files"] as? [[String: Any]]).compactMap { $0["path"] as? String }
    }
}
