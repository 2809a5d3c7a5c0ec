/// A geographic position in decimal degrees, in whatever datum the context says.
///
/// A plain value type: the datum is a property of the data set, not of each point,
/// so conversions name their source and target datum explicitly.
public struct Coordinate: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both components are finite and within ±90° / ±180°.
    @inlinable
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// The three datums GPS-footprint apps meet in China.
public enum Datum: String, CaseIterable, Sendable {
    /// GPS, OpenStreetMap, Google Maps outside China, Apple's raw Core Location.
    case wgs84
    /// China's obfuscated "Mars" datum: AMap (Gaode), Tencent, Google Maps in China, Apple Maps in China.
    case gcj02
    /// Baidu's datum: a further obfuscation applied on top of GCJ-02.
    case bd09
}
