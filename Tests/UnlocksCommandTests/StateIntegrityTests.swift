import Foundation
import XCTest
@testable import UnlocksCommand
import UnlocksTestSupport

/// The `--state` file end to end: concurrent runs, inputs known by their whole content, files that
/// are not states, the state named as the report, and runs killed at any moment.
final class StateIntegrityTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func classify(_ arguments: [String], timeout: Double? = nil) throws -> CommandRunner.Result {
        try Self.classify(arguments, timeout: timeout)
    }

    /// `unlocks classify` on the committed tables (static, for runs started on other threads).
    static func classify(_ arguments: [String], timeout: Double? = nil) throws -> CommandRunner.Result {
        try CommandRunner.run(["classify", "--tables", tables] + arguments, timeout: timeout)
    }

    /// A CSV walk of `count` points northward from (`latitude`, `longitude`), one every 5 s.
    func walkCSV(count: Int, latitude: Double, longitude: Double, start: Int = 1_700_000_000) -> String {
        var text = "latitude,longitude,time\n"
        for i in 0..<count {
            text += String(format: "%.6f,%.6f,%d\n", latitude + Double(i) * 0.00004, longitude, start + i * 5)
        }
        return text
    }

    func report(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func inputs(_ report: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
    }

    /// Two runs started together on one logbook, each with its own input: both inputs end up in
    /// it (each commits its inputs in a transaction of its own; the later reads the earlier's first).
    func testConcurrentRunsKeepBothInputs() throws {
        let dir = try temporaryDirectory()
        for trial in 0..<3 {
            let state = dir + "/state-\(trial)"
            try walkCSV(count: 60_000, latitude: 39.80, longitude: 116.30).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
            try walkCSV(count: 60_000, latitude: 39.80, longitude: 116.50, start: 1_710_000_000).write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
            let group = DispatchGroup()
            let results = ResultBox()
            for name in ["a.csv", "b.csv"] {
                group.enter()
                DispatchQueue.global().async {
                    results.add(try? Self.classify([dir + "/" + name, "--state", state]))
                    group.leave()
                }
            }
            group.wait()
            XCTAssertEqual(results.all.map(\.status), [0, 0], results.all.map(\.stderr).joined())
            let again = try classify([dir + "/a.csv", dir + "/b.csv", "--state", state])
            XCTAssertTrue(again.stderr.contains("2 inputs already in the state"), "trial \(trial): " + again.stderr)
            XCTAssertEqual(try inputs(report(again.stdout)).count, 2)
        }
    }

    /// Two files of the same size whose first and last 64 KiB agree, differing only in between:
    /// two inputs, both read, each region unlocked.
    func testFilesEqualAtBothEndsAreDifferentInputs() throws {
        let dir = try temporaryDirectory()
        let head = walkCSV(count: 3_000, latitude: 39.90, longitude: 116.39)           // Beijing
        let tail = walkCSV(count: 3_000, latitude: 39.90, longitude: 116.39, start: 1_700_100_000).split(separator: "\n", maxSplits: 1)[1]
        // The middles: an hour later (a new segment), 200 points in Shanghai or in Tianjin, the
        // same length in bytes.
        func middle(_ latitude: Double, _ longitude: Double) -> String {
            String(walkCSV(count: 200, latitude: latitude, longitude: longitude, start: 1_700_050_000).split(separator: "\n", maxSplits: 1)[1])
        }
        let shanghai = middle(31.230000, 121.470000), tianjin = middle(39.130000, 117.200000)
        XCTAssertEqual(shanghai.utf8.count, tianjin.utf8.count)
        XCTAssertGreaterThan(head.utf8.count, 1 << 16)
        XCTAssertGreaterThan(tail.utf8.count, 1 << 16)
        try (head + shanghai + tail).write(toFile: dir + "/one.csv", atomically: true, encoding: .utf8)
        try (head + tianjin + tail).write(toFile: dir + "/two.csv", atomically: true, encoding: .utf8)

        let result = try classify([dir + "/one.csv", dir + "/two.csv", "--state", dir + "/state"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try inputs(report(result.stdout))
        XCTAssertEqual(files.map { $0["status"] as? String }, ["read", "read"])
        XCTAssertEqual(files.map { $0["pointsRead"] as? Int }, [6_200, 6_200])
        // Shanghai (310000) and Tianjin (120000) provinces both unlocked.
        XCTAssertTrue(result.stdout.contains("\"310000\""), "Shanghai missing")
        XCTAssertTrue(result.stdout.contains("\"120000\""), "Tianjin missing")
    }

    /// A device, a named pipe or a folder as the state, or as a region table: refused at once.
    func testNonRegularStateAndTablesAreRefusedAtOnce() throws {
        let dir = try temporaryDirectory()
        try walkCSV(count: 50, latitude: 39.90, longitude: 116.39).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        XCTAssertEqual(mkfifo(dir + "/fifo", 0o644), 0)
        for state in ["/dev/zero", dir + "/fifo", dir] {
            let started = Date()
            let result = try classify([dir + "/a.csv", "--state", state], timeout: 20)
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, state)
            XCTAssertNotEqual(result.status, 0, state)
            XCTAssertLessThan(result.status, 128, "killed or crashed: " + state)
            XCTAssertTrue(result.stderr.contains("\(state): not a regular file"), result.stderr)
        }
        for target in ["/dev/zero", dir + "/fifo"] {
            let tables = dir + "/tables-\(target.hasSuffix("fifo") ? "fifo" : "zero")"
            try FileManager.default.createDirectory(atPath: tables, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: tables + "/world.bin", withDestinationPath: target)
            try FileManager.default.createSymbolicLink(atPath: tables + "/china.bin", withDestinationPath: Self.tables + "/china.bin")
            let started = Date()
            let result = try CommandRunner.run(["classify", dir + "/a.csv", "--tables", tables], timeout: 20)
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, target)
            XCTAssertNotEqual(result.status, 0, target)
            XCTAssertLessThan(result.status, 128, "killed or crashed: " + target)
            XCTAssertTrue(result.stderr.contains("world.bin: not a regular file"), result.stderr)
        }
    }

    func testStateAndOutNamingOneFileIsAUsageError() throws {
        let dir = try temporaryDirectory()
        try walkCSV(count: 50, latitude: 39.90, longitude: 116.39).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        XCTAssertEqual(try classify([dir + "/a.csv", "--state", dir + "/s"]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/s"))
        for out in [dir + "/s", dir + "/./s"] {
            let result = try classify([dir + "/a.csv", "--state", dir + "/s", "--out", out])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--state and --out"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/s")), before, "the state is untouched")
        let merged = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/s", "--state", dir + "/m", "--out", dir + "/m"])
        XCTAssertEqual(merged.status, 2, merged.stderr)
    }

    /// Runs killed with SIGKILL at random moments: the state and report left are each the old
    /// file or the new one (never half written), and once a run completes no temporary file of
    /// any killed run is left in the folder.
    func testKilledRunsLeaveNothingBehind() throws {
        let dir = try temporaryDirectory()
        let inputs = dir + "/in"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        try walkCSV(count: 40_000, latitude: 39.80, longitude: 116.30).write(toFile: inputs + "/a.csv", atomically: true, encoding: .utf8)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let started = Date()
        let fresh = try classify([inputs, "--state", out + "/state", "--out", out + "/report.json"])
        // Kill moments from 2% to 120% of a whole run's time here (debug and release builds differ tenfold).
        let whole = Date().timeIntervalSince(started)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        let report = try Data(contentsOf: URL(fileURLWithPath: out + "/report.json"))
        var generator = SplitMix64(seed: 1006)
        var killed = 0
        for _ in 0..<12 {
            // Each run reads the input again (the state is removed), so it writes a new state and report.
            try? FileManager.default.removeItem(atPath: out + "/state")
            let result = try classify([inputs, "--state", out + "/state", "--out", out + "/report.json"],
                                      timeout: whole * Double.random(in: 0.02...1.2, using: &generator))
            if result.status == 128 + SIGKILL { killed += 1 }
            // Whatever the moment, the report is whole (old and new are equal here).
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/report.json")), report)
        }
        XCTAssertGreaterThan(killed, 0, "no run was killed")
        let last = try classify([inputs, "--state", out + "/state", "--out", out + "/report.json"])
        XCTAssertEqual(last.status, 0, last.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        // The logbook alone: SQLite's write-ahead log of a killed run is taken back by the next
        // run and removed when it closes; no lock file beside it.
        XCTAssertEqual(left, ["report.json", "state"])
    }

    /// Audits killed with SIGKILL at random moments, alternating between two inputs: the three
    /// files are always one complete set (all from the one input or all from the other), and once
    /// an audit completes nothing else is left in the folder.
    func testKilledAuditsLeaveOneWholeSet() throws {
        let dir = try temporaryDirectory()
        try walkCSV(count: 30_000, latitude: 39.80, longitude: 116.30).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try walkCSV(count: 30_000, latitude: 31.10, longitude: 121.40).write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        func audit(_ input: String, _ out: String, timeout: Double? = nil) throws -> CommandRunner.Result {
            try CommandRunner.run(["audit", dir + "/" + input, "--tables", Self.tables, "--out", out, "--source", ""], timeout: timeout)
        }
        func set(_ folder: String) -> [Data?] {
            ["audit.json", "audit.geojson", "audit.html"].map { try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
        }
        // The set as it stands once an interrupted commit (a run killed among its renames, whose
        // folder `.audit-commit-PID` holds the files it had not moved yet) is rolled forward, as
        // the next run writing there does first.
        func committedSet(_ folder: String) -> [Data?] {
            let commits = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".audit-commit-") }
            XCTAssertLessThanOrEqual(commits.count, 1, "\(commits)")
            guard let commit = commits.first else { return set(folder) }
            return zip(set(folder), set(folder + "/" + commit)).map { $1 ?? $0 }
        }
        let started = Date()
        for input in ["a.csv", "b.csv"] { XCTAssertEqual(try audit(input, dir + "/ref-" + input).status, 0) }
        // Kill moments from 2% to 120% of a whole audit's time here (debug and release builds differ tenfold).
        let whole = Date().timeIntervalSince(started) / 2
        let expected = [set(dir + "/ref-a.csv"), set(dir + "/ref-b.csv")]
        XCTAssertNotEqual(expected[0], expected[1])
        let out = dir + "/out"
        XCTAssertEqual(try audit("a.csv", out).status, 0)
        var generator = SplitMix64(seed: 1007)
        var killed = 0
        for trial in 0..<12 {
            let result = try audit(trial % 2 == 0 ? "b.csv" : "a.csv", out, timeout: whole * Double.random(in: 0.02...1.2, using: &generator))
            if result.status == 128 + SIGKILL { killed += 1 }
            XCTAssertTrue(expected.contains(committedSet(out)),
                          "trial \(trial): the three files are not one set: \(committedSet(out).map { $0?.count ?? -1 }) vs \(expected.map { $0.map { $0?.count ?? -1 } })")
        }
        XCTAssertGreaterThan(killed, 0, "no audit was killed")
        XCTAssertEqual(try audit("a.csv", out).status, 0)
        XCTAssertEqual(set(out), expected[0])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["audit.geojson", "audit.html", "audit.json"])
    }
}

