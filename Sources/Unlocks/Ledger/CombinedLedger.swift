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
///    fingerprint. The others' points, legs, point counts **and evidence** in that minute are
///    left out: the moment counts once, with the movement the input that stands for it gives it
///    (a fix of a train ride that another export kept as a lone point confirms nothing there).
///    Untimed points and legs have no moment and always count.
/// 3. **Evidence follows the counted points**: a region is confirmed only by a counted point that
///    confirms it (``PlaceSignature/flags``), so a confirmed region always has counted points in
///    it; tentative and passed-through evidence likewise. A **lone** point (alone in its segment:
///    nothing says how the person moved) confirms only where no counted point passed the same
///    region at vehicle speed within ``ClassifyOptions/loneVehicleWindowMinutes`` of it;
///    otherwise it counts as passed. A region's first visit of each kind is the earliest over the
///    inputs of the input's own earliest such point when that point's minute is counted for it,
///    else the start of the input's first counted minute of that kind, at that point's position.
/// 4. Explored cells and tiles (earliest visitor) and days are the union over the inputs that
///    are not superseded: a second recording of a moment explores the same ground. The points
///    read, kept and dropped are summed over the same inputs.
/// 5. A cell's effective passes are counted over the union of those inputs' pass candidates
///    (``PassCandidates``): two recordings of one walk give candidates seconds apart, within the
///    4 hours, so the walk counts once.
public struct CombinedLedger: Sendable {
    /// Each region's earliest visits and its point counts, from the counted moments.
    public var regions: [RegionKey: RegionEvidence] = [:]
    public var cells = CellList()
    /// The z17 explorer tiles (earliest visitor) of the inputs that count.
    public var tiles = TileList()
    /// The effective passes of each of ``cells``, aligned with it.
    public var cellPasses: [Int32] = []
    public var days: Set<Int64> = []
    /// All counted distance: human-powered, by vehicle and in flight.
    public var distanceMillimetres: Int64 = 0
    public var flightDistanceMillimetres: Int64 = 0
    /// On the ground at vehicle speed (or labelled a vehicle).
    public var vehicleDistanceMillimetres: Int64 = 0
    public var durationMilliseconds: Int64 = 0
    /// Kept points of the counted moments (ground and in flight, untimed ones included).
    public var pointsCounted: Int64 = 0
    /// Points read, kept, in flight and dropped over the inputs, superseded readings excluded.
    public var points = PointTotals()
    /// How each input with a contribution fared, by fingerprint.
    public var standing: [String: InputStanding] = [:]
    /// The counted timed minutes in order, with what was counted in each (for the per-day series).
    public var countedMinutes: [CountedMinute] = []
    /// Each input's first confirming visit of each region it confirms (in the counted moments),
    /// by visit then region: the places the person has been, photos' among them (a map pins the
    /// ones no explored cell shows).
    public var confirmedVisits: [ConfirmedVisit] = []

    public init() {}

    /// The distance at human-powered speed: walking, running, cycling, hiking.
    public var humanDistanceMillimetres: Int64 { distanceMillimetres - flightDistanceMillimetres - vehicleDistanceMillimetres }
}

/// A region and one input's first visit confirming it.
public struct ConfirmedVisit: Equatable, Sendable {
    public var key: RegionKey
    public var visit: Visit
}

/// One counted timed minute: its UTC minute and the distance and duration counted in it.
public struct CountedMinute: Equatable, Sendable {
    public var minute: Int64
    public var humanDistanceMillimetres: Int64
    public var vehicleDistanceMillimetres: Int64
    public var flightDistanceMillimetres: Int64
    public var durationMilliseconds: Int64
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
    /// Its timed minutes another input stands for: its points there count nothing.
    public var lostMinutes: Set<Int64> = []
    /// Per region, the minutes of its lone points there that a vehicle passed nearby: counted as
    /// passed, not as a place been.
    public var demotedLone: [RegionKey: Set<Int64>] = [:]
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

