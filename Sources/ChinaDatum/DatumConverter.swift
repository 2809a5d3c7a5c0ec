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

extension DatumConverter {
    /// Converts every point of `points` from one datum to another into `output` (same count; it
    /// may be the same memory as `points`); each result is bit for bit
    /// ``convert(_:from:to:)`` of its point, made in one loop.
    public func convert(_ points: UnsafeBufferPointer<Coordinate>, into output: UnsafeMutableBufferPointer<Coordinate>,
                        from source: Datum, to target: Datum) {
        precondition(output.count == points.count, "DatumConverter.convert: output holds \(output.count) points, input \(points.count)")
        guard let input = points.baseAddress, let out = output.baseAddress, points.count > 0 else { return }
        if input != UnsafePointer(out) { out.update(from: input, count: points.count) }
        switch (source, target) {
        case (.wgs84, .wgs84), (.gcj02, .gcj02), (.bd09, .bd09): return
        case (.wgs84, .gcj02): shiftInPlace(output, forward: true)
        case (.gcj02, .wgs84): shiftInPlace(output, forward: false)
        case (.gcj02, .bd09): for i in output.indices { output[i] = BD09.fromGCJ02(output[i]) }
        case (.bd09, .gcj02): for i in output.indices { output[i] = BD09.toGCJ02(output[i]) }
        case (.wgs84, .bd09):
            shiftInPlace(output, forward: true)
            for i in output.indices { output[i] = BD09.fromGCJ02(output[i]) }
        case (.bd09, .wgs84):
            for i in output.indices { output[i] = BD09.toGCJ02(output[i]) }
            shiftInPlace(output, forward: false)
        }
    }

    /// ``convert(_:into:from:to:)`` in place over an array.
    public func convert(_ points: inout [Coordinate], from source: Datum, to target: Datum) {
        points.withUnsafeMutableBufferPointer { buffer in
            convert(UnsafeBufferPointer(buffer), into: buffer, from: source, to: target)
        }
    }

    /// The gated GCJ-02 step over `points` in place: the points the domain shifts are converted,
    /// the others stay bit for bit.
    private func shiftInPlace(_ points: UnsafeMutableBufferPointer<Coordinate>, forward: Bool) {
        for i in points.indices where domain.appliesShift(latitude: points[i].latitude, longitude: points[i].longitude) {
            points[i] = forward ? GCJ02.fromWGS84(points[i]) : GCJ02.toWGS84(points[i])
        }
    }
}
