import RegionTables
import Tracks

// The classifier as a `TrackSink`: each point through the filter, the segmenter, the run of fast
// legs (flights), and the committed ground points, whose legs explore cells and tiles (steps 1
// to 5 of the type's doc).

extension TrackClassifier {
    // MARK: TrackSink

    /// A boundary the reader found (or the app marked): it also ends the segment's movement label.
    public mutating func segmentBreak() {
        plan.holdBreak()
        breakSegment()
        segments.movement = nil
    }

    /// Starts a new segment: no leg joins the points on either side.
    mutating func breakSegment() {
        flushRun()
        segments.breakSegment()
    }

    /// Pins are counted; the first activity type the file gives is kept unless its bundle
    /// labelled it already; a creator naming a Chinese map app gives a ``DatumHint``.
    public mutating func annotate(_ annotation: TrackAnnotation) {
        switch annotation {
        case .pin: record.pins += 1
        case let .activityType(type): if record.activityType == nil { record.activityType = type }
        case let .creator(name):
            if record.datumHint == nil, let hint = DatumHint.hint(creator: name, readIn: filter.datum) { record.datumHint = hint }
        case .route: segments.inRoute = true
        case .exploredArea:
            replayWaiting()
            settle()
            kind = .exploredArea
        case .snapshot:
            replayWaiting()
            settle()
            // A map of explored ground stays one.
            if kind != .exploredArea { kind = .photos }
        case let .movement(label): segments.movement = label
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
        if segments.inRoute, options.includePlans { point.time = nil }
        if let reason = filter.reject(&point) { return drop(reason) }
        switch kind {
        case .track: break
        case .exploredArea: return explore(spot: point)
        case .photos: return visit(photo: point)
        }
        if segments.movement == .flight, !segments.inRoute { return inFlight(point) }
        if segments.inRoute, !options.includePlans {
            // Kept (it passed the filter) and counted as a plan; nothing else.
            record.pointsKept += 1
            record.pointsPlanned += 1
            return
        }
        if point.time == nil {
            if !plan.sawTimed, !options.includePlans, observer == nil {
                plan.hold(point)
                return
            }
        } else if !plan.waiting.isEmpty {
            replayWaiting()
        }
        classifyTrack(point)
    }

    /// A track point past the filter, classified: segments, runs of fast legs, the ground.
    mutating func classifyTrack(_ point: TrackPoint) {
        if point.time != nil { plan.sawTimed = true }
        if filter.repeatsTime(point.time) { return drop(.duplicateTime) }
        if segments.isGap(before: point) { breakSegment() }
        guard segments.hasPrevious else {
            flushRun()
            commit(point)
            segments.previous = point
            segments.hasPrevious = true
            return
        }
        let leg = scale.metres(from: segments.previous, to: point)
        if segments.holdIfFast(point, legMetres: leg) {
            segments.previous = point
            if segments.run.count >= Segmenter.maximumRun { flushRun() }
            return
        }
        let fromAnchor = segments.run.isEmpty && pending.hasAnchor && Segmenter.same(segments.previous, pending.anchor.point)
        flushRun()
        commit(point, legMetres: fromAnchor ? leg : nil)
        segments.previous = point
    }

    /// The first timed point (or a map of explored ground) came: the untimed points before it
    /// are classified now, in order, as they would have been on arrival (nothing else touched
    /// the classifier meanwhile: only route points, counted apart, and breaks).
    mutating func replayWaiting() {
        guard !plan.waiting.isEmpty else { return }
        for point in plan.takeWaiting() {
            if point.isSegmentBreak { segmentBreak() } else { classifyTrack(point.point) }
        }
    }

    // MARK: Runs of fast legs

    /// Decides the run of fast legs by its verdict: a glitch is dropped, a flight kept in the air
    /// (the landing starts a new segment), anything slower committed to the ground.
    mutating func flushRun() {
        guard !segments.run.isEmpty else { return }
        defer { segments.clearRun() }
        let landing = segments.run[segments.run.count - 1]
        switch segments.verdict(anchorTime: pending.hasAnchor ? pending.anchor.point.time : nil) {
        case .ground:
            for point in segments.run { commit(point) }
        case .glitch:
            for _ in 0..<(segments.run.count - 1) { drop(.implausibleSpeed) }
            segments.breakPending = true
            commit(landing, acrossRun: true)
        case let .flight(t0, t1, metres):
            let inner = Int64(segments.run.count - 1)
            record.pointsKept += inner
            record.pointsInFlight += inner
            for point in segments.run.dropLast() { minutes.countPoint(at: point.time, inFlight: true) }
            minutes.addLeg(from: t0, to: t1, millimetres: Int64((metres * 1000).rounded()), kind: .flight)
            segments.breakPending = true
            commit(landing, legAlreadyCounted: true, acrossRun: true)
        }
    }

    /// A point of a stretch the reader labels a flight (Google's `FLYING`): kept in flight like
    /// the inner points of a fast run, no place and no cell; the legs between its points are
    /// flight distance and time, however far apart the fixes are (a plane flies on between them).
    mutating func inFlight(_ point: TrackPoint) {
        if segments.hasPrevious, let t = point.time, t == segments.previous.time { return drop(.duplicateTime) }
        if point.time != nil { plan.sawTimed = true }
        record.pointsKept += 1
        record.pointsInFlight += 1
        if segments.hasPrevious, let t0 = segments.previous.time, let t1 = point.time, t1 > t0 {
            minutes.addLeg(from: t0, to: t1, millimetres: MinuteTallies.rounded(scale.metres(from: segments.previous, to: point) * 1000), kind: .flight)
        }
        minutes.countPoint(at: point.time, inFlight: true)
        segments.previous = point
        segments.hasPrevious = true
        segments.breakPending = true
    }

    // MARK: Ground points

    mutating func drop(_ reason: DropReason) {
        record.dropped[reason, default: 0] += 1
    }

    /// Commits a ground point: decides the anchor's evidence by the leg to it, places it, tallies
    /// it, draws the leg (or starts a segment), and makes it the anchor. `legMetres`, when known, is
    /// the distance from the anchor (saves computing it again); `acrossRun`: the point lands after
    /// a flight or a glitch, which broke the segment (no gap in time: the points on either side
    /// say nothing of a stop).
    mutating func commit(_ point: TrackPoint, legAlreadyCounted: Bool = false, legMetres: Double? = nil, acrossRun: Bool = false) {
        record.pointsKept += 1
        if segments.inRoute { record.pointsPlanned += 1 } else if point.time == nil { plan.untimedTrackKept += 1 }
        // The leg from the anchor, and whether it was at human-powered speed; the anchor's evidence
        // is decided by it before this point is placed (placing may flush the reused evidence).
        let hasLeg = !segments.breakPending && pending.hasAnchor
        var metres = 0.0, untimed = false, humanSpeed = false
        // The ground point before a gap, for a point that may stand alone between two gaps.
        let beforeGap: TrackPoint? = segments.breakPending && pending.hasAnchor && !acrossRun ? pending.anchor.point : nil
        if segments.breakPending {
            resolvePending(outgoingAtHumanSpeed: true, afterGap: acrossRun ? nil : point)
        } else if pending.hasAnchor {
            metres = legMetres ?? scale.metres(from: pending.anchor.point, to: point)
            (humanSpeed, untimed) = segments.leg(metres: metres, from: pending.anchor.point.time, to: point.time)
            resolvePending(outgoingAtHumanSpeed: humanSpeed, successor: point)
        }
        guard let reused = place(point) else {
            // Unreachable after the filter's range checks; counted rather than lost if it ever happens.
            record.pointsKept -= 1
            return drop(.invalidCoordinate)
        }
        minutes.countPoint(at: point.time)
        var cell = reused ? lookup.cell : CellVisit(time: .max, placement: lookup.fresh)
        cell.time = point.time.map(CellVisit.second(of:)) ?? .max
        let located = raster.locate(point, cell: cell)
        if segments.breakPending {
            segments.startSegment()
            evidence.startSegment()
            raster.startSegment(at: located)
        } else if hasLeg {
            // The anchor is still the leg's start here.
            let drawn = untimed ? metres <= ClassifyOptions.untimedLegLimit
                                : humanSpeed && metres <= ClassifyOptions.maximumExploredLeg
            if !legAlreadyCounted, !untimed || drawn {
                minutes.addLeg(from: pending.anchor.point.time, to: point.time, millimetres: MinuteTallies.rounded(metres * 1000), kind: humanSpeed ? .humanPowered : .vehicle)
            }
            if drawn {
                // A moving leg with good fixes: every cell it enters is a pass candidate.
                var passes: (t0: Int64, t1: Int64)?
                if let t0 = pending.anchor.point.time, let t1 = point.time,
                   metres > ClassifyOptions.passMinimumSpeed * (Double(t1 - t0) / 1000),
                   (pending.anchor.point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit,
                   (point.accuracy ?? options.assumedAccuracy) < ClassifyOptions.passAccuracyLimit {
                    passes = (t0, t1)
                }
                raster.draw(from: pending.anchor, to: located, passesFrom: passes)
            } else {
                raster.skipLeg()
            }
        }
        if let time = point.time { days.count(time) }
        pending.hold(located, reused: reused, incomingLeg: hasLeg, humanSpeed: humanSpeed, movement: segments.movement, beforeGap: beforeGap)
        observer?(ObservedPoint(input: record.path, segment: segments.segmentCount, point: point,
                                placement: reused ? lookup.placement : lookup.fresh, reused: reused))
    }
}
