import CGEOS
import Foundation

extension WorldTableBuilder {
    /// A sliver nobody claims that borders two or more countries, cut among them: each triangle of
    /// the face (``cut(_:owner:)``) goes to the country whose source outline is nearest its
    /// centroid. On China's datum seam (a gap spanning a tripoint) China is not among them: its
    /// converted line is the surveyed one, so the gap lies outside China. Given whole to the
    /// neighbour along most of its outline, a gap reaching from India-Nepal's line to India's tip
    /// answered India 12.7 km from India's outline (issue 23). `neighbours` index `outlines`.
    static func splitAmongNeighbours(_ face: Geometry, neighbours: [Int], outlines: [PreparedGeometry],
                                     context: GEOSContext) throws -> [(triangle: Geometry, owner: Int)]? {
        try cut(face) { triangle in
            let (cx, cy) = try triangle.centroid().pointXY()
            let centre = try context.point(x: cx, y: cy)
            var nearest = neighbours[0], nearestDistance = Double.infinity
            for c in neighbours {
                let d = try outlines[c].distance(to: centre)
                if d < nearestDistance { nearest = c; nearestDistance = d }
            }
            return nearest
        }
    }

    /// The face cut into triangles (GEOS's constrained Delaunay triangulation, corners only at
    /// the face's own vertices), each with the owner `owner` gives it. The triangles add no
    /// vertex, so the faces around stay noded vertex for vertex (the coverage union per country
    /// and ``CoverageTopology`` need that). Nil when GEOS's triangulation is not an exact cut of
    /// the face (a triangle without area, a corner that is not a vertex of the face, a vertex left
    /// out, or areas that do not add up): the caller then keeps the face whole.
    static func cut(_ face: Geometry, owner: (Geometry) throws -> Int) throws -> [(triangle: Geometry, owner: Int)]? {
        struct Corner: Hashable { var x: UInt64, y: UInt64 }
        func corners(_ polygon: Geometry) throws -> Set<Corner> {
            var set = Set<Corner>()
            for ring in try polygon.polygonRings() {
                for k in stride(from: 0, to: ring.count, by: 2) { set.insert(Corner(x: ring[k].bitPattern, y: ring[k + 1].bitPattern)) }
            }
            return set
        }
        let faceCorners = try corners(face)
        var used = Set<Corner>()
        var total = 0.0
        var result: [(triangle: Geometry, owner: Int)] = []
        for triangle in try face.constrainedTriangles().parts() {
            guard triangle.typeID == GEOS_POLYGON.rawValue else { return nil }
            let area = try triangle.area()
            let mine = try corners(triangle)
            guard area > 0, mine.isSubset(of: faceCorners) else { return nil }
            used.formUnion(mine)
            total += area
            result.append((triangle, try owner(triangle)))
        }
        let faceArea = try face.area()
        guard used == faceCorners, abs(total - faceArea) <= 1e-9 * faceArea else { return nil }
        return result
    }

    /// True when every point of `face` lies within `reach` (degrees of latitude) of `outline`: the
    /// face lies in the buffer of the face's own outer-ring runs within `touching` of the outline
    /// (the face meets its neighbour only there; leaving out the rest of the outline can only make
    /// the answer false, and the buffer's polygon lies inside the true one, so a face judged near
    /// enough is), on a plane with longitudes scaled by the cosine of the face's latitude. False
    /// when no two consecutive vertices of the ring touch the outline.
    static func lies(_ face: Geometry, within reach: Double, of outline: PreparedGeometry, touching: Double,
                     context: GEOSContext) throws -> Bool {
        let rings = try face.polygonRings(), ring = rings[0]
        let count = ring.count / 2 - 1  // closed: the last vertex is the first
        guard count >= 2 else { return false }
        var near = [Bool](repeating: false, count: count)
        for k in 0..<count {
            near[k] = try outline.distance(to: try context.point(x: ring[2 * k], y: ring[2 * k + 1])) < touching
        }
        // Runs of touching vertices, as lines; a run through the ring's first vertex is one run.
        var runs: [[Double]] = []
        if let start = near.firstIndex(of: false) {
            var current: [Double] = []
            for step in 1...count {
                let k = (start + step) % count
                if near[k] {
                    current += [ring[2 * k], ring[2 * k + 1]]
                } else {
                    if current.count >= 4 { runs.append(current) }
                    current = []
                }
            }
            if current.count >= 4 { runs.append(current) }
        } else {
            runs = [ring]
        }
        guard !runs.isEmpty else { return false }
        let cosine = cos(try face.pointOnSurface().pointXY().1 * Double.pi / 180)
        func scaled(_ line: [Double]) -> [Double] { line.enumerated().map { $0.offset % 2 == 0 ? $0.element * cosine : $0.element } }
        let plane = try context.polygon(rings.map(scaled))
        let zone = try context.multiLineString(runs.map(scaled)).buffer(reach)
        return try plane.difference(zone).area() <= 1e-9 * (try plane.area())
    }
}
