/// WGS-84 ⇄ GCJ-02, the published algorithm (Krasovsky 1940 ellipsoid).
///
/// The functions here shift unconditionally. Whether a point *should* be shifted is a separate
/// decision, made by a ``ShiftDomain`` (the published ``ChinaRectangle``, or the real China
/// polygon from the region tables); ``DatumConverter`` combines the two.
public enum GCJ02 {
    /// Semi-major axis of the Krasovsky 1940 ellipsoid, metres.
    public static let semiMajorAxis = 6378245.0
    /// First eccentricity squared of the Krasovsky 1940 ellipsoid.
    public static let eccentricitySquared = 0.00669342162296594323

    @usableFromInline static let latitudeScale = 180.0 / (semiMajorAxis * (1 - eccentricitySquared) * Double.pi)
    @usableFromInline static let longitudeScale = 180.0 / (semiMajorAxis * Double.pi)

    /// The GCJ-02 offset at a WGS-84 position, in degrees: GCJ-02 = WGS-84 + offset.
    ///
    /// Evaluates the published polynomial-plus-harmonics at (lon − 105, lat − 35) and scales it by
    /// the Krasovsky radii of curvature. Always evaluates; never gates.
    @inlinable
    public static func offset(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
        let x = longitude - 105
        let y = latitude - 35
        let hx = Harmonics(x)
        let hy = Harmonics(y)
        let xy = x * y
        let rootX = abs(x).squareRoot()
        let common = 20 * hx.sin6 + 20 * hx.sin2
        var dLat = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * xy + 0.2 * rootX
        dLat += (common + 20 * hy.sin1 + 40 * hy.sin1over3 + 160 * hy.sin1over12 + 320 * hy.sin1over30) * (2.0 / 3.0)
        var dLon = 300 + x + 2 * y + 0.1 * x * x + 0.1 * xy + 0.1 * rootX
        dLon += (common + 20 * hx.sin1 + 40 * hx.sin1over3 + 150 * hx.sin1over12 + 300 * hx.sin1over30) * (2.0 / 3.0)

        let phi = sineCosine(latitude * (Double.pi / 180))
        let magic = 1 - eccentricitySquared * phi.sin * phi.sin
        let rootMagic = magic.squareRoot()
        return (dLat * latitudeScale * magic * rootMagic, dLon * longitudeScale * rootMagic / phi.cos)
    }

    /// WGS-84 → GCJ-02, unconditionally shifted.
    @inlinable
    public static func fromWGS84(_ wgs84: Coordinate) -> Coordinate {
        let d = offset(latitude: wgs84.latitude, longitude: wgs84.longitude)
        return Coordinate(latitude: wgs84.latitude + d.latitude, longitude: wgs84.longitude + d.longitude)
    }

    /// The largest correction at which ``toWGS84(_:)`` stops iterating, in degrees.
    ///
    /// The offset field changes by at most ~0.4% of a displacement (its steepest harmonic is
    /// 20·sin(6πx)), so each fixed-point step shrinks the error ~250-fold: once a correction is
    /// below 1e-6° the remaining error is below 1e-8°. Measured in the tests and `Scripts/bench`.
    public static let inverseStopCorrection = 1e-6
    /// Safety bound on fixed-point steps (never reached in the China rectangle: 2 are typical).
    public static let inverseMaximumSteps = 8

    /// GCJ-02 → WGS-84, unconditionally unshifted, iterated to a round-trip error below 1e-8°.
    ///
    /// Fixed-point iteration w ← w − (forward(w) − g), starting from w₀ = g − offset(g). Costs
    /// 3 offset evaluations for almost every point in the China rectangle.
    @inlinable
    public static func toWGS84(_ gcj02: Coordinate) -> Coordinate {
        toWGS84Counting(gcj02).coordinate
    }

    /// ``toWGS84(_:)`` that also reports how many offset evaluations it made (for tests and benchmarks).
    @inlinable
    public static func toWGS84Counting(_ gcj02: Coordinate) -> (coordinate: Coordinate, evaluations: Int) {
        var d = offset(latitude: gcj02.latitude, longitude: gcj02.longitude)
        var lat = gcj02.latitude - d.latitude
        var lon = gcj02.longitude - d.longitude
        var evaluations = 1
        for _ in 0..<inverseMaximumSteps {
            d = offset(latitude: lat, longitude: lon)
            evaluations += 1
            let errorLat = lat + d.latitude - gcj02.latitude
            let errorLon = lon + d.longitude - gcj02.longitude
            lat -= errorLat
            lon -= errorLon
            if max(abs(errorLat), abs(errorLon)) < inverseStopCorrection { break }
        }
        return (Coordinate(latitude: lat, longitude: lon), evaluations)
    }
}

/// sin(πv/30), sin(πv/12), sin(πv/3), sin(πv), sin(2πv), sin(6πv) from one sine/cosine pair.
///
/// All six angles are multiples of θ = πv/60 (2, 5, 20, 60, 120, 360 θ), reached by exact
/// multiple-angle identities; the rounding they amplify (≤ ~400 ulp) stays below 1e-13 of the
/// terms' amplitude, far under the 1e-9° the datum needs.
@usableFromInline
struct Harmonics {
    @usableFromInline let sin1over30, sin1over12, sin1over3, sin1, sin2, sin6: Double

    @inlinable
    init(_ v: Double) {
        let (s, c) = sineCosine(v * (Double.pi / 60))
        let c2 = c * c
        sin1over30 = 2 * s * c
        let s5 = s * ((16 * c2 - 12) * c2 + 1)
        let c5 = c * ((16 * c2 - 20) * c2 + 5)
        sin1over12 = s5
        let s10 = 2 * s5 * c5, c10 = (c5 - s5) * (c5 + s5)
        let s20 = 2 * s10 * c10, c20 = (c10 - s10) * (c10 + s10)
        sin1over3 = s20
        let s60 = s20 * (3 - 4 * s20 * s20)
        let c60 = c20 * (4 * c20 * c20 - 3)
        sin1 = s60
        let s120 = 2 * s60 * c60
        sin2 = s120
        sin6 = s120 * (3 - 4 * s120 * s120)
    }
}
