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
///    Untimed points are tentative evidence.
/// 6. **Plans**: GPX route points (``TrackAnnotation/route``) and inputs with no time at all are
///    plans. Each input is classified into a contribution of its own (``InputContribution``); the
///    end of an input that gave no timed point discards it (the input is `planned`) unless
///    ``ClassifyOptions/includePlans``.
/// 7. **Moments**: every kept point, leg, and point count per place is tallied by UTC minute
///    (``MomentTally``), a leg split between the minutes it spans in proportion to time, so that
///    minutes several inputs recorded count once (``UnlockLedger/combined()``).
/// 8. **Passes**: a drawn, timed leg faster than ``ClassifyOptions/passMinimumSpeed`` between
///    points better than ``ClassifyOptions/passAccuracyLimit`` gives a pass candidate for every
///    cell it enters, at the moment it enters it (``PassCandidates``); counted in the combined view.
public struct TrackClassifier: TrackSink {
    private let locator: RegionLocator
    private let options: ClassifyOptions
    public private(set) var ledger: UnlockLedger
    /// The input being read.
    public private(set) var record = InputRecord(path: "", fingerprint: "", format: "")

    /// The last point that passed the filter (for duplicates and leg speeds), when `hasPrevious`.
    /// The per-point state is kept in plain fields, not in Optionals or tuples of structs, so
    /// that a point is not copied from one to the next (measured: a tenth of the classifier's time).
    private var previous = TrackPoint(latitude: 0, longitude: 0)
    private var hasPrevious = false
    private var breakPending = true
    /// The last point committed to the ground track (the start of the next leg), when `hasAnchor`;
    /// its placement is `lookupPlacement` when `anchorReused`, else `anchorPlacement`.
    private var anchor = Located()
    private var hasAnchor = false
    private var anchorReused = false
    private var anchorPlacement = Placement()
    /// Points after the anchor reached through fast legs, waiting for the run's verdict.
    private var run: [TrackPoint] = []
    private var runMetres = 0.0
    private static let maximumRun = 100_000
    /// Inside points per region in the current segment, and the first of them.
    private var segmentInside: [RegionKey: (count: Int, first: Visit)] = [:]
    private var datumConverter = DatumConverter()
    /// The current input's datum (its record's).
    private var inputDatum = Datum.wgs84
    /// The last point located afresh, its placement without margins, and its smallest margin,
    /// when `hasLookup`; `lookupCell` is the placement's part of a ``CellVisit`` (country, finest
    /// China region).
    private var hasLookup = false
    private var lookupPoint = TrackPoint(latitude: 0, longitude: 0)
    private var lookupPlacement = Placement()
    private var lookupClearance = 0.0
    private var lookupCell = (country: Int32(-1), chinaRegion: Int32(-1))
    /// Points that reused the last lookup since it was made, and the earliest of them: their
    /// evidence (inside, confirmed) is added to the ledger in one step when the lookup changes.
    private var reuseCount: Int64 = 0
    private var reuseFirst: Visit?
    private var rows = ExploredGrid.RowCache()
    /// The local day last added to the ledger (consecutive points share it).
    private var lastDay = Int64.min
    /// Local days in `options.timeZone`, its offset cached between transitions.
    private var dayClock: LocalDayClock
    private var scale = LocalScale()
    /// Ground segments started so far in this run (numbers the observed points' segments).
    private var segmentCount = 0
    /// Whether the anchor's evidence waits for its outgoing leg (see step 5): `pendingBeen` is
    /// already true when it starts a segment or its incoming leg was at human speed. The
    /// predecessor (`pendingHasPredecessor`) is the ground point before it in the segment: a
    /// point between two fast legs whose chord (predecessor to successor) is at human speed is a
    /// position spike in a walk, not a vehicle, and counts as been.
    private var pendingActive = false
    private var pendingBeen = false
    private var pendingHasPredecessor = false
    private var pendingPredecessor = TrackPoint(latitude: 0, longitude: 0)
    /// Reused points only passed at vehicle speed since the last lookup, and the earliest of them.
    private var passedReuseCount: Int64 = 0
    private var passedReuseFirst: Visit?
    /// The current segment is a GPX route (a plan).
    private var inRoute = false
    /// A timed point of this input has passed the filter: it is a recording, not a plan.
    private(set) var sawTimed = false
    /// Untimed track points (not route points) kept in this input.
    private var untimedTrackKept: Int64 = 0
    /// The current input's contribution, its place palette, and the tally of the minute being
    /// written (folded into `part.moments` when another minute is written).
    private var part = InputContribution()
    /// The current input's cells while it is read (a hash table: a track reaches a cell per
    /// point), kept in the contribution as a sorted list once it ends.
    private var partCells = CellTable()
    /// The current input's z17 explorer tiles while it is read (``SlippyTile``), drawn along the
    /// same legs and points as its cells.
    private var partTiles = TileTable()
    private var mercator = MercatorCache()
    /// The current input's pass candidates (``PassCandidates``) as (cell key, second), and whether
    /// the last drawn leg gave candidates: then the next leg's start cell is no new entry.
    private var partPasses: [(key: Int64, second: Int64)] = []
    private var passChain = false
    private var placePositions: [PlaceSignature: Int32] = [:]
    private var tallyMinute = Int64.min
    /// The first millisecond of `tallyMinute` (a leg inside it skips the splitting).
    private var tallyStart = Int64.max
    private var tally = MomentTally()
    /// The last place weighed and its palette position (consecutive points share a place).
    private var lastPlace: (signature: PlaceSignature, position: Int32)?
    /// The palette positions of `lookupPlacement` for a point been there and one only
    /// passed (computed when first needed).
    private var reusedPlaces: (been: Int32?, passed: Int32?) = (nil, nil)
    /// Called with every kept ground point, after it is weighed (the audit listens here; nil for
    /// `classify`, which then pays one nil check per point).
    public var observer: ((ObservedPoint) -> Void)?
    /// When set, the keys of the cells the current input explores for the first time are
    /// appended to `exploredKeys` (``LiveLedger`` reads and empties it after each point; classify
    /// leaves it off and pays one check per leg).
    var collectsExploredKeys = false
    var exploredKeys: [Int64] = []

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

