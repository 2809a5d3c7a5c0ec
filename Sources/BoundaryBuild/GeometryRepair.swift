import RegionTables

/// Makes a table's stored geometry mean what the build meant, whatever simplification and
/// rounding did to it: every ring winds as its arcs' sides say and no two stored segments cross
/// (``TableGeometryCheck``, the invariants ray casting relies on; its third, islands on the wrong
/// side of a shore, is reported, not repaired here).
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
struct GeometryRepair {
    /// Rounds of re-simplification needed (0: the table was right at once).
    private(set) var rounds = 0
    /// Arcs simplified again, more finely.
    private(set) var refinedArcs = 0
    /// Island rings smaller than the coordinate grid, stored as specks.
    private(set) var speckedRings = 0
    /// Loops that rounding folded into arcs at full resolution, cut out.
    private(set) var loopsCut = 0

    /// How many times an arc's tolerance is quartered before its original vertices are used.
    static let refinements = 3

    init(simplifier: inout CoverageSimplifier, stored: inout StoredArcs, contents: inout TableContents, topology: CoverageTopology,
         context: GEOSContext, toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double])) throws {
        var refined = [Int](repeating: 0, count: contents.arcs.count)
        while true {
            let check = Self.check(contents)
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
            if faulty.isEmpty && fullResolutionRings.isEmpty && loops.isEmpty { return }
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
                + "\(loopsCut) loops folded by rounding cut; "
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
