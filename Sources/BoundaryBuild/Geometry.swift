import CGEOS

/// A GEOS geometry owned by Swift: destroyed with the last reference, always used with the
/// context that made it.
public final class Geometry {
    public let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    private var handle: GEOSContextHandle_t { context.handle }

    /// Area in the square of the coordinate unit (m² for projected geometries).
    public func area() throws -> Double {
        var value = 0.0
        guard GEOSArea_r(handle, pointer, &value) == 1 else { throw context.error("area") }
        return value
    }

    /// The geometry grown (or shrunk, if negative) by `distance`, with round joins.
    /// `quadrantSegments` is the number of segments per quarter circle.
    public func buffer(_ distance: Double, quadrantSegments: Int32 = 8) throws -> Geometry {
        try context.take(GEOSBuffer_r(handle, pointer, distance, quadrantSegments), "buffer")
    }

    /// True when the geometry is valid in the OGC sense.
    public func isValid() throws -> Bool {
        switch GEOSisValid_r(handle, pointer) {
        case 1: return true
        case 0: return false
        default: throw context.error("validity check")
        }
    }

    /// Well-Known Text, with trailing zeros trimmed.
    public func wkt() throws -> String {
        guard let writer = GEOSWKTWriter_create_r(handle) else { throw context.error("create WKT writer") }
        defer { GEOSWKTWriter_destroy_r(handle, writer) }
        GEOSWKTWriter_setTrim_r(handle, writer, 1)
        guard let text = GEOSWKTWriter_write_r(handle, writer, pointer) else { throw context.error("write WKT") }
        defer { GEOSFree_r(handle, text) }
        return String(cString: text)
    }
}
