import ChinaDatum
import Foundation
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
///    timed point (``waiting``), so a plan costs its points, never the cells of its legs.
/// 7. **Moments**: every kept point, leg, and point count per place is tallied by UTC minute
///    (``MomentTally``), a leg split between the minutes it spans in proportion to time, so that
///    minutes several inputs recorded count once (``UnlockLedger/combined()``).
/// 8. **Passes**: a drawn, timed leg faster than ``ClassifyOptions/passMinimumSpeed`` between
///    points better than ``ClassifyOptions/passAccuracyLimit`` gives a pass candidate for every
///    cell it enters, at the moment it enters it (``PassCandidates``); counted in the combined view.
public struct TrackClassifier: TrackSink {
    package let locator: RegionLocator
    let options: ClassifyOptions
    public internal(set) var ledger: UnlockLedger
    /// The input being read.
    public internal(set) var record = InputRecord(path: "", fingerprint: "", format: "")

    /// The last point that passed the filter (for duplicates and leg speeds), when `hasPrevious`.
    /// The per-point state is kept in plain fields, not in Optionals or tuples of structs, so
    /// that a point is not copied from one to the next (measured: a tenth of the classifier's time).
    var previous = TrackPoint(latitude: 0, longitude: 0)
    var hasPrevious = false
    /// The time of the input's last point that passed the filter, kept across segment breaks (a
    /// point repeating it is a `duplicateTime`: docs/report-format.md).
    var timeOfLastPoint: Int64?
    var breakPending = true
    /// The last point committed to the ground track (the start of the next leg), when `hasAnchor`;
    /// its placement is `lookupPlacement` when `anchorReused`, else `anchorPlacement`.
    var anchor = Located()
    var hasAnchor = false
    var anchorReused = false
    var anchorPlacement = Placement()
    /// Points after the anchor reached through fast legs, waiting for the run's verdict.
    var run: [TrackPoint] = []
    var runMetres = 0.0
    static let maximumRun = 100_000
    /// Inside points per region in the current segment, and the first of them.
    var segmentInside: [RegionKey: (count: Int, first: Visit)] = [:]
    var datumConverter = DatumConverter()
    /// The current input's datum (its record's).
    var inputDatum = Datum.wgs84
    /// The last point located afresh, its placement without margins, and its smallest margin,
    /// when `hasLookup`; `lookupCell` is the placement's ``CellVisit`` (country, finest China
    /// region, subdivision), untimed.
    var hasLookup = false
    var lookupPoint = TrackPoint(latitude: 0, longitude: 0)
    var lookupPlacement = Placement()
    var lookupClearance = 0.0
    var lookupCell = CellVisit(time: .max, country: -1, chinaRegion: -1)
    /// Points that reused the last lookup since it was made, and the earliest of them: their
    /// evidence (inside, confirmed) is added to the ledger in one step when the lookup changes.
    var reuseCount: Int64 = 0
    var reuseFirst: Visit?
    var rows = ExploredGrid.RowCache()
    /// The local day last added to the ledger (consecutive points share it).
    var lastDay = Int64.min
    /// Local days in `options.timeZone`, its offset cached between transitions.
    var dayClock: LocalDayClock
    var scale = LocalScale()
    /// Ground segments started so far in this run (numbers the observed points' segments).
    var segmentCount = 0
    /// Whether the anchor's evidence waits for its outgoing leg (see step 5): `pendingBeen` is
    /// already true when it starts a segment or its incoming leg was at human speed. The
    /// predecessor (`pendingHasPredecessor`) is the ground point before it in the segment: a
    /// point between two fast legs whose chord (predecessor to successor) is at human speed is a
    /// position spike in a walk, not a vehicle, and counts as been.
    var pendingActive = false
    var pendingBeen = false
    var pendingHasPredecessor = false
    var pendingPredecessor = TrackPoint(latitude: 0, longitude: 0)
    /// Reused points only passed at vehicle speed since the last lookup, and the earliest of them.
    var passedReuseCount: Int64 = 0
    var passedReuseFirst: Visit?
    /// Reused points alone in their segment since the last lookup, and the earliest of them.
    var loneReuseCount: Int64 = 0
    var loneReuseFirst: Visit?
    /// How the reader labels the current segment's movement (``TrackAnnotation/movement(_:)``),
    /// until the reader's next segment break (gaps the classifier splits at keep it); and the
    /// pending point's label, which decides its evidence.
    var movement: Movement?
    var pendingMovement: Movement?
    /// The input's ground point before the gap that starts the pending point's segment, if any:
    /// with the point after the next gap, it says whether a lone point could have been a stop.
    var pendingBeforeGap: TrackPoint?
    /// The pending point's incoming leg was at human-powered speed.
    var pendingIncomingHuman = false
    /// The current segment is a GPX route (a plan).
    var inRoute = false
    /// A timed point of this input has passed the filter: it is a recording, not a plan.
    var sawTimed = false
    /// Untimed track points (not route points) kept in this input.
    var untimedTrackKept: Int64 = 0
    /// Untimed track points of an input with no timed point yet, while plans are not counted and
    /// nobody observes placements: if no timed point comes, the input is a plan and they are only
    /// counted (a 16 MB KML plan of 180 m legs held its legs' cells, 774 MB, only to let them go);
    /// the first timed point replays them. 32 bytes a point.
    var waiting: [UntimedPoint] = []
    /// The input is a map of explored ground (``TrackAnnotation/exploredArea``): its points are
    /// spots, each weighed alone; `footprintSpots` counts the spots that count towards each region.
    var footprint = false
    /// The input is a photo (``TrackAnnotation/snapshot``): its points are visits at a moment.
    var snapshot = false
    var footprintSpots: [RegionKey: (count: Int, first: Visit)] = [:]
    /// The current input's contribution, its place palette, and the tally of the minute being
    /// written (folded into `part.moments` when another minute is written).
    var part = InputContribution()
    /// The current input's cells while it is read (a hash table: a track reaches a cell per
    /// point), kept in the contribution as a sorted list once it ends.
    var partCells = CellTable()
    /// The current input's z17 explorer tiles while it is read (``SlippyTile``), drawn along the
    /// same legs and points as its cells.
    var partTiles = TileTable()
    var mercator = MercatorCache()
    /// The current input's pass candidates (``PassCandidates``) as (cell key, second), and whether
    /// the last drawn leg gave candidates: then the next leg's start cell is no new entry.
    var partPasses: [(key: Int64, second: Int64)] = []
    var passChain = false
    var placePositions: [PlaceSignature: Int32] = [:]
    var tallyMinute = Int64.min
    /// The first millisecond of `tallyMinute` (a leg inside it skips the splitting).
    var tallyStart = Int64.max
    var tally = MomentTally()
    /// The last place weighed and its palette position (consecutive points share a place).
    var lastPlace: (signature: PlaceSignature, position: Int32)?
    /// The palette positions of `lookupPlacement` for a point been there and one only
    /// passed (computed when first needed).
    var reusedPlaces: (been: Int32?, lone: Int32?, passed: Int32?) = (nil, nil, nil)
    /// Called with every kept ground point, after it is weighed: the classifier's seam for whoever
    /// watches placements as they are made (the border audit). Nil for `classify`, which then pays
    /// one nil check per point.
    public var observer: ((ObservedPoint) -> Void)?