        // 3. Sums over the counted minutes, point counts and evidence per region through each
        // input's palette: per input and place its points and first counted minute.
        var counts: [RegionKey: (inside: Int64, edge: Int64, passed: Int64)] = [:]
        var firsts = [[RegionKey: EvidenceMinutes]](repeating: [:], count: parts.count)
        var lone: [(input: Int, place: Int, minute: Int64, points: Int64)] = []
        for i in order {
            let places = parts[i].places
            var perPlace = [Int64](repeating: 0, count: places.count)
            var placeFirst = [Int64?](repeating: nil, count: places.count)
            for (minute, tally) in parts[i].moments {
                if minute != MomentTally.untimedMinute {
                    guard claimer[minute] == Int32(i) else {
                        standings[i].lostMinutes.insert(minute)
                        continue
                    }
                    standings[i].countedMinutes += 1
                    view.countedMinutes.append(CountedMinute(minute: minute, humanDistanceMillimetres: tally.humanDistanceMillimetres,
                                                             vehicleDistanceMillimetres: tally.vehicleDistanceMillimetres,
                                                             flightDistanceMillimetres: tally.flightDistanceMillimetres,
                                                             durationMilliseconds: tally.durationMilliseconds))
                }
                standings[i].pointsCounted = try LedgerOverflow.sum(standings[i].pointsCounted, tally.points, "point count")
                view.distanceMillimetres = try LedgerOverflow.sum(view.distanceMillimetres, tally.distanceMillimetres, "distance")
                view.flightDistanceMillimetres = try LedgerOverflow.sum(view.flightDistanceMillimetres, tally.flightDistanceMillimetres, "flight distance")
                view.vehicleDistanceMillimetres = try LedgerOverflow.sum(view.vehicleDistanceMillimetres, tally.vehicleDistanceMillimetres, "vehicle distance")
                view.durationMilliseconds = try LedgerOverflow.sum(view.durationMilliseconds, tally.durationMilliseconds, "duration")
                for entry in tally.places where entry.place >= 0 && Int(entry.place) < perPlace.count {
                    let p = Int(entry.place)
                    perPlace[p] = try LedgerOverflow.sum(perPlace[p], entry.points, "place point count")
                    placeFirst[p] = min(placeFirst[p] ?? .max, minute)
                    if places[p].isLone, places[p].flags & 0xF != 0, entry.points > 0 { lone.append((i, p, minute, entry.points)) }
                }
            }
            view.pointsCounted = try LedgerOverflow.sum(view.pointsCounted, standings[i].pointsCounted, "point count")
            for (position, n) in perPlace.enumerated() where n > 0 {
                let signature = places[position], first = placeFirst[position]!
                for entry in signature.entries {
                    var c = counts[entry.key] ?? (0, 0, 0)
                    switch entry.kind {
                    case .inside: c.inside = try LedgerOverflow.sum(c.inside, n, "inside point count")
                    case .edge: c.edge = try LedgerOverflow.sum(c.edge, n, "edge point count")
                    case .passed: c.passed = try LedgerOverflow.sum(c.passed, n, "passed point count")
                    case .none: break
                    }
                    counts[entry.key] = c
                    // Lone confirmations are weighed below, once every input's passes are known.
                    if entry.kind == .passed {
                        firsts[i][entry.key, default: EvidenceMinutes()].note(\.passed, first)
                    } else if !entry.confirms {
                        firsts[i][entry.key, default: EvidenceMinutes()].note(\.tentative, first)
                    } else if !signature.isLone {
                        firsts[i][entry.key, default: EvidenceMinutes()].note(\.confirmed, first)
                    }
                }
            }
        }

        // A lone point confirms where no counted point passed its region at vehicle speed within
        // the window around it; elsewhere it counts as passed.
        if !lone.isEmpty {
            Self.weigh(lonePoints: lone, parts: parts, order: order, claimer: claimer, counts: &counts, firsts: &firsts, standings: &standings)
        }

        // 4. Each region's first visits from the counted points' evidence, counts, cells and days.
        for i in order {
            for (key, minutes) in firsts[i] {
                let stored = parts[i].regions[key] ?? RegionEvidence()
                /// The input's own earliest visit of a kind when its minute is counted for it (a lone
                /// one's, when that minute's lone point was `demoted` or not as asked), else the start
                /// of the first counted minute of that kind, at the visit's position.
                func visit(_ v: Visit?, _ minute: Int64?, demoted: Bool? = nil) -> Visit? {
                    guard let v, let minute else { return nil }
                    guard let time = v.time else { return v }
                    let own = UnlockLedger.minute(of: time)
                    if claimer[own] == Int32(i), demoted.map({ $0 == (standings[i].demotedLone[key]?.contains(own) == true) }) ?? true { return v }
                    return Visit(time: minute == MomentTally.untimedMinute ? nil : minute &* 60_000, latitude: v.latitude, longitude: v.longitude)
                }
                var evidence = view.regions[key] ?? RegionEvidence()
                let confirmed = earliest(visit(stored.confirmedBy, minutes.confirmed), visit(stored.loneBy, minutes.lone, demoted: false))
                if let confirmed { view.confirmedVisits.append(ConfirmedVisit(key: key, visit: confirmed)) }
                evidence.confirmedBy = earliest(evidence.confirmedBy, confirmed)
                evidence.tentativeBy = earliest(evidence.tentativeBy, visit(stored.tentativeBy, minutes.tentative))
                evidence.passedBy = earliest(evidence.passedBy, earliest(visit(stored.passedBy, minutes.passed),
                                                                         visit(stored.loneBy, minutes.demotedLone, demoted: true)))
                if evidence.confirmedBy != nil || evidence.tentativeBy != nil || evidence.passedBy != nil { view.regions[key] = evidence }
            }
            view.days.formUnion(parts[i].days)
        }
        for (key, c) in counts where view.regions[key] != nil {
            view.regions[key]!.insidePoints = c.inside
            view.regions[key]!.edgePoints = c.edge
            view.regions[key]!.passedPoints = c.passed
        }
        view.cells = CellList.union(order.map { parts[$0].cells })
        view.tiles = TileList.union(order.map { parts[$0].tiles })
        view.cellPasses = PassCandidates.effectivePasses(order.map { parts[$0].passes }, of: view.cells)
        view.countedMinutes.sort { $0.minute < $1.minute }
        view.confirmedVisits.sort { ($0.visit, $0.key) < ($1.visit, $1.key) }
        for i in parts.indices {
            standings[i].supersededBy = superseded[i].map { fingerprints[$0] }
            standings[i].minutes = extents[i].minutes
            view.standing[fingerprints[i]] = standings[i]
        }
        // 6. The inputs' point counts, a superseded reading's left out (it counts nothing).
        for (fingerprint, input) in inputs where view.standing[fingerprint]?.supersededBy == nil {
            try view.points.add(input)
        }
        return view
    }
}

