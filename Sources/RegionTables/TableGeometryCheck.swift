/// The geometric invariants ray casting relies on, checked on a table's stored (quantised)
/// geometry: the answer for a point is the west side of the first segment east of it, so the
/// table means what the build meant only when
///
/// 1. every ring winds the way its arcs' stored sides say (outer rings counter-clockwise, holes
///    clockwise: the unit lies left of its ring), and
/// 2. no two stored segments cross or overlap (touching at a shared end point is how arcs meet), and
/// 3. every ring that is one closed arc (an island, a lake, an enclave) lies where its sides say:
///    just west of it, a ray cast west (which cannot meet the ring) finds the unit around it (the
///    far side of an outer ring, the ring's own unit for a hole). Simplification can move a coast past an island without any crossing:
///    the island then lies inside its own country's simplified mainland, and every point west of
///    it reads the sea.
///
/// A ring that simplification or rounding turned inside out breaks (1): every point west of it,
/// up to the next border, takes its unit (a whole index cell of open sea can). A crossing breaks
/// (2) locally. The build runs this on every table it writes and refuses to write one that fails;
/// `unlocks audit --tables` reports it. Pure Swift, exact integer arithmetic.
public struct TableGeometryCheck: Sendable {
    /// A ring whose stored winding disagrees with its sides (or that has no area).
    public struct RingProblem: Sendable, Equatable {
        public var unit: Int32
        /// The ring's position among the unit's rings.
        public var ring: Int
        public var isHole: Bool
        /// Twice the signed area in square quanta (positive: counter-clockwise).
        public var doubledArea: Double
        /// A vertex of the ring, to find it on a map.
        public var x: Int32, y: Int32

        public init(unit: Int32, ring: Int, isHole: Bool, doubledArea: Double, x: Int32, y: Int32) {
            self.unit = unit
            self.ring = ring
            self.isHole = isHole
            self.doubledArea = doubledArea
            self.x = x
            self.y = y
        }
    }

    /// Two stored segments that cross, overlap, or where one's end point lies inside the other.
    public struct Crossing: Sendable, Equatable {
        public var arcA: Int, arcB: Int
        /// The crossing segments: the index of each one's first vertex within its arc.
        public var segmentA: Int, segmentB: Int
        /// Where (approximately), quanta.
        public var x: Int32, y: Int32
        /// True for a proper crossing or a collinear overlap; false for an end point touching the
        /// interior of another segment (harmless to ray casting, counted apart).
        public var proper: Bool
    }

    /// A closed-arc ring whose surroundings are not what its far side says.
    public struct Misplaced: Sendable, Equatable {
        public var arc: Int
        /// The unit that should be around the ring (−1: outside), and the one found west of it.
        public var expected: Int32, found: Int32
        /// The arc the westward ray met first (−1: none).
        public var metArc: Int
        /// The ring's westmost vertex.
        public var x: Int32, y: Int32
    }

    public private(set) var rings = 0
    public private(set) var misplaced: [Misplaced] = []
    public private(set) var segments = 0
    public private(set) var ringProblems: [RingProblem] = []
    public private(set) var crossings: [Crossing] = []
    /// End points touching another segment's interior (not crossings).
    public private(set) var touches = 0

    /// True when both invariants hold.
    /// True when the first two invariants hold (what the build enforces). The third is reported
    /// (``misplaced``): repairing it by simplifying whole coasts more finely doubled the world
    /// table, and a local repair is still to be written.
    public var holds: Bool { ringProblems.isEmpty && !crossings.contains { $0.proper } }

    /// Checks every ring and every pair of nearby segments of `table`.
    public init(_ table: RegionTable) {
        self.init(vertices: table.vertices, arcStart: table.arcStart.map(Int.init), arcLeft: table.arcLeft, arcRight: table.arcRight,
                  unitRings: (0..<Int32(table.unitCount)).map { table.unitRingReferences($0) })
    }

