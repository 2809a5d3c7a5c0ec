import FootprintMap
import Foundation
import TextFormats
import RegionTables
import Unlocks

/// What a report counts beyond the logbook's rules.
public struct ReportOptions: Sendable {
    /// Count tentative unlocks (edge-only or border-straddling evidence) too.
    public var lenient = false
    /// Count regions only crossed at vehicle speed too.
    public var includePassedThrough = false
    /// Each badge's progress, its reported percent raised and kept (what Game Center was sent).
    public var badges: BadgeCatalog?

    public init(lenient: Bool = false, includePassedThrough: Bool = false, badges: BadgeCatalog? = nil) {
        self.lenient = lenient
        self.includePassedThrough = includePassedThrough
        self.badges = badges
    }
}

/// An explored cell as a map draws it.
public struct ExploredCell: Equatable, Sendable {
    /// The cell's key on the 25 m grid (``ExploredGrid``).
    public var key: Int64
    public var bounds: GeoBox
    public var familiarity: FamiliarityLevel

    public init(key: Int64, bounds: GeoBox, familiarity: FamiliarityLevel) {
        self.key = key
        self.bounds = bounds
        self.familiarity = familiarity
    }
}

extension Logbook {
    /// The report of the whole logbook (docs/report-format.md), the recording in progress as if it
    /// ended now. With ``ReportOptions/badges``, each badge's percent reported is raised and kept
    /// (it never goes down, even after a forget).
    public func report(_ options: ReportOptions = ReportOptions()) throws -> ClassifyReport {
        try report(options, reusing: nil)
    }

    /// The report, made from `committed` (the report a change's derived tables were made from, in
    /// the default counting) when the options count the same way.
    func report(_ options: ReportOptions, reusing committed: ClassifyReport?) throws -> ClassifyReport {
        let ledger = live.ledger
        var report: ClassifyReport
        if let committed, !options.lenient, !options.includePassedThrough {
            report = committed
        } else {
            report = try makeReport(ledger, options)
        }
        guard let catalog = options.badges else { return report }
        var reported = ledger.reportedBadgePercents
        report.badges = catalog.progress(in: report, reported: &reported)
        if reported != live.finished.reportedBadgePercents, !readOnly {
            try commit(derive: false) { next in
                try next.updateFinished { $0.reportedBadgePercents = reported }
                return Delta()
            }
        }
        return report
    }

    /// The report's figures now (badges included, nothing kept): what a later report's changes
    /// are measured against.
    func baseline(_ options: ReportOptions) throws -> ClassifyReport.Baseline {
        let ledger = live.ledger
        var report = try makeReport(ledger, options)
        var reported = ledger.reportedBadgePercents
        if let catalog = options.badges { report.badges = catalog.progress(in: report, reported: &reported) }
        return ClassifyReport.Baseline(report)
    }

    func makeReport(_ ledger: UnlockLedger, _ options: ReportOptions, combined: CombinedLedger? = nil) throws -> ClassifyReport {
        do {
            return try ClassifyReport(ledger: ledger, combined: combined, tables: locator.tables, options: rules, lenient: options.lenient,
                                      includePassedThrough: options.includePassedThrough)
        } catch {
            throw LogbookError(.overflow, path: path, reason: "\(error)")
        }
    }

    /// What changed since `moment`: the report now against the logbook's figures then (kept after
    /// each change: every one of the last 48 hours, before that the last of each day). Regions
    /// unlocked, confirmed and lost, area, distance, days, tiles, familiar cells and badges, as
    /// ``ClassifyReport/Changes``. Figures are kept in the default counting (not lenient, vehicle
    /// crossings not counted); a moment before the logbook's first change gives everything.
    public func changes(since moment: Date, _ options: ReportOptions = ReportOptions()) throws -> ClassifyReport.Changes {
        let time = Int64((moment.timeIntervalSince1970 * 1000).rounded(.down))
        let kept: String?
        do { kept = try store.revision(atOrBefore: time) } catch let error as SQLiteError { throw store.failure(error) }
        var report = try makeReport(live.ledger, options)
        var reported = live.finished.reportedBadgePercents
        if let catalog = options.badges { report.badges = catalog.progress(in: report, reported: &reported) }
        let baseline: ClassifyReport.Baseline
        if let kept {
            guard let value = try? JSONParser.parse(Array(kept.utf8)), let figures = ClassifyReport.Baseline(json: value) else {
                throw LogbookError(.damaged, path: path, reason: "the figures kept for the changes since a moment are damaged")
            }
            baseline = figures
        } else {
            baseline = ClassifyReport.Baseline.empty
        }
        return ClassifyReport.Changes(from: baseline, to: report)
    }

    /// The explored cells in a viewport (their bounds meeting `box`), from the store's R-tree:
    /// what a native map draws, each with its familiarity level.
    public func cells(in box: GeoBox) throws -> [ExploredCell] {
        try refreshDerived()
        do {
            return try store.cells(in: box)
        } catch let error as SQLiteError {
            throw store.failure(error)
        }
    }

    /// The map's data (the page, the card, the GeoJSON: ``Footprint``) of the whole logbook;
    /// `names` names its countries and subdivisions in a person's language on the page and card.
    public func mapFootprint(_ options: ReportOptions = ReportOptions(), names: LocalizedNames? = nil) throws -> Footprint {
        let ledger = live.ledger
        let combined: CombinedLedger
        do { combined = try ledger.combined() } catch { throw LogbookError(.overflow, path: path, reason: "\(error)") }
        let report = try makeReport(ledger, options, combined: combined)
        return Footprint(report: report, cells: combined.cells, cellPasses: combined.cellPasses, tables: locator.tables, names: names)
    }
}
