/// Douglas–Peucker simplification of a polyline in a plane (map pixels or degrees): the fewest
/// vertices whose line stays within `tolerance` of the original, end points kept. Iterative (an
/// explicit stack), so a coast of a million vertices cannot overflow the call stack.
enum LineSimplifier {
    static func simplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        keptIndices(points, tolerance: tolerance).map { points[$0] }
    }

    /// The indices of the points ``simplify(_:tolerance:)`` keeps, in order.
    static func keptIndices(_ points: [(x: Double, y: Double)], tolerance: Double) -> [Int] {
        guard points.count > 2 else { return Array(points.indices) }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        let squared = tolerance * tolerance
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = points[first], b = points[last]
            let dx = b.x - a.x, dy = b.y - a.y, length = dx * dx + dy * dy
            var farthest = -1, distance = squared
            for k in first + 1..<last {
                let p = points[k]
                var t = length > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / length : 0
                t = min(1, max(0, t))
                let ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y
                let d = ex * ex + ey * ey
                if d > distance { distance = d; farthest = k }
            }
            if farthest >= 0 {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return points.indices.filter { keep[$0] }
    }

    /// A closed ring (first point repeated at the end) simplified with its first point and the
    /// point farthest from it fixed, so the ring cannot collapse to a line; nil when fewer than
    /// four points (a triangle) remain.
    static func simplifyRing(_ ring: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)]? {
        guard ring.count >= 4 else { return nil }
        let start = ring[0]
        var far = 0, best = -1.0
        for (k, p) in ring.enumerated() {
            let d = (p.x - start.x) * (p.x - start.x) + (p.y - start.y) * (p.y - start.y)
            if d > best { best = d; far = k }
        }
        guard far > 0, far < ring.count - 1 else { return nil }
        let first = simplify(Array(ring[0...far]), tolerance: tolerance)
        let second = simplify(Array(ring[far...]), tolerance: tolerance)
        let result = first + second.dropFirst()
        return result.count >= 4 ? result : nil
    }
}