        init() {}

        init(point: TrackPoint, cell: CellVisit, row: Double, tile: (x: Double, y: Double)) {
            self.point = point
            self.cell = cell
            self.row = row
            self.tile = tile
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
        reusedPlaces = (nil, nil)
        lastPlace = nil
    }

    /// Ends the input (deciding any open run), records it in the ledger and returns its record.
    @discardableResult
    public mutating func finish() -> InputRecord {
        flushRun()
        resolvePending(outgoingAtHumanSpeed: true)
        flushReuse()
        foldTally()
        // No timed point came: the input is a plan, and what it contributed is let go.
        if !sawTimed, !options.includePlans {
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

    // MARK: TrackSink

    public mutating func segmentBreak() {
        flushRun()
        breakPending = true
        hasPrevious = false
        inRoute = false
    }

    /// Pins are counted; the first activity type the file gives is kept unless its bundle
    /// labelled it already; a creator naming a Chinese map app gives a ``DatumHint``.
    public mutating func annotate(_ annotation: TrackAnnotation) {
        switch annotation {
        case .pin: record.pins += 1
        case let .activityType(type): if record.activityType == nil { record.activityType = type }
        case let .creator(name):
            if record.datumHint == nil, let hint = DatumHint(creator: name), hint.datum != inputDatum { record.datumHint = hint }
        case .route: inRoute = true
        }
    }

    public mutating func unreadablePoint(_ problem: InputError) {
        record.pointsRead += 1
        drop(.unreadable)
    }

    public mutating func point(_ raw: TrackPoint) {
        record.pointsRead += 1
        var point = raw
        // A planned route's points are classified only when plans are asked for, and untimed.
        if inRoute, options.includePlans { point.time = nil }
        guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
            return drop(.invalidCoordinate)
        }
        guard point.latitude != 0 || point.longitude != 0 else { return drop(.nullIsland) }
        if let accuracy = point.accuracy, !(accuracy <= options.maximumAccuracy) { return drop(.accuracy) }
        if inputDatum != .wgs84 {
            let c = datumConverter.convert(Coordinate(latitude: point.latitude, longitude: point.longitude), from: inputDatum, to: .wgs84)
            point.latitude = c.latitude
            point.longitude = c.longitude
        }
        if inRoute, !options.includePlans {
            // Kept (it passed the filter) and counted as a plan; nothing else.
            record.pointsKept += 1
            record.pointsPlanned += 1
            return
        }
        if point.time != nil { sawTimed = true }
        if hasPrevious, let t = point.time, let lastTime = previous.time {
            if t == lastTime { return drop(.duplicateTime) }
            if t < lastTime || t - lastTime > options.segmentGap {
                segmentBreak()
            }
        }
        guard hasPrevious else {
            flushRun()
            commit(point)
            previous = point
            hasPrevious = true
            return
        }
        let leg = scale.metres(from: previous, to: point)
        if let t0 = previous.time, let t1 = point.time, t1 > t0, leg / (Double(t1 - t0) / 1000) > options.fastSpeed {
            runMetres += leg
            run.append(point)
            previous = point
            if run.count >= Self.maximumRun { flushRun() }
            return
        }
        let fromAnchor = run.isEmpty && hasAnchor && Self.same(previous, anchor.point)
        flushRun()
        commit(point, legMetres: fromAnchor ? leg : nil)
        previous = point
    }

    /// `a == b` (the derived equality), written out: the per-point check whether the previous
    /// point is the anchor.
    @inline(__always)
    private static func same(_ a: TrackPoint, _ b: TrackPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.time == b.time && a.accuracy == b.accuracy && a.elevation == b.elevation
    }

    // MARK: Runs of fast legs

    private mutating func flushRun() {
        guard !run.isEmpty else { return }
        defer {
            run.removeAll(keepingCapacity: true)
            runMetres = 0
        }
        let landing = run[run.count - 1]
        guard hasAnchor, let t0 = anchor.point.time, let t1 = landing.time, t1 > t0 else {
            for point in run { commit(point) }
            return
        }
        let speed = runMetres / (Double(t1 - t0) / 1000)
        if speed > options.implausibleSpeed {
            for _ in 0..<(run.count - 1) { drop(.implausibleSpeed) }
            breakPending = true
            commit(landing)
        } else if speed > options.flightSpeed {
            let inner = Int64(run.count - 1)
            record.pointsKept += inner
            record.pointsInFlight += inner
            for point in run.dropLast() {
                useMinute(Self.minute(of: point.time!))
                tally.points += 1
                tally.inFlight += 1
            }
            addLeg(from: t0, to: t1, millimetres: Int64((runMetres * 1000).rounded()), flight: true)
            breakPending = true
            commit(landing, legAlreadyCounted: true)
        } else {
            for point in run { commit(point) }
        }
    }

    // MARK: Ground points

    private mutating func drop(_ reason: DropReason) {
        record.dropped[reason, default: 0] += 1
    }

    /// `legMetres`, when known, is the distance from the anchor (saves computing it again).
    private mutating func commit(_ point: TrackPoint, legAlreadyCounted: Bool = false, legMetres: Double? = nil) {
        record.pointsKept += 1
        if inRoute { record.pointsPlanned += 1 } else if point.time == nil { untimedTrackKept += 1 }
        // The leg from the anchor, and whether it was at human-powered speed; the anchor's evidence
        // is decided by it before this point is placed (placing may flush the reused evidence).
        let hasLeg = !breakPending && hasAnchor
        var metres = 0.0, untimed = false, humanSpeed = false
        if breakPending {
            resolvePending(outgoingAtHumanSpeed: true)
        } else if hasAnchor {
            metres = legMetres ?? scale.metres(from: anchor.point, to: point)
            if let t0 = anchor.point.time, let t1 = point.time {
                humanSpeed = t1 > t0 && metres <= options.exploreMaxSpeed * (Double(t1 - t0) / 1000)
            } else {
                untimed = true
                humanSpeed = true
            }
            resolvePending(outgoingAtHumanSpeed: humanSpeed, successor: point)
        }
        guard let reused = place(point) else {
            // Unreachable after the filter's range checks; counted rather than lost if it ever happens.
            record.pointsKept -= 1
            return drop(.invalidCoordinate)
        }
        useMinute(ofTime: point.time)
        tally.points += 1
        let second = point.time.map(CellVisit.second(of:)) ?? .max
        let cell = reused ? CellVisit(time: second, country: lookupCell.country, chinaRegion: lookupCell.chinaRegion)
                          : CellVisit(time: second, country: anchorPlacement.country.region ?? -1,
                                      chinaRegion: anchorPlacement.county.region ?? anchorPlacement.city.region ?? anchorPlacement.province.region ?? -1)
        let located = Located(point: point, cell: cell, row: rows.rowCoordinate(latitude: point.latitude),
                              tile: mercator.tileCoordinates(latitude: point.latitude, longitude: point.longitude, zoom: SlippyTile.storedZoom))
        if breakPending {
            breakPending = false
            segmentCount += 1
            segmentInside.removeAll(keepingCapacity: true)
            passChain = false
            let key = rows.key(rowCoordinate: located.row, longitude: point.longitude)
            let known = partCells.count
            partCells.explore(key, located.cell)
            if collectsExploredKeys, partCells.count != known { exploredKeys.append(key) }
            let tile = SlippyTile.tile(tileCoordinates: located.tile, zoom: SlippyTile.storedZoom)
            partTiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: located.cell.time)
        } else if hasLeg {
            // The anchor is still the leg's start here.
            let fromTime = anchor.point.time, fromRow = anchor.row, fromLongitude = anchor.point.longitude
            let startCell = anchor.cell, endCell = located.cell
            let drawn = untimed ? metres <= ClassifyOptions.untimedLegLimit
                                : humanSpeed && metres <= ClassifyOptions.maximumExploredLeg
            if !legAlreadyCounted, !untimed || drawn {
                addLeg(from: fromTime, to: point.time, millimetres: Self.rounded(metres * 1000))
            }
            if drawn, let t0 = fromTime, let t1 = point.time,
               metres > ClassifyOptions.passMinimumSpeed * (Double(t1 - t0) / 1000),
               (anchor.point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit,
               (point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit {
                // A moving leg with good fixes: every cell it enters is a pass candidate, at the
                // time the leg enters it; its start cell only when the last leg gave none.
                let chained = passChain, duration = Double(t1 - t0)
                rows.rasterise(from: (fromRow, fromLongitude), to: (located.row, point.longitude)) { key, fraction in
                    let known = partCells.count
                    partCells.explore(key, fraction < 0.5 ? startCell : endCell)
                    if collectsExploredKeys, partCells.count != known { exploredKeys.append(key) }
                    if fraction > 0 || !chained { partPasses.append((key, Self.second(of: t0 &+ Int64(duration * fraction)))) }
                }
                passChain = true
            } else if drawn {
                passChain = false
                if collectsExploredKeys {
                    rows.rasterise(from: (fromRow, fromLongitude), to: (located.row, point.longitude)) { key, fraction in
                        let known = partCells.count
                        partCells.explore(key, fraction < 0.5 ? startCell : endCell)
                        if partCells.count != known { exploredKeys.append(key) }
                    }
                } else {
                    rows.rasterise(from: (fromRow, fromLongitude), to: (located.row, point.longitude)) { key, fraction in
                        partCells.explore(key, fraction < 0.5 ? startCell : endCell)
                    }
                }
            }
            if drawn {
                // The leg's tiles are visited at the earlier of its ends' times; most legs stay
                // inside one z17 tile.
                let time = min(startCell.time, endCell.time)
                let fromTileKey = anchor.tileKey
                if fromTileKey >= 0, fromTileKey == located.tileKey {
                    partTiles.visit(fromTileKey, time: time)
                } else {
                    let fromTile = anchor.tile
                    SlippyTile.supercover(from: fromTile, to: located.tile, zoom: SlippyTile.storedZoom) { key in
                        partTiles.visit(key, time: time)
                    }
                }
            } else {
                passChain = false
            }
        }
        if let time = point.time {
            let day = dayClock.day(of: time)
            if day != lastDay {
                part.days.insert(day)
                lastDay = day
            }
        }
        // The new anchor's evidence waits for its outgoing leg. Untimed points have no speed to
        // judge: they count as places been (tentatively).
        pendingActive = true
        pendingBeen = !hasLeg || humanSpeed
        pendingHasPredecessor = hasLeg
        if hasLeg { pendingPredecessor = anchor.point }
        anchor = located
        hasAnchor = true
        anchorReused = reused
        observer?(ObservedPoint(input: record.path, segment: segmentCount, point: point,
                                placement: reused ? lookupPlacement : anchorPlacement, reused: reused))
    }

    /// Weighs the pending point (the anchor) now that its outgoing leg is known (or there is none).
    @inline(__always)
    private mutating func resolvePending(outgoingAtHumanSpeed: Bool, successor: TrackPoint? = nil) {
        guard pendingActive else { return }
        pendingActive = false
        var been = pendingBeen || outgoingAtHumanSpeed
        if !been, pendingHasPredecessor, let b = successor, let t0 = pendingPredecessor.time, let t1 = b.time, t1 > t0 {
            been = scale.metres(from: pendingPredecessor, to: b) <= options.exploreMaxSpeed * (Double(t1 - t0) / 1000)
        }
        if anchorReused {
            let time = anchor.point.time
            let visit = Visit(time: time, latitude: anchor.point.latitude, longitude: anchor.point.longitude)
            if been {
                reuseCount += 1
                reuseFirst = earliest(reuseFirst, visit)
            } else {
                passedReuseCount += 1
                passedReuseFirst = earliest(passedReuseFirst, visit)
            }
            let place = reusedPlace(been: been)
            useMinute(ofTime: time)
            tally.count(place: place)
        } else {
            weigh(been: been)
        }
    }

    /// Places a ground point: true when it reuses the last lookup's placement (`lookupPlacement`),
    /// false when it was located afresh (the placement is then put in `anchorPlacement`), nil
    /// when it cannot be located. A point near the last located one reuses its answer
    /// when that cannot change it: it is inside at every level it has, the placement is stable
    /// (`RegionLocator.placementIsStable`: no China level missing in China, no datum gate near
    /// China's border), and it moved less than the smallest margin minus its accuracy (with 1% and 1 m to spare for the datum shift's slight
    /// stretch). Then every level has the same region and the margin still exceeds the accuracy,
    /// so the evidence is what a fresh lookup would give; the margins are dropped (nil: "far
    /// enough"). Tracks sample every few metres, so most points take this path.
    private mutating func place(_ point: TrackPoint) -> Bool? {
        let accuracy = point.accuracy ?? options.assumedAccuracy
        // Untimed points are tentative, which a reused placement (confirmed) would not say.
        if point.time != nil, hasLookup {
            let moved = scale.metres(from: lookupPoint, to: point) * 1.01 + 1
            if moved + accuracy <= lookupClearance { return true }
        }
        flushReuse()
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else { return nil }
        // The levels that have a region: all inside, and the smallest margin (the first one met
        // on ties, as `min()` takes it).
        var levels = 0, allInside = true, clearance = 0.0
        let radius = locator.marginRadius
        func include(_ level: LevelPlacement) {
            guard level.region != nil else { return }
            if level.status != .inside { allInside = false }
            let margin = level.marginMetres ?? radius
            if levels == 0 || margin < clearance { clearance = margin }
            levels += 1
        }
        include(placement.country)
        include(placement.province)
        include(placement.city)
        include(placement.county)
        if levels > 0, allInside,
           locator.placementIsStable(placement, latitude: point.latitude, longitude: point.longitude, within: locator.marginRadius) {
            var reusable = placement
            reusable.country.marginMetres = nil
            reusable.province.marginMetres = nil
            reusable.city.marginMetres = nil
            reusable.county.marginMetres = nil
            hasLookup = true
            lookupPoint = point
            lookupPlacement = reusable
            lookupClearance = clearance
            lookupCell = (placement.country.region ?? -1, placement.county.region ?? placement.city.region ?? placement.province.region ?? -1)
        } else {
            hasLookup = false
        }
        reusedPlaces = (nil, nil)
        anchorPlacement = placement
        return false
    }

    /// Calls `body` with the current input's evidence of each region so far, the points that
    /// reused the last lookup included (they are added to `part` only when the lookup changes).
    /// For ``LiveLedger``, after each point.
    func forEachRegionSoFar(_ body: (RegionKey, RegionEvidence) -> Void) {
        let reused = (reuseCount > 0 || passedReuseCount > 0) && hasLookup ? lookupPlacement : nil
        func withReuse(_ key: RegionKey, _ evidence: RegionEvidence) -> RegionEvidence {
            guard let reused, reused.level(key.level).region == key.index else { return evidence }
            var evidence = evidence
            evidence.confirmedBy = earliest(evidence.confirmedBy, reuseFirst)
            evidence.passedBy = earliest(evidence.passedBy, passedReuseFirst)
            return evidence
        }
        for (key, evidence) in part.regions { body(key, withReuse(key, evidence)) }
        if let reused {
            for level in RegionLevel.allCases {
                guard let region = reused.level(level).region else { continue }
                let key = RegionKey(level: level, index: region)
                if part.regions[key] == nil { body(key, withReuse(key, RegionEvidence())) }
            }
        }
    }

    /// Adds the points that reused the last lookup to the ledger: inside, confirmed, at every level.
    /// Points only passed at vehicle speed count as passed, not inside.
    private mutating func flushReuse() {
        guard reuseCount > 0 || passedReuseCount > 0, hasLookup else { return }
        addReuse(.country, lookupPlacement.country.region)
        addReuse(.province, lookupPlacement.province.region)
        addReuse(.city, lookupPlacement.city.region)
        addReuse(.county, lookupPlacement.county.region)
        reuseCount = 0
        reuseFirst = nil
        passedReuseCount = 0
        passedReuseFirst = nil
    }

    private mutating func addReuse(_ level: RegionLevel, _ region: Int32?) {
        guard let region else { return }
        let key = RegionKey(level: level, index: region)
        // In place: one hash lookup, the entry added when new.
        Self.add(confirmed: reuseFirst, passed: passedReuseFirst, to: &part.regions[key, default: RegionEvidence()])
    }

    private static func add(confirmed: Visit?, passed: Visit?, to evidence: inout RegionEvidence) {
        if let first = confirmed { evidence.confirmedBy = earliest(evidence.confirmedBy, first) }
        if let first = passed { evidence.passedBy = earliest(evidence.passedBy, first) }
    }

    /// One more point in the region within the current segment (its tally there): the
    /// segment's points confirm it once there are ``ClassifyOptions/minimumPointsPerSegment`` of them.
    private static func countTowardsSegment(_ tally: inout (count: Int, first: Visit), minimum: Int, _ evidence: inout RegionEvidence) {
        tally.count += 1
        if tally.count >= minimum {
            evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
        }
    }

    /// Applies the evidence rules of DESIGN.md to the anchor, located afresh (`anchorPlacement`),
    /// at every level. A point only passed at vehicle speed (`been` false) is passed-through
    /// evidence; an untimed one tentative.
    private mutating func weigh(been: Bool) {
        let point = anchor.point
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        let accuracy = point.accuracy ?? options.assumedAccuracy
        let p = anchorPlacement
        var kinds: UInt8 = 0
        kinds |= weigh(.country, p.country, position: 0, visit: visit, accuracy: accuracy, been: been)
        kinds |= weigh(.province, p.province, position: 1, visit: visit, accuracy: accuracy, been: been)
        kinds |= weigh(.city, p.city, position: 2, visit: visit, accuracy: accuracy, been: been)
        kinds |= weigh(.county, p.county, position: 3, visit: visit, accuracy: accuracy, been: been)
        let signature = PlaceSignature(regions: (p.country.region ?? -1, p.province.region ?? -1, p.city.region ?? -1, p.county.region ?? -1),
                                       kinds: kinds)
        let place = position(of: signature)
        useMinute(ofTime: point.time)
        tally.count(place: place)
    }

    /// `weigh(been:)` at one level; returns the level's kind in the place signature's bits.
    private mutating func weigh(_ level: RegionLevel, _ placement: LevelPlacement, position: UInt8,
                                visit: Visit, accuracy: Double, been: Bool) -> UInt8 {
        guard let region = placement.region, placement.status != .outside else { return 0 }
        let kind: PlaceSignature.Kind = !been ? .passed : placement.status == .inside ? .inside : .edge
        let key = RegionKey(level: level, index: region)
        // The region's evidence (and its tally in the segment) updated in place: one hash lookup
        // each, the entry added when new.
        Self.weigh(placement, visit: visit, accuracy: accuracy, been: been, minimum: options.minimumPointsPerSegment,
                   key: key, segmentInside: &segmentInside, evidence: &part.regions[key, default: RegionEvidence()])
        return kind.rawValue << (2 * position)
    }

    private static func weigh(_ placement: LevelPlacement, visit: Visit, accuracy: Double, been: Bool, minimum: Int, key: RegionKey,
                              segmentInside: inout [RegionKey: (count: Int, first: Visit)], evidence: inout RegionEvidence) {
        if !been {
            evidence.passedBy = earliest(evidence.passedBy, visit)
        } else if visit.time == nil {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
        } else if placement.status == .inside {
            if (placement.marginMetres ?? .infinity) >= accuracy {
                evidence.confirmedBy = earliest(evidence.confirmedBy, visit)
            } else {
                evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
                countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, &evidence)
            }
        } else {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            // At a coast nobody else can claim (``LevelPlacement/uncontested``), edge points
            // count like points inside near a border: enough of them in one segment confirm.
            if placement.uncontested { countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, &evidence) }
        }
    }

