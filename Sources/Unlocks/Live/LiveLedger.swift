import ChinaDatum
import Foundation
import RegionTables
import Tracks

/// The ledger of an app that receives locations one at a time: it classifies each point as it
/// comes, with the rules `unlocks classify` applies to a file, and says what the point changed —
/// a region unlocked or upgraded at a level, cells explored for the first time in the whole
/// ledger. Its state is the `--state` format (``LedgerState``), so a phone's ledger can be merged
/// with a CLI run (`unlocks merge`) and classified files can be added to it.
///
/// Each recording is one input of the ledger, keyed by an id the app chooses (a session id):
/// ``beginRecording(id:name:activityType:datum:)``, ``feed(_:)`` per location, ``endRecording()``.
/// Fed point by point, a recording gives exactly the ledger a batch ``TrackClassifier`` gives
/// for the same points.
///
/// **When changes are reported.** A change is reported when the rules decide it, which can be
/// after the point that caused it: a point's evidence waits for its outgoing leg (been there, or
/// only passed at vehicle speed), so it is usually decided by the next point; points reached
/// through fast legs wait for the end of the run (a flight, or a train); a region near a border
/// is confirmed by its third inside point of a segment, dated by the first; a point alone between
/// two gaps is reported as confirming (the report, over the whole ledger, may count it as passed
/// where a vehicle passed the region within 30 minutes of it). Whatever is still open is decided
/// by ``endRecording()``. A recording that has no timed point yet is a plan
/// (``ClassifyOptions/includePlans``) and reports nothing until one comes.
///
/// **Cost.** ``feed(_:)`` costs what the classifier spends on the point plus a pass over the
/// recording's regions and a binary search per newly explored cell: nothing grows with the
/// archive. ``beginRecording(id:name:activityType:datum:)``, ``forget(ids:)``, ``report(lenient:includePassedThrough:)``,
/// ``today(now:lenient:includePassedThrough:)`` and ``encodedState()`` combine the whole ledger
/// (``UnlockLedger/combined()``): call them when the app needs them, not per point.
///
/// **Threading.** A value type: copies are independent, and it can be moved to another task or
/// actor; it is not meant to be mutated from two threads at once (no value type is).
public struct LiveLedger {
    public let locator: RegionLocator
    public let options: ClassifyOptions
    /// The finished inputs: every recording ended, and whatever the restored state held.
    public private(set) var finished: UnlockLedger
    /// The recording in progress: a classifier whose own ledger holds only that input.
    private var recording: TrackClassifier?
    /// The ledger without the recording, combined when it began: its cells (to tell cells new
    /// to the whole ledger) and the standing of every region known so far, the recording's
    /// changes included.
    private var baselineCells = CellList()
    private var baselineRegions: [RegionKey: RegionEvidence] = [:]
    private var standings: [RegionKey: RegionStanding] = [:]
    /// The recording's cells already measured (``CellTable/arrivals``, up to here).
    private var cellsSeen = 0

    /// Starts from a state saved by ``encodedState()`` or `unlocks classify --state` (nil: an
    /// empty ledger). The options must be those the state was made with, as on the command
    /// line; a state made with other rules, damaged or of another version is refused
    /// (``StateError``, naming `statePath`). ``LedgerState/timeZone(of:)`` is the zone a state
    /// was made with, for an app to keep it when the device's zone has changed.
    public init(locator: RegionLocator, options: ClassifyOptions = ClassifyOptions(), state: [UInt8]? = nil,
                statePath: String = "state") throws {
        self.locator = locator
        self.options = options
        if let state {
            finished = try LedgerState.decode(state, path: statePath, options: options, tables: locator.tables)
        } else {
            finished = UnlockLedger()
        }
    }

    /// Starts from a ledger (a logbook's inputs).
    package init(locator: RegionLocator, options: ClassifyOptions, ledger: UnlockLedger) {
        self.locator = locator
        self.options = options
        finished = ledger
    }

    /// Changes the finished inputs (an import, a merge or a forget through a logbook), a recording
    /// possibly in progress: its later changes are measured against the new ledger, silently.
    package mutating func updateFinished<T>(_ change: (inout UnlockLedger) throws -> T) throws -> T {
        let result = try change(&finished)
        try rebaseline()
        return result
    }

    /// The id of the recording in progress, nil between recordings.
    public var recordingID: String? { recording?.record.fingerprint }

