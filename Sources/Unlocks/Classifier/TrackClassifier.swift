import ChinaDatum
import RegionTables
import Tracks

/// Classifies inputs' points into a ledger: filter, segment, separate flights, locate, weigh the
/// evidence, explore cells. It is the `TrackSink` a reader fills; one classifier serves a whole
/// run, input after input (`begin(_:)`, the reader, `finish()`), and owns the ledger meanwhile.
///
/// Per point, in file order:
/// 1. **Filter**: unreadable records, invalid coordinates, (0, 0), accuracy worse than the limit,
///    and a timestamp equal to the previous point's are dropped and counted by reason.
/// 2. **Segment**: a break in the file, a gap longer than `segmentGap`, or time running backwards
///    starts a new segment; no leg is drawn across a break.
/// 3. **Flights**: consecutive legs faster than `fastSpeed` form a run. When the run ends, its
///    overall speed decides: above `implausibleSpeed` its inner points are a glitch (dropped);
///    above `flightSpeed` they are in flight (kept for distance and duration, but they neither
///    unlock nor explore, and the landing starts a new segment); otherwise it was a train or a
///    car and every point counts. The run's end points are on the ground.
/// 4. **Locate** all levels, weigh the evidence, rasterise the leg from the previous point into the
///    25 m cells and the z17 explorer tiles (``SlippyTile/supercover(from:to:zoom:visit:)``).
/// 5. **Movement**: a leg explores cells only at human-powered speed (at most
///    ``ClassifyOptions/exploreMaxSpeed``) and never longer than
///    ``ClassifyOptions/maximumExploredLeg``; a leg with an untimed end is drawn and counted only
///    up to ``ClassifyOptions/untimedLegLimit`` and never adds duration. A point's evidence waits
///    for its outgoing leg: a point that starts or ends a segment, or touches a human-speed leg, is
///    a place the person has been; one between two vehicle-speed legs only passed through.
///    Untimed points are tentative evidence. A segment the reader labels
///    (``TrackAnnotation/movement(_:)``: Google's `IN_TRAIN`, `WALKING`, `FLYING`) is decided by
///    its label instead: every point of a vehicle stretch only passed, of a human-powered one
///    been there, of a flight in the air. A point alone in its segment (no leg on either side)
///    is marked lone: the combined view lets it confirm only where no vehicle passed nearby.
///    Each leg's distance is human-powered, vehicle or flight (``MomentTally``).
/// 6. **Plans**: GPX route points (``TrackAnnotation/route``) and inputs with no time at all are
///    plans. Each input is classified into a contribution of its own (``InputContribution``); the
///    end of an input that gave no timed point discards it (the input is `planned`) unless
///    ``ClassifyOptions/includePlans``. Untimed points wait uncommitted until the input's first
///    timed point (``PlanDetector``), so a plan costs its points, never the cells of its legs.
/// 7. **Moments**: every kept point, leg, and point count per place is tallied by UTC minute
///    (``MomentTally``), a leg split between the minutes it spans in proportion to time, so that
///    minutes several inputs recorded count once (``UnlockLedger/combined()``).
/// 8. **Passes**: a drawn, timed leg faster than ``ClassifyOptions/passMinimumSpeed`` between
///    points better than ``ClassifyOptions/passAccuracyLimit`` gives a pass candidate for every
///    cell it enters, at the moment it enters it (``PassCandidates``); counted in the combined view.
///
/// The classifier is a small core over parts that each own the state of one job: ``PointFilter``
/// (step 1), ``Segmenter`` (2, 3, and a leg's speed), ``PendingPoint`` (5: the anchor's evidence
/// waiting for its leg), ``PlanDetector`` (6), ``LookupCache`` and ``EvidenceWeigher`` (4),
/// ``Rasteriser`` (4 and 8), ``MinuteTallies`` and ``PlacePalette`` (7), ``DayTally`` (the
/// input's local days). The core passes each point between them and assembles the input's
/// ``InputContribution`` when it ends.
public struct TrackClassifier: TrackSink {
    package let locator: RegionLocator
    let options: ClassifyOptions
    public internal(set) var ledger: UnlockLedger
    /// The input being read.
    public internal(set) var record = InputRecord(path: "", fingerprint: "", format: "")
    /// Called with every kept ground point, after it is weighed: the classifier's seam for whoever
    /// watches placements as they are made (the border audit). Nil for `classify`, which then pays
    /// one nil check per point.
    public var observer: ((ObservedPoint) -> Void)?

    // The parts, each owning the state of one job; the core passes points between them.
    var filter: PointFilter
    var segments: Segmenter
    var pending: PendingPoint
    var plan = PlanDetector()
    var lookup = LookupCache()
    var evidence: EvidenceWeigher
    var raster = Rasteriser()
    var minutes = MinuteTallies()
    var palette = PlacePalette()
    var days: DayTally
    /// Metres between nearby points, shared by every part that measures: its cached scale makes
    /// a distance depend on the legs measured before it.
    var scale = LocalScale()
    /// What the current input's points are: a track, a map of explored ground
    /// (``TrackAnnotation/exploredArea``: spots, each weighed alone) or photos
    /// (``TrackAnnotation/snapshot``: visits at a moment).
    var kind = InputKind.track

