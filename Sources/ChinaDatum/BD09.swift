#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GCJ-02 ⇄ BD-09, Baidu's datum, applied on top of GCJ-02 everywhere (Baidu does not gate it).
public enum BD09 {
    @usableFromInline static let xPi = Double.pi * 3000.0 / 180.0

    /// GCJ-02 → BD-09, the published formula.
    @inlinable
    public static func fromGCJ02(_ gcj02: Coordinate) -> Coordinate {
        let x = gcj02.longitude, y = gcj02.latitude
        let z = (x * x + y * y).squareRoot() + 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) + 0.000003 * cos(x * xPi)
        return Coordinate(latitude: z * sin(theta) + 0.006, longitude: z * cos(theta) + 0.0065)
    }

    /// BD-09 → GCJ-02: the published approximate inverse, refined by fixed-point steps until
    /// ``fromGCJ02(_:)`` reproduces the input to better than 1e-10° (the published formula alone
    /// is off by up to ~1e-5°).
    @inlinable
    public static func toGCJ02(_ bd09: Coordinate) -> Coordinate {
        let x = bd09.longitude - 0.0065, y = bd09.latitude - 0.006
        let z = (x * x + y * y).squareRoot() - 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) - 0.000003 * cos(x * xPi)
        var lat = z * sin(theta), lon = z * cos(theta)
        for _ in 0..<6 {
            let b = fromGCJ02(Coordinate(latitude: lat, longitude: lon))
            let errorLat = b.latitude - bd09.latitude, errorLon = b.longitude - bd09.longitude
            lat -= errorLat
            lon -= errorLon
            if max(abs(errorLat), abs(errorLon)) < 1e-12 { break }
        }
        return Coordinate(latitude: lat, longitude: lon)
    }
}
