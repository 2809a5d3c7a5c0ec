import RegionTables

/// Makes a table's stored geometry mean what the build meant, whatever simplification and
/// rounding did to it: every ring winds as its arcs' sides say and no two stored segments cross
/// (``TableGeometryCheck``, the invariants ray casting relies on), and, as far as refining coasts
/// near them can, every island and lake lies in the unit its sides say (the third invariant).
///
/// Douglas–Peucker keeps a subsequence of a ring's vertices, and a subsequence of a crescent
/// (an atoll, a river island) can wind the other way: the 0.65 km² ring of Ant atoll became five
/// vertices running clockwise, so every point west of it, across 26° of open Pacific, was
/// answered Micronesia. Rounding to the coordinate grid can also make nearby segments cross.
/// Each round checks the stored arcs, simplifies the arcs of every faulty ring and crossing
/// again from their originals at a quarter of the tolerance (at the fourth round: not at all),
/// stores them again, and checks again. A ring still wrong at full resolution is smaller than
/// the coordinate grid: it becomes a speck (one point, `edge` for its unit within the buffer)
/// when it is an island, and is an error otherwise, as is a crossing at full resolution.
///
/// A coast simplified at the coast tolerance can pass over an island or lake off it (a barrier
/// island in a lagoon: the coarse mainland coast runs across the lagoon and the island, whose ring
/// then cuts a hole in the land). Before the other repairs of a round, such a coast is simplified
/// again near the island only (its original vertices within twice its tolerance of the island's
/// bounds), a quarter as coarsely each round, up to three times, then at full resolution; one
/// still in the wrong unit is so in the source itself (its noded outline), and is reported by the
/// check.
struct GeometryRepair {
    /// Rounds of re-simplification needed (0: the table was right at once).
    private(set) var rounds = 0
    /// Arcs simplified again, more finely.
    private(set) var refinedArcs = 0
    /// Island rings smaller than the coordinate grid, stored as specks.
    private(set) var speckedRings = 0
    /// Loops that rounding folded into arcs at full resolution, cut out.
    private(set) var loopsCut = 0
    /// Islands and lakes a coarse coast passed over, for which that coast was refined near them.
    private(set) var islandsFreed = 0

    /// How many times an arc's tolerance is quartered before its original vertices are used.
    static let refinements = 3

