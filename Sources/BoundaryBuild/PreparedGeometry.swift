import CGEOS

/// A GEOS prepared geometry: indexed for repeated containment and distance tests against it.
/// Keeps its base geometry alive and is released with it.
public final class PreparedGeometry {
    public let base: Geometry
    let pointer: OpaquePointer

    public init(_ base: Geometry) throws {
        guard let pointer = GEOSPrepare_r(base.context.handle, base.pointer) else { throw base.context.error("prepare") }
        self.base = base
        self.pointer = pointer
    }

    deinit {
        GEOSPreparedGeom_destroy_r(base.context.handle, pointer)
    }

    public func contains(_ other: Geometry) throws -> Bool {
        switch GEOSPreparedContains_r(base.context.handle, pointer, other.pointer) {
        case 1: return true
        case 0: return false
        default: throw base.context.error("prepared contains")
        }
    }

    public func intersects(_ other: Geometry) throws -> Bool {
        switch GEOSPreparedIntersects_r(base.context.handle, pointer, other.pointer) {
        case 1: return true
        case 0: return false
        default: throw base.context.error("prepared intersects")
        }
    }

    public func distance(to other: Geometry) throws -> Double {
        var value = 0.0
        guard GEOSPreparedDistance_r(base.context.handle, pointer, other.pointer, &value) == 1 else { throw base.context.error("prepared distance") }
        return value
    }
}

extension GEOSContext {
    public func point(x: Double, y: Double) throws -> Geometry {
        try take(GEOSGeom_createPointFromXY_r(handle, x, y), "create point")
    }

    /// The polygons formed by fully noded linework (GEOS polygonizer).
    public func polygonize(_ lines: Geometry) throws -> Geometry {
        var parts: [OpaquePointer?] = [lines.pointer]
        return try take(parts.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: OpaquePointer?.self) { GEOSPolygonize_r(handle, UnsafePointer($0.baseAddress), 1) }
        }, "polygonize")
    }
}

extension Geometry {
    /// A point guaranteed to lie inside the (areal) geometry.
    public func pointOnSurface() throws -> Geometry {
        try context.take(GEOSPointOnSurface_r(context.handle, pointer), "point on surface")
    }

    /// Bounding box (minX, minY, maxX, maxY).
    public func bounds() throws -> (Double, Double, Double, Double) {
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        let h = context.handle
        guard GEOSGeom_getXMin_r(h, pointer, &x0) == 1, GEOSGeom_getYMin_r(h, pointer, &y0) == 1,
              GEOSGeom_getXMax_r(h, pointer, &x1) == 1, GEOSGeom_getYMax_r(h, pointer, &y1) == 1 else { throw context.error("bounds") }
        return (x0, y0, x1, y1)
    }

    /// Coordinates of a point.
    public func pointXY() throws -> (Double, Double) {
        let xy = try coordinates()
        return (xy[0], xy[1])
    }
}

extension Geometry {
    /// Only the polygons of a geometry (a GeometryCollection from an overlay or a repair can also
    /// hold lines and points), as one MultiPolygon.
    public func polygonalPart() throws -> Geometry {
        var polygons: [[[Double]]] = []
        for part in try parts() {
            if part.typeID == GEOS_POLYGON.rawValue {
                polygons.append(try part.polygonRings())
            } else if part.typeID == GEOS_MULTIPOLYGON.rawValue || part.typeID == GEOS_GEOMETRYCOLLECTION.rawValue {
                for inner in try part.polygonalPart().parts() where inner.typeID == GEOS_POLYGON.rawValue {
                    polygons.append(try inner.polygonRings())
                }
            }
        }
        return try context.multiPolygon(polygons)
    }
}