/// The first counted minute of each kind of evidence one input gives a region (``MomentTally/untimedMinute``
/// for untimed points).
struct EvidenceMinutes {
    var confirmed: Int64?
    var lone: Int64?
    var tentative: Int64?
    var passed: Int64?
    var demotedLone: Int64?

    mutating func note(_ kind: WritableKeyPath<EvidenceMinutes, Int64?>, _ minute: Int64) {
        self[keyPath: kind] = min(self[keyPath: kind] ?? .max, minute)
    }
}

extension UnlockLedger {
    /// The UTC minute of a time (rounded down, before 1970 too).
    static func minute(of time: Int64) -> Int64 {
        let q = time / 60_000
        return time % 60_000 < 0 ? q - 1 : q
    }
}

extension UnlockLedger {
    /// Weighs the counted lone points (`lone`: input, palette position, minute, points): each
    /// confirms its regions (``EvidenceMinutes/lone``) where no counted point of any input passed
    /// the region at vehicle speed within ``ClassifyOptions/loneVehicleWindowMinutes`` of its
    /// minute; elsewhere its points move from inside or edge to passed there, its evidence is
    /// passed (``EvidenceMinutes/demotedLone``) and its input's standing records the minute
    /// (``InputStanding/demotedLone``, for the days).
    static func weigh(lonePoints lone: [(input: Int, place: Int, minute: Int64, points: Int64)], parts: [InputContribution], order: [Int],
                      claimer: [Int64: Int32], counts: inout [RegionKey: (inside: Int64, edge: Int64, passed: Int64)],
                      firsts: inout [[RegionKey: EvidenceMinutes]], standings: inout [InputStanding]) {
        let window = ClassifyOptions.loneVehicleWindowMinutes
        let wanted = Set(lone.flatMap { parts[$0.input].places[$0.place].entries.filter(\.confirms).map(\.key) })
        // The counted minutes in which each of those regions was passed, sorted.
        var passes: [RegionKey: [Int64]] = [:]
        for i in order {
            let relevant = parts[i].places.map { $0.entries.contains { $0.kind == .passed && wanted.contains($0.key) } }
            guard relevant.contains(true) else { continue }
            for (minute, tally) in parts[i].moments where minute != MomentTally.untimedMinute && claimer[minute] == Int32(i) {
                for entry in tally.places where entry.points > 0 && entry.place >= 0 && Int(entry.place) < relevant.count && relevant[Int(entry.place)] {
                    for e in parts[i].places[Int(entry.place)].entries where e.kind == .passed && wanted.contains(e.key) { passes[e.key, default: []].append(minute) }
                }
            }
        }
        for key in passes.keys { passes[key]!.sort() }
        func vehicleNear(_ key: RegionKey, _ minute: Int64) -> Bool {
            guard let list = passes[key] else { return false }
            // The first pass at or after minute - window.
            var low = 0, high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < minute - window { low = middle + 1 } else { high = middle }
            }
            return low < list.count && list[low] <= minute + window
        }
        for candidate in lone {
            for entry in parts[candidate.input].places[candidate.place].entries where entry.confirms {
                if vehicleNear(entry.key, candidate.minute) {
                    var c = counts[entry.key]!
                    if entry.kind == .inside { c.inside -= candidate.points } else { c.edge -= candidate.points }
                    c.passed += candidate.points
                    counts[entry.key] = c
                    firsts[candidate.input][entry.key, default: EvidenceMinutes()].note(\.demotedLone, candidate.minute)
                    standings[candidate.input].demotedLone[entry.key, default: []].insert(candidate.minute)
                } else {
                    firsts[candidate.input][entry.key, default: EvidenceMinutes()].note(\.lone, candidate.minute)
                }
            }
        }
    }
}
