/// WGS-84 ⇄ GCJ-02 over batches of points.
///
/// Each result is bit for bit the scalar function's: the batch entry points exist so that
/// callers with many points (``DatumConverter``, the region locator) convert them in one tight
/// loop over the offset's polynomials, without a call and a table lookup set-up per point.
extension GCJ02 {
    /// WGS-84 → GCJ-02 for every point of `points`, written to `output` (same count; it may be
    /// the same memory as `points`), unconditionally shifted; each is ``fromWGS84(_:)`` of its point.
    public static func fromWGS84(_ points: UnsafeBufferPointer<Coordinate>, into output: UnsafeMutableBufferPointer<Coordinate>) {
        precondition(output.count == points.count, "GCJ02.fromWGS84: output holds \(output.count) points, input \(points.count)")
        for i in points.indices { output[i] = fromWGS84(points[i]) }
    }

    /// GCJ-02 → WGS-84 for every point of `points`, written to `output` (same count; it may be
    /// the same memory), unconditionally unshifted; each is ``toWGS84(_:)`` of its point.
    public static func toWGS84(_ points: UnsafeBufferPointer<Coordinate>, into output: UnsafeMutableBufferPointer<Coordinate>) {
        precondition(output.count == points.count, "GCJ02.toWGS84: output holds \(output.count) points, input \(points.count)")
        for i in points.indices { output[i] = toWGS84(points[i]) }
    }
}