    /// Starts a recording: one new input of the ledger. `id` is its key and its path in the
    /// report (a session id the app keeps unique, say `live/<UUID>`: ``forget(ids:)`` names it);
    /// `name` is shown as its activity name (not its path: two readings of one path are one file
    /// that grew, of which the later supersedes the earlier — docs/report-format.md); `datum` the
    /// datum of the coordinates fed (default ``ClassifyOptions/inputDatum``; GCJ-02 for the
    /// coordinates of a Chinese map SDK).
    public mutating func beginRecording(id: String, name: String? = nil, activityType: String? = nil, datum: Datum? = nil) throws(LiveLedgerError) {
        if let current = recordingID { throw .recordingInProgress(id: current) }
        guard !id.isEmpty else { throw .emptyID }
        if finished.inputs[id] != nil { throw .duplicateID(id) }
        do { try useAsBaseline(finished) } catch { throw .overflow(error) }
        var record = InputRecord(path: id, fingerprint: id, format: Self.format)
        record.activityName = name
        record.activityType = activityType
        record.datum = datum
        var classifier = TrackClassifier(locator: locator, options: options)
        classifier.begin(record)
        recording = classifier
        cellsSeen = 0
    }

    /// The `format` of a recording's input record.
    public static let format = "live"

    /// Classifies one location of the recording and returns what the rules decided meanwhile
    /// (often about the point before: see the type's discussion).
    public mutating func feed(_ point: TrackPoint) throws(LiveLedgerError) -> LiveChanges {
        guard recording != nil else { throw .noRecording }
        recording!.point(point)
        return changes()
    }

    /// Marks a gap the app knows of (tracking paused, the fix lost): no leg joins the points on
    /// either side, as between a file's segments.
    public mutating func breakSegment() throws(LiveLedgerError) {
        guard recording != nil else { throw .noRecording }
        recording!.segmentBreak()
    }

    /// Ends the recording: decides what was still open, adds it to ``finished`` and returns the
    /// last changes.
    @discardableResult
    public mutating func endRecording() throws(LiveLedgerError) -> LiveChanges {
        guard var classifier = recording else { throw .noRecording }
        classifier.settle()
        recording = classifier
        let last = changes()
        classifier.finish()
        finished.merge(classifier.ledger)
        recording = nil
        baselineCells = CellList()
        baselineRegions = [:]
        standings = [:]
        return last
    }

    /// The ledger now: the finished inputs and the recording in progress as if it ended now
    /// (its open run and last point decided, as ``endRecording()`` would).
    public var ledger: UnlockLedger {
        guard var classifier = recording else { return finished }
        classifier.finish()
        var all = finished
        all.merge(classifier.ledger)
        return all
    }

    /// The classify report of ``ledger``: every metric, unlock and day (docs/report-format.md).
    public func report(lenient: Bool = false, includePassedThrough: Bool = false) throws(LedgerOverflow) -> ClassifyReport {
        try ClassifyReport(ledger: ledger, tables: locator.tables, options: options, lenient: lenient,
                           includePassedThrough: includePassedThrough)
    }

    /// Each badge's progress in ``report(lenient:includePassedThrough:)``, raising the percents
    /// kept as reported (saved by ``encodedState()``): send Game Center
    /// ``BadgeProgress/reportedPercent``, which never goes down, even after ``forget(ids:)``.
    public mutating func badges(_ catalog: BadgeCatalog, lenient: Bool = false, includePassedThrough: Bool = false) throws(LedgerOverflow) -> [BadgeProgress] {
        let report = try report(lenient: lenient, includePassedThrough: includePassedThrough)
        return catalog.progress(in: report, reported: &finished.reportedBadgePercents)
    }