    /// A committed ground point and what the next leg from it needs (its placement is kept
    /// apart: most points reuse the last lookup's).
    struct Located {
        var point = TrackPoint(latitude: 0, longitude: 0)
        var cell = CellVisit(time: .max, country: -1, chinaRegion: -1)
        /// `ExploredGrid.rowCoordinate` of the point, kept for the next leg.
        var row = 0.0
        /// The point's z17 tile coordinates (``SlippyTile/tileCoordinates(latitude:longitude:zoom:)``).
        var tile = (x: 0.0, y: 0.0)
        /// The key of the z17 tile whose interior holds it; -1 on a tile's edge (or beyond the last
        /// column), where the leg's supercover decides.
        var tileKey: Int64 = -1
        /// Beyond Web Mercator's ±85.0511°, where no tile is (``SlippyTile/maximumLatitude``).
        var beyondTiles = false

        init() {}

        init(point: TrackPoint, cell: CellVisit, row: Double, tile: (x: Double, y: Double)) {
            self.point = point
            self.cell = cell
            self.row = row
            self.tile = tile
            beyondTiles = abs(point.latitude) > SlippyTile.maximumLatitude
            // Tile coordinates are finite and at least 0 (x from a longitude ≥ −180°, y clamped),
            // so truncation is the floor; the checks keep the rule for any other value.
            let size = Int64(1) << SlippyTile.storedZoom
            if tile.x >= 0, tile.y >= 0, tile.x < Double(size), tile.y < Double(size) {
                let x = Int64(tile.x), y = Int64(tile.y)
                tileKey = Double(x) != tile.x && Double(y) != tile.y ? SlippyTile.key(x: x, y: y, zoom: SlippyTile.storedZoom) : -1
            }
        }
    }

