import TextFormats

/// Simplifies a ``CoverageTopology`` arc by arc, in projected metres, so shared borders stay shared.
///
/// Every arc is simplified once (Douglas–Peucker with GEOS's topology-preserving simplifier over
/// all arcs together, so no simplified arc crosses another) and keeps its end points, which are
/// the junctions where three or more units, or a unit and the outside, meet.
public struct CoverageSimplifier {
    /// A stretch of an arc, from vertex `first` to vertex `last` (indices into the arc), simplified
    /// with its own tolerance; its ends stay where they are.
    public struct Piece: Equatable {
        public var first: Int
        public var last: Int
        public var tolerance: Double
        public init(first: Int, last: Int, tolerance: Double) {
            self.first = first
            self.last = last
            self.tolerance = tolerance
        }
    }

    /// Simplified arcs: interleaved projected x, y per arc, same order as the topology's arcs.
    public private(set) var arcs: [[Double]] = []
    /// The same arcs before simplification (projected), for deviation measurements.
    public private(set) var originalArcs: [[Double]] = []
    /// For each arc, the indices (into the original arc) of the vertices the simplified arc kept.
    public private(set) var keptIndices: [[Int]] = []
    /// Closed arcs (islands, enclaves) the simplifier collapsed below a ring, kept as the smallest
    /// ring through their extreme vertices instead (a speck of land stays a speck, not nothing).
    public private(set) var collapsedRingsKept = 0
    /// Each arc's pieces, and each piece's kept vertex indices (into the arc).
    private var pieces: [[Piece]] = []
    private var pieceKept: [[[Int]]] = []

    /// `xs`, `ys` are every topology vertex in the (projected) plane the tolerance is measured in.
    public init(_ topology: CoverageTopology, projectedX xs: [Double], projectedY ys: [Double], tolerance: Double, context: GEOSContext) throws {
        try self.init(topology, projectedX: xs, projectedY: ys, tolerance: { _ in tolerance }, context: context)
    }

    /// Simplifies each arc with the tolerance `tolerance(arc)` gives it.
    public init(_ topology: CoverageTopology, projectedX xs: [Double], projectedY ys: [Double], tolerance: (Int) -> Double, context: GEOSContext) throws {
        try self.init(topology, projectedX: xs, projectedY: ys, pieces: { arc, count in [Piece(first: 0, last: count - 1, tolerance: tolerance(arc))] },
                      context: context)
    }

    /// Simplifies each arc in the pieces `pieces(arc, vertexCount)` gives it (consecutive, from the
    /// first vertex to the last). Pieces sharing a tolerance are simplified together, so they
    /// cannot cross one another.
    public init(_ topology: CoverageTopology, projectedX xs: [Double], projectedY ys: [Double], pieces: (Int, Int) -> [Piece], context: GEOSContext) throws {
        originalArcs = topology.arcs.map { arc in
            var xy: [Double] = []
            xy.reserveCapacity(arc.vertices.count * 2)
            for v in arc.vertices { xy.append(xs[Int(v)]); xy.append(ys[Int(v)]) }
            return xy
        }
        arcs = originalArcs
        keptIndices = originalArcs.map { Array(0..<($0.count / 2)) }
        self.pieces = originalArcs.indices.map { pieces($0, originalArcs[$0].count / 2) }
        for (arc, list) in self.pieces.enumerated() {
            precondition(list.first?.first == 0 && list.last?.last == originalArcs[arc].count / 2 - 1
                         && zip(list, list.dropFirst()).allSatisfy { $0.last == $1.first && $0.first < $0.last }, "pieces must cover the arc in order")
        }
        pieceKept = self.pieces.map { $0.map { Array($0.first...$0.last) } }
        try simplify(Array(originalArcs.indices), scale: 1, topology: topology, context: context)
    }

    /// Simplifies arcs `members` again from their originals, each piece at `scale` × its
    /// tolerance (0 restores the originals), together; for arcs whose simplified form broke an
    /// invariant of the table (``GeometryRepair``).
    public mutating func resimplify(_ members: [Int], scale: Double, topology: CoverageTopology, context: GEOSContext) throws {
        try simplify(members, scale: scale, topology: topology, context: context)
    }

    /// The largest tolerance any piece of arc `arc` is simplified with.
    public func largestTolerance(_ arc: Int) -> Double { pieces[arc].map(\.tolerance).max() ?? 0 }

    /// Simplifies the stretch of arc `arc` near `box` (projected: the original vertices within it
    /// and the segments that reach them) again at `scale` × its tolerance, as a piece of its own,
    /// and leaves the rest of the arc as it is: for a coast whose coarse form passes over an island
    /// or lake off it (``GeometryRepair``), refining the whole coast would multiply its vertices.
    /// Returns false when no original vertex of the arc lies in `box`.
    public mutating func refine(_ arc: Int, within box: (minX: Double, minY: Double, maxX: Double, maxY: Double), scale: Double,
                                topology: CoverageTopology, context: GEOSContext) throws -> Bool {
        let original = originalArcs[arc]
        func near(_ i: Int) -> Bool {
            let x = original[2 * i], y = original[2 * i + 1]
            return box.minX <= x && x <= box.maxX && box.minY <= y && y <= box.maxY
        }
        var split: [Piece] = [], kept: [[Int]] = [], changed: [Int] = []
        for (k, piece) in pieces[arc].enumerated() {
            // Runs of segments near and far from the box; a piece with no near segment stays whole.
            var runs: [Piece] = []
            for i in piece.first..<piece.last {
                let tolerance = near(i) || near(i + 1) ? piece.tolerance * scale : piece.tolerance
                if let last = runs.last, last.tolerance == tolerance { runs[runs.count - 1].last = i + 1 } else {
                    runs.append(Piece(first: i, last: i + 1, tolerance: tolerance))
                }
            }
            guard runs.count > 1 || runs.first?.tolerance != piece.tolerance else {
                split.append(piece)
                kept.append(pieceKept[arc][k])
                continue
            }
            for run in runs {
                changed.append(split.count)
                split.append(run)
                kept.append([])
            }
        }
        guard !changed.isEmpty else { return false }
        pieces[arc] = split
        pieceKept[arc] = kept
        try simplify(changed.map { (arc, $0) }, scale: 1, topology: topology, context: context)
        return true
    }

