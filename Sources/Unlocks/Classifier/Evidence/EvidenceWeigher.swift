import RegionTables
import Tracks

/// The current input's evidence per region (the rules of docs/report-format.md, "Evidence"): each
/// point weighed at every level, the tallies that let a segment's or a footprint's points confirm
/// together, and the points that reused the last lookup, added in one step when it changes.
struct EvidenceWeigher {
    private let minimumPointsPerSegment: Int
    private let assumedAccuracy: Double
    /// The input's evidence so far, the reused points not yet added (``flushReused(at:)``).
    private(set) var regions: [RegionKey: RegionEvidence] = [:]
    /// Points towards each region in the current segment, and the first of them.
    private var segmentInside: [RegionKey: (count: Int, first: Visit)] = [:]
    /// Spots of a map of explored ground that count towards each region, and the first of them.
    private var footprintSpots: [RegionKey: (count: Int, first: Visit)] = [:]
    /// Points that reused the last lookup since it was made, and the earliest of them: been
    /// there, only passed at vehicle speed, and alone in their segment.
    private var reuseCount: Int64 = 0
    private var reuseFirst: Visit?
    private var passedReuseCount: Int64 = 0
    private var passedReuseFirst: Visit?
    private var loneReuseCount: Int64 = 0
    private var loneReuseFirst: Visit?

    init(options: ClassifyOptions) {
        minimumPointsPerSegment = options.minimumPointsPerSegment
        assumedAccuracy = options.assumedAccuracy
    }

    /// Starts an input (the segment's tallies wait for its first segment).
    mutating func begin() {
        regions = [:]
        footprintSpots = [:]
        clearReused()
    }

    /// A new segment: its points count towards regions afresh.
    mutating func startSegment() {
        segmentInside.removeAll(keepingCapacity: true)
    }

    /// Hands over the input's evidence, leaving it empty.
    mutating func takeRegions() -> [RegionKey: RegionEvidence] {
        defer { regions = [:] }
        return regions
    }

    // MARK: Points located afresh

    /// Weighs a point at every level of `placement`: only passed at vehicle speed (`been` false)
    /// is passed-through evidence, untimed tentative, lone confirms as ``RegionEvidence/loneBy``.
    /// Returns the point's place.
    mutating func weigh(_ placement: Placement, visit: Visit, accuracy: Double, been: Bool, lone: Bool) -> PlaceSignature {
        var bits: (kinds: UInt16, flags: UInt8) = (0, lone && been ? PlaceSignature.loneFlag : 0)
        for (position, level) in PlaceSignature.levels.enumerated() {
            let weighed = weigh(level, placement.level(level), position: UInt8(position), visit: visit, accuracy: accuracy, been: been, lone: lone)
            bits.kinds |= weighed.kinds
            bits.flags |= weighed.flags
        }
        return PlaceSignature(regions: PlaceSignature.regions(of: placement), kinds: bits.kinds, flags: bits.flags)
    }

    /// `weigh` at one level; returns the level's kind and confirming bit in the place signature's bits.
    private mutating func weigh(_ level: RegionLevel, _ placement: LevelPlacement, position: UInt8,
                                visit: Visit, accuracy: Double, been: Bool, lone: Bool) -> (kinds: UInt16, flags: UInt8) {
        guard let region = placement.region, placement.status != .outside else { return (0, 0) }
        let kind: PlaceSignature.Kind = !been ? .passed : placement.status == .inside ? .inside : .edge
        let key = RegionKey(level: level, index: region)
        // The region's evidence (and its tally in the segment) updated in place: one hash lookup
        // each, the entry added when new.
        let confirms = Self.weigh(placement, visit: visit, accuracy: accuracy, been: been, lone: lone, minimum: minimumPointsPerSegment,
                                  key: key, segmentInside: &segmentInside, evidence: &regions[key, default: RegionEvidence()])
        return (UInt16(kind.rawValue) << (2 * UInt16(position)), confirms ? 1 << position : 0)
    }