    /// Checks geometry given as arcs (interleaved quantised x, y; `arcStart` has one more entry than
    /// arcs) and, per unit, its rings as (is a hole, arc references: `~arc` when reversed).
    package init(vertices: [Int32], arcStart: [Int], arcLeft: [Int32], arcRight: [Int32], unitRings: [[(isHole: Bool, references: [Int32])]]) {
        // 1. Winding of every ring.
        for (unit, list) in unitRings.enumerated() {
            for (index, ring) in list.enumerated() {
                rings += 1
                var area = 0.0
                var first: (Int64, Int64)?
                var previous: (Int64, Int64) = (0, 0)
                for reference in ring.references {
                    let arc = Int(reference < 0 ? ~reference : reference)
                    let range = arcStart[arc]..<arcStart[arc + 1]
                    let order: [Int] = reference < 0 ? range.reversed() : Array(range)
                    for v in order {
                        let p = (Int64(vertices[2 * v]), Int64(vertices[2 * v + 1]))
                        guard let origin = first else { first = p; previous = p; continue }
                        // Exact per term (|coordinates| < 2^28), summed in Double.
                        area += Double((previous.0 - origin.0) * (p.1 - origin.1) - (p.0 - origin.0) * (previous.1 - origin.1))
                        previous = p
                    }
                }
                let wrong = ring.isHole ? !(area < 0) : !(area > 0)
                if wrong, let origin = first {
                    ringProblems.append(RingProblem(unit: Int32(unit), ring: index, isHole: ring.isHole, doubledArea: area,
                                                    x: Int32(origin.0), y: Int32(origin.1)))
                }
            }
        }
        // 2. Segments filed in square cells by their bounding boxes; pairs met in a cell are tested.
        let arcCount = arcStart.count - 1
        var lengths: [Int64] = []
        for arc in 0..<arcCount {
            for v in arcStart[arc]..<max(arcStart[arc], arcStart[arc + 1] - 1) {
                lengths.append(max(abs(Int64(vertices[2 * v + 2]) - Int64(vertices[2 * v])), abs(Int64(vertices[2 * v + 3]) - Int64(vertices[2 * v + 1]))))
            }
        }
        segments = lengths.count
        guard !lengths.isEmpty else { return }
        lengths.sort()
        // A cell about the size of a typical long segment (the 90th percentile) keeps lists short.
        var cellLog2: Int64 = 4
        while cellLog2 < 24, (Int64(1) << cellLog2) < lengths[lengths.count * 9 / 10] { cellLog2 += 1 }
        var cells: [Int64: [Int32]] = [:]
        var segmentArc: [Int32] = [], segmentStart: [Int32] = []
        segmentArc.reserveCapacity(segments)
        segmentStart.reserveCapacity(segments)
        for arc in 0..<arcCount {
            for v in arcStart[arc]..<max(arcStart[arc], arcStart[arc + 1] - 1) {
                let id = Int32(segmentArc.count)
                segmentArc.append(Int32(arc))
                segmentStart.append(Int32(v))
                let ax = Int64(vertices[2 * v]), ay = Int64(vertices[2 * v + 1]), bx = Int64(vertices[2 * v + 2]), by = Int64(vertices[2 * v + 3])
                for cx in (min(ax, bx) >> cellLog2)...(max(ax, bx) >> cellLog2) {
                    for cy in (min(ay, by) >> cellLog2)...(max(ay, by) >> cellLog2) {
                        cells[cx << 32 ^ (cy & 0xFFFF_FFFF), default: []].append(id)
                    }
                }
            }
        }
        var seen = Set<Int64>()
        for key in cells.keys.sorted() {
            let list = cells[key]!
            guard list.count > 1 else { continue }
            for i in 0..<(list.count - 1) {
                let s = Int(segmentStart[Int(list[i])])
                let ax = Int64(vertices[2 * s]), ay = Int64(vertices[2 * s + 1]), bx = Int64(vertices[2 * s + 2]), by = Int64(vertices[2 * s + 3])
                for j in (i + 1)..<list.count {
                    let t = Int(segmentStart[Int(list[j])])
                    let cx = Int64(vertices[2 * t]), cy = Int64(vertices[2 * t + 1]), dx = Int64(vertices[2 * t + 2]), dy = Int64(vertices[2 * t + 3])
                    guard max(ax, bx) >= min(cx, dx), max(cx, dx) >= min(ax, bx), max(ay, by) >= min(cy, dy), max(cy, dy) >= min(ay, by) else { continue }
                    guard let proper = Self.meet(ax, ay, bx, by, cx, cy, dx, dy) else { continue }
                    let pair = Int64(min(list[i], list[j])) << 32 | Int64(max(list[i], list[j]))
                    guard seen.insert(pair).inserted else { continue }
                    if proper {
                        let arcA = Int(segmentArc[Int(list[i])]), arcB = Int(segmentArc[Int(list[j])])
                        let (first, second) = (arcA, s) <= (arcB, t) ? ((arcA, s), (arcB, t)) : ((arcB, t), (arcA, s))
                        crossings.append(Crossing(arcA: first.0, arcB: second.0, segmentA: first.1 - arcStart[first.0], segmentB: second.1 - arcStart[second.0],
                                                  x: Int32((ax + bx) / 2), y: Int32((ay + by) / 2), proper: true))
                    } else {
                        touches += 1
                    }
                }
            }
        }
        crossings.sort { ($0.arcA, $0.arcB, $0.segmentA, $0.segmentB) < ($1.arcA, $1.arcB, $1.segmentA, $1.segmentB) }

        // 3. Closed-arc rings against their surroundings: segments filed by horizontal bands.
        let bandLog2: Int64 = 12
        var bands: [Int64: [Int32]] = [:]
        for id in 0..<segmentArc.count {
            let v = Int(segmentStart[id])
            let ay = Int64(vertices[2 * v + 1]), by = Int64(vertices[2 * v + 3])
            guard ay != by else { continue }  // a horizontal segment never meets a ray
            for band in (min(ay, by) >> bandLog2)...(max(ay, by) >> bandLog2) { bands[band, default: []].append(Int32(id)) }
        }
        for list in unitRings {
            for ring in list where ring.references.count == 1 {
                let reference = ring.references[0]
                let arc = Int(reference < 0 ? ~reference : reference)
                let range = arcStart[arc]..<arcStart[arc + 1]
                guard range.count >= 4 else { continue }
                var west = range.lowerBound
                for v in range where (vertices[2 * v], vertices[2 * v + 1]) < (vertices[2 * west], vertices[2 * west + 1]) { west = v }
                let px = Int64(vertices[2 * west]) - 1, py = Int64(vertices[2 * west + 1])
                // The ray west from just west of the ring: mirrored, it is the usual ray east.
                var best: RayCasting.Crossing?, bestArc = -1
                for id in bands[py >> bandLog2] ?? [] {
                    let v = Int(segmentStart[Int(id)])
                    guard let c = RayCasting.crossing(ax: -Int64(vertices[2 * v]), ay: Int64(vertices[2 * v + 1]),
                                                      bx: -Int64(vertices[2 * v + 2]), by: Int64(vertices[2 * v + 3]),
                                                      px: -px, py: py, limitX: 400_000_000) else { continue }
                    if best.map({ c.isNearer(than: $0) }) ?? true { best = c; bestArc = Int(segmentArc[Int(id)]) }
                }
                // A segment within a quantum of the ring (a junction there) leaves the side unknown.
                if let b = best, b.x + Double(px) < 1.5 { continue }
                // East of a segment running north is its right side.
                let found: Int32 = best.map { $0.upward ? arcRight[bestArc] : arcLeft[bestArc] } ?? -1
                // Just west of the ring is outside what it encloses: the far side of an outer ring,
                // the ring's own unit for a hole.
                let own = reference < 0 ? arcRight[arc] : arcLeft[arc], far = reference < 0 ? arcLeft[arc] : arcRight[arc]
                let expected = ring.isHole ? own : far
                if found != expected {
                    misplaced.append(Misplaced(arc: arc, expected: expected, found: found, metArc: bestArc,
                                               x: vertices[2 * west], y: vertices[2 * west + 1]))
                }
            }
        }
        // A ring that is the outer ring of one unit and a hole of another is checked from both.
        var seenArcs = Set<Int>()
        misplaced = misplaced.sorted { $0.arc < $1.arc }.filter { seenArcs.insert($0.arc).inserted }
    }

