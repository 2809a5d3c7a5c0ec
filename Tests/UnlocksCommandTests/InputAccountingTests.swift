import Foundation
import XCTest
import UnlocksTestSupport

/// Every file a run meets is accounted for: the walk (links, loops, names that are not UTF-8),
/// zip names and nesting, the tool's own outputs, and the exit code. (Export bundles' rules are
/// IntakeTests/ExportLayoutTests, in-process.)
final class InputAccountingTests: XCTestCase {
    static let root = Repository.root
    static let tables = Repository.tables

    var directory = ""

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
    }

    func classify(_ arguments: [String], timeout: Double = 120) throws -> CommandRunner.Result {
        try CommandRunner.run(["classify", "--tables", Self.tables] + arguments, timeout: timeout)
    }

    func report(_ result: CommandRunner.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func files(_ report: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
    }

    func pointsRead(_ report: [String: Any]) -> Int? {
        (report["points"] as? [String: Any])?["read"] as? Int
    }

    /// The file whose path ends with `suffix` (exactly one).
    func file(_ suffix: String, in report: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let all = try files(report)
        let matching = all.filter { ($0["path"] as? String)?.hasSuffix(suffix) == true }
        XCTAssertEqual(matching.count, 1, "\(suffix) in \(all.compactMap { $0["path"] })", file: file, line: line)
        return try XCTUnwrap(matching.first, file: file, line: line)
    }

    func write(_ text: String, to name: String) throws {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Runs a Python script in the test's folder (zip files are made with Python's zipfile).
    func python(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.pythonHelpers + script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python failed")
    }

    /// The track writers of ``PythonTracks/helpers`` (`csv`, `gpx`, `fit`, `tcx`, `gz`, `zipped`).
    static let pythonHelpers = PythonTracks.helpers

    // MARK: The walk

    /// Two links to `.` and one to `..` inside the folder: the walk ends (it ran for ever) and
    /// reads each file once (one loop found every file 41 times).
    func testLinkLoopsEndAndEveryFileIsReadOnce() throws {
        try python("open('a.csv','wb').write(csv(20, 39.90, 116.40)); import os; os.mkdir('sub'); open('sub/b.csv','wb').write(csv(30, 39.91, 116.40, 1714611600))")
        XCTAssertEqual(symlink(".", directory + "/loop1"), 0)
        XCTAssertEqual(symlink(".", directory + "/loop2"), 0)
        XCTAssertEqual(symlink("..", directory + "/sub/up"), 0)
        XCTAssertEqual(symlink("a.csv", directory + "/alias.csv"), 0)
        let start = Date()
        let result = try classify([directory], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "the walk did not end")
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        XCTAssertEqual(pointsRead(report), 50)
        let read = try files(report).filter { $0["status"] as? String == "read" }.compactMap { $0["path"] as? String }
        XCTAssertEqual(read, [directory + "/a.csv", directory + "/sub/b.csv"])
        let alias = try file("/alias.csv", in: report)
        XCTAssertEqual(alias["status"] as? String, "skipped")
        XCTAssertEqual(alias["reason"] as? String, "duplicate")
        XCTAssertEqual(alias["duplicateOf"] as? String, directory + "/a.csv")
        XCTAssertFalse(result.stderr.contains("already in the state"), result.stderr)
    }

    /// A dangling link named like a track is a track lost: rejected with the reason, the run
    /// goes on (exit 3); one named like anything else is skipped by its name.
    func testADanglingLinkIsRejectedAndTheRestIsRead() throws {
        try python("open('a.csv','wb').write(csv(5, 39.90, 116.40))")
        XCTAssertEqual(symlink("nowhere.gpx", directory + "/gone.gpx"), 0)
        XCTAssertEqual(symlink("nowhere.png", directory + "/gone.png"), 0)
        let result = try classify([directory])
        XCTAssertEqual(result.status, 3, result.stderr)
        let report = try report(result)
        let gone = try file("/gone.gpx", in: report)
        XCTAssertEqual(gone["status"] as? String, "rejected")
        XCTAssertTrue((gone["error"] as? String)?.hasPrefix("cannot open") == true, "\(gone)")
        XCTAssertEqual(try file("/gone.png", in: report)["reason"] as? String, "not a track format")
        XCTAssertEqual(pointsRead(report), 5)
    }

    /// A Latin-1 `café.csv` (byte E9) is read and reported as `caf\xE9.csv` (it disappeared).
    func testANameThatIsNotUTF8IsReadAndShownEscaped() throws {
        let name = Array((directory + "/caf").utf8) + [0xE9] + Array(".csv".utf8)
        let text = Array("lat,lon,time\n39.9,116.4,2024-05-01T01:00:00Z\n39.9001,116.4,2024-05-01T01:00:01Z\n".utf8)
        let fd = (name + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, text.count)
        close(fd)
        let result = try classify([directory])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        let entry = try file("/caf\\xE9.csv", in: report)
        XCTAssertEqual(entry["status"] as? String, "read")
        XCTAssertEqual(entry["pointsRead"] as? Int, 2)
    }

    // MARK: Zip names and nesting

    /// `轨迹/上海外滩.csv` with the UTF-8 flag (Python sets it for non-ASCII names) keeps its name
    /// and is read; a GBK name without the flag, or a Latin-1 one wrongly flagged, is escaped.
    func testZipEntryNamesInUTF8AndInOtherEncodings() throws {
        try python("""
        data = zipped([("轨迹/上海外滩.csv", csv(10, 31.24, 121.49)), ("gbk_.csv", csv(5, 31.25, 121.49, 1714611600))])
        # The second name, written as ASCII (no UTF-8 flag), becomes GBK bytes of 外外 in both headers
        # (CD E2 CD E2: no UTF-8 sequence among them).
        data = data.replace(b"gbk_.csv", "外外.csv".encode("gbk"))
        open("names.zip", "wb").write(data)
        # A writer that flags a Latin-1 name as UTF-8 (bit 11 in the local and central headers).
        bad = bytearray(zipped([("cafX.csv", csv(3, 39.9, 116.4))]).replace(b"cafX.csv", b"caf\\xe9.csv"))
        for signature, offset in [(b"PK\\x03\\x04", 6), (b"PK\\x01\\x02", 8)]:
            at = bad.find(signature) + offset
            struct.pack_into("<H", bad, at, struct.unpack_from("<H", bad, at)[0] | 0x800)
        open("flagged.zip", "wb").write(bad)
        """)
        let result = try classify([directory + "/names.zip"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        XCTAssertEqual(try file("names.zip:轨迹/上海外滩.csv", in: report)["pointsRead"] as? Int, 10)
        XCTAssertEqual(try file("names.zip:\\xCD\\xE2\\xCD\\xE2.csv", in: report)["pointsRead"] as? Int, 5)
        XCTAssertEqual(pointsRead(report), 15)

        // A name flagged UTF-8 that is not: its bytes escaped like any other's, and read (libarchive
        // lost such names: the entry was `?`, skipped).
        let flagged = try classify([directory + "/flagged.zip"])
        XCTAssertEqual(flagged.status, 0, flagged.stderr)
        XCTAssertEqual(try file("flagged.zip:caf\\xE9.csv", in: try self.report(flagged))["pointsRead"] as? Int, 3)
    }

    /// Two entries of the same name are two inputs (the second was taken as already counted).
    func testTwoZipEntriesWithTheSameNameAreTwoInputs() throws {
        try python("""
        import warnings; warnings.simplefilter("ignore")
        open("twice.zip", "wb").write(zipped([("t.csv", csv(7, 39.90, 116.40)), ("t.csv", csv(9, 39.95, 116.40, 1714611600))]))
        """)
        let result = try classify([directory + "/twice.zip"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        XCTAssertEqual(try file("twice.zip:t.csv", in: report)["pointsRead"] as? Int, 7)
        XCTAssertEqual(try file("twice.zip:t.csv#2", in: report)["pointsRead"] as? Int, 9)
        XCTAssertEqual(pointsRead(report), 16)
    }

    // MARK: Own outputs, unreadable files, empty runs

    /// `unlocks audit DIR --out DIR/audit` puts its files inside the archive; the next classify
    /// skips them as the tool's own output (it read audit.geojson as a track).
    func testTheAuditsOutputInsideTheArchiveIsSkipped() throws {
        let walk = "2024-05-01-beijing-walk.gpx"
        try FileManager.default.copyItem(atPath: Self.root + "/Data/samples/" + walk, toPath: directory + "/" + walk)
        let alone = try report(try classify([directory]))
        let audit = try CommandRunner.run(["audit", "--tables", Self.tables, "--source", "", directory, "--out", directory + "/audit"])
        XCTAssertEqual(audit.status, 0, audit.stderr)
        let geojson = try String(contentsOfFile: directory + "/audit/audit.geojson", encoding: .utf8)
        XCTAssertTrue(geojson.contains("\"MultiPoint\""), "the audit flagged nothing, so the test proves nothing")

        let result = try classify([directory])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        XCTAssertEqual(pointsRead(report), pointsRead(alone))
        for name in ["audit.geojson", "audit.json"] {
            let entry = try file("/audit/" + name, in: report)
            XCTAssertEqual(entry["status"] as? String, "skipped", name)
            XCTAssertEqual(entry["reason"] as? String, "the tool's own output", name)
        }
        XCTAssertEqual(try file("/audit/audit.html", in: report)["reason"] as? String, "not a track format")
        // The audit itself does the same.
        let again = try CommandRunner.run(["audit", "--tables", Self.tables, "--source", "", directory, "--out", directory + "/audit"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory + "/audit/audit.geojson", encoding: .utf8), geojson)
        let summary = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/audit/audit.json"))) as? [String: Any])?["summary"] as? [String: Any])
        XCTAssertEqual(summary["inputs"] as? Int, 1)
        XCTAssertEqual(summary["inputsSkipped"] as? Int, 3, "audit.json, audit.geojson and audit.html of the first audit, nothing of its own run")
    }

    /// `unlocks map DIR --out DIR/map`: the next classify of DIR reads the walk alone: every
    /// file the map wrote is the tool's own output or no track format (its GeoJSON files were
    /// read as tracks and its GPX waypoints as pins), and a second map writes the same bytes.
    func testTheMapsOutputInsideTheArchiveIsSkipped() throws {
        let walk = "2024-05-01-beijing-walk.gpx"
        try FileManager.default.copyItem(atPath: Self.root + "/Data/samples/" + walk, toPath: directory + "/" + walk)
        let alone = try report(try classify([directory]))
        let map = try CommandRunner.run(["map", "--tables", Self.tables, directory, "--out", directory + "/map"])
        XCTAssertEqual(map.status, 0, map.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory + "/map").sorted()
        XCTAssertEqual(written.count, 10)
        let geojson = try String(contentsOfFile: directory + "/map/footprint.geojson", encoding: .utf8)

        let result = try classify([directory])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(result)
        XCTAssertEqual(pointsRead(report), pointsRead(alone))
        XCTAssertEqual(try files(report).filter { $0["status"] as? String != "skipped" }.count, 1, "only the walk is read")
        for name in written {
            let expected = name.hasSuffix(".html") || name.hasSuffix(".svg") || name.hasSuffix(".png") ? "not a track format" : "the tool's own output"
            XCTAssertEqual(try file("/map/" + name, in: report)["reason"] as? String, expected, name)
        }
        let again = try CommandRunner.run(["map", "--tables", Self.tables, directory, "--out", directory + "/map"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory + "/map/footprint.geojson", encoding: .utf8), geojson)
    }

    /// A file none of whose points is readable is rejected, not "ok" (exit 0).
    func testAFileWithOnlyUnreadablePointsIsRejected() throws {
        try write("lat,lon,time\n39.9,abc,2024-05-01T01:00:00Z\nx,y,z\n39.9,,2024-05-01T01:00:02Z\n", to: "bad.csv")
        try python("open('good.csv','wb').write(csv(4, 39.90, 116.40))")
        let result = try classify([directory])
        XCTAssertEqual(result.status, 3, result.stderr)
        let report = try report(result)
        let bad = try file("/bad.csv", in: report)
        XCTAssertEqual(bad["status"] as? String, "rejected")
        XCTAssertEqual(bad["error"] as? String, "no readable point: 3 unreadable")
        XCTAssertTrue(result.stderr.contains(directory + "/bad.csv: no readable point: 3 unreadable"), result.stderr)
        XCTAssertEqual(try file("/good.csv", in: report)["status"] as? String, "read")
    }

    /// No track point anywhere: said on standard error, exit 3 (it was "ok", exit 0).
    func testARunWithoutTrackPointsSaysSoAndFails() throws {
        try write("not a photo", to: "photo.jpg")
        try write("<?xml version=\"1.0\"?><gpx><wpt lat=\"39.9\" lon=\"116.4\"/></gpx>", to: "pins.gpx")
        let result = try classify([directory])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("no track points found in any input (1 read, 1 skipped, 1 pin;"), result.stderr)
        let report = try report(result)
        XCTAssertEqual(try file("/pins.gpx", in: report)["pins"] as? Int, 1)
        XCTAssertEqual(try file("/photo.jpg", in: report)["reason"] as? String, "not a track format")
    }

    /// The text report names a few skipped files and counts many by reason.
    func testTheTextReportNamesFewSkippedFilesAndCountsMany() throws {
        try python("open('t.csv','wb').write(csv(3, 39.90, 116.40))")
        for i in 0..<2 { try write("x", to: "photo\(i).jpg") }
        let few = try classify([directory, "--format", "text"])
        XCTAssertEqual(few.status, 0, few.stderr)
        XCTAssertTrue(few.stdout.contains("Inputs: 1 read in full, 2 skipped\n"), few.stdout)
        XCTAssertTrue(few.stdout.contains("  skipped: \(directory)/photo1.jpg: not a track format\n"), few.stdout)
        for i in 2..<11 { try write("x", to: "photo\(i).jpg") }
        try write("x", to: ".DS_Store")
        let many = try classify([directory, "--format", "text"])
        XCTAssertEqual(many.status, 0, many.stderr)
        XCTAssertTrue(many.stdout.contains("  skipped: 1 hidden file, 11 not a track format\n"), many.stdout)
        XCTAssertFalse(many.stdout.contains("photo1.jpg"), many.stdout)
        XCTAssertTrue(many.stderr.contains("files skipped ("), many.stderr)
    }

    /// Skipped files are kept in the state: one run, runs through a state, and merged shards
    /// give the same bytes with them too.
    func testSkippedFilesAgreeAcrossRunsStatesAndShards() throws {
        try python("""
        import os
        os.makedirs("one"); os.makedirs("two")
        open("one/a.csv", "wb").write(csv(5, 39.90, 116.40))
        open("one/notes.pdf", "wb").write(b"%PDF")
        open("two/b.csv", "wb").write(csv(6, 39.95, 116.40, 1714611600))
        open("two/c.csv", "wb").write(csv(5, 39.90, 116.40))
        """)
        let one = directory + "/one", two = directory + "/two"
        let all = try classify([one, two])
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(try file("/two/c.csv", in: try report(all))["reason"] as? String, "duplicate")
        XCTAssertEqual(try classify([one, "--state", directory + "/s"]).status, 0)
        let resumed = try classify([two, "--state", directory + "/s"])
        XCTAssertEqual(ReportText.withoutChanges(resumed.stdout), all.stdout)
        let again = try classify([one, two, "--state", directory + "/s"])
        XCTAssertEqual(ReportText.withoutChanges(again.stdout), all.stdout)
        XCTAssertEqual(try classify([one, "--state", directory + "/a"]).status, 0)
        XCTAssertEqual(try classify([two, "--state", directory + "/b"]).status, 0)
        // c.csv is b's own input in its shard, and a.csv's bytes: the copies rule decides in the
        // merge as in one run (a.csv read, c.csv its duplicate), whichever order the shards come in.
        for shards in [[directory + "/a", directory + "/b"], [directory + "/b", directory + "/a"]] {
            let merged = try CommandRunner.run(["merge", "--tables", Self.tables] + shards)
            XCTAssertEqual(merged.status, 0, merged.stderr)
            XCTAssertEqual(merged.stdout, all.stdout)
        }
        try FileManager.default.removeItem(atPath: two + "/c.csv")
        let withoutCopy = try classify([one, two])
        XCTAssertEqual(try classify([two, "--state", directory + "/b2"]).status, 0)
        let shards = try CommandRunner.run(["merge", "--tables", Self.tables, directory + "/b2", directory + "/a"])
        XCTAssertEqual(shards.status, 0, shards.stderr)
        XCTAssertEqual(shards.stdout, withoutCopy.stdout)
        XCTAssertEqual(try file("/one/notes.pdf", in: try report(shards))["status"] as? String, "skipped")
    }
}