    /// Weighs one point in one region; true when the point confirms it.
    static func weigh(_ placement: LevelPlacement, visit: Visit, accuracy: Double, been: Bool, lone: Bool, minimum: Int, key: RegionKey,
                      segmentInside: inout [RegionKey: (count: Int, first: Visit)], evidence: inout RegionEvidence) -> Bool {
        if !been {
            evidence.passedBy = earliest(evidence.passedBy, visit)
        } else if visit.time == nil {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
        } else if placement.status == .inside {
            if (placement.marginMetres ?? .infinity) >= accuracy {
                if lone {
                    evidence.loneBy = earliest(evidence.loneBy, visit)
                } else {
                    evidence.confirmedBy = earliest(evidence.confirmedBy, visit)
                }
                return true
            }
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            return countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, lone: lone, &evidence)
        } else {
            evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
            // At a coast nobody else can claim (``LevelPlacement/uncontested``), edge points
            // count like points inside near a border: enough of them in one segment confirm.
            if placement.uncontested { return countTowardsSegment(&segmentInside[key, default: (0, visit)], minimum: minimum, lone: lone, &evidence) }
        }
        return false
    }

    /// One more point in the region within the current segment (its tally there): the
    /// segment's points confirm it once there are ``ClassifyOptions/minimumPointsPerSegment`` of
    /// them (true from then on: this point confirms).
    static func countTowardsSegment(_ tally: inout (count: Int, first: Visit), minimum: Int, lone: Bool, _ evidence: inout RegionEvidence) -> Bool {
        tally.count += 1
        guard tally.count >= minimum else { return false }
        if lone {
            evidence.loneBy = earliest(evidence.loneBy, tally.first)
        } else {
            evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
        }
        return true
    }

    // MARK: Spots of a map of explored ground

    /// The footprint rule at every level of a spot's `placement`: a spot inside the region at
    /// least the assumed accuracy from its border (or at a coast nobody else can claim) counts
    /// towards it, and ``ClassifyOptions/footprintSpotsToConfirm`` of them confirm it (untimed);
    /// any other spot in or at the edge of it is tentative evidence. Returns the spot's place.
    mutating func weigh(spot placement: Placement, visit: Visit) -> PlaceSignature {
        var bits: (kinds: UInt16, flags: UInt8) = (0, 0)
        for (position, level) in PlaceSignature.levels.enumerated() {
            let weighed = weighSpot(level, placement.level(level), position: UInt8(position), visit: visit)
            bits.kinds |= weighed.kinds
            bits.flags |= weighed.flags
        }
        return PlaceSignature(regions: PlaceSignature.regions(of: placement), kinds: bits.kinds, flags: bits.flags)
    }

    /// The footprint rule at one level: the level's kind and confirming bit (the spots from the
    /// one that reaches the count on confirm).
    private mutating func weighSpot(_ level: RegionLevel, _ placement: LevelPlacement, position: UInt8, visit: Visit) -> (kinds: UInt16, flags: UInt8) {
        guard let region = placement.region, placement.status != .outside else { return (0, 0) }
        let key = RegionKey(level: level, index: region)
        let inside = placement.status == .inside
        let counts = inside ? (placement.marginMetres ?? .infinity) >= assumedAccuracy : placement.uncontested
        var evidence = regions[key, default: RegionEvidence()]
        evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
        var confirms = false
        if counts {
            var tally = footprintSpots[key, default: (0, visit)]
            tally.count += 1
            footprintSpots[key] = tally
            if tally.count >= ClassifyOptions.footprintSpotsToConfirm {
                evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
                confirms = true
            }
        }
        regions[key] = evidence
        let kind: PlaceSignature.Kind = inside ? .inside : .edge
        return (UInt16(kind.rawValue) << (2 * UInt16(position)), confirms ? 1 << position : 0)
    }

    // MARK: Points that reused the last lookup

    /// Some point reused the last lookup since it was made.
    var hasReused: Bool { reuseCount > 0 || passedReuseCount > 0 || loneReuseCount > 0 }

    /// One more point that reused the last lookup: been there (lone or not), or only passed.
    @inline(__always)
    mutating func countReused(_ visit: Visit, been: Bool, lone: Bool) {
        if !been {
            passedReuseCount += 1
            passedReuseFirst = earliest(passedReuseFirst, visit)
        } else if lone {
            loneReuseCount += 1
            loneReuseFirst = earliest(loneReuseFirst, visit)
        } else {
            reuseCount += 1
            reuseFirst = earliest(reuseFirst, visit)
        }
    }

    /// Adds the points that reused `placement` (the lookup's, about to change): inside and
    /// confirmed at every level it has; only passed at vehicle speed counts as passed.
    mutating func flushReused(at placement: Placement) {
        addReused(.country, placement.country.region)
        addReused(.province, placement.province.region)
        addReused(.city, placement.city.region)
        addReused(.county, placement.county.region)
        addReused(.subdivision, placement.subdivision.region)
        clearReused()
    }

    private mutating func addReused(_ level: RegionLevel, _ region: Int32?) {
        guard let region else { return }
        let key = RegionKey(level: level, index: region)
        // In place: one hash lookup, the entry added when new.
        Self.add(confirmed: reuseFirst, passed: passedReuseFirst, lone: loneReuseFirst, to: &regions[key, default: RegionEvidence()])
    }

    private mutating func clearReused() {
        reuseCount = 0
        reuseFirst = nil
        passedReuseCount = 0
        passedReuseFirst = nil
        loneReuseCount = 0
        loneReuseFirst = nil
    }

    private static func add(confirmed: Visit?, passed: Visit?, lone: Visit?, to evidence: inout RegionEvidence) {
        if let first = confirmed { evidence.confirmedBy = earliest(evidence.confirmedBy, first) }
        if let first = passed { evidence.passedBy = earliest(evidence.passedBy, first) }
        if let first = lone { evidence.loneBy = earliest(evidence.loneBy, first) }
    }

    /// Calls `body` with each region's evidence so far, the points that reused `reused` (the
    /// lookup's placement, when valid) included.
    func forEachRegion(reusing reused: Placement?, _ body: (RegionKey, RegionEvidence) -> Void) {
        let reused = hasReused ? reused : nil
        func withReuse(_ key: RegionKey, _ evidence: RegionEvidence) -> RegionEvidence {
            guard let reused, reused.level(key.level).region == key.index else { return evidence }
            var evidence = evidence
            evidence.confirmedBy = earliest(evidence.confirmedBy, reuseFirst)
            evidence.passedBy = earliest(evidence.passedBy, passedReuseFirst)
            evidence.loneBy = earliest(evidence.loneBy, loneReuseFirst)
            return evidence
        }
        for (key, evidence) in regions { body(key, withReuse(key, evidence)) }
        if let reused {
            for level in RegionLevel.allCases {
                guard let region = reused.level(level).region else { continue }
                let key = RegionKey(level: level, index: region)
                if regions[key] == nil { body(key, withReuse(key, RegionEvidence())) }
            }
        }
    }

    /// The place of a point that reused `placement`: inside and confirming at every level it has
    /// (a lone point marked so), or passed.
    static func reusedSignature(of placement: Placement, been: Bool, lone: Bool) -> PlaceSignature {
        let regions = PlaceSignature.regions(of: placement)
        var kinds: UInt16 = 0, flags: UInt8 = been && lone ? PlaceSignature.loneFlag : 0
        let kind = been ? PlaceSignature.Kind.inside : .passed
        for (position, region) in [regions.0, regions.1, regions.2, regions.3, regions.4].enumerated() where region >= 0 {
            kinds |= UInt16(kind.rawValue) << (2 * UInt16(position))
            if been { flags |= 1 << UInt8(position) }
        }
        return PlaceSignature(regions: regions, kinds: kinds, flags: flags)
    }
}
