import Foundation
import TrackFuzzing

/// `UnlocksBench fuzz`: the large fuzz run (the test suite runs a few hundred mutants, this
/// thousands), through the `unlocks` built beside this program. Prints a summary and each
/// failure; failing mutants are kept in `.build/fuzz-failures/` with a note of how each was made.
enum FuzzBenchmark {
    /// Returns whether any mutant failed. `only`: just the seeds whose path contains it.
    static func run(count: Int, seed: UInt64, only: String?) throws -> Bool {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("unlocks").path
        let root = FileManager.default.currentDirectoryPath
        let seeds = try FuzzSeeds.find(root: root).filter { only == nil || $0.path.contains(only!) }
        var campaign = FuzzCampaign(seeds: seeds, runner: FuzzRunner(executable: executable, tables: root + "/Data/regions", timeLimit: 10),
                                    campaignSeed: seed, count: count, workDirectory: root + "/.build/fuzz-work",
                                    failureDirectory: root + "/.build/fuzz-failures")
        campaign.groupSize = 16
        campaign.workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let summary = try campaign.run()
        try? FileManager.default.removeItem(atPath: root + "/.build/fuzz-work")
        print("""
        fuzz: campaign seed \(seed), \(seeds.count) seed files, \(summary.mutants) mutants in \(summary.processes) processes, \
        \(String(format: "%.0f", summary.seconds)) s; peak RSS ≤ \(summary.peakResidentBytes >> 20) MB; slowest mutant \(String(format: "%.2f", summary.slowestSeconds)) s
        by format: \(summary.bySuffix.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        failures: \(summary.failures.count)
        """)
        for failure in summary.failures { print("  " + failure.description) }
        // States: a sample's state, mutated with its checksum fixed, one `merge` per mutant.
        let work = root + "/.build/fuzz-work-states"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let classify = Process()
        classify.executableURL = URL(fileURLWithPath: executable)
        classify.arguments = ["classify", root + "/Data/samples", "--tables", root + "/Data/regions", "--state", work + "/seed.st", "--out", work + "/seed.json"]
        classify.standardError = FileHandle.nullDevice
        try classify.run()
        classify.waitUntilExit()
        let state = Array(try Data(contentsOf: URL(fileURLWithPath: work + "/seed.st")))
        let states = try StateFuzz.run(state: state, runner: FuzzRunner(executable: executable, tables: root + "/Data/regions", timeLimit: 10),
                                       campaignSeed: seed, count: max(1, count / 4), workDirectory: work + "/mutants",
                                       failureDirectory: root + "/.build/fuzz-failures")
        print("states: \(states.mutants) mutants of a \(state.count)-byte state (checksums fixed), failures: \(states.failures.count)")
        for failure in states.failures { print("  " + failure.description) }
        return !summary.failures.isEmpty || !states.failures.isEmpty
    }
}