    enum InputKind {
        case track, exploredArea, photos
    }

    public init(locator: RegionLocator, options: ClassifyOptions, ledger: UnlockLedger = UnlockLedger()) {
        self.locator = locator
        self.options = options
        self.ledger = ledger
        filter = PointFilter(options: options)
        segments = Segmenter(options: options)
        pending = PendingPoint(options: options)
        evidence = EvidenceWeigher(options: options)
        days = DayTally(zone: options.timeZone)
    }

    /// Starts an input: nothing joins it to the previous one.
    public mutating func begin(_ record: InputRecord) {
        self.record = record
        let datum = record.datum ?? options.inputDatum
        // Kept as the state and the report keep it: WGS-84 is no entry.
        self.record.datum = datum == .wgs84 ? nil : datum
        filter.begin(datum: datum)
        segments.begin()
        pending.begin()
        plan.begin()
        lookup.begin()
        evidence.begin()
        raster.begin()
        minutes = MinuteTallies()
        palette = PlacePalette()
        days.begin()
        scale = LocalScale()
        kind = .track
    }

    /// Decides what the current input leaves open as if it ended here (the run of fast legs, the
    /// last point's evidence, the reused lookup's points), so that ``forEachRegionSoFar(_:)`` and
    /// ``cellsSoFar`` hold all of it; ``finish()`` does this first.
    mutating func settle() {
        flushRun()
        resolvePending(outgoingAtHumanSpeed: true)
        flushReuse()
    }

    /// The current input's explored cells so far, in their order of arrival too
    /// (``CellTable/arrivals``): a caller that reports as it goes reads the new ones after each point.
    var cellsSoFar: CellTable { raster.cells }

    /// Ends the input (deciding any open run), records it in the ledger and returns its record.
    @discardableResult
    public mutating func finish() -> InputRecord {
        record.pointsKept += plan.countWaitingAsPlanned()
        settle()
        // The parts hand over what they gathered of the input, and start afresh.
        var part = InputContribution()
        part.regions = evidence.takeRegions()
        part.days = days.take()
        part.moments = minutes.take()
        part.places = palette.take()
        // No timed point came: the input is a plan, and what it contributed is let go (a map of
        // explored ground has no times and is no plan).
        if !plan.sawTimed, !options.includePlans, kind != .exploredArea {
            raster.clear()
            part = InputContribution()
        } else {
            (part.cells, part.tiles, part.passes) = raster.take()
        }
        if !plan.sawTimed {
            record.pointsPlanned += plan.untimedTrackKept
            if record.status == .read, record.pointsPlanned > 0 { record.status = .planned }
        }
        // A file an earlier run through the state passed over (say, before its format was read)
        // is replaced by its reading.
        ledger.inputs.removeValue(forKey: InputRecord.pathKey(path: record.path))
        ledger.inputs[record.fingerprint] = record
        if !part.isEmpty { ledger.contributions[record.fingerprint] = part }
        return record
    }

    /// Names the current input's format once its reader has recognised it (e.g. `json/backup`).
    public mutating func setFormat(_ format: String) {
        record.format = format
    }

    /// Marks the current input as stopped by an error: `partial` when a readable point came
    /// before it (those points are kept), else `rejected`.
    public mutating func fail(_ error: String) {
        record.error = error
        record.status = record.pointsRead > record.unreadablePoints ? .partial : .rejected
    }

    /// Records a file that was not read (its record says why); nothing else changes.
    public mutating func recordSkipped(_ skipped: InputRecord) {
        ledger.inputs[skipped.fingerprint] = skipped
    }

    /// Removes an input's record and contribution from the ledger (another copy of it is read in
    /// its place: the intake's rule for byte-identical copies).
    public mutating func forgetInput(_ fingerprint: String) {
        ledger.forget([fingerprint])
    }

    /// Forgets the current input (nothing of it was used): it leaves no record in the ledger.
    public mutating func discard() {
        begin(InputRecord(path: "", fingerprint: "", format: ""))
    }

    /// Hands the ledger over, leaving this classifier empty.
    public mutating func takeLedger() -> UnlockLedger {
        var taken = UnlockLedger()
        swap(&taken, &ledger)
        return taken
    }
}

/// A kept ground point as the classifier placed it (flight and dropped points are not observed).
public struct ObservedPoint: Sendable {
    /// The input it came from (archive members as `archive.zip:member`).
    public var input: String
    /// The ground segment, numbered from 1 over the run: a new input, a gap, a break in the file or a
    /// landing starts the next.
    public var segment: Int
    /// The point in WGS-84 (converted from `--datum` already).
    public var point: TrackPoint
    public var placement: Placement
    /// True when the placement was reused from the previous lookup: every level is `inside` and the
    /// margins (dropped, nil) are at least the point's accuracy.
    public var reused: Bool
}

// MARK: Inputs classified by other classifiers (`classify --jobs`)

extension TrackClassifier {
    /// Adds the ledger another classifier made of the inputs that come next, as if this one had
    /// read them (``UnlockLedger/append(_:)``); call it between inputs.
    public mutating func append(_ later: UnlockLedger) {
        ledger.append(later)
    }
}
