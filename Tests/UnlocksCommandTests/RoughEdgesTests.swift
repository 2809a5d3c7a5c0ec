import Foundation
import XCTest
import UnlocksTestSupport

/// The CLI's rough edges (issue 24): `forget` finds the tables as every command does, `locate`
/// and `convert` read a header's column names, a refused `--state` leaves nothing beside it,
/// the text report's nouns agree with their counts, and a forgotten input stays forgotten.
final class RoughEdgesTests: XCTestCase {
    static let tables = Repository.tables
    static let walk = Repository.samples + "/2024-05-01-beijing-walk.gpx"

    /// Runs `binary arguments…` in `folder` with `environment` (a copy of the binary without its
    /// tables beside it, as Scripts/check-install does).
    func run(_ binary: String, _ arguments: [String], in folder: String, environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    // MARK: forget finds the tables

    func testForgetFindsTheTablesThroughTheEnvironmentFromAnyFolder() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/lonely/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        let binary = dir + "/lonely/bin/unlocks"
        try FileManager.default.copyItem(atPath: CommandRunner.executable, toPath: binary)
        let environment = ["ADMINUNLOCKS_TABLES": Self.tables, "PATH": "/usr/bin:/bin"]
        let classified = try run(binary, ["classify", Self.walk, "--state", dir + "/s"], in: dir + "/elsewhere", environment: environment)
        XCTAssertEqual(classified.status, 0, classified.stderr)
        let forgot = try run(binary, ["forget", Self.walk, "--state", dir + "/s"], in: dir + "/elsewhere", environment: environment)
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        XCTAssertTrue(forgot.stderr.contains("forgot 1 input"), forgot.stderr)
        // Without the variable it fails as every command does, naming the places it looked in.
        let lost = try run(binary, ["forget", Self.walk, "--state", dir + "/s"], in: dir + "/elsewhere", environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(lost.status, 1, lost.stderr)
        XCTAssertTrue(lost.stderr.contains("$ADMINUNLOCKS_TABLES") && lost.stderr.contains(dir + "/lonely/share/adminunlocks"), lost.stderr)
        let help = try CommandRunner.run(["forget", "--help"]).stdout
        XCTAssertFalse(help.contains("default Data/regions"), help)
        XCTAssertTrue(help.contains("ADMINUNLOCKS_TABLES"), help)
    }

    // MARK: locate and convert read the header

    func testLocateReadsTheColumnsTheHeaderNames() throws {
        // Paris (48.8566 N, 2.3522 E) and Tiananmen, written longitude first.
        for header in ["lon,lat", "longitude,latitude", "name,lng,lat"] {
            let named = header.hasPrefix("name")
            let input = header + "\n" + (named ? "Paris," : "") + "2.3522,48.8566\n" + (named ? "Tiananmen," : "") + "116.3975,39.9087\n"
            let result = try CommandRunner.run(["locate", "--tables", Self.tables], input: Data(input.utf8))
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), [
                "lat,lon,country,province,city,county,status,subdivision",
                "48.8566,2.3522,FRA,,,,inside,\(SubdivisionPlaces.code(of: "Paris"))",
                "39.9087,116.3975,CHN,110000,110100,110101,inside,\(SubdivisionPlaces.code(of: "Beijing Tiananmen"))",
            ], header)
        }
    }

    func testAHeaderNamingNoCoordinatesIsAnErrorNamingTheFile() throws {
        let dir = try temporaryDirectory()
        try "x,y\n2.3522,48.8566\n".write(toFile: dir + "/points.csv", atomically: true, encoding: .utf8)
        for command in [["locate", "--tables", Self.tables], ["convert", "--from", "wgs84", "--to", "gcj02"]] {
            let result = try CommandRunner.run(command + [dir + "/points.csv"])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(dir + "/points.csv:1: the header 'x,y' names no latitude and longitude columns"), result.stderr)
            XCTAssertFalse(result.stdout.contains("48.8566") || result.stdout.contains("2.35"), result.stdout)
        }
        let e7 = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data("latitudeE7,longitudeE7\n399087000,1163975000\n".utf8))
        XCTAssertEqual(e7.status, 1, e7.stderr)
        XCTAssertTrue(e7.stderr.contains("<stdin>:1:") && e7.stderr.contains("E7"), e7.stderr)
    }

    /// Each coordinate is converted in its own column, the others kept as they are: the numbers
    /// are the ones the header-less `lat,lon` order gives (checked against the reference
    /// implementation in ConvertCommandTests), in the columns the header names.
    func testConvertWritesEachCoordinateInItsOwnColumn() throws {
        let points = [(39.9087, 116.3975), (31.2304, 121.4737), (48.8566, 2.3522)]
        let positional = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"],
                                               input: Data(points.map { "\($0.0),\($0.1)\n" }.joined().utf8))
        XCTAssertEqual(positional.status, 0, positional.stderr)
        let converted = positional.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        var input = "id,lon,note,\"lat\"\n"
        for (index, point) in points.enumerated() { input += "\(index), \(point.1) ,\"a b\",\"\(point.0)\"\n" }
        let named = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data(input.utf8))
        XCTAssertEqual(named.status, 0, named.stderr)
        var expected = "id,lon,note,\"lat\"\n"
        for index in points.indices { expected += "\(index),\(converted[index][1]),\"a b\",\(converted[index][0])\n" }
        XCTAssertEqual(named.stdout, expected)
        XCTAssertEqual(converted[2], ["48.856600000", "2.352200000"], "Paris is outside China: unshifted, written with 9 decimals")
    }

    func testALineShorterThanTheNamedColumnsIsReportedAndSkipped() throws {
        let result = try CommandRunner.run(["locate", "--tables", Self.tables], input: Data("name,lon,lat\nParis,2.3522,48.8566\nshort,2.3\n".utf8))
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertEqual(result.stderr, "unlocks: <stdin>:3: no latitude: the header puts it in column 3, the line has fewer\n")
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2)
    }

    // MARK: a refused state leaves nothing

    func testARefusedStateLeavesNoLockBesideIt() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.walk, toPath: dir + "/walk.gpx")
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        for state in [dir + "/walk.gpx", dir + "/folder"] {
            for command in [["classify", Self.walk], ["forget", Self.walk], ["merge", dir + "/none"]] {
                let result = try CommandRunner.run(command + ["--tables", Self.tables, "--state", state])
                XCTAssertEqual(result.status, 1, "\(command) \(state): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(state + ":"), result.stderr)
                XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".lock"), "\(command) left \(state).lock")
            }
        }
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/walk.gpx"), FileManager.default.contents(atPath: Self.walk), "the track is untouched")
    }

    // MARK: plurals

    func testTheTextReportSaysOneCountryOneDayOneCell() throws {
        let dir = try temporaryDirectory()
        // Two points at one place in Tiananmen Square, a minute apart: one cell, one day, one county.
        try "lat,lon,time\n39.90300,116.39750,2024-05-01T01:00:00Z\n39.90300,116.39750,2024-05-01T01:01:00Z\n"
            .write(toFile: dir + "/square.csv", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", dir + "/square.csv", "--tables", Self.tables, "--format", "text"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Unlocked: 1 country, 1 subdivision, 1 province, 1 city, 1 county\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains(" over 1 day ("), result.stdout)
        XCTAssertTrue(result.stdout.contains("(1 cell)"), result.stdout)
        XCTAssertTrue(result.stdout.contains(", 1 cluster tile,") || result.stdout.contains(", 0 cluster tiles,"), result.stdout)
        let plural = try NSRegularExpression(pattern: "(^|[^0-9.])1 (countries|provinces|cities|counties|cells|days|cluster tiles|pins|files|inputs)\\b", options: [.anchorsMatchLines])
        XCTAssertNil(plural.firstMatch(in: result.stdout + result.stderr, range: NSRange(location: 0, length: (result.stdout + result.stderr).utf16.count)),
                     result.stdout + result.stderr)
    }

    // MARK: a forgotten input stays forgotten

    /// A walk of `count` points northward from (`latitude`, `longitude`), one every 5 s, as CSV.
    static func walkCSV(count: Int, latitude: Double, longitude: Double, start: Int = 1_700_000_000) -> String {
        var text = "latitude,longitude,time\n"
        for i in 0..<count { text += String(format: "%.6f,%.6f,%d\n", latitude + Double(i) * 0.00004, longitude, start + i * 5) }
        return text
    }

    func report(_ result: CommandRunner.Result) throws -> [String: Any] {
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func files(_ report: [String: Any]) -> [String: [String: Any]] {
        let list = (report["inputs"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["path"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// A folder classified through a state, one of its files forgotten: the next classify of the
    /// folder skips it (and a copy of it elsewhere) as forgotten, with one job or several, and
    /// counts what a run without it counts; `forget --undo` brings it back, and the run after
    /// that counts it again, as a run over everything does.
    func testAForgottenInputStaysForgottenUntilUndone() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/tracks", withIntermediateDirectories: true)
        try Self.walkCSV(count: 120, latitude: 39.90, longitude: 116.39).write(toFile: dir + "/tracks/beijing.csv", atomically: true, encoding: .utf8)
        try Self.walkCSV(count: 120, latitude: 31.23, longitude: 121.47, start: 1_700_100_000)
            .write(toFile: dir + "/tracks/shanghai.csv", atomically: true, encoding: .utf8)
        let tracks = dir + "/tracks", state = dir + "/state", beijing = dir + "/tracks/beijing.csv"
        let everything = try report(CommandRunner.run(["classify", tracks, "--tables", Self.tables]))
        let shanghaiOnly = try report(CommandRunner.run(["classify", tracks + "/shanghai.csv", "--tables", Self.tables]))
        _ = try report(CommandRunner.run(["classify", tracks, "--tables", Self.tables, "--state", state]))
        let forgot = try CommandRunner.run(["forget", beijing, "--tables", Self.tables, "--state", state])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        XCTAssertTrue(forgot.stderr.contains("unlocks forget --undo"), forgot.stderr)

        // A copy of the forgotten walk put beside it is the same content: forgotten too.
        try FileManager.default.copyItem(atPath: beijing, toPath: tracks + "/beijing-copy.csv")
        for jobs in ["1", "2"] {
            try FileManager.default.copyItem(atPath: state, toPath: dir + "/state-\(jobs)")
            let again = try CommandRunner.run(["classify", tracks, "--tables", Self.tables, "--state", dir + "/state-\(jobs)", "--jobs", jobs])
            let rerun = try report(again)
            XCTAssertTrue(again.stderr.contains("2 forgotten; bring it back with 'unlocks forget --undo'"), again.stderr)
            for path in [beijing, tracks + "/beijing-copy.csv"] {
                XCTAssertEqual(files(rerun)[path]?["status"] as? String, "skipped", path)
                XCTAssertEqual(files(rerun)[path]?["reason"] as? String, "forgotten; bring it back with 'unlocks forget --undo'", path)
            }
            XCTAssertEqual(rerun["metrics"] as? NSDictionary, shanghaiOnly["metrics"] as? NSDictionary, "jobs \(jobs)")
            XCTAssertEqual(rerun["unlocks"] as? NSDictionary, shanghaiOnly["unlocks"] as? NSDictionary, "jobs \(jobs)")
        }
        try FileManager.default.removeItem(atPath: tracks + "/beijing-copy.csv")

        // Undo by content (a file with the walk's bytes) or by path; something never forgotten is an error.
        let notForgotten = try CommandRunner.run(["forget", "--undo", tracks + "/shanghai.csv", "--tables", Self.tables, "--state", state])
        XCTAssertEqual(notForgotten.status, 1, notForgotten.stderr)
        XCTAssertTrue(notForgotten.stderr.contains("no forgotten input has the path or the content of '\(tracks)/shanghai.csv'"), notForgotten.stderr)
        let undone = try CommandRunner.run(["forget", "--undo", beijing, "--tables", Self.tables, "--state", state])
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertTrue(undone.stderr.contains("brought back 1 input"), undone.stderr)
        let back = try report(CommandRunner.run(["classify", tracks, "--tables", Self.tables, "--state", state]))
        XCTAssertEqual(files(back)[beijing]?["status"] as? String, "read")
        XCTAssertEqual(back["metrics"] as? NSDictionary, everything["metrics"] as? NSDictionary)
        XCTAssertEqual(back["unlocks"] as? NSDictionary, everything["unlocks"] as? NSDictionary)
    }

    /// A state that forgot an input, merged with one that read it: forgotten in the merge too.
    func testMergeKeepsWhatOneStateForgot() throws {
        let dir = try temporaryDirectory()
        try Self.walkCSV(count: 120, latitude: 39.90, longitude: 116.39).write(toFile: dir + "/beijing.csv", atomically: true, encoding: .utf8)
        try Self.walkCSV(count: 120, latitude: 31.23, longitude: 121.47, start: 1_700_100_000).write(toFile: dir + "/shanghai.csv", atomically: true, encoding: .utf8)
        _ = try report(CommandRunner.run(["classify", dir + "/beijing.csv", dir + "/shanghai.csv", "--tables", Self.tables, "--state", dir + "/a"]))
        XCTAssertEqual(try CommandRunner.run(["forget", dir + "/beijing.csv", "--tables", Self.tables, "--state", dir + "/a"]).status, 0)
        _ = try report(CommandRunner.run(["classify", dir + "/beijing.csv", "--tables", Self.tables, "--state", dir + "/b"]))
        let merged = try report(CommandRunner.run(["merge", dir + "/a", dir + "/b", "--tables", Self.tables]))
        let shanghaiOnly = try report(CommandRunner.run(["classify", dir + "/shanghai.csv", "--tables", Self.tables]))
        XCTAssertEqual(merged["metrics"] as? NSDictionary, shanghaiOnly["metrics"] as? NSDictionary)
        XCTAssertEqual(merged["unlocks"] as? NSDictionary, shanghaiOnly["unlocks"] as? NSDictionary)
    }
}
