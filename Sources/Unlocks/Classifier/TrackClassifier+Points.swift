import ChinaDatum
import RegionTables
import Tracks

// The classifier as a `TrackSink`: filter, segment, runs of fast legs (flights), and the
// committed ground points, whose legs explore cells and tiles (steps 1 to 5 of the type's doc).

extension TrackClassifier {
    // MARK: TrackSink

    /// A boundary the reader found (or the app marked): it also ends the segment's movement label.
    public mutating func segmentBreak() {
        if !waiting.isEmpty { waiting.append(.segmentBreak) }
        breakSegment()
        movement = nil
    }

    /// Starts a new segment: no leg joins the points on either side.
    mutating func breakSegment() {
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
            if record.datumHint == nil, let hint = DatumHint.hint(creator: name, readIn: inputDatum) { record.datumHint = hint }
        case .route: inRoute = true
        case .exploredArea:
            replayWaiting()
            settle()
            footprint = true
        case .snapshot:
            replayWaiting()
            settle()
            snapshot = true
        case let .movement(label): movement = label
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
        if options.selectsDates {
            guard let time = point.time else { return drop(.outsideDates) }
            let day = dayClock.day(of: time)
            if day < options.since ?? .min || day > options.until ?? .max { return drop(.outsideDates) }
        }
        if let accuracy = point.accuracy, !(accuracy <= options.maximumAccuracy) { return drop(.accuracy) }
        if inputDatum != .wgs84 {
            let c = datumConverter.convert(Coordinate(latitude: point.latitude, longitude: point.longitude), from: inputDatum, to: .wgs84)
            // BD-09's shift applies everywhere: near a pole or the antimeridian it leaves the globe.
            guard c.isValid else { return drop(.invalidCoordinate) }
            point.latitude = c.latitude
            point.longitude = c.longitude
        }
        if !options.exclusions.isEmpty, options.exclusions.contains(where: { $0.contains(point) }) { return drop(.forgotten) }
        if footprint { return explore(spot: point) }
        if snapshot { return visit(photo: point) }
        if movement == .flight, !inRoute { return inFlight(point) }
        if inRoute, !options.includePlans {
            // Kept (it passed the filter) and counted as a plan; nothing else.
            record.pointsKept += 1
            record.pointsPlanned += 1
            return
        }
        if point.time == nil {
            if !sawTimed, !options.includePlans, observer == nil {
                waiting.append(UntimedPoint(point))
                return
            }
        } else if !waiting.isEmpty {
            replayWaiting()
        }
        classifyTrack(point)
    }