    // MARK: Moments

    /// `Int64(x.rounded())` (half away from zero) without a call to `round`, for the x it does not trap on.
    @inline(__always)
    static func rounded(_ x: Double) -> Int64 {
        let t = Int64(x)  // towards zero; the fraction x - t is exact
        let fraction = x - Double(t)
        return fraction >= 0.5 ? t + 1 : fraction <= -0.5 ? t - 1 : t
    }

    /// The whole second of a time in milliseconds (rounded down, before 1970 too).
    static func second(of time: Int64) -> Int64 {
        let q = time / 1000
        return time % 1000 < 0 ? q - 1 : q
    }

    /// The UTC minute of a time (rounded down, before 1970 too).
    static func minute(of time: Int64) -> Int64 {
        let q = time / 60_000
        return time % 60_000 < 0 ? q - 1 : q
    }

    /// Makes `tally` the tally of `minute`.
    @inline(__always)
    private mutating func useMinute(_ minute: Int64) {
        if minute != tallyMinute { switchMinute(to: minute) }
    }

    /// Makes `tally` the tally of the minute of `time` (untimed: ``MomentTally/untimedMinute``);
    /// a time inside the minute being written needs no division.
    @inline(__always)
    private mutating func useMinute(ofTime time: Int64?) {
        guard let time else { return useMinute(MomentTally.untimedMinute) }
        if time >= tallyStart, time &- tallyStart < 60_000 { return }
        useMinute(Self.minute(of: time))
    }

