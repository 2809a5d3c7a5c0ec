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
    /// largest empty circle to within 1% of `reach`), exact enough to compare with `reach`: only
    /// the outline within twice `reach` of the face's box is used (a part farther away cannot be
    /// within `reach` of any point of the face), infinity when there is none.
    static func farthestDistance(of face: Geometry, from outline: Geometry, within reach: Double, context: GEOSContext) throws -> Double {
        let (west, south, east, north) = try face.bounds()
        let margin = 2 * reach
        let near = try outline.clipped(west: west - margin, south: south - margin, east: east + margin, north: north + margin)
        guard !near.isEmpty else { return .infinity }
        return try face.farthestDistance(from: near, tolerance: reach / 100)
    }
}
