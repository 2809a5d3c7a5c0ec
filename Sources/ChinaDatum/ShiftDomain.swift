/// Decides where the GCJ-02 shift applies.
///
/// GCJ-02 is only defined in China, but the published rule for "in China" is a rectangle
/// (``ChinaRectangle``) that also covers Manila, most of Japan and Korea, Bhutan, Nepal and
/// parts of Russia, Mongolia, Vietnam and Myanmar. A region lookup can do better: conform a
/// type that tests the real China polygon and hand it to ``DatumConverter``.
public protocol ShiftDomain: Sendable {
    /// True when a position (WGS-84 for the forward shift, GCJ-02 for the inverse; the two
    /// differ by under a kilometre) lies where GCJ-02 applies.
    func appliesShift(latitude: Double, longitude: Double) -> Bool
}

/// The published rule: lon 72.004…137.8347, lat 0.8293…55.8271, edges inclusive.
///
/// This is what eviltransform and prcoords (and most copies of the algorithm) use; points
/// outside are returned unchanged, bit for bit.
public struct ChinaRectangle: ShiftDomain {
    public static let minimumLongitude = 72.004
    public static let maximumLongitude = 137.8347
    public static let minimumLatitude = 0.8293
    public static let maximumLatitude = 55.8271

    public init() {}

    @inlinable
    public func appliesShift(latitude: Double, longitude: Double) -> Bool {
        longitude >= Self.minimumLongitude && longitude <= Self.maximumLongitude
            && latitude >= Self.minimumLatitude && latitude <= Self.maximumLatitude
    }
}

/// Shifts everywhere: for data known to be GCJ-02 throughout (e.g. the China boundary tables).
public struct Everywhere: ShiftDomain {
    public init() {}
    @inlinable
    public func appliesShift(latitude: Double, longitude: Double) -> Bool { true }
}
