import RegionTables

#if canImport(Glibc)
import Glibc
#endif

/// Coarsens a table's coast where the coast tolerance allows it: an island that fits in a disc
/// of radius r ≤ the tolerance no longer needs its outline.
///
/// A candidate is a polygon whose outer ring is one closed arc with the outside on its other
/// side, and whose holes (if any) are such arcs too. Its disc (centre: the middle of the
/// original outline's bounding box; r: the farthest original vertex, metres) holds the whole
/// original polygon. Candidates are taken largest first:
///
/// - an island is **dropped** when boundary of its own unit that stays is within tolerance − r
///   of its centre (every point of the island is then within the tolerance of it), and no other
///   unit comes within that distance + 2r (so its own unit is the nearest from every point of it);
/// - otherwise it becomes a **speck**, a closed arc of one point at the centre that belongs to no
///   ring, when no other unit comes within 2r of the centre (every point of the island is within
///   r of the speck, and nearer to it than to any other unit);
/// - otherwise it is kept as it is.
///
/// "Other units" are measured to their outer boundary that is not a candidate and to the discs
/// of their candidates (a lower bound, whatever becomes of them); "boundary that stays" is the
/// non-candidate outer boundary plus the candidates already kept or specked.
///
/// Points on a dropped or specked island lie within the tolerance of their own unit's stored
/// outer boundary and nearer to it than to any other, so with a buffer ≥ the tolerance they are
/// `edge` for their own region, or `inside` it where its stored coast runs seaward of them. Arcs are renumbered; the specks go last,
/// unit by unit, west to east.
struct SmallIslands {
    private(set) var dropped = 0, specks = 0
    /// The largest deviation introduced (metres): the distance bound of dropped islands, r plus
    /// the rounding to the step grid for specks.
    private(set) var worstDeviation = 0.0

    static let metresPerQuantum = 111_320 * TableFormat.quantum

    /// The disc around an original ring (interleaved longitude, latitude): centre the middle of its
    /// bounding box, in quanta; radius the farthest vertex from it, metres.
    static func disc(_ o: [Double]) -> (x: Int64, y: Int64, radius: Double) {
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        for k in stride(from: 0, to: o.count, by: 2) { x0 = min(x0, o[k]); x1 = max(x1, o[k]); y0 = min(y0, o[k + 1]); y1 = max(y1, o[k + 1]) }
        let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
        let cosine = cos(cy * Double.pi / 180)
        var radius = 0.0
        for k in stride(from: 0, to: o.count, by: 2) {
            let dx = (o[k] - cx) * cosine, dy = o[k + 1] - cy
            radius = max(radius, (dx * dx + dy * dy).squareRoot() * 111_320)
        }
        return (Int64((cx / TableFormat.quantum).rounded()), Int64((cy / TableFormat.quantum).rounded()), radius)
    }

    /// - Parameters:
    ///   - originals: each arc's original (unsimplified) vertices, interleaved longitude, latitude.
    init(_ contents: inout TableContents, originals: [[Double]], tolerance: Double) {
        struct Candidate { var unit: Int; var rings: Range<Int>; var x: Int64; var y: Int64; var radius: Double }
        func arcOf(_ ring: TableContents.RingEntry) -> Int? {
            guard ring.references.count == 1 else { return nil }
            let reference = ring.references[0]
            let arc = Int(reference < 0 ? ~reference : reference)
            let entry = contents.arcs[arc]
            return entry.leftUnit < 0 || entry.rightUnit < 0 ? arc : nil
        }
        func disc(_ arc: Int) -> (x: Int64, y: Int64, radius: Double) { Self.disc(originals[arc]) }
        var candidates: [Candidate] = []
        var isCandidateArc = [Bool](repeating: false, count: contents.arcs.count)
        for (unit, rings) in contents.unitRings.enumerated() {
            var start = 0
            while start < rings.count {
                var end = start + 1
                while end < rings.count, rings[end].isHole { end += 1 }
                if !rings[start].isHole, let arc = arcOf(rings[start]), rings[start..<end].allSatisfy({ arcOf($0) != nil }) {
                    let d = disc(arc)
                    if d.radius <= tolerance {
                        candidates.append(Candidate(unit: unit, rings: start..<end, x: d.x, y: d.y, radius: d.radius))
                        for ring in rings[start..<end] { isCandidateArc[arcOf(ring)!] = true }
                    }
                }
                start = end
            }
        }
        var grid = SegmentGrid(cellLog2: 12)
        for (arc, entry) in contents.arcs.enumerated() where (entry.leftUnit < 0 || entry.rightUnit < 0) && !isCandidateArc[arc] {
            grid.insert(entry.vertices, unit: max(entry.leftUnit, entry.rightUnit))
        }
        for candidate in candidates { grid.insertDisc(x: candidate.x, y: candidate.y, radius: candidate.radius, unit: Int32(candidate.unit)) }
        candidates.sort { ($0.radius, $1.unit, $1.rings.lowerBound) > ($1.radius, $0.unit, $0.rings.lowerBound) }
        var removedArcs = Set<Int>()
        var removedRings = Set<Int64>()  // unit << 32 | ring
        var speckPoints: [(unit: Int32, x: Int32, y: Int32)] = []
        let step = Int64(contents.step)
        for candidate in candidates {
            let r = candidate.radius, unit = Int32(candidate.unit)
            let near = grid.nearest(x: candidate.x, y: candidate.y, within: tolerance + 2 * r + 1, unit: unit)
            let dropping = near.own + r <= tolerance && near.other > near.own + 2 * r
            guard dropping || near.other > 2 * r else {
                for ring in contents.unitRings[candidate.unit][candidate.rings] { grid.insert(contents.arcs[arcOf(ring)!].vertices, unit: unit) }
                continue
            }
            for k in candidate.rings {
                removedRings.insert(Int64(candidate.unit) << 32 | Int64(k))
                removedArcs.insert(arcOf(contents.unitRings[candidate.unit][k])!)
            }
            if dropping {
                dropped += 1
                worstDeviation = max(worstDeviation, near.own + r)
            } else {
                let sx = Int32((Double(candidate.x) / Double(step)).rounded()) * Int32(step)
                let sy = Int32((Double(candidate.y) / Double(step)).rounded()) * Int32(step)
                speckPoints.append((unit, sx, sy))
                grid.insert([sx, sy, sx, sy], unit: unit)
                specks += 1
                // The speck is at most half a step cell's diagonal (at the equator) from the centre.
                worstDeviation = max(worstDeviation, r + Double(step) * Self.metresPerQuantum * 0.7072)
            }
        }
        // Renumber the arcs that stay, then append the specks.
        var newIndex = [Int32](repeating: -1, count: contents.arcs.count)
        var arcs: [TableContents.ArcEntry] = []
        for (arc, entry) in contents.arcs.enumerated() where !removedArcs.contains(arc) {
            newIndex[arc] = Int32(arcs.count)
            arcs.append(entry)
        }
        speckPoints.sort { ($0.unit, $0.x, $0.y) < ($1.unit, $1.x, $1.y) }
        for speck in speckPoints {
            arcs.append(.init(vertices: [speck.x, speck.y, speck.x, speck.y], leftUnit: speck.unit, rightUnit: -1))
        }
        contents.arcs = arcs
        for unit in contents.unitRings.indices {
            contents.unitRings[unit] = contents.unitRings[unit].indices.filter { !removedRings.contains(Int64(unit) << 32 | Int64($0)) }.map { k in
                var ring = contents.unitRings[unit][k]
                ring.references = ring.references.map { $0 < 0 ? ~newIndex[Int(~$0)] : newIndex[Int($0)] }
                return ring
            }
        }
    }
}