    public init(locator: RegionLocator, options: ClassifyOptions, ledger: UnlockLedger = UnlockLedger()) {
        self.locator = locator
        self.options = options
        self.ledger = ledger
        dayClock = LocalDayClock(zone: options.timeZone)
    }

    /// Starts an input: nothing joins it to the previous one.
    public mutating func begin(_ record: InputRecord) {
        self.record = record
        inputDatum = record.datum ?? options.inputDatum
        // Kept as the state and the report keep it: WGS-84 is no entry.
        self.record.datum = inputDatum == .wgs84 ? nil : inputDatum
        hasPrevious = false
        timeOfLastPoint = nil
        hasAnchor = false
        anchorReused = false
        breakPending = true
        run.removeAll(keepingCapacity: true)
        runMetres = 0
        hasLookup = false
        reuseCount = 0
        reuseFirst = nil
        rows = ExploredGrid.RowCache()
        scale = LocalScale()
        lastDay = .min
        pendingActive = false
        passedReuseCount = 0
        passedReuseFirst = nil
        inRoute = false
        sawTimed = false
        untimedTrackKept = 0
        waiting = []
        footprint = false
        snapshot = false
        footprintSpots = [:]
        part = InputContribution()
        partCells = CellTable()
        partTiles = TileTable()
        mercator = MercatorCache()
        partPasses = []
        passChain = false
        placePositions = [:]
        tallyMinute = .min
        tallyStart = .max
        tally = MomentTally()
        reusedPlaces = (nil, nil, nil)
        lastPlace = nil
        movement = nil
        pendingMovement = nil
        pendingBeforeGap = nil
        loneReuseCount = 0
        loneReuseFirst = nil
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
    var cellsSoFar: CellTable { partCells }

    /// Ends the input (deciding any open run), records it in the ledger and returns its record.
    @discardableResult
    public mutating func finish() -> InputRecord {
        countWaitingAsPlanned()
        settle()
        foldTally()
        // No timed point came: the input is a plan, and what it contributed is let go (a map of
        // explored ground has no times and is no plan).
        if !sawTimed, !options.includePlans, !footprint {
            part = InputContribution()
        } else {
            part.cells = CellList(partCells)
            part.tiles = TileList(partTiles.tiles)
            part.passes = PassCandidates(partPasses)
        }
        partCells = CellTable()
        partTiles = TileTable()
        partPasses = []
        if !sawTimed {
            record.pointsPlanned += untimedTrackKept
            if record.status == .read, record.pointsPlanned > 0 { record.status = .planned }
        }
        // A file an earlier run through the state passed over (say, before its format was read)
        // is replaced by its reading.
        ledger.inputs.removeValue(forKey: InputRecord.pathKey(path: record.path))
        ledger.inputs[record.fingerprint] = record
        if !part.isEmpty { ledger.contributions[record.fingerprint] = part }
        part = InputContribution()
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