    private mutating func switchMinute(to minute: Int64) {
        foldTally()
        tally = part.moments.removeValue(forKey: minute) ?? MomentTally()
        tallyMinute = minute
        tallyStart = minute == MomentTally.untimedMinute ? .max : minute &* 60_000
    }

    /// Keeps the tally being written. A file whose time runs back over minutes it recorded (the
    /// same walk twice in one file) adds to those minutes again; a minute holds at most a minute
    /// of recording, so its duration is capped at 60 s (the state refuses more).
    private mutating func foldTally() {
        if tallyMinute != .min, !tally.isEmpty {
            if tallyMinute != MomentTally.untimedMinute, tally.durationMilliseconds > 60_000 { tally.durationMilliseconds = 60_000 }
            part.moments[tallyMinute] = tally
        }
        tallyMinute = .min
        tallyStart = .max
        tally = MomentTally()
    }

    /// Adds a leg's distance and duration to the minutes it spans, split in proportion to time
    /// (the pieces' millimetres add up to the leg's); a leg with an untimed end goes to the
    /// untimed tally, without duration.
    private mutating func addLeg(from t0: Int64?, to t1: Int64?, millimetres: Int64, flight: Bool = false) {
        guard let t0, let t1 else {
            useMinute(MomentTally.untimedMinute)
            tally.distanceMillimetres += millimetres
            if flight { tally.flightDistanceMillimetres += millimetres }
            return
        }
        // Most legs lie within the minute being written.
        if t0 >= tallyStart, t1 > t0, t1 <= tallyStart &+ 60_000 {
            tally.distanceMillimetres += millimetres
            if flight { tally.flightDistanceMillimetres += millimetres }
            tally.durationMilliseconds += t1 - t0
            return
        }
        let first = Self.minute(of: t0), last = t1 > t0 ? Self.minute(of: t1 - 1) : first
        var minute = first, counted: Int64 = 0
        while true {
            let end = minute == last ? t1 : (minute &+ 1) &* 60_000
            let cumulative = minute == last ? millimetres : Int64((Double(millimetres) * Double(end - t0) / Double(t1 - t0)).rounded())
            useMinute(minute)
            tally.distanceMillimetres += cumulative - counted
            if flight { tally.flightDistanceMillimetres += cumulative - counted }
            tally.durationMilliseconds += max(0, end - max(t0, minute &* 60_000))
            counted = cumulative
            if minute == last { break }
            minute += 1
        }
    }