/// A commit interrupted among its renames (made here as a killed run leaves it: the new set's
/// first file moved, the rest still in `.audit-commit-PID` of a process that no longer runs) is
/// rolled forward by the next `OutputFileSet` over the same folder: the whole new set, nothing left.
final class OutputFileSetTests: XCTestCase {
    func testAnInterruptedCommitIsRolledForwardByTheNextRun() throws {
        let out = try temporaryDirectory()
        let names = OutputFileSet.auditNames
        for name in names { try "old \(name)".write(toFile: out + "/" + name, atomically: false, encoding: .utf8) }
        let commit = out + "/.audit-commit-2000000000"  // above Linux's and Darwin's largest PID: no such process
        try FileManager.default.createDirectory(atPath: commit, withIntermediateDirectories: false)
        try "new \(names[0])".write(toFile: out + "/" + names[0], atomically: false, encoding: .utf8)
        for name in names.dropFirst() { try "new \(name)".write(toFile: commit + "/" + name, atomically: false, encoding: .utf8) }
        // A run killed before its commit: its staging folder is discarded, its files never seen.
        let staging = out + "/.audit-2000000001"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        try "unfinished".write(toFile: staging + "/" + names[2], atomically: false, encoding: .utf8)

        let next = try OutputFileSet(out: out)
        for name in names { XCTAssertEqual(try String(contentsOfFile: out + "/" + name, encoding: .utf8), "new \(name)") }
        next.discard()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), names.sorted())
    }
}

/// Results gathered from several threads.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [CommandRunner.Result] = []
    func add(_ result: CommandRunner.Result?) {
        lock.lock(); defer { lock.unlock() }
        if let result { results.append(result) }
    }
    var all: [CommandRunner.Result] {
        lock.lock(); defer { lock.unlock() }
        return results
    }
}
