/// Finding the boundary segments near a point, through the table's own index: the basis of the
/// edge zone and of margins (distance to a border).
extension RegionTable {
    /// The nearest segment to the quantised point (x, y) within `radius` quanta, among arcs for
    /// which `accept(arc)` is true; nil when there is none. Distances are measured in metres on a
    /// local plane (longitude quanta scaled by cos(latitude)).
    package func nearestSegment(toX x: Int64, y: Int64, radius: Int64, accept: (Int) -> Bool) -> (arc: Int, metres: Double)? {
        UnitLookup(self, jumpDepth: nil).nearestSegment(toX: x, y: y, radius: radius, accept: accept)
    }

    /// Every arc with a segment within `radius` quanta of (x, y), with its distance in metres
    /// (local plane), in arc order; one index walk serves all levels.
    package func arcsNear(x: Int64, y: Int64, radius: Int64) -> [(arc: Int, metres: Double)] {
        var nearest: [Int: Double] = [:]
        UnitLookup(self, jumpDepth: nil).visitArcsNear(x: x, y: y, radius: radius) { arc, metres in
            nearest[arc] = min(nearest[arc] ?? metres, metres)
        }
        return nearest.sorted { $0.key < $1.key }.map { (arc: $0.key, metres: $0.value) }
    }

    /// Distance from (0, 0) to the segment (ax, ay)–(bx, by).
    @inline(__always)
    static func distanceToOrigin(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        var t = length2 > 0 ? -(ax * dx + ay * dy) / length2 : 0
        t = min(1, max(0, t))
        let ex = ax + t * dx, ey = ay + t * dy
        return (ex * ex + ey * ey).squareRoot()
    }
}

extension UnitLookup {
    /// ``RegionTable/nearestSegment(toX:y:radius:accept:)``.
    @inline(__always)
    func nearestSegment(toX x: Int64, y: Int64, radius: Int64, accept: (Int) -> Bool) -> (arc: Int, metres: Double)? {
        var best: (arc: Int, metres: Double)?
        visitArcsNear(x: x, y: y, radius: radius) { arc, metres in
            // Ties go to the lower arc, so the answer does not depend on the walk's order.
            if accept(arc), best.map({ metres < $0.metres || (metres == $0.metres && arc < $0.arc) }) ?? true { best = (arc, metres) }
        }
        return best
    }

