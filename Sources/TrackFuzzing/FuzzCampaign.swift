import Foundation

/// A seeded run of many mutants through ``FuzzRunner``, several per `classify` process (a
/// failing group is run again one mutant at a time, so each failure names its own mutant).
/// Failing mutants are written to ``failureDirectory`` with a note of how each was made.
public struct FuzzCampaign: Sendable {
    public let seeds: [FuzzSeed]
    public let runner: FuzzRunner
    public var campaignSeed: UInt64
    public var count: Int
    /// Mutants given to one `classify` process.
    public var groupSize = 8
    /// Processes run at once.
    public var workers = 2
    /// Stop starting groups after this many seconds (nil: run them all).
    public var timeBudget: Double?
    public let workDirectory: String
    public let failureDirectory: String

    public init(seeds: [FuzzSeed], runner: FuzzRunner, campaignSeed: UInt64, count: Int, workDirectory: String, failureDirectory: String) {
        self.seeds = seeds
        self.runner = runner
        self.campaignSeed = campaignSeed
        self.count = count
        self.workDirectory = workDirectory
        self.failureDirectory = failureDirectory
    }

    /// One failing mutant.
    public struct Failure: Sendable, CustomStringConvertible {
        public let mutant: String
        public let seed: String
        public let operations: [String]
        public let problems: [String]
        public let standardError: String

        public var description: String {
            "\(mutant) (from \(seed): \(operations.joined(separator: "; "))): \(problems.joined(separator: "; "))"
                + (standardError.isEmpty ? "" : "\n    stderr: " + standardError.split(separator: "\n").prefix(3).joined(separator: " | "))
        }
    }

    /// What a campaign did.
    public struct Summary: Sendable {
        public var mutants = 0
        public var processes = 0
        public var failures: [Failure] = []
        public var peakResidentBytes = 0
        public var slowestSeconds = 0.0
        public var seconds = 0.0
        /// Mutants per seed format (the name's extension chain).
        public var bySuffix: [String: Int] = [:]
    }

    public func run() throws -> Summary {
        precondition(!seeds.isEmpty, "no seed files")
        let manager = FileManager.default
        try manager.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let groups = stride(from: 0, to: count, by: groupSize).map { $0..<min($0 + groupSize, count) }
        let started = Date()
        /// The workers' shared progress, only touched under `lock`.
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var summary = Summary()
            var next = 0
            var thrown: Error?
        }
        let shared = Shared()
        let campaign = self
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            while true {
                shared.lock.lock()
                let budgetLeft = campaign.timeBudget.map { Date().timeIntervalSince(started) < $0 } ?? true
                guard shared.next < groups.count, budgetLeft, shared.thrown == nil else { shared.lock.unlock(); return }
                let group = groups[shared.next]
                shared.next += 1
                shared.lock.unlock()
                do {
                    let result = try campaign.runGroup(group, directory: campaign.workDirectory + "/worker-\(worker)")
                    shared.lock.lock()
                    shared.summary.mutants += group.count
                    shared.summary.processes += result.processes
                    shared.summary.failures += result.failures
                    shared.summary.peakResidentBytes = max(shared.summary.peakResidentBytes, result.peak)
                    shared.summary.slowestSeconds = max(shared.summary.slowestSeconds, result.slowest)
                    for (suffix, n) in result.bySuffix { shared.summary.bySuffix[suffix, default: 0] += n }
                    shared.lock.unlock()
                } catch {
                    shared.lock.lock()
                    shared.thrown = error
                    shared.lock.unlock()
                }
            }
        }
        if let thrown = shared.thrown { throw thrown }
        var summary = shared.summary
        summary.failures.sort { $0.mutant < $1.mutant }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// The file name of mutant `index`: campaign seed, index, seed name, and the seed's suffix.
    func fileName(_ mutant: Mutant) -> String {
        let base = (mutant.seed as NSString).lastPathComponent
        let stem = base.hasSuffix(mutant.suffix) ? String(base.dropLast(mutant.suffix.count)) : base
        if mutant.inFolder { return "mutant-\(campaignSeed)-\(mutant.index)/Sync/\(base)" }
        return "mutant-\(campaignSeed)-\(mutant.index)-\(stem)\(mutant.suffix)"
    }

    private func runGroup(_ group: Range<Int>, directory: String) throws -> (processes: Int, failures: [Failure], peak: Int, slowest: Double, bySuffix: [String: Int]) {
        let manager = FileManager.default
        try? manager.removeItem(atPath: directory)
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var mutants: [Mutant] = []
        var paths: [String] = []
        var bySuffix: [String: Int] = [:]
        for index in group {
            let mutant = try TrackMutator.mutant(of: seeds[index % seeds.count], index: index, campaignSeed: campaignSeed)
            let path = directory + "/" + fileName(mutant)
            try manager.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard manager.createFile(atPath: path, contents: Data(mutant.bytes)) else { throw CocoaError(.fileWriteUnknown) }
            mutants.append(mutant)
            paths.append(path)
            bySuffix[mutant.suffix, default: 0] += 1
        }
        let outcome = runner.run(paths, in: directory)
        var processes = 1, peak = outcome.peakResidentBytes, slowest = outcome.seconds / Double(group.count)
        guard !runner.problems(outcome).isEmpty else { return (processes, [], peak, slowest, bySuffix) }
        // Find which mutants fail on their own.
        var failures: [Failure] = []
        for (mutant, path) in zip(mutants, paths) {
            let alone = runner.run([path], in: directory)
            processes += 1
            peak = max(peak, alone.peakResidentBytes)
            slowest = max(slowest, alone.seconds)
            let problems = runner.problems(alone)
            guard !problems.isEmpty else { continue }
            failures.append(try keep(mutant, path: path, problems: problems, standardError: alone.standardError))
        }
        if failures.isEmpty {
            // Only together: keep the whole group, named as one failure.
            let problems = runner.problems(outcome)
            for (mutant, path) in zip(mutants, paths) {
                failures.append(try keep(mutant, path: path, problems: ["with the rest of group \(group)"] + problems, standardError: outcome.standardError))
            }
        }
        return (processes, failures, peak, slowest, bySuffix)
    }

    /// Copies a failing mutant to the failure folder, with a note beside it.
    private func keep(_ mutant: Mutant, path: String, problems: [String], standardError: String) throws -> Failure {
        let manager = FileManager.default
        try manager.createDirectory(atPath: failureDirectory, withIntermediateDirectories: true)
        let kept = failureDirectory + "/" + fileName(mutant)
        try manager.createDirectory(atPath: (kept as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? manager.removeItem(atPath: kept)
        try manager.copyItem(atPath: path, toPath: kept)
        let note = """
        seed: \(mutant.seed)
        campaign seed \(campaignSeed), mutant \(mutant.index)
        mutations: \(mutant.operations.joined(separator: "; "))
        problems: \(problems.joined(separator: "; "))
        stderr:
        \(standardError)
        """
        try note.write(toFile: kept + ".txt", atomically: true, encoding: .utf8)
        return Failure(mutant: kept, seed: mutant.seed, operations: mutant.operations, problems: problems, standardError: standardError)
    }
}
