import Foundation
import XCTest
import UnlocksTestSupport

/// `classify --jobs N`: inputs classified by N workers give the bytes one job gives (report,
/// state, standard error, exit status), whatever finishes first.
final class ClassifyJobsTests: XCTestCase {
    static let tables = InputAccountingTests.tables

    var directory = ""

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/archive", withIntermediateDirectories: true)
    }

    /// Runs a Python script in the test's folder with the accounting tests' helpers
    /// (`gpx`, `csv`, `fit`, `gz`, `zipped`).
    func python(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", InputAccountingTests.pythonHelpers + script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python failed")
    }

    struct Run: Equatable {
        var status: Int32
        var stderr: String
        var report: Data
        /// The logbook as `show` reports it.
        var state: String
    }

    /// `classify archive - --jobs N` through a state of its own (copied from `state` when given).
    func classify(jobs: Int, stdin: Data, state: String? = nil, tag: String) throws -> Run {
        let statePath = directory + "/state-\(tag)-\(jobs)", reportPath = directory + "/report-\(tag)-\(jobs).json"
        if let state { try FileManager.default.copyItem(atPath: state, toPath: statePath) }
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, directory + "/archive", "-", "--jobs", "\(jobs)",
                                            "--state", statePath, "--out", reportPath], input: stdin, timeout: 300)
        // The paths of the run's own files differ by N; the archive's are the same.
        return Run(status: result.status, stderr: result.stderr,
                   report: try Data(contentsOf: URL(fileURLWithPath: reportPath)), state: try ReportText.shown(statePath, tables: Self.tables))
    }

    /// An archive with every kind of input a run accounts for: walks of different lengths (so
    /// workers finish out of order), two recordings of one walk (overlapping minutes), a copy of a
    /// file (a duplicate of the first in input order), a damaged file (read in part), files
    /// passed over by name and by content (two copies of a JSON that is no track: the second is
    /// no duplicate, as the first left no reading), a zip with members, a gzip, and standard
    /// input. Then a second run through each state, with one file added and the JSON now a track.
    func testEveryNumberOfJobsGivesTheBytesOfOneJob() throws {
        try python("""
        import os
        os.chdir("archive")
        for k in range(12):
            open("walk-%02d.gpx" % k, "wb").write(gpx(50 + 400 * (k % 4), 39.90 + 0.01 * k, 116.40, start=1714525200 + 86400 * k))
        open("same-walk-phone.csv", "wb").write(csv(300, 39.90, 116.40, start=1714525200))
        open("z-copy-of-walk-00.gpx", "wb").write(open("walk-00.gpx", "rb").read())
        whole = gpx(200, 31.23, 121.47, start=1714700000)
        open("damaged.gpx", "wb").write(whole[:len(whole) // 2] + b"<trkpt lat=\\"x")
        open("notes.md", "w").write("not a track")
        open("settings.json", "w").write('{"theme": "dark"}')
        open("settings-copy.json", "w").write('{"theme": "dark"}')
        open("export.zip", "wb").write(zipped([("a/ride.fit", fit([(1714800000 + i, 22.54 + i * 1e-5, 114.05) for i in range(500)])),
                                               ("a/run.csv", csv(120, 30.57, 104.06, start=1714900000)),
                                               ("a/readme.txt", b"hello")]))
        open("evening.csv.gz", "wb").write(gz(csv(240, 34.34, 108.94, start=1715000000)))
        open("../stdin.gpx", "wb").write(gpx(180, 23.13, 113.26, start=1715100000))
        """)
        let stdin = try Data(contentsOf: URL(fileURLWithPath: directory + "/stdin.gpx"))
        let runs = try [1, 2, 8].map { try classify(jobs: $0, stdin: stdin, tag: "first") }
        XCTAssertEqual(runs[0].status, 3, "the damaged file is read in part: " + runs[0].stderr)
        XCTAssertTrue(runs[0].stderr.contains("damaged.gpx"), runs[0].stderr)
        XCTAssertEqual(runs[1], runs[0], "--jobs 2")
        XCTAssertEqual(runs[2], runs[0], "--jobs 8")

        // What one job gives, checked on its own: the copy is a duplicate of the file met first.
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: runs[0].report) as? [String: Any])
        let files = try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        func entry(_ suffix: String) throws -> [String: Any] {
            try XCTUnwrap(files.first { ($0["path"] as? String)?.hasSuffix(suffix) == true }, suffix)
        }
        XCTAssertEqual(try entry("z-copy-of-walk-00.gpx")["duplicateOf"] as? String, directory + "/archive/walk-00.gpx")
        XCTAssertEqual(try entry("damaged.gpx")["status"] as? String, "partial")
        XCTAssertEqual(try entry("settings-copy.json")["status"] as? String, "skipped")
        XCTAssertNil(try entry("settings-copy.json")["duplicateOf"])
        XCTAssertEqual(try entry("export.zip:a/ride.fit")["status"] as? String, "read")

        // The second run: one new file, and the JSON passed over by its path is now a track.
        try python("""
        open("archive/later.gpx", "wb").write(gpx(300, 45.80, 126.53, start=1715200000))
        open("archive/settings.json", "w").write('{"locations": [' + ", ".join('{"latitudeE7": %d, "longitudeE7": 1164000000, "timestamp": "2024-05-09T01:%02d:00Z"}' % (399000000 + 100 * i, i) for i in range(30)) + ']}')
        """)
        let again = try [1, 2, 8].map { try classify(jobs: $0, stdin: stdin, state: directory + "/state-first-\($0)", tag: "second") }
        XCTAssertTrue(again[0].stderr.contains("already in the state"), again[0].stderr)
        XCTAssertEqual(again[1], again[0], "--jobs 2 through the state")
        XCTAssertEqual(again[2], again[0], "--jobs 8 through the state")
        let second = try XCTUnwrap(JSONSerialization.jsonObject(with: again[0].report) as? [String: Any])
        let settings = try XCTUnwrap(((second["inputs"] as? [String: Any])?["files"] as? [[String: Any]])?.filter {
            ($0["path"] as? String)?.hasSuffix("/settings.json") == true
        })
        XCTAssertEqual(settings.map { $0["status"] as? String }, ["read"], "the reading replaces the record by path")
    }

    /// `--jobs` takes a whole number of at least 1; anything else is a usage error naming it.
    func testJobsMustBeAPositiveWholeNumber() throws {
        for value in ["0", "-2", "two", "1.5", ""] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, InputAccountingTests.root + "/Data/samples", "--jobs", value])
            XCTAssertEqual(result.status, 2, value)
            XCTAssertTrue(result.stderr.contains("--jobs '\(value)'"), result.stderr)
            XCTAssertEqual(result.stdout, "", value)
        }
    }
}
