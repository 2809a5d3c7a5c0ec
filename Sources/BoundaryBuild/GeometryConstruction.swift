import CGEOS

/// Building GEOS geometries from flat coordinate arrays (x0, y0, x1, y1, …) and reading them back.
extension GEOSContext {
    /// A coordinate sequence copied from interleaved x, y values (ownership passes to GEOS).
    func sequence(_ xy: [Double]) throws -> OpaquePointer {
        precondition(xy.count % 2 == 0, "interleaved coordinates need an even count")
        guard let seq = xy.withUnsafeBufferPointer({ GEOSCoordSeq_copyFromBuffer_r(handle, $0.baseAddress, UInt32(xy.count / 2), 0, 0) }) else {
            throw error("create coordinate sequence")
        }
        return seq
    }

    func rawLineString(_ xy: [Double]) throws -> OpaquePointer {
        let seq = try sequence(xy)
        guard let line = GEOSGeom_createLineString_r(handle, seq) else { throw error("create line") }
        return line
    }

    func rawPolygon(_ rings: [[Double]]) throws -> OpaquePointer {
        var raw: [OpaquePointer?] = []
        for ring in rings {
            let seq = try sequence(ring)
            guard let linearRing = GEOSGeom_createLinearRing_r(handle, seq) else {
                raw.forEach { GEOSGeom_destroy_r(handle, $0) }
                throw error("create ring")
            }
            raw.append(linearRing)
        }
        guard let shell = raw.first else {
            guard let empty = GEOSGeom_createEmptyPolygon_r(handle) else { throw error("create polygon") }
            return empty
        }
        var holes = Array(raw.dropFirst())
        guard let polygon = holes.withUnsafeMutableBufferPointer({ GEOSGeom_createPolygon_r(handle, shell, $0.baseAddress, UInt32($0.count)) }) else {
            throw error("create polygon")
        }
        return polygon
    }

    /// A Polygon from its outer ring and holes (each closed, interleaved x, y).
    public func polygon(_ rings: [[Double]]) throws -> Geometry {
        try take(try rawPolygon(rings), "create polygon")
    }

    /// A MultiPolygon.
    public func multiPolygon(_ polygons: [[[Double]]]) throws -> Geometry {
        try collection(GEOS_MULTIPOLYGON, try polygons.map { try rawPolygon($0) })
    }

    /// A MultiLineString.
    public func multiLineString(_ lines: [[Double]]) throws -> Geometry {
        try collection(GEOS_MULTILINESTRING, try lines.map { try rawLineString($0) })
    }

    /// A collection of copies of `geometries` (a GeometryCollection, or a Multi* by `type`).
    public func collection(of geometries: [Geometry]) throws -> Geometry {
        try collection(GEOS_GEOMETRYCOLLECTION, try geometries.map {
            guard let copy = GEOSGeom_clone_r(handle, $0.pointer) else { throw error("clone") }
            return copy
        })
    }

    private func collection(_ type: GEOSGeomTypes, _ parts: [OpaquePointer]) throws -> Geometry {
        var parts: [OpaquePointer?] = parts
        guard let raw = parts.withUnsafeMutableBufferPointer({ GEOSGeom_createCollection_r(handle, Int32(type.rawValue), $0.baseAddress, UInt32($0.count)) }) else {
            throw error("create collection")
        }
        return Geometry(context: self, pointer: raw)
    }
}

extension Geometry {
    private var handle: GEOSContextHandle_t { context.handle }

    /// GEOS's type id (GEOS_POINT … GEOS_GEOMETRYCOLLECTION).
    public var typeID: Int32 { GEOSGeomTypeId_r(handle, pointer) }

    /// The parts of a collection (copies), or `[self]` for a single geometry.
    public func parts() throws -> [Geometry] {
        let count = GEOSGetNumGeometries_r(handle, pointer)
        guard count >= 0 else { throw context.error("count parts") }
        if typeID < GEOS_MULTIPOINT.rawValue { return [self] }
        return try (0..<count).map { index in
            guard let part = GEOSGetGeometryN_r(handle, pointer, index), let copy = GEOSGeom_clone_r(handle, part) else {
                throw context.error("read part")
            }
            return Geometry(context: context, pointer: copy)
        }
    }

    /// Interleaved x, y of a LineString or LinearRing.
    public func coordinates() throws -> [Double] {
        try Self.coordinates(of: pointer, context)
    }

    static func coordinates(of pointer: OpaquePointer, _ context: GEOSContext) throws -> [Double] {
        guard let seq = GEOSGeom_getCoordSeq_r(context.handle, pointer) else { throw context.error("read coordinates") }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(context.handle, seq, &size) != 0 else { throw context.error("read coordinates") }
        var xy = [Double](repeating: 0, count: Int(size) * 2)
        guard xy.withUnsafeMutableBufferPointer({ GEOSCoordSeq_copyToBuffer_r(context.handle, seq, $0.baseAddress, 0, 0) }) != 0 else {
            throw context.error("read coordinates")
        }
        return xy
    }