    /// The report's entry for the local day (in ``ClassifyOptions/timeZone``) that contains `now`:
    /// its new cells and km², new unlocks by level, distance and duration (all zero on a day with
    /// nothing recorded).
    public func today(now: Date = Date(), lenient: Bool = false, includePassedThrough: Bool = false) throws(LedgerOverflow) -> ClassifyReport.Day {
        var clock = LocalDayClock(zone: options.timeZone)
        let day = clock.day(of: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        return try report(lenient: lenient, includePassedThrough: includePassedThrough).days.first { $0.day == day } ?? ClassifyReport.Day(day: day)
    }

    /// ``ledger`` in the `--state` format (``LedgerState/encode(_:options:tables:)``):
    /// versioned, checksummed, readable by `unlocks classify --state` and `unlocks merge`. A
    /// recording in progress is saved as if it ended now; restored, the app begins a new
    /// recording (a new id), since a state keeps inputs, not a classifier half-way through one.
    public func encodedState() -> [UInt8] {
        LedgerState.encode(ledger, options: options, tables: locator.tables)
    }

    /// Removes inputs (recordings by id, or any input of a restored state by its fingerprint),
    /// as if they had never been read, like `unlocks forget`: files skipped as duplicates of a
    /// forgotten input's path go with it. Forgetting the recording in progress discards it.
    /// Returns the keys removed.
    @discardableResult
    public mutating func forget(ids: Set<String>) throws(LedgerOverflow) -> Set<String> {
        var removed = ids.intersection(finished.inputs.keys)
        if let current = recordingID, ids.contains(current) {
            recording = nil
            removed.insert(current)
        }
        let paths = Set(removed.compactMap { finished.inputs[$0]?.path })
        for (key, record) in finished.inputs where record.duplicateOf.map(paths.contains) == true { removed.insert(key) }
        finished.forget(removed)
        try rebaseline()
        return removed
    }

    /// After ``finished`` changed under a recording: its standings recomputed against the new
    /// ledger, silently (what was known before the recording changed).
    private mutating func rebaseline() throws(LedgerOverflow) {
        if let classifier = recording {
            try useAsBaseline(finished)
            classifier.forEachRegionSoFar { key, evidence in
                if let standing = RegionStanding(merging: baselineRegions[key], evidence), standings[key].map({ standing > $0 }) ?? true {
                    standings[key] = standing
                }
            }
        } else {
            baselineCells = CellList()
            baselineRegions = [:]
            standings = [:]
        }
    }

    // MARK: Changes

    /// Combines `ledger` as the ledger the recording's changes are measured against.
    private mutating func useAsBaseline(_ ledger: UnlockLedger) throws(LedgerOverflow) {
        let combined = try ledger.combined()
        baselineCells = combined.cells
        baselineRegions = combined.regions
        standings = combined.regions.compactMapValues { RegionStanding(merging: nil, $0) }
    }

    /// What the recording's evidence and explored cells changed since the last call.
    private mutating func changes() -> LiveChanges {
        guard let classifier = recording, classifier.plan.sawTimed || options.includePlans else { return LiveChanges() }
        var result = LiveChanges()
        func weigh(_ key: RegionKey, _ evidence: RegionEvidence) {
            // Most regions of a recording are confirmed early: one lookup then.
            let previous = standings[key]
            if previous == .confirmed { return }
            let base = baselineRegions[key]
            var visits = RegionEvidence()
            visits.confirmedBy = earliest(base?.confirmedBy, earliest(evidence.confirmedBy, evidence.loneBy))
            visits.tentativeBy = earliest(base?.tentativeBy, evidence.tentativeBy)
            visits.passedBy = earliest(base?.passedBy, evidence.passedBy)
            guard let standing = RegionStanding(merging: base, evidence), let first = visits.confirmedBy ?? visits.tentativeBy ?? visits.passedBy else { return }
            guard previous.map({ standing > $0 }) ?? true else { return }
            standings[key] = standing
            guard let region = locator.tables.table(of: key.level)?.region(key.index) else { return }
            result.regions.append(RegionChange(key: key, code: region.code, name: region.name, englishName: region.englishName,
                                               standing: standing, previous: previous, evidence: visits, firstVisit: first))
        }
        classifier.forEachRegionSoFar(weigh)
        let cells = classifier.cellsSoFar
        for key in cells.arrivals[cellsSeen...] where baselineCells[key] == nil { result.newCells += 1 }
        cellsSeen = cells.count
        result.regions.sort { ($0.firstVisit, $0.key) < ($1.firstVisit, $1.key) }
        return result
    }
}

// Every stored property is a Sendable value or the (Sendable) locator, except the classifier's
// `observer` closure, which a LiveLedger never sets.
extension LiveLedger: @unchecked Sendable {}

/// What one call of ``LiveLedger`` changed in the whole ledger.
public struct LiveChanges: Equatable, Sendable {
    /// Regions whose standing rose, at any level (a region first reached, or upgraded), in
    /// first-visit order.
    public var regions: [RegionChange] = []
    /// Cells explored for the first time in the whole ledger (each 25 m × 25 m: see
    /// ``ExploredGrid``).
    public var newCells = 0

