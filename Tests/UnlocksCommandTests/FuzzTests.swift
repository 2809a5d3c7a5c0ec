import Foundation
import TrackFuzzing
import XCTest

/// The quick fuzz run: a few hundred seeded mutants of every sample and fixture track file
/// through the built `unlocks classify` (UnlocksBench fuzz runs thousands). See
/// docs/input-formats.md, "Fuzzing".
final class FuzzTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func testMutantsNeitherCrashNorHangAndReportsAddUp() throws {
        let seeds = try FuzzSeeds.find(root: Self.root)
        // Every format with a sample joins (FIT, TCX, KML… when their fixtures arrive).
        for suffix in [".gpx", ".csv", ".json", ".geojson", ".zip", ".csv.gz"] {
            XCTAssertTrue(seeds.contains { $0.suffix == suffix }, "no \(suffix) seed")
        }
        let work = NSTemporaryDirectory() + "unlocks-fuzz-\(getpid())"
        let failures = NSTemporaryDirectory() + "unlocks-fuzz-failures"
        defer { try? FileManager.default.removeItem(atPath: work) }
        var campaign = FuzzCampaign(seeds: seeds, runner: FuzzRunner(executable: CommandRunner.executable, tables: Self.root + "/Data/regions", timeLimit: 20),
                                    campaignSeed: 20_261_201, count: 320, workDirectory: work, failureDirectory: failures)
        campaign.groupSize = 8
        // A bound for a loaded machine; the mutants that ran are still checked.
        campaign.timeBudget = 90
        let summary = try campaign.run()
        print("fuzz: \(summary.mutants) mutants in \(summary.processes) processes, \(String(format: "%.1f", summary.seconds)) s, peak RSS ≤ \(summary.peakResidentBytes >> 20) MB, by format \(summary.bySuffix.sorted { $0.key < $1.key })")
        XCTAssertGreaterThanOrEqual(summary.mutants, 160, "too few mutants ran within the budget")
        for failure in summary.failures {
            XCTFail("fuzz failure, mutant kept at \(failure)")
        }
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