    /// A Polygon's rings (outer first), each interleaved x, y.
    public func polygonRings() throws -> [[Double]] {
        guard let shell = GEOSGetExteriorRing_r(handle, pointer) else { throw context.error("read polygon") }
        var rings = [try Self.coordinates(of: shell, context)]
        let holes = GEOSGetNumInteriorRings_r(handle, pointer)
        for index in 0..<max(holes, 0) {
            guard let hole = GEOSGetInteriorRingN_r(handle, pointer, index) else { throw context.error("read polygon") }
            rings.append(try Self.coordinates(of: hole, context))
        }
        return rings
    }

    /// Topology-preserving Douglas–Peucker simplification (GEOS): components neither cross
    /// each other nor themselves; every line keeps its end points.
    public func simplifiedPreservingTopology(tolerance: Double) throws -> Geometry {
        try context.take(GEOSTopologyPreserveSimplify_r(handle, pointer, tolerance), "topology-preserving simplify")
    }

    /// The radius of the largest circle inside the polygon (GEOS's maximum inscribed circle, to
    /// within `tolerance`), and its centre: how far its most remote point is from its boundary.
    public func inscribedCircle(tolerance: Double) throws -> (x: Double, y: Double, radius: Double) {
        let line = try context.take(GEOSMaximumInscribedCircle_r(handle, pointer, tolerance), "maximum inscribed circle")
        let xy = try line.coordinates()
        guard xy.count >= 4 else { throw GEOSError(operation: "maximum inscribed circle", message: "returned \(xy.count / 2) points") }
        return (xy[0], xy[1], ((xy[2] - xy[0]) * (xy[2] - xy[0]) + (xy[3] - xy[1]) * (xy[3] - xy[1])).squareRoot())
    }

    /// The polygon cut into triangles whose corners are its own vertices (GEOS's constrained
    /// Delaunay triangulation), as a collection of triangles.
    public func constrainedTriangles() throws -> Geometry {
        try context.take(GEOSConstrainedDelaunayTriangulation_r(handle, pointer), "constrained Delaunay triangulation")
    }

    /// The centre of mass (a point; of a triangle, the mean of its corners).
    public func centroid() throws -> Geometry {
        try context.take(GEOSGetCentroid_r(handle, pointer), "centroid")
    }

    /// Union of a polygon coverage (parts may share edges but not overlap): fast and exact.
    public func coverageUnion() throws -> Geometry {
        try context.take(GEOSCoverageUnion_r(handle, pointer), "coverage union")
    }

    public func unaryUnion() throws -> Geometry {
        try context.take(GEOSUnaryUnion_r(handle, pointer), "union")
    }

    /// The union with every vertex snap-rounded to multiples of `gridSize` (GEOS OverlayNG with
    /// a fixed precision model): the result is noded and valid on that grid, so rounding it to
    /// the grid later moves nothing and cannot make segments cross.
    public func unaryUnion(gridSize: Double) throws -> Geometry {
        try context.take(GEOSUnaryUnionPrec_r(handle, pointer, gridSize), "union on a grid")
    }

    /// The part of the geometry inside the rectangle (GEOS's fast clip: lines are cut at its sides).
    public func clipped(x0: Double, y0: Double, x1: Double, y1: Double) throws -> Geometry {
        try context.take(GEOSClipByRect_r(handle, pointer, x0, y0, x1, y1), "clip by rectangle")
    }

    public func difference(_ other: Geometry) throws -> Geometry {
        try context.take(GEOSDifference_r(handle, pointer, other.pointer), "difference")
    }

    public func boundary() throws -> Geometry {
        try context.take(GEOSBoundary_r(handle, pointer), "boundary")
    }

    /// GEOS's repair of an invalid geometry (the "linework" method).
    public func madeValid() throws -> Geometry {
        try context.take(GEOSMakeValid_r(handle, pointer), "make valid")
    }

    /// Why the geometry is invalid ("Valid Geometry" when it is not).
    public func validityReason() throws -> String {
        guard let text = GEOSisValidReason_r(handle, pointer) else { throw context.error("validity reason") }
        defer { GEOSFree_r(handle, text) }
        return String(cString: text)
    }

    public func length() throws -> Double {
        var value = 0.0
        guard GEOSLength_r(handle, pointer, &value) == 1 else { throw context.error("length") }
        return value
    }

    public var isEmpty: Bool { GEOSisEmpty_r(handle, pointer) == 1 }
}
