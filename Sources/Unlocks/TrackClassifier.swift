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
/// 4. **Locate** all levels, weigh the evidence, rasterise the leg from the previous point.
public struct TrackClassifier: TrackSink {
    private let locator: RegionLocator
    private let options: ClassifyOptions
    public private(set) var ledger: UnlockLedger
    /// The input being read.
    public private(set) var record = InputRecord(path: "", fingerprint: "", format: "")

    /// The last point that passed the filter (for duplicates and leg speeds).
    private var previous: TrackPoint?
    private var breakPending = true
    /// The last point committed to the ground track, with its placement (the start of the next leg).
    private var anchor: Located?
    /// Points after the anchor reached through fast legs, waiting for the run's verdict.
    private var run: [TrackPoint] = []
    private var runMetres = 0.0
    private static let maximumRun = 100_000
    /// Inside points per region in the current segment, and the first of them.
    private var segmentInside: [RegionKey: (count: Int, first: Visit)] = [:]
    private var datumConverter = DatumConverter()

    struct Located {
        var point: TrackPoint
        var placement: Placement
        var cell: CellVisit
    }

    public init(locator: RegionLocator, options: ClassifyOptions, ledger: UnlockLedger = UnlockLedger()) {
        self.locator = locator
        self.options = options
        self.ledger = ledger
    }

    /// Starts an input: nothing joins it to the previous one.
    public mutating func begin(_ record: InputRecord) {
        self.record = record
        previous = nil
        anchor = nil
        breakPending = true
        run.removeAll(keepingCapacity: true)
        runMetres = 0
    }

    /// Ends the input (deciding any open run), records it in the ledger and returns its record.
    @discardableResult
    public mutating func finish() -> InputRecord {
        flushRun()
        ledger.inputs[record.fingerprint] = record
        return record
    }

    /// Names the current input's format once its reader has recognised it (e.g. `json/backup`).
    public mutating func setFormat(_ format: String) {
        record.format = format
    }

    /// Marks the current input as stopped by an error (its points so far are kept).
    public mutating func fail(_ error: String) {
        record.error = error
        record.status = record.pointsRead > 0 ? .partial : .rejected
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
        previous = nil
    }

    public mutating func unreadablePoint(_ problem: InputError) {
        record.pointsRead += 1
        drop(.unreadable)
    }

