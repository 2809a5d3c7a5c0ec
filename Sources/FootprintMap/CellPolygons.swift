import Unlocks

/// Explored cells merged into polygons: each 4-connected group of cells becomes one polygon, its
/// outer ring counterclockwise and its holes clockwise (RFC 7946), with edges along parallels
/// (row boundaries) and meridians (column boundaries), so a walk of a thousand cells is a few
/// dozen vertices instead of a thousand squares.
///
/// Rows of the grid have different column counts, so columns do not line up from one row to the
/// next: a row's cells are first joined into runs, runs of neighbouring rows that share a stretch
/// of parallel are joined into groups, and the boundary is traced edge by edge, each edge linked
/// only to edges of its own group: cells of two groups touching at a corner stay two polygons.
/// Where one group touches itself at a corner (around a hole or a bay), the trace turns right,
/// so every ring is simple and such a hole touches its outer ring at that one point, as the
/// simple-features rules for polygons allow.
public enum CellPolygons {
    /// A polygon: rings of (longitude, latitude) degrees, each closed (last point = first), the
    /// outer ring first.
    public typealias Polygon = [[(longitude: Double, latitude: Double)]]

    /// The polygons of `keys` (``ExploredGrid`` cell keys, any order, no duplicates needed).
    public static func polygons<Keys: Sequence>(of keys: Keys) -> [Polygon] where Keys.Element == Int64 {
        let sorted = Array(Set(keys)).sorted()
        guard !sorted.isEmpty else { return [] }

        // Runs of consecutive columns per row, as longitude intervals.
        var runs: [Run] = []
        var rowRuns: [Int64: Range<Int>] = [:]
        var i = 0
        while i < sorted.count {
            let (row, first) = ExploredGrid.cell(ofKey: sorted[i])
            let columns = ExploredGrid.columnCount(row: row)
            var last = first
            var j = i + 1
            while j < sorted.count {
                let (r, c) = ExploredGrid.cell(ofKey: sorted[j])
                guard r == row, c == last + 1 else { break }
                last = c
                j += 1
            }
            let start = rowRuns[row]?.lowerBound ?? runs.count
            runs.append(Run(row: row, west: boundary(first, columns), east: boundary(last + 1, columns)))
            rowRuns[row] = start..<runs.count
            i = j
        }

        // Groups: runs of neighbouring rows sharing a stretch of parallel (union–find).
        var parent = Array(runs.indices)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        for (row, range) in rowRuns {
            guard let above = rowRuns[row + 1] else { continue }
            var a = above.lowerBound
            for b in range {
                while a < above.upperBound, runs[a].east <= runs[b].west { a += 1 }
                var k = a
                while k < above.upperBound, runs[k].west < runs[b].east {
                    let x = find(b), y = find(k)
                    if x != y { parent[max(x, y)] = min(x, y) }
                    k += 1
                }
            }
        }

        // Directed boundary edges, interior on the left.
        var edges: [Edge] = []
        func vertex(_ row: Int64, _ longitude: Double) -> Vertex { Vertex(boundaryRow: row, longitudeBits: longitude.bitPattern) }
        for (index, run) in runs.enumerated() {
            let group = find(index)
            edges.append(Edge(from: vertex(run.row + 1, run.west), to: vertex(run.row, run.west), direction: 3, group: group))
            edges.append(Edge(from: vertex(run.row, run.east), to: vertex(run.row + 1, run.east), direction: 1, group: group))
        }
        // Horizontal edges on each parallel between row k − 1 (below) and row k (above): where
        // exactly one side is explored.
        var parallels = Set<Int64>()
        for row in rowRuns.keys { parallels.insert(row); parallels.insert(row + 1) }
        for k in parallels.sorted() {
            let below = rowRuns[k - 1].map { Array(runs.indices[$0]) } ?? []
            let above = rowRuns[k].map { Array(runs.indices[$0]) } ?? []
            var breaks = Set<Double>()
            for r in below + above { breaks.insert(runs[r].west); breaks.insert(runs[r].east) }
            let xs = breaks.sorted()
            var b = 0, a = 0
            for (x0, x1) in zip(xs, xs.dropFirst()) {
                while b < below.count, runs[below[b]].east <= x0 { b += 1 }
                while a < above.count, runs[above[a]].east <= x0 { a += 1 }
                let inBelow = b < below.count && runs[below[b]].west <= x0
                let inAbove = a < above.count && runs[above[a]].west <= x0
                if inBelow && !inAbove {
                    edges.append(Edge(from: vertex(k, x1), to: vertex(k, x0), direction: 2, group: find(below[b])))
                } else if inAbove && !inBelow {
                    edges.append(Edge(from: vertex(k, x0), to: vertex(k, x1), direction: 0, group: find(above[a])))
                }
            }
        }

        // Trace rings.
        var outgoing: [Vertex: [Int]] = [:]
        for (index, edge) in edges.enumerated() { outgoing[edge.from, default: []].append(index) }
        var used = [Bool](repeating: false, count: edges.count)
        var ringsByGroup: [Int: [[(longitude: Double, latitude: Double)]]] = [:]
        var latitudeOf: [Int64: Double] = [:]
        func latitude(_ k: Int64) -> Double {
            if let known = latitudeOf[k] { return known }
            let value = ExploredGrid.latitude(meridianDistance: Double(k) * ExploredGrid.cellSize)
            latitudeOf[k] = value
            return value
        }
        for start in edges.indices where !used[start] {
            var ring: [(longitude: Double, latitude: Double)] = []
            var current = start
            var previousDirection = -1
            while !used[current] {
                used[current] = true
                let edge = edges[current]
                if edge.direction != previousDirection {
                    ring.append((Double(bitPattern: edge.from.longitudeBits), latitude(edge.from.boundaryRow)))
                }
                previousDirection = edge.direction
                let candidates = (outgoing[edge.to] ?? []).filter { !used[$0] && edges[$0].group == edge.group }
                guard let next = [3, 0, 1].lazy.compactMap({ turn in candidates.first { edges[$0].direction == (edge.direction + turn) % 4 } }).first
                    ?? (outgoing[edge.to] ?? []).first(where: { $0 == start }) else { break }
                current = next
            }
            // The start vertex is kept unless the ring's last edge runs on in the same direction.
            if edges[start].direction == previousDirection, ring.count > 1 { ring.removeFirst() }
            ring.append(ring[0])
            ringsByGroup[edges[start].group, default: []].append(ring)
        }

        // One polygon per group: its counterclockwise ring, then its holes.
        return ringsByGroup.keys.sorted().map { group in
            let rings = ringsByGroup[group]!
            let outer = rings.filter { signedArea($0) > 0 }
            let holes = rings.filter { signedArea($0) <= 0 }
            return outer + holes
        }
    }

    /// Consecutive explored cells of one row, as a longitude interval.
    struct Run { var row: Int64; var west: Double; var east: Double }
    /// A corner: a row boundary (the parallel south of that row) and a longitude, compared exactly.
    struct Vertex: Hashable { var boundaryRow: Int64; var longitudeBits: UInt64 }
    /// A directed boundary edge with the explored side on its left. Direction: 0 east, 1 north,
    /// 2 west, 3 south. `group` is the 4-connected group whose cells it bounds.
    struct Edge { var from: Vertex; var to: Vertex; var direction: Int; var group: Int }

    /// Longitude of the western edge of column `column` in a row of `columns` columns. The same
    /// fraction gives the same Double whatever the row (360·c/n is correctly rounded), so edges of
    /// neighbouring rows meet exactly where their columns do.
    static func boundary(_ column: Int64, _ columns: Int64) -> Double {
        Double(360 * column) / Double(columns) - 180
    }

    /// Shoelace area in degrees² (for orientation only).
    static func signedArea(_ ring: [(longitude: Double, latitude: Double)]) -> Double {
        var sum = 0.0
        for (p, q) in zip(ring, ring.dropFirst()) { sum += p.longitude * q.latitude - q.longitude * p.latitude }
        return sum / 2
    }
}
