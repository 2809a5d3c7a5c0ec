import Foundation
import Intake
import RegionTables
import Unlocks

extension Logbook {
    /// Joins another logbook (or a `--state` file of the previous format) into this one: the union
    /// of their inputs, so shards classified apart give the report one import of everything
    /// gives. An input both read at one path counts once when both read it alike; read
    /// differently (another datum) the result would depend on the order, so it is refused
    /// (``LogbookError/Kind/mergeConflict``), naming both; copies at two paths follow the copies
    /// rule (the path first in byte order is read). The other must have been made with this
    /// logbook's rules and have forgotten the same areas and periods (``exclusions``): its inputs
    /// were read without the points it forgot. Returns the report with its ``ClassifyReport/changes``.
    @discardableResult
    public func merge(contentsOf other: URL, key: [UInt8]? = nil, report options: ReportOptions = ReportOptions()) throws -> ClassifyReport {
        let (ledger, origins, forgottenPoints) = try Self.storedLedger(at: other, locator: locator, rules: rules, key: key)
        guard Set(forgottenPoints) == Set(exclusions) else {
            throw LogbookError(.rulesDiffer, path: other.path, reason: "it forgot other areas or periods than \(path) (\(describe(forgottenPoints)) there, \(describe(exclusions)) here): forget the same in both, then merge")
        }
        let before = try baseline(options)
        let committed = try commit { next in
            let current = next.finished
            for (key, input) in ledger.inputs where input.status != .skipped {
                guard let ours = current.inputs[key], ours.status != .skipped, ours.path == input.path else { continue }
                if ours != input || current.contributions[key] != ledger.contributions[key] {
                    throw LogbookError(.mergeConflict, path: other.path, reason: "input \(input.path) is also in \(path), read differently there (datum or rules); shards must agree on a shared input")
                }
            }
            var merged = current
            Copies.merge(ledger, into: &merged)
            try next.updateFinished { $0 = merged }
            var delta = Delta()
            delta.changed = Set(merged.inputs.filter { current.inputs[$0.key] != $0.value }.keys)
            delta.removed = Set(current.inputs.keys.filter { merged.inputs[$0] == nil })
            delta.origins = origins.filter { delta.changed.contains($0.key) }
            return delta
        }
        var report = try self.report(options, reusing: committed)
        report.changes = ClassifyReport.Changes(from: before, to: report)
        return report
    }

    /// The ledger (and inputs' origins) of a logbook or a state file at `url`, read without changing it.
    static func storedLedger(at url: URL, locator: RegionLocator, rules: ClassifyOptions, key: [UInt8]?) throws -> (UnlockLedger, [String: String], [PointExclusion]) {
        let path = url.path
        if let legacy = try StateMigration.legacyState(at: path) {
            return (try StateMigration.ledger(of: legacy, path: path, locator: locator, rules: rules).0, [:], [])
        }
        guard FileManager.default.fileExists(atPath: path) else { throw LogbookError(.notALogbook, path: path, reason: "no such logbook") }
        let store = try LogbookStore.open(path: path, create: false, readOnly: true)
        let loaded = try LogbookLoader.load(store, locator: locator, rules: rules, signer: key.map(LogbookSigner.init(key:)), readOnly: true)
        return (loaded.live.ledger, loaded.origins, loaded.live.options.exclusions)
    }
}
