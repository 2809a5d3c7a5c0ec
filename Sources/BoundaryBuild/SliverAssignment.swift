import CGEOS

extension WorldTableBuilder {
    /// A sliver nobody claims that borders two or more countries, cut among them: each triangle of
    /// the face (GEOS's constrained Delaunay triangulation, corners only at the face's own
    /// vertices) goes to the country whose source outline is nearest its centroid. On China's
    /// datum seam (a gap spanning a tripoint) China is not among them: its converted line is the
    /// surveyed one, so the gap lies outside China. Given whole to the neighbour along most of its
    /// outline, a gap reaching from India-Nepal's line to India's tip answered India 12.7 km from
    /// India's outline, and in the international view a sliver between Egypt's and Bir Tawil's
    /// copies of their shared edge went to Sudan, which touches it only at the tripoints, 9–29 km
    /// from Sudan's outline (issue 23).
    ///
    /// The triangles add no vertex, so the faces around the gap stay noded vertex for vertex (the
    /// coverage union per country and ``CoverageTopology`` need that). Nil when GEOS's
    /// triangulation is not an exact cut of the face (a triangle without area, a corner that is
    /// not a vertex of the face, a vertex left out, or areas that do not add up): the caller then
    /// gives the face whole, as before.
    ///
    /// `neighbours` index `outlines`; the result pairs each triangle with its neighbour.
    static func splitAmongNeighbours(_ face: Geometry, neighbours: [Int], outlines: [PreparedGeometry],
                                     context: GEOSContext) throws -> [(triangle: Geometry, owner: Int)]? {
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
            let (cx, cy) = try triangle.centroid().pointXY()
            let centre = try context.point(x: cx, y: cy)
            var nearest = neighbours[0], nearestDistance = Double.infinity
            for c in neighbours {
                let d = try outlines[c].distance(to: centre)
                if d < nearestDistance { nearest = c; nearestDistance = d }
            }
            result.append((triangle, nearest))
        }
        let faceArea = try face.area()
        guard used == faceCorners, abs(total - faceArea) <= 1e-9 * faceArea else { return nil }
        return result
    }

    /// How far the point of `face` most remote from `outline` lies from it (degrees, GEOS's
    /// largest empty circle to within `tolerance`). The outline is stood for by the runs of the
    /// face's own outer ring within `touching` of it (GEOS wants obstacles the face covers): the
    /// face meets its neighbour only there, and leaving out the rest of the outline can only make
    /// the distance larger, so a face judged near enough is. Infinity when no two consecutive
    /// vertices of the ring touch the outline.
    static func farthestDistance(of face: Geometry, from outline: PreparedGeometry, touching: Double, tolerance: Double,
                                 context: GEOSContext) throws -> Double {
        let ring = try face.polygonRings()[0]
        let count = ring.count / 2 - 1  // closed: the last vertex is the first
        guard count >= 2 else { return .infinity }
        var near = [Bool](repeating: false, count: count)
        for k in 0..<count {
            near[k] = try outline.distance(to: try context.point(x: ring[2 * k], y: ring[2 * k + 1])) < touching
        }
        // Runs of touching vertices, as lines; a run through the ring's first vertex is one run.
        guard let start = near.firstIndex(of: false) else {
            return try face.farthestDistance(from: try face.boundary(), tolerance: tolerance)
        }
        var runs: [[Double]] = [], current: [Double] = []
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
        guard !runs.isEmpty else { return .infinity }
        return try face.farthestDistance(from: try context.multiLineString(runs), tolerance: tolerance)
    }
}