    /// The palette position of a place, added when new.
    private mutating func position(of signature: PlaceSignature) -> Int32 {
        if let last = lastPlace, last.signature == signature { return last.position }
        let position: Int32
        if let known = placePositions[signature] {
            position = known
        } else {
            position = Int32(part.places.count)
            part.places.append(signature)
            placePositions[signature] = position
        }
        lastPlace = (signature, position)
        return position
    }

    /// The palette position of `lookupPlacement`: inside at every level it has, or passed.
    @inline(__always)
    private mutating func reusedPlace(been: Bool) -> Int32 {
        if let known = been ? reusedPlaces.been : reusedPlaces.passed { return known }
        return newReusedPlace(been: been)
    }

    private mutating func newReusedPlace(been: Bool) -> Int32 {
        let p = lookupPlacement
        let regions = (p.country.region ?? -1, p.province.region ?? -1, p.city.region ?? -1, p.county.region ?? -1)
        var kinds: UInt8 = 0
        let kind = been ? PlaceSignature.Kind.inside : .passed
        for (position, region) in [regions.0, regions.1, regions.2, regions.3].enumerated() where region >= 0 {
            kinds |= kind.rawValue << (2 * UInt8(position))
        }
        let position = position(of: PlaceSignature(regions: regions, kinds: kinds))
        if been { reusedPlaces.been = position } else { reusedPlaces.passed = position }
        return position
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