    /// - Parameter islandsLargerThan: when given (metres; the world build), coasts are refined near
    ///   the lakes they pass over and the islands at sea whose outline is farther than this from its
    ///   centre; smaller islands are left to ``SmallIslands``, which drops most of them or keeps
    ///   them as specks.
    init(simplifier: inout CoverageSimplifier, stored: inout StoredArcs, contents: inout TableContents, topology: CoverageTopology,
         context: GEOSContext, toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double]), freeingIslandsLargerThan islandsLargerThan: Double? = nil) throws {
        var refined = [Int](repeating: 0, count: contents.arcs.count)
        var freed: [Int: Int] = [:]
        // Each arc's original bounds (lon/lat), to find the coasts near a misplaced ring.
        let originalBounds = simplifier.originalArcs.map { arc -> (Double, Double, Double, Double) in
            let xs = stride(from: 0, to: arc.count, by: 2).map { arc[$0] }, ys = stride(from: 1, to: arc.count, by: 2).map { arc[$0] }
            return (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
        }
        while true {
            let check = Self.check(contents)
            // An island or lake that a coast's coarse form passes over (the ring lies in the wrong
            // unit): that coast is simplified again near it, a quarter as coarsely each round.
            var nearIslands: [Int] = []
            for problem in check.misplaced where freed[problem.arc, default: 0] <= Self.refinements {
                // A small island at sea is the small islands' step's; lakes, and islands in them, are not.
                guard let islandsLargerThan, problem.expected >= 0 || SmallIslands.disc(simplifier.originalArcs[problem.arc]).radius > islandsLargerThan else { continue }
                // The coast that passed over the ring: the one the westward ray met, or, for a lake
                // left at sea (its unit's coast simplified inland past it, the Hudson Bay shore at
                // 58.69 N 78.54 W: the ray then meets whatever lies west, far off), the coasts of
                // the lake's unit near it.
                var coasts = problem.metArc >= 0 ? [problem.metArc] : []
                let ring = simplifier.originalArcs[problem.arc]
                let xs = stride(from: 0, to: ring.count, by: 2).map { ring[$0] }, ys = stride(from: 1, to: ring.count, by: 2).map { ring[$0] }
                if problem.expected >= 0, problem.found < 0 {
                    let reach = 2 * islandsLargerThan / WorldTableBuilder.metresPerDegree
                    for (arc, b) in originalBounds.enumerated() where arc != problem.arc && !coasts.contains(arc) {
                        let a = contents.arcs[arc]
                        guard (a.leftUnit == problem.expected && a.rightUnit < 0) || (a.rightUnit == problem.expected && a.leftUnit < 0) else { continue }
                        guard b.0 <= xs.max()! + reach / 0.3, xs.min()! - reach / 0.3 <= b.2, b.1 <= ys.max()! + reach, ys.min()! - reach <= b.3 else { continue }
                        coasts.append(arc)
                    }
                }
                guard !coasts.isEmpty else { continue }
                freed[problem.arc, default: 0] += 1
                let scale = freed[problem.arc]! > Self.refinements ? 0 : 0.25
                for coast in coasts {
                    let margin = 2 * simplifier.largestTolerance(coast)
                    let box = (minX: xs.min()! - margin, minY: ys.min()! - margin, maxX: xs.max()! + margin, maxY: ys.max()! + margin)
                    if try simplifier.refine(coast, within: box, scale: scale, topology: topology, context: context) {
                        nearIslands.append(coast)
                    }
                }
            }
            if !nearIslands.isEmpty {
                try stored.restore(Array(Set(nearIslands)).sorted(), from: simplifier, into: &contents, toDegrees: toDegrees)
                rounds += 1
                continue
            }
            var faulty = Set<Int>()
            var fullResolutionRings: [TableGeometryCheck.RingProblem] = []
            for problem in check.ringProblems {
                let arcs = contents.unitRings[Int(problem.unit)][problem.ring].references.map { Int($0 < 0 ? ~$0 : $0) }
                if arcs.allSatisfy({ refined[$0] > Self.refinements }) {
                    fullResolutionRings.append(problem)
                } else {
                    faulty.formUnion(arcs)
                }
            }
            var loops: [TableGeometryCheck.Crossing] = []
            for crossing in check.crossings where crossing.proper {
                if refined[crossing.arcA] > Self.refinements && refined[crossing.arcB] > Self.refinements {
                    guard crossing.arcA == crossing.arcB else {
                        func describe(_ arc: Int, _ segment: Int) -> String {
                            let v = contents.arcs[arc].vertices
                            return "arc \(arc) (units \(contents.arcs[arc].leftUnit)|\(contents.arcs[arc].rightUnit), \(v.count / 2) vertices) segment \(segment): "
                                + "(\(v[2 * segment]), \(v[2 * segment + 1])) → (\(v[2 * segment + 2]), \(v[2 * segment + 3]))"
                        }
                        throw TableError(path: "table build", reason: "two arcs cross at full resolution near "
                                         + "\(Double(crossing.y) * TableFormat.quantum), \(Double(crossing.x) * TableFormat.quantum): "
                                         + describe(crossing.arcA, crossing.segmentA) + "; " + describe(crossing.arcB, crossing.segmentB))
                    }
                    loops.append(crossing)
                    continue
                }
                faulty.insert(crossing.arcA)
                faulty.insert(crossing.arcB)
            }
            // An arc that crosses itself at full resolution does so because rounding folded a
            // stretch shorter than the grid into a loop: the loop goes (one per arc and round).
            var looped = Set<Int>()
            for crossing in loops where looped.insert(crossing.arcA).inserted {
                try cutLoop(crossing, in: &contents, stored: &stored)
            }
            // Last ring first, so that removing one leaves the positions of the others.
            var seenRings = Set<Int64>()
            for problem in fullResolutionRings.sorted(by: { ($0.unit, $0.ring) > ($1.unit, $1.ring) })
            where seenRings.insert(Int64(problem.unit) << 32 | Int64(problem.ring)).inserted {
                try speck(problem, in: &contents, stored: &stored)
            }
            dropRingsOfSpecks(&contents)
            if faulty.isEmpty && fullResolutionRings.isEmpty && loops.isEmpty {
                let stillMisplaced = Set(check.misplaced.map(\.arc))
                islandsFreed = freed.keys.filter { !stillMisplaced.contains($0) }.count
                return
            }
            rounds += 1
            // Arcs that are already as fine as they get stay so; the rest go one step finer, together
            // per tolerance so that they cannot cross one another.
            var groups: [Double: [Int]] = [:]
            for arc in faulty.sorted() where refined[arc] <= Self.refinements {
                refined[arc] += 1
                let scale = refined[arc] > Self.refinements ? 0 : 1 / Double(1 << (2 * refined[arc]))
                groups[scale, default: []].append(arc)
            }
            refinedArcs += groups.values.reduce(0) { $0 + $1.count }
            for scale in groups.keys.sorted() {
                try simplifier.resimplify(groups[scale]!, scale: scale, topology: topology, context: context)
            }
            try stored.restore(groups.values.flatMap { $0 }.sorted(), from: simplifier, into: &contents, toDegrees: toDegrees)
        }
    }

    /// What was done, for the build log and the manifest's notes.
    var summary: String {
        rounds == 0 ? "every ring winds as its sides say and no segments cross"
            : "\(refinedArcs) arcs simplified again more finely in \(rounds) rounds, \(speckedRings) island rings below the coordinate grid kept as specks, "
                + "\(loopsCut) loops folded by rounding cut, \(islandsFreed) islands or lakes freed from a coast passing over them; "
                + "now every ring winds as its sides say and no segments cross"
    }

    /// Throws unless `contents` meets the invariants (a step after the repair broke them).
    static func require(_ contents: TableContents, after step: String) throws {
        let check = Self.check(contents)
        guard check.holds else {
            throw TableError(path: "table build", reason: "after \(step): \(check.ringProblems.count) rings wind against their sides, "
                             + "\(check.crossings.filter(\.proper).count) segments cross, \(check.misplaced.count) rings lie in the wrong unit")
        }
    }

    /// The invariants on `contents` as it would be written.
    static func check(_ contents: TableContents) -> TableGeometryCheck {
        var vertices: [Int32] = []
        var arcStart: [Int] = [0]
        for arc in contents.arcs {
            vertices.append(contentsOf: arc.vertices)
            arcStart.append(vertices.count / 2)
        }
        return TableGeometryCheck(vertices: vertices, arcStart: arcStart, arcLeft: contents.arcs.map(\.leftUnit), arcRight: contents.arcs.map(\.rightUnit),
                                  unitRings: contents.unitRings.map { $0.map { ($0.isHole, $0.references) } })
    }

    /// Cuts the vertices between two crossing segments of one arc (the loop between them).
    private mutating func cutLoop(_ crossing: TableGeometryCheck.Crossing, in contents: inout TableContents, stored: inout StoredArcs) throws {
        let arc = crossing.arcA, first = min(crossing.segmentA, crossing.segmentB), second = max(crossing.segmentA, crossing.segmentB)
        let count = contents.arcs[arc].vertices.count / 2
        guard second - first <= count / 2, count - (second - first) >= 2 else {
            throw TableError(path: "table build", reason: "arc \(arc) crosses itself at full resolution over most of its length near "
                             + "\(Double(crossing.y) * TableFormat.quantum), \(Double(crossing.x) * TableFormat.quantum)")
        }
        // Keep vertices 0 … first and second + 1 … end.
        contents.arcs[arc].vertices.removeSubrange((2 * (first + 1))..<(2 * (second + 1)))
        stored.removeVertices(arc, (first + 1)...second)
        loopsCut += 1
    }

    /// Replaces an island ring that rounding cannot keep (one closed arc, the outside beyond it,
    /// no holes) by a speck at its first vertex.
    private mutating func speck(_ problem: TableGeometryCheck.RingProblem, in contents: inout TableContents, stored: inout StoredArcs) throws {
        let unit = Int(problem.unit)
        let ring = contents.unitRings[unit][problem.ring]
        let followedByHole = problem.ring + 1 < contents.unitRings[unit].count && contents.unitRings[unit][problem.ring + 1].isHole
        guard !ring.isHole, !followedByHole, ring.references.count == 1 else {
            throw TableError(path: "table build", reason: "a ring of unit \(unit) winds against its sides at full resolution near "
                             + "\(Double(problem.y) * TableFormat.quantum), \(Double(problem.x) * TableFormat.quantum) and is not an island")
        }
        let arc = Int(ring.references[0] < 0 ? ~ring.references[0] : ring.references[0])
        let v = contents.arcs[arc].vertices
        contents.arcs[arc] = .init(vertices: [v[0], v[1], v[0], v[1]], leftUnit: Int32(unit), rightUnit: -1)
        stored.storeSpeck(arc)
        contents.unitRings[unit].remove(at: problem.ring)
        specked.insert(Int32(arc))
        speckedRings += 1
    }

    /// Arcs made specks in this round: a hole of the unit around such an island (a lake holding
    /// it) goes too, once the round's specks are made.
    private var specked = Set<Int32>()

    private mutating func dropRingsOfSpecks(_ contents: inout TableContents) {
        guard !specked.isEmpty else { return }
        for unit in contents.unitRings.indices {
            contents.unitRings[unit].removeAll { ring in
                ring.isHole && ring.references.count == 1 && specked.contains(ring.references[0] < 0 ? ~ring.references[0] : ring.references[0])
            }
        }
        specked.removeAll()
    }
}
