import CGEOS
import Foundation

extension WorldTableBuilder {
    /// A sliver nobody claims that borders two or more countries, cut among them: each triangle of
    /// the face (``cut(_:owner:)``) goes to the country whose source outline is nearest its
    /// centroid; with a `reach` (degrees of latitude; China's datum seam, whose gaps are up to
    /// 2 km wide), only if every point of it lies within the reach of that outline, else to the
    /// next nearest that it does, and a triangle within reach of none stays in no country (owner
    /// −1), as the source has it. (Without: a sliver no wider than the land tolerance, every point
    /// of which is within it of a claimed border.) On China's datum seam (a gap spanning a
    /// tripoint) China is not among them: its converted line is the surveyed one, so the gap lies
    /// outside China. Given whole to the neighbour along most of its outline, a gap reaching from
    /// India-Nepal's line to India's tip answered India 12.7 km from India's outline (issue 23);
    /// cut by nearest outline alone, a triangle of the China–India–Myanmar gap at 27.78 N 97.10 E
    /// answered Myanmar 1,132 m from Myanmar (issue 33). `neighbours` index `outlines`.
    static func splitAmongNeighbours(_ face: Geometry, neighbours: [Int], outlines: [PreparedGeometry], reach: Double?,
                                     context: GEOSContext) throws -> [(triangle: Geometry, owner: Int)]? {
        try cut(face) { triangle in
            let (cx, cy) = try triangle.centroid().pointXY()
            let centre = try context.point(x: cx, y: cy)
            let byDistance = try neighbours.map { ($0, try outlines[$0].distance(to: centre)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            guard let reach else { return byDistance[0].0 }
            for (c, _) in byDistance where try lies(triangle, within: reach, of: outlines[c].base, context: context) { return c }
            return -1
        }
    }

    /// True when every point of `polygon` lies within `reach` (degrees of latitude) of `outline`
    /// (lines): the polygon lies in the buffer of the outline clipped to the polygon's box grown
    /// by the reach, on a plane with longitudes scaled by the cosine of the polygon's latitude
    /// (the buffer's polygon lies inside the true one, so a polygon judged near enough is).
    static func lies(_ polygon: Geometry, within reach: Double, of outline: Geometry, context: GEOSContext) throws -> Bool {
        let (x0, y0, x1, y1) = try polygon.bounds()
        let cosine = cos((y0 + y1) / 2 * Double.pi / 180)
        // Farther than the reach east–west at the box's most poleward latitude, so no line that matters is cut away.
        let rx = reach / max(0.01, cos(max(abs(y0), abs(y1)) * Double.pi / 180))
        let near = try outline.clipped(x0: x0 - rx, y0: y0 - reach, x1: x1 + rx, y1: y1 + reach)
        guard !near.isEmpty else { return false }
        func scaled(_ line: [Double]) -> [Double] { line.enumerated().map { $0.offset % 2 == 0 ? $0.element * cosine : $0.element } }
        let isLine = { (g: Geometry) in g.typeID == GEOS_LINESTRING.rawValue || g.typeID == GEOS_LINEARRING.rawValue }
        let lines = try near.parts().flatMap { part in isLine(part) ? [part] : try part.parts().filter(isLine) }
            .map { scaled(try $0.coordinates()) }.filter { $0.count >= 4 }
        guard !lines.isEmpty else { return false }
        let plane = try context.polygon(try polygon.polygonRings().map(scaled))
        let zone = try context.multiLineString(lines).buffer(reach)
        return try plane.difference(zone).area() <= 1e-9 * (try plane.area())
    }

    /// True when every point of `face` lies within `reach` (degrees of latitude) of `region`
    /// (polygons): the parts of the face outside the region each lie within the reach of the
    /// region's `outline` (``lies(_:within:of:context:)``). The region is clipped to the face's
    /// box grown by the reach first, so a large region costs no more than the face.
    static func lies(_ face: Geometry, within reach: Double, ofRegion region: Geometry, outline: PreparedGeometry,
                     context: GEOSContext) throws -> Bool {
        let (x0, y0, x1, y1) = try face.bounds()
        let rx = reach / max(0.01, cos(max(abs(y0), abs(y1)) * Double.pi / 180))
        let near = try region.clipped(x0: x0 - rx, y0: y0 - reach, x1: x1 + rx, y1: y1 + reach).polygonalPart()
        let outside = try face.difference(near).polygonalPart()
        let faceArea = try face.area()
        for part in try outside.parts() where try part.area() > 1e-9 * faceArea {
            guard try lies(part, within: reach, of: outline.base, context: context) else { return false }
        }
        return true
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
