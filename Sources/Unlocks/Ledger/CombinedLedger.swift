/// The archive as the report counts it, computed from the inputs' own contributions
/// (``UnlockLedger/combined()``) so that every moment counts once, whatever the inputs' order,
/// the runs through a state or the shards merged:
///
/// 1. **Superseded inputs**: of two readings of the same path (a file that grew, a cut-off
///    export replaced by the complete one), one whose timed minutes all lie in the other's is
///    superseded and counts nothing at all (equal minute sets: the lower-priority one is).
/// 2. **Overlapping inputs**: every UTC minute that several inputs recorded (kept points, or
///    part of a leg) is counted from one of them, the one of highest priority: the denser
///    recording (kept points per recorded minute), then more kept points, then the smaller
///    fingerprint. The others' points, legs and point counts in that minute are left out.
///    Untimed points and legs have no moment and always count.
/// 3. Regions' visits, explored cells and tiles (earliest visitor) and days are the union over the inputs
///    that are not superseded: a second recording of a moment is evidence of the same presence.
///    The points read, kept and dropped are summed over the same inputs.
/// 4. A cell's effective passes are counted over the union of those inputs' pass candidates
///    (``PassCandidates``): two recordings of one walk give candidates seconds apart, within the
///    4 hours, so the walk counts once.
public struct CombinedLedger: Sendable {
    /// Each region's earliest visits (over all inputs) and its point counts (each moment once).
    public var regions: [RegionKey: RegionEvidence] = [:]
    public var cells = CellList()
    /// The z17 explorer tiles (earliest visitor) of the inputs that count.
    public var tiles = TileList()
    /// The effective passes of each of ``cells``, aligned with it.
    public var cellPasses: [Int32] = []
    public var days: Set<Int64> = []
    public var distanceMillimetres: Int64 = 0
    public var flightDistanceMillimetres: Int64 = 0
    public var durationMilliseconds: Int64 = 0
    /// Kept points of the counted moments (ground and in flight, untimed ones included).
    public var pointsCounted: Int64 = 0
    /// Points read, kept, in flight and dropped over the inputs, superseded readings excluded.
    public var points = PointTotals()
    /// How each input with a contribution fared, by fingerprint.
    public var standing: [String: InputStanding] = [:]
    /// The counted timed minutes in order, with the distance and duration counted in each (for
    /// the per-day series).
    public var countedMinutes: [(minute: Int64, distanceMillimetres: Int64, durationMilliseconds: Int64)] = []

    public init() {}
}

/// Points read, kept, in flight and dropped by reason, over the inputs that count: a superseded
/// reading counts nothing, so read = kept + dropped holds for the totals as for each input.
public struct PointTotals: Equatable, Sendable {
    public var read: Int64 = 0
    public var kept: Int64 = 0
    public var inFlight: Int64 = 0
    public var dropped: [DropReason: Int64] = [:]

    public init() {}

    /// Adds an input's counts, every sum checked.
    mutating func add(_ input: InputRecord) throws(LedgerOverflow) {
        read = try LedgerOverflow.sum(read, input.pointsRead, "points read")
        kept = try LedgerOverflow.sum(kept, input.pointsKept, "points kept")
        inFlight = try LedgerOverflow.sum(inFlight, input.pointsInFlight, "points in flight")
        for (reason, n) in input.dropped {
            dropped[reason] = try LedgerOverflow.sum(dropped[reason] ?? 0, n, "points dropped (\(reason.rawValue))")
        }
    }
}

/// One input in the combined view: whether it was superseded, which minutes it stood for, and
/// which other inputs recorded the same minutes.
public struct InputStanding: Equatable, Sendable {
    /// The fingerprint of the later reading of the same path that covers this one's span.
    public var supersededBy: String?
    /// Its timed minutes, and of them those it stands for.
    public var minutes: Int64 = 0
    public var countedMinutes: Int64 = 0
    /// Kept points in the minutes it stands for (and its untimed ones).
    public var pointsCounted: Int64 = 0
    /// Minutes shared with each other input (by fingerprint), whichever of the two stood for them.
    public var overlaps: [String: Int64] = [:]
}