    /// A track point past the filter, classified: segments, runs of fast legs, the ground.
    mutating func classifyTrack(_ point: TrackPoint) {
        if point.time != nil { sawTimed = true }
        // A duplicate repeats the time of the input's previous point, across the reader's segment
        // breaks too (GeoJSON Point features, GPX segments): duplicates are per input.
        if let t = point.time, t == timeOfLastPoint { return drop(.duplicateTime) }
        timeOfLastPoint = point.time
        if hasPrevious, let t = point.time, let lastTime = previous.time {
            if t < lastTime || t - lastTime > options.segmentGap {
                breakSegment()
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
    static func same(_ a: TrackPoint, _ b: TrackPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.time == b.time && a.accuracy == b.accuracy && a.elevation == b.elevation
    }

    // MARK: Untimed points of a possible plan

    /// An untimed track point waiting for the input's first timed point (``waiting``), or a
    /// segment break between such points; 32 bytes.
    struct UntimedPoint {
        var latitude: Double
        var longitude: Double
        var accuracy: Double
        var elevation: Double

        init(_ point: TrackPoint) {
            latitude = point.latitude
            longitude = point.longitude
            accuracy = point.accuracy ?? .nan
            elevation = point.elevation ?? .nan
        }

        private init(breakMarker: ()) {
            latitude = .nan
            longitude = .nan
            accuracy = .nan
            elevation = .nan
        }

        static let segmentBreak = UntimedPoint(breakMarker: ())
        var isSegmentBreak: Bool { latitude.isNaN }
        var point: TrackPoint {
            TrackPoint(latitude: latitude, longitude: longitude, accuracy: accuracy.isNaN ? nil : accuracy, elevation: elevation.isNaN ? nil : elevation)
        }
    }

    /// The first timed point (or a map of explored ground) came: the untimed points before it
    /// are classified now, in order, as they would have been on arrival (nothing else touched
    /// the classifier meanwhile: only route points, counted apart, and breaks).
    mutating func replayWaiting() {
        guard !waiting.isEmpty else { return }
        var points: [UntimedPoint] = []
        swap(&points, &waiting)
        for point in points {
            if point.isSegmentBreak { segmentBreak() } else { classifyTrack(point.point) }
        }
    }

    /// The input ended with untimed points waiting and no timed point: a plan, whose points are
    /// counted as kept and planned and classified no further (its contribution would be let go).
    mutating func countWaitingAsPlanned() {
        let points = Int64(waiting.reduce(0) { $0 + ($1.isSegmentBreak ? 0 : 1) })
        record.pointsKept += points
        untimedTrackKept += points
        waiting = []
    }

    // MARK: Runs of fast legs

    mutating func flushRun() {
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
            commit(landing, acrossRun: true)
        } else if speed > options.flightSpeed {
            let inner = Int64(run.count - 1)
            record.pointsKept += inner
            record.pointsInFlight += inner
            for point in run.dropLast() {
                useMinute(Self.minute(of: point.time!))
                tally.points += 1
                tally.inFlight += 1
            }
            addLeg(from: t0, to: t1, millimetres: Int64((runMetres * 1000).rounded()), kind: .flight)
            breakPending = true
            commit(landing, legAlreadyCounted: true, acrossRun: true)
        } else {
            for point in run { commit(point) }
        }
    }

    /// A point of a stretch the reader labels a flight (Google's `FLYING`): kept in flight like
    /// the inner points of a fast run, no place and no cell; the legs between its points are
    /// flight distance and time, however far apart the fixes are (a plane flies on between them).
    mutating func inFlight(_ point: TrackPoint) {
        if hasPrevious, let t = point.time, t == previous.time { return drop(.duplicateTime) }
        if point.time != nil { sawTimed = true }
        record.pointsKept += 1
        record.pointsInFlight += 1
        if hasPrevious, let t0 = previous.time, let t1 = point.time, t1 > t0 {
            addLeg(from: t0, to: t1, millimetres: Self.rounded(scale.metres(from: previous, to: point) * 1000), kind: .flight)
        }
        useMinute(ofTime: point.time)
        tally.points += 1
        tally.inFlight += 1
        previous = point
        hasPrevious = true
        breakPending = true
    }

    // MARK: Ground points

    mutating func drop(_ reason: DropReason) {
        record.dropped[reason, default: 0] += 1
    }

    /// `legMetres`, when known, is the distance from the anchor (saves computing it again);
    /// `acrossRun`: the point lands after a flight or a glitch, which broke the segment (no gap
    /// in time: the points on either side say nothing of a stop).
    mutating func commit(_ point: TrackPoint, legAlreadyCounted: Bool = false, legMetres: Double? = nil, acrossRun: Bool = false) {
        record.pointsKept += 1
        if inRoute { record.pointsPlanned += 1 } else if point.time == nil { untimedTrackKept += 1 }
        // The leg from the anchor, and whether it was at human-powered speed; the anchor's evidence
        // is decided by it before this point is placed (placing may flush the reused evidence).
        let hasLeg = !breakPending && hasAnchor
        var metres = 0.0, untimed = false, humanSpeed = false
        // The ground point before a gap, for a point that may stand alone between two gaps.
        let beforeGap: TrackPoint? = breakPending && hasAnchor && !acrossRun ? anchor.point : nil
        if breakPending {
            resolvePending(outgoingAtHumanSpeed: true, afterGap: acrossRun ? nil : point)
        } else if hasAnchor {
            metres = legMetres ?? scale.metres(from: anchor.point, to: point)
            if let t0 = anchor.point.time, let t1 = point.time {
                let seconds = Double(t1 - t0) / 1000
                humanSpeed = t1 > t0 && metres <= options.exploreMaxSpeed * seconds
                // A label decides: a vehicle stretch is never on foot, a human-powered one is (up
                // to the speed of a run of fast legs, beyond anything a person does).
                if movement == .vehicle { humanSpeed = false }
                if movement == .humanPowered, t1 > t0, metres <= options.fastSpeed * seconds { humanSpeed = true }
            } else {
                untimed = true
                humanSpeed = movement != .vehicle
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
        var cell = reused ? lookupCell : CellVisit(time: .max, placement: anchorPlacement)
        cell.time = second
        let located = Located(point: point, cell: cell, row: rows.rowCoordinate(latitude: point.latitude),
                              tile: mercator.tileCoordinates(latitude: point.latitude, longitude: point.longitude, zoom: SlippyTile.storedZoom))
        if breakPending {
            breakPending = false
            segmentCount += 1
            segmentInside.removeAll(keepingCapacity: true)
            passChain = false
            let key = rows.key(rowCoordinate: located.row, longitude: point.longitude)
            partCells.explore(key, located.cell)
            if !located.beyondTiles {
                let tile = SlippyTile.tile(tileCoordinates: located.tile, zoom: SlippyTile.storedZoom)
                partTiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: located.cell.time)
            }
        } else if hasLeg {
            // The anchor is still the leg's start here.
            let fromTime = anchor.point.time, fromRow = anchor.row, fromLongitude = anchor.point.longitude
            let startCell = anchor.cell, endCell = located.cell
            let drawn = untimed ? metres <= ClassifyOptions.untimedLegLimit
                                : humanSpeed && metres <= ClassifyOptions.maximumExploredLeg
            if !legAlreadyCounted, !untimed || drawn {
                addLeg(from: fromTime, to: point.time, millimetres: Self.rounded(metres * 1000), kind: humanSpeed ? .humanPowered : .vehicle)
            }
            if drawn, let t0 = fromTime, let t1 = point.time,
               metres > ClassifyOptions.passMinimumSpeed * (Double(t1 - t0) / 1000),
               (anchor.point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit,
               (point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit {
                // A moving leg with good fixes: every cell it enters is a pass candidate, at the
                // time the leg enters it; its start cell only when the last leg gave none.
                let chained = passChain, duration = Double(t1 - t0)
                rows.rasterise(from: (fromRow, fromLongitude), to: (located.row, point.longitude)) { key, fraction in
                    partCells.explore(key, fraction < 0.5 ? startCell : endCell)
                    if fraction > 0 || !chained { partPasses.append((key, Self.second(of: t0 &+ Int64(duration * fraction)))) }
                }
                passChain = true
            } else if drawn {
                passChain = false
                rows.rasterise(from: (fromRow, fromLongitude), to: (located.row, point.longitude)) { key, fraction in
                    partCells.explore(key, fraction < 0.5 ? startCell : endCell)
                }
            }
            if drawn {
                // The leg's tiles are visited at the earlier of its ends' times; most legs stay
                // inside one z17 tile.
                let time = min(startCell.time, endCell.time)
                let fromTileKey = anchor.tileKey
                if fromTileKey >= 0, fromTileKey == located.tileKey {
                    partTiles.visit(fromTileKey, time: time)
                } else if anchor.beyondTiles || located.beyondTiles {
                    // A leg across Mercator's edge visits only its inside end's tile; beyond, none.
                    for end in [anchor, located] where !end.beyondTiles {
                        let tile = SlippyTile.tile(tileCoordinates: end.tile, zoom: SlippyTile.storedZoom)
                        partTiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: time)
                    }
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
        pendingIncomingHuman = hasLeg && humanSpeed
        pendingMovement = movement
        pendingBeforeGap = beforeGap
        pendingHasPredecessor = hasLeg
        if hasLeg { pendingPredecessor = anchor.point }
        anchor = located
        hasAnchor = true
        anchorReused = reused
        observer?(ObservedPoint(input: record.path, segment: segmentCount, point: point,
                                placement: reused ? lookupPlacement : anchorPlacement, reused: reused))
    }
}