    /// How segments ab and cd meet: nil when they do not, or only at an end point they share;
    /// true when they cross properly or overlap along a line; false when an end point of one lies
    /// inside the other (a touch).
    static func meet(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ cx: Int64, _ cy: Int64, _ dx: Int64, _ dy: Int64) -> Bool? {
        func orientation(_ px: Int64, _ py: Int64, _ qx: Int64, _ qy: Int64, _ rx: Int64, _ ry: Int64) -> Int {
            let v = (qx - px) * (ry - py) - (qy - py) * (rx - px)
            return v > 0 ? 1 : (v < 0 ? -1 : 0)
        }
        func within(_ px: Int64, _ py: Int64, _ qx: Int64, _ qy: Int64, _ rx: Int64, _ ry: Int64) -> Bool {
            // r on segment pq, given collinear.
            min(px, qx) <= rx && rx <= max(px, qx) && min(py, qy) <= ry && ry <= max(py, qy)
        }
        let o1 = orientation(ax, ay, bx, by, cx, cy), o2 = orientation(ax, ay, bx, by, dx, dy)
        let o3 = orientation(cx, cy, dx, dy, ax, ay), o4 = orientation(cx, cy, dx, dy, bx, by)
        if o1 != 0, o2 != 0, o3 != 0, o4 != 0 {
            return o1 != o2 && o3 != o4 ? true : nil
        }
        if o1 == 0, o2 == 0 {
            // Collinear: an overlap longer than a point is a problem; sharing one end point is not.
            let degenerate = (ax == bx && ay == by) || (cx == dx && cy == dy)
            let horizontal = ax != bx
            let (a0, a1) = horizontal ? (min(ax, bx), max(ax, bx)) : (min(ay, by), max(ay, by))
            let (c0, c1) = horizontal ? (min(cx, dx), max(cx, dx)) : (min(cy, dy), max(cy, dy))
            let low = max(a0, c0), high = min(a1, c1)
            if low > high { return nil }
            if low < high, !degenerate { return true }
            return Self.sharesEndPoint(ax, ay, bx, by, cx, cy, dx, dy) ? nil : false
        }
        // One end point on the other segment.
        let touching = (o1 == 0 && within(ax, ay, bx, by, cx, cy)) || (o2 == 0 && within(ax, ay, bx, by, dx, dy))
            || (o3 == 0 && within(cx, cy, dx, dy, ax, ay)) || (o4 == 0 && within(cx, cy, dx, dy, bx, by))
        guard touching else { return nil }
        return Self.sharesEndPoint(ax, ay, bx, by, cx, cy, dx, dy) ? nil : false
    }

    static func sharesEndPoint(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ cx: Int64, _ cy: Int64, _ dx: Int64, _ dy: Int64) -> Bool {
        (ax == cx && ay == cy) || (ax == dx && ay == dy) || (bx == cx && by == cy) || (bx == dx && by == dy)
    }
}

extension RegionTable {
    /// Unit `unit`'s rings in stored order: whether each is a hole, and its arc references
    /// (`~arc` where the ring runs the arc backwards).
    package func unitRingReferences(_ unit: Int32) -> [(isHole: Bool, references: [Int32])] {
        let unitRings = section(.unitRings)
        let first = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4) as UInt32)
        let end = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4 + 4) as UInt32)
        return (first..<end).map { ring in
            (ringHole[ring], Array(arcReferences[Int(ringStart[ring])..<Int(ringStart[ring + 1])]))
        }
    }
}
