import TextFormats

/// Simplifies a ``CoverageTopology`` arc by arc, in projected metres, so shared borders stay shared.
///
/// Every arc is simplified once (Douglas–Peucker with GEOS's topology-preserving simplifier over
/// all arcs together, so no simplified arc crosses another) and keeps its end points, which are
/// the junctions where three or more units, or a unit and the outside, meet.
public struct CoverageSimplifier {
    /// Simplified arcs: interleaved projected x, y per arc, same order as the topology's arcs.
    public private(set) var arcs: [[Double]] = []
    /// The same arcs before simplification (projected), for deviation measurements.
    public private(set) var originalArcs: [[Double]] = []
    /// For each arc, the indices (into the original arc) of the vertices the simplified arc kept.
    public private(set) var keptIndices: [[Int]] = []
    /// Closed arcs (islands, enclaves) the simplifier collapsed below a ring, kept as the smallest
    /// ring through their extreme vertices instead (a speck of land stays a speck, not nothing).
    public private(set) var collapsedRingsKept = 0

    /// `xs`, `ys` are every topology vertex in the (projected) plane the tolerance is measured in.
    public init(_ topology: CoverageTopology, projectedX xs: [Double], projectedY ys: [Double], tolerance: Double, context: GEOSContext) throws {
        try self.init(topology, projectedX: xs, projectedY: ys, tolerance: { _ in tolerance }, context: context)
    }

    /// Simplifies each arc with the tolerance `tolerance(arc)` gives it (arcs sharing a tolerance
    /// are simplified together, so they cannot cross one another).
    public init(_ topology: CoverageTopology, projectedX xs: [Double], projectedY ys: [Double], tolerance: (Int) -> Double, context: GEOSContext) throws {
        originalArcs = topology.arcs.map { arc in
            var xy: [Double] = []
            xy.reserveCapacity(arc.vertices.count * 2)
            for v in arc.vertices { xy.append(xs[Int(v)]); xy.append(ys[Int(v)]) }
            return xy
        }
        arcs = originalArcs
        keptIndices = originalArcs.map { Array(0..<($0.count / 2)) }
        var groups: [Double: [Int]] = [:]
        for index in originalArcs.indices { groups[tolerance(index), default: []].append(index) }
        for value in groups.keys.sorted() {
            try simplify(groups[value]!, tolerance: value, topology: topology, context: context)
        }
    }

    /// Simplifies arcs `members` again from their originals, together (so they cannot cross one
    /// another), at `tolerance`; 0 restores the originals. For arcs whose simplified form broke
    /// an invariant of the table (``GeometryRepair``).
    public mutating func resimplify(_ members: [Int], tolerance: Double, topology: CoverageTopology, context: GEOSContext) throws {
        try simplify(members, tolerance: tolerance, topology: topology, context: context)
    }

    private mutating func simplify(_ members: [Int], tolerance: Double, topology: CoverageTopology, context: GEOSContext) throws {
        guard tolerance > 0 else {
            for index in members {
                arcs[index] = originalArcs[index]
                keptIndices[index] = Array(0..<(originalArcs[index].count / 2))
            }
            return
        }
        let lines = try context.multiLineString(members.map { originalArcs[$0] }).simplifiedPreservingTopology(tolerance: tolerance).parts()
        guard lines.count == members.count else {
            throw GEOSError(operation: "topology-preserving simplify", message: "returned \(lines.count) lines for \(members.count) arcs")
        }
        for (k, index) in members.enumerated() {
            var xy = try lines[k].coordinates()
            let original = originalArcs[index]
            // End points must survive exactly: they are shared with other arcs.
            precondition(xy.count >= 4 && xy[0] == original[0] && xy[1] == original[1]
                         && xy[xy.count - 2] == original[original.count - 2] && xy[xy.count - 1] == original[original.count - 1],
                         "simplifier moved an arc's end point")
            if topology.arcs[index].isClosed && xy.count < 8 {
                xy = Self.triangle(original)
                collapsedRingsKept += 1
            }
            // Douglas–Peucker keeps a subsequence of the original vertices: find where each came from.
            var kept: [Int] = []
            var cursor = 0
            for k in stride(from: 0, to: xy.count, by: 2) {
                while cursor * 2 < original.count, original[2 * cursor] != xy[k] || original[2 * cursor + 1] != xy[k + 1] { cursor += 1 }
                precondition(cursor * 2 < original.count, "simplified arc is not a subsequence of the original")
                kept.append(cursor)
                cursor += 1
            }
            keptIndices[index] = kept
            arcs[index] = xy
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
