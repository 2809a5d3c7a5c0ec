/// Converts coordinates between WGS-84, GCJ-02 and BD-09, applying the GCJ-02 shift only
/// inside its ``ShiftDomain``.
///
/// BD-09 is Baidu's shift on top of GCJ-02 and is applied everywhere; the GCJ-02 step inside
/// it is gated like any other.
public struct DatumConverter<Domain: ShiftDomain>: Sendable {
    public let domain: Domain

    public init(domain: Domain) {
        self.domain = domain
    }

    /// WGS-84 → GCJ-02 inside the domain; unchanged outside.
    @inlinable
    public func gcj02(fromWGS84 c: Coordinate) -> Coordinate {
        domain.appliesShift(latitude: c.latitude, longitude: c.longitude) ? GCJ02.fromWGS84(c) : c
    }

    /// GCJ-02 → WGS-84 inside the domain (tested on the GCJ-02 position); unchanged outside.
    @inlinable
    public func wgs84(fromGCJ02 c: Coordinate) -> Coordinate {
        domain.appliesShift(latitude: c.latitude, longitude: c.longitude) ? GCJ02.toWGS84(c) : c
    }

    /// Converts `c` from one datum to another; identity when they are the same.
    @inlinable
    public func convert(_ c: Coordinate, from source: Datum, to target: Datum) -> Coordinate {
        switch (source, target) {
        case (.wgs84, .wgs84), (.gcj02, .gcj02), (.bd09, .bd09): return c
        case (.wgs84, .gcj02): return gcj02(fromWGS84: c)
        case (.gcj02, .wgs84): return wgs84(fromGCJ02: c)
        case (.gcj02, .bd09): return BD09.fromGCJ02(c)
        case (.bd09, .gcj02): return BD09.toGCJ02(c)
        case (.wgs84, .bd09): return BD09.fromGCJ02(gcj02(fromWGS84: c))
        case (.bd09, .wgs84): return wgs84(fromGCJ02: BD09.toGCJ02(c))
        }
    }
}

extension DatumConverter where Domain == ChinaRectangle {
    /// A converter using the published China rectangle.
    public init() {
        self.init(domain: ChinaRectangle())
    }
}