extension UnlockLedger {
    /// The combined view (``CombinedLedger``); fails when a sum would overflow 64 bits (only a
    /// crafted state gets there).
    public func combined() throws(LedgerOverflow) -> CombinedLedger {
        var view = CombinedLedger()
        let fingerprints = contributions.keys.filter { inputs[$0] != nil && !contributions[$0]!.isEmpty }.sorted()
        guard !fingerprints.isEmpty else {
            for input in inputs.values { try view.points.add(input) }
            return view
        }
        let parts = fingerprints.map { contributions[$0]! }
        var extents: [(minutes: Int64, points: Int64)] = []
        for part in parts { extents.append(try part.timedExtent()) }
        // Highest priority first: denser, then more points, then the smaller fingerprint.
        func higher(_ a: Int, _ b: Int) -> Bool {
            let left = extents[a].points.multipliedFullWidth(by: max(extents[b].minutes, 1))
            let right = extents[b].points.multipliedFullWidth(by: max(extents[a].minutes, 1))
            if left.high != right.high { return left.high > right.high }
            if left.low != right.low { return left.low > right.low }
            if extents[a].points != extents[b].points { return extents[a].points > extents[b].points }
            return fingerprints[a] < fingerprints[b]
        }

        // 1. Superseded readings of one path.
        var superseded = [Int?](repeating: nil, count: parts.count)
        let byPath = Dictionary(grouping: parts.indices, by: { inputs[fingerprints[$0]]!.path })
        for (_, group) in byPath where group.count > 1 {
            let timed = group.map { i in Set(parts[i].moments.keys.filter { $0 != MomentTally.untimedMinute }) }
            for (x, i) in group.enumerated() where !timed[x].isEmpty {
                var best: (position: Int, input: Int)?
                for (y, j) in group.enumerated() where j != i && timed[x].isSubset(of: timed[y]) && (timed[x].count < timed[y].count || higher(j, i)) {
                    // The widest reading supersedes (ties: the higher priority), which nothing supersedes in turn.
                    if let b = best, timed[b.position].count > timed[y].count || (timed[b.position].count == timed[y].count && higher(b.input, j)) { continue }
                    best = (y, j)
                }
                superseded[i] = best?.input
            }
        }

        // 2. Which input stands for each minute, and which minutes several recorded.
        let order = parts.indices.filter { superseded[$0] == nil }.sorted(by: higher)
        var claimer: [Int64: Int32] = [:]
        var shared: [Int64: [Int32]] = [:]
        for i in order {
            for minute in parts[i].moments.keys where minute != MomentTally.untimedMinute {
                if let first = claimer[minute] {
                    shared[minute, default: [first]].append(Int32(i))
                } else {
                    claimer[minute] = Int32(i)
                }
            }
        }
        var standings = [InputStanding](repeating: InputStanding(), count: parts.count)
        for (_, group) in shared {
            for a in group {
                for b in group where b != a { standings[Int(a)].overlaps[fingerprints[Int(b)], default: 0] += 1 }
            }
        }

        // 3. Sums over the counted minutes, point counts per region through each input's palette.
        var counts: [RegionKey: (inside: Int64, edge: Int64, passed: Int64)] = [:]
        for i in order {
            var perPlace = [Int64](repeating: 0, count: parts[i].places.count)
            for (minute, tally) in parts[i].moments {
                if minute != MomentTally.untimedMinute {
                    guard claimer[minute] == Int32(i) else { continue }
                    standings[i].countedMinutes += 1
                    view.countedMinutes.append((minute, tally.distanceMillimetres, tally.durationMilliseconds))
                }
                standings[i].pointsCounted = try LedgerOverflow.sum(standings[i].pointsCounted, tally.points, "point count")
                view.distanceMillimetres = try LedgerOverflow.sum(view.distanceMillimetres, tally.distanceMillimetres, "distance")
                view.flightDistanceMillimetres = try LedgerOverflow.sum(view.flightDistanceMillimetres, tally.flightDistanceMillimetres, "flight distance")
                view.durationMilliseconds = try LedgerOverflow.sum(view.durationMilliseconds, tally.durationMilliseconds, "duration")
                for entry in tally.places where entry.place >= 0 && Int(entry.place) < perPlace.count {
                    perPlace[Int(entry.place)] = try LedgerOverflow.sum(perPlace[Int(entry.place)], entry.points, "place point count")
                }
            }
            view.pointsCounted = try LedgerOverflow.sum(view.pointsCounted, standings[i].pointsCounted, "point count")
            for (position, n) in perPlace.enumerated() where n > 0 {
                for (key, kind) in parts[i].places[position].entries {
                    var c = counts[key] ?? (0, 0, 0)
                    switch kind {
                    case .inside: c.inside = try LedgerOverflow.sum(c.inside, n, "inside point count")
                    case .edge: c.edge = try LedgerOverflow.sum(c.edge, n, "edge point count")
                    case .passed: c.passed = try LedgerOverflow.sum(c.passed, n, "passed point count")
                    case .none: break
                    }
                    counts[key] = c
                }
            }
        }

        // 4. Unions of visits, cells and days over the inputs that count.
        for i in order {
            for (key, visits) in parts[i].regions {
                var evidence = view.regions[key] ?? RegionEvidence()
                evidence.confirmedBy = earliest(evidence.confirmedBy, visits.confirmedBy)
                evidence.tentativeBy = earliest(evidence.tentativeBy, visits.tentativeBy)
                evidence.passedBy = earliest(evidence.passedBy, visits.passedBy)
                view.regions[key] = evidence
            }
            view.days.formUnion(parts[i].days)
        }
        for (key, c) in counts {
            view.regions[key, default: RegionEvidence()].insidePoints = c.inside
            view.regions[key, default: RegionEvidence()].edgePoints = c.edge
            view.regions[key, default: RegionEvidence()].passedPoints = c.passed
        }
        view.cells = CellList.union(order.map { parts[$0].cells })
        view.tiles = TileList.union(order.map { parts[$0].tiles })
        view.cellPasses = PassCandidates.effectivePasses(order.map { parts[$0].passes }, of: view.cells)
        view.countedMinutes.sort { $0.minute < $1.minute }
        for i in parts.indices {
            standings[i].supersededBy = superseded[i].map { fingerprints[$0] }
            standings[i].minutes = extents[i].minutes
            view.standing[fingerprints[i]] = standings[i]
        }
        // 5. The inputs' point counts, a superseded reading's left out (it counts nothing).
        for (fingerprint, input) in inputs where view.standing[fingerprint]?.supersededBy == nil {
            try view.points.add(input)
        }
        return view
    }
}