    public mutating func point(_ raw: TrackPoint) {
        record.pointsRead += 1
        var point = raw
        guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
            return drop(.invalidCoordinate)
        }
        guard point.latitude != 0 || point.longitude != 0 else { return drop(.nullIsland) }
        if let accuracy = point.accuracy, !(accuracy <= options.maximumAccuracy) { return drop(.accuracy) }
        if options.inputDatum != .wgs84 {
            let c = datumConverter.convert(Coordinate(latitude: point.latitude, longitude: point.longitude), from: options.inputDatum, to: .wgs84)
            point.latitude = c.latitude
            point.longitude = c.longitude
        }
        if let last = previous, let t = point.time, let lastTime = last.time {
            if t == lastTime { return drop(.duplicateTime) }
            if t < lastTime || t - lastTime > options.segmentGap {
                segmentBreak()
            }
        }
        if let last = previous, let speed = Self.speed(from: last, to: point), speed > options.fastSpeed {
            runMetres += Self.metres(from: last, to: point)
            run.append(point)
            previous = point
            if run.count >= Self.maximumRun { flushRun() }
            return
        }
        flushRun()
        commit(point)
        previous = point
    }

    // MARK: Runs of fast legs

    private mutating func flushRun() {
        guard !run.isEmpty else { return }
        defer {
            run.removeAll(keepingCapacity: true)
            runMetres = 0
        }
        let landing = run[run.count - 1]
        guard let start = anchor?.point, let t0 = start.time, let t1 = landing.time, t1 > t0 else {
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
            let millimetres = Int64((runMetres * 1000).rounded())
            ledger.distanceMillimetres += millimetres
            ledger.flightDistanceMillimetres += millimetres
            ledger.durationMilliseconds += t1 - t0
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

    private mutating func commit(_ point: TrackPoint, legAlreadyCounted: Bool = false) {
        record.pointsKept += 1
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else {
            // Unreachable after the filter's range checks; counted rather than lost if it ever happens.
            record.pointsKept -= 1
            return drop(.invalidCoordinate)
        }
        let located = Located(point: point, placement: placement, cell: cellVisit(point, placement))
        if breakPending {
            breakPending = false
            segmentInside.removeAll(keepingCapacity: true)
            ledger.explore(ExploredGrid.key(latitude: point.latitude, longitude: point.longitude), located.cell)
        } else if let from = anchor {
            if !legAlreadyCounted {
                ledger.distanceMillimetres += Int64((Self.metres(from: from.point, to: point) * 1000).rounded())
                if let t0 = from.point.time, let t1 = point.time { ledger.durationMilliseconds += t1 - t0 }
            }
            let startCell = from.cell, endCell = located.cell
            ExploredGrid.rasterise(from: (from.point.latitude, from.point.longitude), to: (point.latitude, point.longitude)) { key, fraction in
                ledger.explore(key, fraction < 0.5 ? startCell : endCell)
            }
        }
        if let time = point.time {
            let local = time + Int64(options.utcOffsetMinutes) * 60_000
            ledger.days.insert(local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000)
        }
        weigh(located)
        anchor = located
    }

    private func cellVisit(_ point: TrackPoint, _ placement: Placement) -> CellVisit {
        let finest = placement.county.region ?? placement.city.region ?? placement.province.region
        return CellVisit(time: point.time ?? .max, country: placement.country.region ?? -1, chinaRegion: finest ?? -1)
    }

    /// Applies the evidence rules of DESIGN.md to one ground point at every level.
    private mutating func weigh(_ located: Located) {
        let point = located.point
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        let accuracy = point.accuracy ?? options.assumedAccuracy
        let levels: [(RegionLevel, LevelPlacement)] = [(.country, located.placement.country), (.province, located.placement.province),
                                                       (.city, located.placement.city), (.county, located.placement.county)]
        for (level, placement) in levels {
            guard let region = placement.region else { continue }
            let key = RegionKey(level: level, index: region)
            var evidence = ledger.regions[key] ?? RegionEvidence()
            switch placement.status {
            case .inside:
                evidence.insidePoints += 1
                if (placement.marginMetres ?? .infinity) >= accuracy {
                    evidence.confirmedBy = earliest(evidence.confirmedBy, visit)
                } else {
                    evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
                    var tally = segmentInside[key] ?? (0, visit)
                    tally.count += 1
                    segmentInside[key] = tally
                    if tally.count >= options.minimumPointsPerSegment {
                        evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
                    }
                }
            case .edge:
                evidence.edgePoints += 1
                evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            case .outside:
                continue
            }
            ledger.regions[key] = evidence
        }
    }

    // MARK: Geometry of legs

    /// Metres between two points: the ellipsoid's local radii at the mean latitude (better than
    /// 0.1% for the legs of a track; flights use it per leg, where legs are short too).
    static func metres(from a: TrackPoint, to b: TrackPoint) -> Double {
        let phi = (a.latitude + b.latitude) / 2 * .pi / 180
        let s = sin(phi)
        let w = (1 - ExploredGrid.e2 * s * s).squareRoot()
        let meridional = ExploredGrid.a * (1 - ExploredGrid.e2) / (w * w * w)
        let normal = ExploredGrid.a / w
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let north = (b.latitude - a.latitude) * .pi / 180 * meridional
        let east = dLon * .pi / 180 * normal * cos(phi)
        return (north * north + east * east).squareRoot()
    }

    /// Metres per second from `a` to `b`, when both are timed and time advances.
    static func speed(from a: TrackPoint, to b: TrackPoint) -> Double? {
        guard let t0 = a.time, let t1 = b.time, t1 > t0 else { return nil }
        return metres(from: a, to: b) / (Double(t1 - t0) / 1000)
    }
}
