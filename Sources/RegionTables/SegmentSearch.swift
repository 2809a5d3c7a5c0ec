/// Finding the boundary segments near a point, through the table's own index: the basis of the
/// edge zone and of margins (distance to a border).
extension RegionTable {
    /// The nearest segment to the quantised point (x, y) within `radius` quanta, among arcs for
    /// which `accept(arc)` is true; nil when there is none. Distances are measured in metres on a
    /// local plane (longitude quanta scaled by cos(latitude)).
    public func nearestSegment(toX x: Int64, y: Int64, radius: Int64, accept: (Int) -> Bool) -> (arc: Int, metres: Double)? {
        var best: (arc: Int, metres: Double)?
        for (arc, metres) in arcsNear(x: x, y: y, radius: radius) where accept(arc) && metres < (best?.metres ?? .infinity) {
            best = (arc, metres)
        }
        return best
    }

    /// Every arc with a segment within `radius` quanta of (x, y), with its distance in metres
    /// (local plane), nearest first per arc; one index walk serves all levels.
    public func arcsNear(x: Int64, y: Int64, radius: Int64) -> [(arc: Int, metres: Double)] {
        let nodes = section(.indexNodes), leaves = section(.indexLeaves)
        let metresPerQuantum = 111_320 * TableFormat.quantum
        let cosine = cosineOfLatitude(Double(y) * TableFormat.quantum)
        // The box in x must reach `radius` metres east–west, which is more quanta at high latitude.
        let radiusX = Int64((Double(radius) / max(cosine, 0.05)).rounded(.up))
        let x0 = x - radiusX, x1 = x + radiusX, y0 = y - radius, y1 = y + radius
        var nearest: [Int: Double] = [:]
        var visitedChunks: [Int] = []
        var stack: [(node: Int, ox: Int64, oy: Int64, size: Int64)] = [(0, indexOriginX, indexOriginY, Int64(1) << Int64(indexRootLog2))]
        while let (node, ox, oy, size) = stack.popLast() {
            guard ox <= x1, ox + size > x0, oy <= y1, oy + size > y0 else { continue }
            let raw: UInt32 = Self.load(bytes, nodes.lowerBound + node * 4)
            switch raw >> 30 {
            case 1:
                let first = Int(raw & IndexNode.payloadMask), half = size / 2
                for child in 0..<4 {
                    stack.append((first + child, ox + (child & 1 == 0 ? 0 : half), oy + (child & 2 == 0 ? 0 : half), half))
                }
            case 0:
                continue
            default:
                var position = leaves.lowerBound + Int(raw & IndexNode.payloadMask)
                let count = Int(UnsignedVarint.read(bytes, &position, end: leaves.upperBound)!)
                var chunk = 0
                for _ in 0..<count {
                    chunk += Int(UnsignedVarint.read(bytes, &position, end: leaves.upperBound)!)
                    guard !visitedChunks.contains(chunk) else { continue }
                    visitedChunks.append(chunk)
                    let arc = Int(chunkArc[chunk])
                    var i = Int(chunkStart[chunk])
                    let last = i + Int(chunkSegments[chunk])
                    while i < last {
                        let ax = Double(Int64(vertices[2 * i]) - x) * cosine, ay = Double(Int64(vertices[2 * i + 1]) - y)
                        let bx = Double(Int64(vertices[2 * i + 2]) - x) * cosine, by = Double(Int64(vertices[2 * i + 3]) - y)
                        let d = Self.distanceToOrigin(ax, ay, bx, by) * metresPerQuantum
                        if d <= Double(radius) * metresPerQuantum, d < (nearest[arc] ?? .infinity) { nearest[arc] = d }
                        i += 1
                    }
                }
            }
        }
        return nearest.sorted { $0.key < $1.key }.map { (arc: $0.key, metres: $0.value) }
    }

    /// Distance from (0, 0) to the segment (ax, ay)–(bx, by).
    static func distanceToOrigin(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        var t = length2 > 0 ? -(ax * dx + ay * dy) / length2 : 0
        t = min(1, max(0, t))
        let ex = ax + t * dx, ey = ay + t * dy
        return (ex * ex + ey * ey).squareRoot()
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
