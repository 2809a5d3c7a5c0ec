import Foundation
import TrackFuzzing
import XCTest
import UnlocksTestSupport

/// The CI fuzz run, about a minute in all: seeded mutants of every sample and fixture track file
/// and archive (integer boundaries in their length, size, offset and count fields among the
/// mutations) through the built `unlocks classify`, and of a state through `unlocks merge`
/// (UnlocksBench fuzz runs thousands). See docs/input-formats.md, "Fuzzing".
final class FuzzTests: XCTestCase {
    static let root = Repository.root

    func testMutantsNeitherCrashNorHangAndReportsAddUp() throws {
        let seeds = try FuzzSeeds.find(root: Self.root)
        // Every format with a sample joins (FIT, TCX, KML… when their fixtures arrive).
        for suffix in [".gpx", ".csv", ".json", ".geojson", ".zip", ".csv.gz", ".kmz", ".tar", ".tgz"] {
            XCTAssertTrue(seeds.contains { $0.suffix == suffix }, "no \(suffix) seed")
        }
        // The JSON apps' exports join by their `.json`: Huawei Health, Polar Flow.
        XCTAssertTrue(seeds.contains { $0.path.hasSuffix("json-apps/training-session-2020-12-18-visnjan.json") }, "no Polar Flow seed")
        let work = NSTemporaryDirectory() + "unlocks-fuzz-\(getpid())"
        let failures = NSTemporaryDirectory() + "unlocks-fuzz-failures"
        defer { try? FileManager.default.removeItem(atPath: work) }
        var campaign = FuzzCampaign(seeds: seeds, runner: FuzzRunner(executable: CommandRunner.executable, tables: Self.root + "/Data/regions", timeLimit: 20),
                                    campaignSeed: 20_261_201, count: 320, workDirectory: work, failureDirectory: failures)
        campaign.groupSize = 8
        // A bound for a loaded machine (the CI run's minute, with the states' below); the mutants
        // that ran are still checked.
        campaign.timeBudget = 40
        let summary = try campaign.run()
        print("fuzz: \(summary.mutants) mutants in \(summary.processes) processes, \(String(format: "%.1f", summary.seconds)) s, peak RSS ≤ \(summary.peakResidentBytes >> 20) MB, by format \(summary.bySuffix.sorted { $0.key < $1.key })")
        XCTAssertGreaterThanOrEqual(summary.mutants, 64, "too few mutants ran within the budget")
        for failure in summary.failures {
            XCTFail("fuzz failure, mutant kept at \(failure)")
        }
    }

    /// States: mutants of a real state (a walk's, with cells, tiles and familiarity) with their
    /// checksum fixed, each through `unlocks merge`: exit 0 with a report that adds up, or 1
    /// naming the file; never a trap (the crafted overflows of StateLimitTests, found at random).
    func testStateMutantsAreRefusedOrReadNeverTrapped() throws {
        let work = NSTemporaryDirectory() + "unlocks-state-fuzz-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let made = try CommandRunner.run(["classify", Self.root + "/Data/samples/2024-05-01-beijing-walk.gpx", "--tables", Self.root + "/Data/regions",
                                          "--state", work + "/seed.st", "--out", work + "/seed.json"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let state = Array(try Data(contentsOf: URL(fileURLWithPath: work + "/seed.st")))
        let runner = FuzzRunner(executable: CommandRunner.executable, tables: Self.root + "/Data/regions", timeLimit: 20)
        let result = try StateFuzz.run(state: state, runner: runner, campaignSeed: 20_261_202, count: 24, budget: 12,
                                       workDirectory: work + "/mutants", failureDirectory: NSTemporaryDirectory() + "unlocks-fuzz-failures")
        XCTAssertGreaterThanOrEqual(result.mutants, 6, "too few state mutants ran within the budget")
        for failure in result.failures { XCTFail("state fuzz failure, mutant kept at \(failure)") }
        // The mutants are not all refused at the header: some reach the numbers.
        let refusedEarly = (0..<8).map { StateFuzz.mutant(of: state, index: $0, campaignSeed: 20_261_202) }.filter { Array($0.bytes.prefix(8)) != Array(state.prefix(8)) }
        XCTAssertLessThan(refusedEarly.count, 8)
    }

    /// The runner itself, on stand-in programs: a crash, a hang, a bad exit status and a report
    /// that does not add up are each caught.
    func testRunnerCatchesCrashesHangsAndBadReports() throws {
        let directory = NSTemporaryDirectory() + "unlocks-fuzz-runner-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func program(_ name: String, _ body: String) throws -> FuzzRunner {
            let path = directory + "/" + name
            try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            return FuzzRunner(executable: path, tables: "unused", timeLimit: 1)
        }
        // This process's own peak above the limit (as after other tests in one run): a
        // spawned child inherits it as `ru_maxrss`, and it must not be taken for the child's.
        let ballast = UnsafeMutableRawBufferPointer.allocate(byteCount: 400 << 20, alignment: 4096)
        defer { ballast.deallocate() }
        for page in stride(from: 0, to: ballast.count, by: 4096) { ballast[page] = 1 }
        let crash = try program("crash", "kill -SEGV $$")
        XCTAssertEqual(crash.problems(crash.run(["a.gpx"], in: directory)), ["crash: signal 11"])
        let hang = try program("hang", "exec sleep 30")
        let hung = hang.run(["a.gpx"], in: directory)
        XCTAssertTrue(hung.timedOut)
        XCTAssertLessThan(hung.seconds, 5)
        XCTAssertEqual(hang.problems(hung).first?.hasPrefix("hang: killed after"), true)
        let status = try program("status", "exit 2")
        XCTAssertEqual(status.problems(status.run(["a.gpx"], in: directory)), ["exit status 2"])
        let silent = try program("silent", "exit 0")
        XCTAssertEqual(silent.problems(silent.run(["a.gpx"], in: directory)), ["no report on standard output (exit 0)"])
        let wrong = try program("wrong", #"echo '{"inputs": {"files": []}, "points": {"read": 2, "kept": 1, "dropped": {}}}'"#)
        XCTAssertEqual(wrong.problems(wrong.run(["a.gpx"], in: directory)), [
            "points: read 2 ≠ kept 1 + dropped 0", "inputs add up to read 0, kept 0; the totals say 2, 1",
        ])
        // Alive long enough for its memory to be read while it runs.
        var greedy = try program("greedy", "sleep 0.3; exit 0")
        greedy.memoryLimitBytes = 1 << 10
        XCTAssertEqual(greedy.problems(greedy.run(["a.gpx"], in: directory)).first?.hasPrefix("memory: peak RSS"), true)
    }

    /// The checker itself: a report whose numbers do not add up is caught.
    func testReportCheckCatchesMismatches() {
        let good = #"{"inputs": {"files": [{"path": "a", "pointsRead": 3, "pointsKept": 2}]}, "points": {"read": 3, "kept": 2, "dropped": {"accuracy": 1}}}"#
        XCTAssertEqual(FuzzRunner.reportProblems(Data(good.utf8)), [])
        let bad = #"{"inputs": {"files": [{"path": "a", "pointsRead": 3, "pointsKept": 4}]}, "points": {"read": 3, "kept": 2, "dropped": {"accuracy": 0}}}"#
        XCTAssertEqual(FuzzRunner.reportProblems(Data(bad.utf8)).count, 3)
        XCTAssertEqual(FuzzRunner.reportProblems(Data("[]".utf8)), ["the report is not a JSON object"])
    }
}