    /// Calls `visit(arc, metres)` for every chunk with a segment within `radius` quanta of
    /// (x, y): the chunk's arc and the distance of its nearest segment (metres, local plane).
    /// An arc may be visited several times (once per chunk, and again from each leaf that lists
    /// the chunk), so callers keep minima. Allocates nothing: the walk's stack is temporary.
    @inline(__always)
    func visitArcsNear(x: Int64, y: Int64, radius: Int64, _ visit: (Int, Double) -> Void) {
        let metresPerQuantum = 111_320 * TableFormat.quantum
        let cosine = cosineOfLatitude(Double(y) * TableFormat.quantum)
        // The box in x must reach `radius` metres east–west, which is more quanta at high latitude.
        let radiusX = Int64((Double(radius) / max(cosine, 0.05)).rounded(.up))
        let x0 = x - radiusX, x1 = x + radiusX, y0 = y - radius, y1 = y + radius
        let limit = Double(radius) * metresPerQuantum
        let boxed = !chunkBoxes.isEmpty
        // A segment with both ends beyond the same side of the box is farther than the radius (by
        // at least a quantum, so no rounding can bring it within): skipped before measuring. East
        // and west only where the box's x reach covers the radius (not beyond the cosine's floor).
        let skipX = boxed && Double(radiusX) * cosine >= Double(radius)
        // The walk starts from the jump table's nodes that the box overlaps (each once), when it
        // overlaps at most `starts` of its cells; else from the root. Each split pops one cell and
        // pushes four, and no split lies at the index depth D or below: the stack never holds more
        // than the starts plus 3 per level. Its entries (node, cell corner from the origin, log2
        // size) are 16 bytes, so that for D ≤ 19 the stack takes at most 1 KiB and is made on the
        // thread's stack (larger temporary allocations go to the heap: a malloc per search).
        let starts = 4
        withUnsafeTemporaryAllocation(of: (node: UInt32, rx: UInt32, ry: UInt32, log2: UInt32).self, capacity: starts + 3 * table.indexDepth + 1) { stack in
            var top = 0
            let rootSize = Int64(1) << rootLog2, cellLog2 = rootLog2 - jumpDepth
            stack[0] = (0, 0, 0, UInt32(rootLog2))
            top = 1
            // (A negative radius gives an empty box: no cell to start from but the root.)
            if !jump.isEmpty, x0 <= x1, y0 <= y1, x1 >= originX, x0 < originX + rootSize, y1 >= originY, y0 < originY + rootSize {
                let i0 = (max(x0, originX) - originX) >> cellLog2, i1 = (min(x1, originX + rootSize - 1) - originX) >> cellLog2
                let j0 = (max(y0, originY) - originY) >> cellLog2, j1 = (min(y1, originY + rootSize - 1) - originY) >> cellLog2
                if (i1 - i0 + 1) * (j1 - j0 + 1) <= starts {
                    top = 0
                    for j in j0...j1 {
                        for i in i0...i1 {
                            let entry = jump[Int(j << jumpDepth | i)]
                            let depth = Int64(entry & 0xFF), up = jumpDepth - depth
                            // The node's cell covers jump cells from (i >> up << up); push it from the first of them in the box.
                            guard i == max(i0, (i >> up) << up), j == max(j0, (j >> up) << up) else { continue }
                            stack[top] = (UInt32(entry >> 8), UInt32((i >> up) << (rootLog2 - depth)), UInt32((j >> up) << (rootLog2 - depth)), UInt32(rootLog2 - depth))
                            top += 1
                        }
                    }
                }
            }
            vertices.withUnsafeBufferPointer { v in
                while top > 0 {
                    top -= 1
                    let (cell, rx, ry, log2) = stack[top]
                    let node = Int(cell), ox = originX + Int64(rx), oy = originY + Int64(ry), size = Int64(1) << Int64(log2)
                    guard ox <= x1, ox + size > x0, oy <= y1, oy + size > y0 else { continue }
                    let raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: node * 4, as: UInt32.self))
                    switch raw >> 30 {
                    case 1:
                        let first = raw & IndexNode.payloadMask, half = UInt32(1) << (log2 - 1)
                        for child in 0..<4 {
                            stack[top] = (first + UInt32(child), rx + (child & 1 == 0 ? 0 : half), ry + (child & 2 == 0 ? 0 : half), log2 - 1)
                            top += 1
                        }
                    case 0:
                        continue
                    default:
                        var position = Int(raw & IndexNode.payloadMask)
                        // Validated at load: the leaf's varints are complete and its chunk ids in range.
                        let count = Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
                        var chunk = 0
                        for _ in 0..<count {
                            chunk += Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
                            // A chunk whose box lies outside the search box has no segment near enough.
                            if boxed, Int64(chunkBoxes[4 * chunk]) > y1 || Int64(chunkBoxes[4 * chunk + 1]) < y0
                                || Int64(chunkBoxes[4 * chunk + 3]) < x0 || Int64(chunkBoxes[4 * chunk + 2]) > x1 { continue }
                            var i = Int(chunkStart[chunk])
                            let last = i + Int(chunkSegments[chunk])
                            var nearest = Double.infinity
                            var qx = Int64(v[2 * i]), qy = Int64(v[2 * i + 1])
                            while i < last {
                                let rx = Int64(v[2 * i + 2]), ry = Int64(v[2 * i + 3])
                                if !boxed || !((qy > y1 && ry > y1) || (qy < y0 && ry < y0) || (skipX && ((qx > x1 && rx > x1) || (qx < x0 && rx < x0)))) {
                                    nearest = min(nearest, RegionTable.distanceToOrigin(Double(qx - x) * cosine, Double(qy - y), Double(rx - x) * cosine, Double(ry - y)))
                                }
                                (qx, qy) = (rx, ry)
                                i += 1
                            }
                            let metres = nearest * metresPerQuantum
                            if metres <= limit { visit(Int(chunkArc[chunk]), metres) }
                        }
                    }
                }
            }
        }
    }
}

/// cos(φ) for φ in degrees, by the same polynomial the datum uses (no libm dependence).
func cosineOfLatitude(_ degrees: Double) -> Double {
    let r = degrees * Double.pi / 180
    // |r| ≤ π/2: Taylor to r^16 is within 1e-9, plenty for scaling distances.
    let r2 = r * r
    var c = 1.0 / 20_922_789_888_000
    c = c * r2 - 1.0 / 87_178_291_200
    c = c * r2 + 1.0 / 479_001_600
    c = c * r2 - 1.0 / 3_628_800
    c = c * r2 + 1.0 / 40_320
    c = c * r2 - 1.0 / 720
    c = c * r2 + 1.0 / 24
    c = c * r2 - 0.5
    c = c * r2 + 1
    return max(0, c)
}