/// Outer boundary segments filed in square cells, for "how far is the nearest segment of this
/// unit, and of any other" near a point (metres on a local plane).
struct SegmentGrid {
    let cellLog2: Int64
    private var cells: [Int64: [Int32]] = [:]
    /// The largest disc radius filed (metres): searches reach this much farther for discs.
    private var discReach = 0.0
    /// A disc is a zero-length segment with a radius (metres) taken off its distance.
    private var segments: [(ax: Int32, ay: Int32, bx: Int32, by: Int32, unit: Int32, radius: Double)] = []

    init(cellLog2: Int64) { self.cellLog2 = cellLog2 }

    private func key(_ cx: Int64, _ cy: Int64) -> Int64 { cx << 32 ^ (cy & 0xFFFF_FFFF) }

    /// Files the segments of `vertices` (interleaved x, y quanta). A segment is filed in the cells
    /// of points along it at most a cell apart, so any of its points is in or beside such a cell.
    mutating func insert(_ vertices: [Int32], unit: Int32) {
        let size = Int64(1) << cellLog2
        for k in stride(from: 0, to: vertices.count - 2, by: 2) {
            let id = Int32(segments.count)
            let ax = Int64(vertices[k]), ay = Int64(vertices[k + 1]), bx = Int64(vertices[k + 2]), by = Int64(vertices[k + 3])
            segments.append((vertices[k], vertices[k + 1], vertices[k + 2], vertices[k + 3], unit, 0))
            let samples = max(abs(bx - ax), abs(by - ay)) / size + 1
            var last: Int64?
            for s in 0...samples {
                let x = ax + (bx - ax) * s / samples, y = ay + (by - ay) * s / samples
                let cell = key(x >> cellLog2, y >> cellLog2)
                if cell != last { cells[cell, default: []].append(id) }
                last = cell
            }
        }
    }

    /// Files a disc of `radius` metres around quantised (x, y), which only counts for other units.
    mutating func insertDisc(x: Int64, y: Int64, radius: Double, unit: Int32) {
        cells[key(x >> cellLog2, y >> cellLog2), default: []].append(Int32(segments.count))
        discReach = max(discReach, radius)
        segments.append((Int32(x), Int32(y), Int32(x), Int32(y), unit, radius))
    }

    /// The distance (metres) from quantised (x, y) to the nearest segment of `unit` (discs aside)
    /// and to the nearest segment or disc of any other unit, each infinite when none is within
    /// `radius` metres (a disc counts by its centre's distance less its radius).
    func nearest(x: Int64, y: Int64, within radius: Double, unit: Int32) -> (own: Double, other: Double) {
        let cosine = max(cos(Double(y) * TableFormat.quantum * Double.pi / 180), 0.05)
        let ry = Int64(((radius + discReach) / SmallIslands.metresPerQuantum).rounded(.up)), rx = Int64((Double(ry) / cosine).rounded(.up))
        var own = Double.infinity, other = Double.infinity
        var seen = Set<Int32>()
        for cx in ((x - rx) >> cellLog2 - 1)...((x + rx) >> cellLog2 + 1) {
            for cy in ((y - ry) >> cellLog2 - 1)...((y + ry) >> cellLog2 + 1) {
                for id in cells[key(cx, cy)] ?? [] where seen.insert(id).inserted {
                    let s = segments[Int(id)]
                    let d = StoredArcs.distance(0, 0, Double(Int64(s.ax) - x) * cosine, Double(Int64(s.ay) - y),
                                                Double(Int64(s.bx) - x) * cosine, Double(Int64(s.by) - y)) * SmallIslands.metresPerQuantum
                    if s.unit != unit {
                        other = min(other, max(0, d - s.radius))
                    } else if s.radius == 0, d <= radius {
                        own = min(own, d)
                    }
                }
            }
        }
        return (own, other)
    }
}
