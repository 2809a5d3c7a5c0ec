import CPROJ

/// An error PROJ reported, with PROJ's message for its error number.
public struct ProjectionError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let message: String
    public var description: String { "PROJ \(operation) failed: \(message)" }
}

/// A PROJ transformation from geographic degrees (longitude, latitude) to a projection's
/// metres and back. Owns its PROJ context and object; both are released with it.
///
/// Not thread-safe (PROJ contexts are per thread): make one per worker.
public final class Projection {
    private let context: OpaquePointer
    private let transformation: OpaquePointer
    /// The PROJ string of the projection, e.g. `+proj=aea +lat_1=25 +lat_2=47 +lon_0=105 +ellps=WGS84`.
    public let definition: String

    /// Creates the pipeline "degrees → radians → `definition`" so callers deal in degrees.
    public init(_ definition: String) throws {
        guard let context = proj_context_create() else {
            throw ProjectionError(operation: "create context", message: "out of memory")
        }
        proj_log_level(context, PJ_LOG_NONE)
        let pipeline = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step \(definition)"
        guard let transformation = proj_create(context, pipeline) else {
            let message = String(cString: proj_context_errno_string(context, proj_context_errno(context)))
            proj_context_destroy(context)
            throw ProjectionError(operation: "create '\(definition)'", message: message)
        }
        self.context = context
        self.transformation = transformation
        self.definition = definition
    }

    deinit {
        proj_destroy(transformation)
        proj_context_destroy(context)
    }

    /// Projects (longitude, latitude) in degrees to (x, y) in metres.
    public func forward(longitude: Double, latitude: Double) throws -> (x: Double, y: Double) {
        let c = try transform(PJ_FWD, longitude, latitude, "forward")
        return (c.0, c.1)
    }

    /// Unprojects (x, y) in metres to (longitude, latitude) in degrees.
    public func inverse(x: Double, y: Double) throws -> (longitude: Double, latitude: Double) {
        let c = try transform(PJ_INV, x, y, "inverse")
        return (c.0, c.1)
    }

    /// Transforms parallel arrays of first/second coordinates in place (fast path for whole rings).
    public func transform(_ direction: PJ_DIRECTION, first: inout [Double], second: inout [Double]) throws {
        precondition(first.count == second.count, "coordinate arrays must have equal length")
        let count = first.count
        proj_errno_reset(transformation)
        let stride = MemoryLayout<Double>.stride
        let done = first.withUnsafeMutableBufferPointer { xs in
            second.withUnsafeMutableBufferPointer { ys in
                proj_trans_generic(transformation, direction,
                                   xs.baseAddress, stride, count,
                                   ys.baseAddress, stride, count,
                                   nil, 0, 0, nil, 0, 0)
            }
        }
        let errno = proj_errno(transformation)
        if done != count || errno != 0 || first.contains(where: { !$0.isFinite }) {
            throw ProjectionError(operation: "transform \(count) points with '\(definition)'",
                                  message: String(cString: proj_context_errno_string(context, errno)))
        }
    }

    private func transform(_ direction: PJ_DIRECTION, _ a: Double, _ b: Double, _ name: String) throws -> (Double, Double) {
        proj_errno_reset(transformation)
        let out = proj_trans(transformation, direction, proj_coord(a, b, 0, 0))
        let errno = proj_errno(transformation)
        guard errno == 0, out.xy.x.isFinite, out.xy.y.isFinite else {
            throw ProjectionError(operation: "\(name) (\(a), \(b)) with '\(definition)'",
                                  message: String(cString: proj_context_errno_string(context, errno)))
        }
        return (out.xy.x, out.xy.y)
    }
}
