/// Clipping to an axis-aligned box, so a close-up carries only what it shows.
enum PolygonClipping {
    typealias Point = (x: Double, y: Double)

    /// A ring clipped to `box` (Sutherland–Hodgman, one side at a time). A concave ring that
    /// leaves and re-enters the box comes back as one ring joined along the box's edge: for a
    /// fill (the page's use) those joins have no area. Empty when the ring misses the box.
    static func clip(_ ring: [Point], to box: RegionLayers.Box) -> [Point] {
        var points = ring
        if let first = points.first, let last = points.last, first == last { points.removeLast() }
        let sides: [(inside: (Point) -> Bool, cut: (Point, Point) -> Point)] = [
            ({ $0.x >= box.minX }, { at(x: box.minX, $0, $1) }),
            ({ $0.x <= box.maxX }, { at(x: box.maxX, $0, $1) }),
            ({ $0.y >= box.minY }, { at(y: box.minY, $0, $1) }),
            ({ $0.y <= box.maxY }, { at(y: box.maxY, $0, $1) }),
        ]
        for side in sides {
            guard let lastPoint = points.last else { return [] }
            var output: [Point] = []
            output.reserveCapacity(points.count + 4)
            var previous = lastPoint
            for current in points {
                let currentInside = side.inside(current), previousInside = side.inside(previous)
                if currentInside {
                    if !previousInside { output.append(side.cut(previous, current)) }
                    output.append(current)
                } else if previousInside {
                    output.append(side.cut(previous, current))
                }
                previous = current
            }
            points = output
        }
        return points
    }

    /// The pieces of a polyline inside `box` (each segment cut by Liang–Barsky; consecutive
    /// segments that stay inside continue one piece).
    static func clipLine(_ line: [Point], to box: RegionLayers.Box) -> [[Point]] {
        var pieces: [[Point]] = []
        var current: [Point] = []
        for (a, b) in zip(line, line.dropFirst()) {
            guard let (p, q) = clipSegment(a, b, to: box) else {
                if current.count >= 2 { pieces.append(current) }
                current = []
                continue
            }
            if let last = current.last, last == p {
                current.append(q)
            } else {
                if current.count >= 2 { pieces.append(current) }
                current = [p, q]
            }
            if q != b {
                pieces.append(current)
                current = []
            }
        }
        if current.count >= 2 { pieces.append(current) }
        return pieces
    }

    static func clipSegment(_ a: Point, _ b: Point, to box: RegionLayers.Box) -> (Point, Point)? {
        let dx = b.x - a.x, dy = b.y - a.y
        var t0 = 0.0, t1 = 1.0
        for (p, q) in [(-dx, a.x - box.minX), (dx, box.maxX - a.x), (-dy, a.y - box.minY), (dy, box.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return nil }
            }
        }
        let start = t0 == 0 ? a : (a.x + t0 * dx, a.y + t0 * dy)
        let end = t1 == 1 ? b : (a.x + t1 * dx, a.y + t1 * dy)
        return (start, end)
    }

    static func at(x: Double, _ a: Point, _ b: Point) -> Point {
        (x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    static func at(y: Double, _ a: Point, _ b: Point) -> Point {
        (a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y)
    }
}