    private mutating func simplify(_ members: [Int], scale: Double, topology: CoverageTopology, context: GEOSContext) throws {
        try simplify(members.flatMap { arc in pieces[arc].indices.map { (arc: arc, piece: $0) } }, scale: scale, topology: topology, context: context)
    }

    /// Simplifies the pieces `items` from their originals, each at `scale` × its tolerance, those
    /// sharing a tolerance together, then reassembles their arcs.
    private mutating func simplify(_ items: [(arc: Int, piece: Int)], scale: Double, topology: CoverageTopology, context: GEOSContext) throws {
        var groups: [Double: [(arc: Int, piece: Int)]] = [:]
        for (arc, k) in items { groups[pieces[arc][k].tolerance * scale, default: []].append((arc, k)) }
        var seen = Set<Int>()
        let members = items.map(\.arc).filter { seen.insert($0).inserted }
        for tolerance in groups.keys.sorted() {
            let group = groups[tolerance]!
            guard tolerance > 0 else {
                for (arc, k) in group { pieceKept[arc][k] = Array(pieces[arc][k].first...pieces[arc][k].last) }
                continue
            }
            let lines = group.map { arc, k in Array(originalArcs[arc][(2 * pieces[arc][k].first)..<(2 * pieces[arc][k].last + 2)]) }
            let simplified = try context.multiLineString(lines).simplifiedPreservingTopology(tolerance: tolerance).parts()
            guard simplified.count == group.count else {
                throw GEOSError(operation: "topology-preserving simplify", message: "returned \(simplified.count) lines for \(group.count) arc pieces")
            }
            for (n, (arc, k)) in group.enumerated() {
                let xy = try simplified[n].coordinates()
                let original = lines[n]
                // End points must survive exactly: they are shared with other arcs (or pieces).
                precondition(xy.count >= 4 && xy[0] == original[0] && xy[1] == original[1]
                             && xy[xy.count - 2] == original[original.count - 2] && xy[xy.count - 1] == original[original.count - 1],
                             "simplifier moved an arc's end point")
                // Douglas–Peucker keeps a subsequence of the original vertices: find where each came from.
                var kept: [Int] = []
                var cursor = 0
                for v in stride(from: 0, to: xy.count, by: 2) {
                    while cursor * 2 < original.count, original[2 * cursor] != xy[v] || original[2 * cursor + 1] != xy[v + 1] { cursor += 1 }
                    precondition(cursor * 2 < original.count, "simplified arc is not a subsequence of the original")
                    kept.append(pieces[arc][k].first + cursor)
                    cursor += 1
                }
                pieceKept[arc][k] = kept
            }
        }
        for arc in members {
            var kept: [Int] = []
            for piece in pieceKept[arc] { kept += kept.isEmpty ? piece : Array(piece.dropFirst()) }
            let original = originalArcs[arc]
            if topology.arcs[arc].isClosed && kept.count < 4 {
                let xy = Self.triangle(original)
                collapsedRingsKept += 1
                // The triangle's vertices are original ones: find them.
                kept = []
                for v in stride(from: 0, to: xy.count, by: 2) {
                    let x = xy[v], y = xy[v + 1]
                    var i = 0
                    while original[2 * i] != x || original[2 * i + 1] != y { i += 1 }
                    kept.append(i)
                }
                if kept.count > 1, kept.last == 0 { kept[kept.count - 1] = original.count / 2 - 1 }
            }
            keptIndices[arc] = kept
            arcs[arc] = kept.flatMap { [original[2 * $0], original[2 * $0 + 1]] }
        }
    }

    /// A closed ring reduced to its start, the vertex farthest from it, and the vertex farthest
    /// from the line through those two (then closed): what Douglas–Peucker would keep of a ring
    /// if it were not allowed to collapse it. Returns the original when that is not a triangle.
    static func triangle(_ ring: [Double]) -> [Double] {
        let n = ring.count / 2
        guard n >= 4 else { return ring }
        let (x0, y0) = (ring[0], ring[1])
        var far = 0, farDistance = -1.0
        for i in 1..<(n - 1) {
            let d = (ring[2 * i] - x0) * (ring[2 * i] - x0) + (ring[2 * i + 1] - y0) * (ring[2 * i + 1] - y0)
            if d > farDistance { far = i; farDistance = d }
        }
        let (x1, y1) = (ring[2 * far], ring[2 * far + 1])
        var side = 0, sideDistance = -1.0
        for i in 1..<(n - 1) where i != far {
            let d = abs((x1 - x0) * (ring[2 * i + 1] - y0) - (y1 - y0) * (ring[2 * i] - x0))
            if d > sideDistance { side = i; sideDistance = d }
        }
        guard sideDistance > 0 else { return ring }
        let order = far < side ? [0, far, side] : [0, side, far]
        return order.flatMap { [ring[2 * $0], ring[2 * $0 + 1]] } + [x0, y0]
    }
}
