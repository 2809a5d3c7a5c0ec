import CGEOS

/// An error GEOS reported, carrying GEOS's own message.
public struct GEOSError: Error, CustomStringConvertible, Equatable {
    /// What we asked GEOS to do, e.g. "buffer" or "read WKT".
    public let operation: String
    /// GEOS's message (from its error handler), or a note that it gave none.
    public let message: String

    public var description: String { "GEOS \(operation) failed: \(message)" }
}

/// A re-entrant GEOS context: owns the handle, turns GEOS's error and notice callbacks into
/// Swift values, and releases the handle when the last reference goes.
///
/// GEOS contexts are not thread-safe: use one per thread (the build pipeline gives each worker
/// its own).
public final class GEOSContext {
    /// Collects messages from GEOS's C callbacks; passed to GEOS as the callback's user data.
    final class MessageLog {
        var lastError: String?
        var notices: [String] = []
    }

    let handle: GEOSContextHandle_t
    let log = MessageLog()

    public init() {
        guard let handle = GEOS_init_r() else {
            // GEOS_init_r only fails when malloc does; nothing sensible can continue.
            fatalError("GEOS_init_r returned NULL (out of memory)")
        }
        self.handle = handle
        let userData = Unmanaged.passUnretained(log).toOpaque()
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let userData else { return }
            let log = Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue()
            log.lastError = message.map { String(cString: $0) } ?? "(no message)"
        }, userData)
        GEOSContext_setNoticeMessageHandler_r(handle, { message, userData in
            guard let userData, let message else { return }
            let log = Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue()
            log.notices.append(String(cString: message))
        }, userData)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The GEOS version string, e.g. "3.11.1-CAPI-1.17.1".
    public var version: String { String(cString: GEOSversion()) }

    /// Notices GEOS emitted so far (for example why a geometry is invalid).
    public var notices: [String] { log.notices }

    /// Builds the error for a failed call, consuming GEOS's last error message.
    func error(_ operation: String) -> GEOSError {
        defer { log.lastError = nil }
        return GEOSError(operation: operation, message: log.lastError ?? "GEOS returned no result and no message")
    }

    /// Wraps a geometry pointer GEOS returned, or throws GEOS's message when it is NULL.
    func take(_ pointer: OpaquePointer?, _ operation: String) throws -> Geometry {
        guard let pointer else { throw error(operation) }
        return Geometry(context: self, pointer: pointer)
    }

    /// Reads a geometry from Well-Known Text.
    public func geometry(wkt: String) throws -> Geometry {
        guard let reader = GEOSWKTReader_create_r(handle) else { throw error("create WKT reader") }
        defer { GEOSWKTReader_destroy_r(handle, reader) }
        return try take(GEOSWKTReader_read_r(handle, reader, wkt), "read WKT")
    }
}
