import Foundation
import RegionTables
import SeededRandom

/// Mutants of a state file (`classify --state`) whose checksum is made valid again, so what the
/// loader checks beyond the checksum — every number, every sum, the JSON, the varints — is what
/// they exercise; each goes through `unlocks merge MUTANT` alone, which must end with exit 0 (a
/// report that adds up) or 1 (a message naming the file), never a signal, a hang or a blow-up.
public enum StateFuzz {
    /// Mutant `index` of campaign `campaignSeed`: the JSON part (its length field kept right), the
    /// binary part or the header mutated with ``TrackMutator``'s operations, then the XXH64 redone.
    public static func mutant(of state: [UInt8], index: Int, campaignSeed: UInt64) -> (bytes: [UInt8], operations: [String]) {
        var random = SplitMix64(seed: campaignSeed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        guard state.count >= 24 else { return (state, []) }
        var header = Array(state[0..<16])
        let length = Int(min(UInt64(state.count - 24), header[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
        var json = Array(state[16..<(16 + length)]), binary = Array(state[(16 + length)..<(state.count - 8)])
        var operations: [String] = []
        for _ in 0..<(1 + random.below(3)) {
            switch random.below(8) {
            case 0: operations.append("header: " + TrackMutator.mutate(&header, &random))
            case 1, 2, 3: operations.append("json: " + TrackMutator.mutate(&json, &random))
            default: operations.append("binary: " + TrackMutator.mutate(&binary, &random))
            }
        }
        if header.count >= 16, !operations.contains(where: { $0.hasPrefix("header") }) {
            withUnsafeBytes(of: UInt64(json.count).littleEndian) { header.replaceSubrange(8..<16, with: $0) }
        }
        var bytes = header + json + binary
        withUnsafeBytes(of: XXH64.hash(bytes).littleEndian) { bytes += $0 }
        return (bytes, operations)
    }

    /// One failing mutant, kept in `failureDirectory`.
    public struct Failure: Sendable, CustomStringConvertible {
        public let mutant: String
        public let operations: [String]
        public let problems: [String]
        public var description: String { "\(mutant) (\(operations.joined(separator: "; "))): \(problems.joined(separator: "; "))" }
    }

    /// Runs `count` mutants of `state`, one `merge` each (``FuzzRunner`` with `command` merge).
    /// A budget (seconds) stops starting new ones; returns how many ran and the failures.
    public static func run(state: [UInt8], runner: FuzzRunner, campaignSeed: UInt64, count: Int, budget: Double? = nil,
                           workDirectory: String, failureDirectory: String) throws -> (mutants: Int, failures: [Failure]) {
        var runner = runner
        runner.command = "merge"
        runner.allowedStatuses = [0, 1]
        let manager = FileManager.default
        try manager.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let started = Date()
        var failures: [Failure] = []
        var ran = 0
        for index in 0..<count {
            if let budget, Date().timeIntervalSince(started) > budget { break }
            let (bytes, operations) = mutant(of: state, index: index, campaignSeed: campaignSeed)
            let path = workDirectory + "/state-\(campaignSeed)-\(index).st"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let outcome = runner.run([path], in: workDirectory)
            ran += 1
            var problems = runner.problems(outcome)
            if outcome.status == 1, !outcome.standardError.contains(path) { problems.append("the error does not name the state: \(outcome.standardError.prefix(200))") }
            guard !problems.isEmpty else { continue }
            try manager.createDirectory(atPath: failureDirectory, withIntermediateDirectories: true)
            let kept = failureDirectory + "/state-\(campaignSeed)-\(index).st"
            try? manager.removeItem(atPath: kept)
            try manager.copyItem(atPath: path, toPath: kept)
            failures.append(Failure(mutant: kept, operations: operations, problems: problems + (outcome.standardError.isEmpty ? [] : ["stderr: " + outcome.standardError.prefix(300)])))
        }
        return (ran, failures)
    }
}