    public init() {}

    /// Nothing changed.
    public var isEmpty: Bool { regions.isEmpty && newCells == 0 }

    /// The regions that now count as unlocked and did not before, as the report counts them
    /// (``ClassifyReport/Unlock/counts(lenient:includePassedThrough:)``): by default, those
    /// just confirmed, whether new or upgraded from tentative.
    public func unlocks(lenient: Bool = false, includePassedThrough: Bool = false) -> [RegionChange] {
        regions.filter {
            $0.standing.counts(lenient: lenient, includePassedThrough: includePassedThrough)
                && !($0.previous?.counts(lenient: lenient, includePassedThrough: includePassedThrough) ?? false)
        }
    }
}

/// A region's evidence over the whole ledger, weakest first: the report's `evidence`.
public enum RegionStanding: Int, Comparable, Sendable {
    /// Only passed at vehicle speed.
    case passedThrough = 0
    /// Reached, but near a border or untimed.
    case tentative = 1
    /// Unlocked.
    case confirmed = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The reports' word for it (`evidence` in the JSON): `confirmed`, `tentative`, `passedThrough`.
    public var name: String {
        switch self {
        case .confirmed: "confirmed"
        case .tentative: "tentative"
        case .passedThrough: "passedThrough"
        }
    }

    /// The standing of the union of two inputs' visits (nil: no evidence). A lone point of the
    /// recording (``RegionEvidence/loneBy``) confirms here: the report, which sees every input,
    /// counts it as passed where a vehicle passed the region within 30 minutes of it.
    init?(merging a: RegionEvidence?, _ b: RegionEvidence) {
        if a?.confirmedBy != nil || b.confirmedBy != nil || b.loneBy != nil {
            self = .confirmed
        } else if a?.tentativeBy != nil || b.tentativeBy != nil {
            self = .tentative
        } else if a?.passedBy != nil || b.passedBy != nil {
            self = .passedThrough
        } else {
            return nil
        }
    }

    /// Whether the report counts a region of this standing as unlocked.
    public func counts(lenient: Bool, includePassedThrough: Bool) -> Bool {
        switch self {
        case .confirmed: return true
        case .tentative: return lenient
        case .passedThrough: return includePassedThrough
        }
    }
}

/// A region whose standing rose.
public struct RegionChange: Equatable, Sendable {
    public var key: RegionKey
    public var level: RegionLevel { key.level }
    /// From the tables: the region's code (ISO 3166-1 alpha-3 for countries, the administrative
    /// code in China), its name and English name.
    public var code: String
    public var name: String
    public var englishName: String
    public var standing: RegionStanding
    /// Its standing before (nil: the ledger had no evidence of it).
    public var previous: RegionStanding?
    /// Its earliest visits over the ledger and the recording so far (confirming, tentative,
    /// passed). The point counts stay zero: they are counted per minute, in the report.
    public var evidence: RegionEvidence

    /// From tentative to confirmed (or from passed through to tentative or confirmed).
    public var isUpgrade: Bool { previous != nil }

    /// The visit its standing rests on: the report's `firstVisit` (without `--lenient`).
    public var firstVisit: Visit
}

/// A misuse of ``LiveLedger``'s recording calls.
public enum LiveLedgerError: Error, Equatable, CustomStringConvertible {
    /// `feed`, `breakSegment` or `endRecording` without `beginRecording`.
    case noRecording
    /// `beginRecording` while another recording is in progress.
    case recordingInProgress(id: String)
    /// `beginRecording` with an id the ledger already has.
    case duplicateID(String)
    case emptyID
    /// The ledger's sums overflow (a crafted state).
    case overflow(LedgerOverflow)

    public var description: String {
        switch self {
        case .noRecording: return "no recording in progress: call beginRecording(id:) first"
        case let .recordingInProgress(id): return "recording '\(id)' is in progress: end it before beginning another"
        case let .duplicateID(id): return "the ledger already has an input '\(id)': give each recording a new id"
        case .emptyID: return "a recording needs a non-empty id"
        case let .overflow(error): return "\(error)"
        }
    }
}
