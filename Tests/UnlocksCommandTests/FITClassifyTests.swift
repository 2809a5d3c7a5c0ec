import Foundation
import XCTest
import UnlocksTestSupport

/// `unlocks classify` on FIT files, plain and gzipped, named or found in a folder.
final class FITClassifyTests: XCTestCase {
    static let root = Repository.root
    static let fixtures = root + "/Tests/TracksTests/Fixtures/fit"

    /// Points fitdecode counts in `name` (Scripts/fixtures/make-fit-fixture-expectations).
    func expectedPoints(_ name: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        return try XCTUnwrap(expected[name]?["points"] as? Int, name)
    }

    func gzip(_ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-k", "-n", path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func inputs(_ arguments: [String]) throws -> (CommandRunner.Result, [[String: Any]]) {
        let result = try CommandRunner.run(["classify", "--tables", Self.root + "/Data/regions"] + arguments)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (result, try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]]))
    }

    func testFITAndFITGzCountThePointsFitdecodeCounts() throws {
        let dir = try temporaryDirectory()
        let run = "garmin-fenix-5-run.fit", bike = "garmin-edge-820-bike.fit"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/" + run, toPath: dir + "/" + run)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/" + bike, toPath: dir + "/RIDE.FIT")
        try gzip(dir + "/" + run)
        // Named without an extension: recognised by its header.
        try FileManager.default.copyItem(atPath: Self.fixtures + "/" + bike, toPath: dir + "/activity")

        for (path, name) in [(dir + "/" + run, run), (dir + "/" + run + ".gz", run), (dir + "/activity", bike)] {
            let (result, files) = try inputs([path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(files.count, 1)
            XCTAssertEqual(files.first?["status"] as? String, "read", path)
            XCTAssertEqual(files.first?["format"] as? String, "fit", path)
            XCTAssertEqual(files.first?["pointsRead"] as? Int, try expectedPoints(name), path)
        }

        // In a folder: .fit, .FIT and .fit.gz are read (the extensionless copy is skipped).
        try FileManager.default.removeItem(atPath: dir + "/" + run)
        let (result, files) = try inputs([dir])
        XCTAssertEqual(result.status, 0, result.stderr)
        let read = files.filter { $0["status"] as? String == "read" }
        XCTAssertEqual(read.compactMap { ($0["path"] as? String).map { String($0.dropFirst(dir.count + 1)) } }.sorted(), ["RIDE.FIT", run + ".gz"])
        XCTAssertEqual(files.first { $0["path"] as? String == dir + "/activity" }?["reason"] as? String, "not a track format")
        XCTAssertEqual(files.compactMap { $0["pointsRead"] as? Int }.reduce(0, +), try expectedPoints(run) + expectedPoints(bike))
    }

    /// A Strava-style `.fit.gz` and a Garmin-style `.FIT` inside one zip, made by Python's zipfile.
    func testFITEntriesOfAZipAreRead() throws {
        let dir = try temporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import gzip, zipfile
            run = open("\(Self.fixtures)/garmin-fenix-5-run.fit", "rb").read()
            bike = open("\(Self.fixtures)/garmin-edge-820-bike.fit", "rb").read()
            with zipfile.ZipFile("\(dir)/export.zip", "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("activities/1234.fit.gz", gzip.compress(run))
                z.writestr("DI_CONNECT/ride.FIT", bike)
            """]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let (result, files) = try inputs([dir + "/export.zip"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let points = Dictionary(uniqueKeysWithValues: files.compactMap { file in (file["path"] as? String).map { ($0, file["pointsRead"] as? Int ?? -1) } })
        XCTAssertEqual(points, [dir + "/export.zip:activities/1234.fit.gz": try expectedPoints("garmin-fenix-5-run.fit"),
                                dir + "/export.zip:DI_CONNECT/ride.FIT": try expectedPoints("garmin-edge-820-bike.fit")])
    }

    func testADamagedFITIsPartialWithItsByteOffset() throws {
        let dir = try temporaryDirectory()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/garmin-fenix-5-run.fit"))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: dir + "/bad.fit"))
        let (result, files) = try inputs([dir + "/bad.fit"])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains(dir + "/bad.fit: byte \(bytes.count - 2): the file's CRC is"), result.stderr)
        XCTAssertEqual(files.first?["status"] as? String, "partial")
        XCTAssertEqual(files.first?["pointsRead"] as? Int, try expectedPoints("garmin-fenix-5-run.fit"))
    }
}
