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
    /// The published formula's terms as short polynomials on a grid over the China rectangle
    /// (``OffsetField``): within 1e-14° of ``formulaOffset(latitude:longitude:)`` and 2.3–3× as
    /// fast. Elsewhere it is the formula. Always evaluates; never gates.
    public static func offset(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
        OffsetField.shared.offset(x: longitude - 105, y: latitude - 35) ?? formulaOffset(latitude: latitude, longitude: longitude)
    }

    /// The GCJ-02 offset by the published formula, term by term: the polynomial-plus-harmonics at
    /// (lon − 105, lat − 35), scaled by the Krasovsky radii of curvature. The reference
    /// ``offset(latitude:longitude:)``'s polynomials are made from; always evaluates; never gates.
    @inlinable
    public static func formulaOffset(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
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

    /// The formula's one-variable parts, as ``OffsetField`` splits it:
    /// dLat = (u(x) + c(y) + 0.1xy + 0.2√|x|)·factors.latitude,
    /// dLon = (u(x) + d(x) + 2y + 0.1xy + 0.1√|x|)·factors.longitude.
    enum Terms {
        /// u(x) and d(x), from one set of harmonics.
        static func uAndD(_ x: Double) -> (u: Double, d: Double) {
            let h = Harmonics(x)
            return (2 * x + (20 * h.sin6 + 20 * h.sin2) * (2.0 / 3.0),
                    300 - x + 0.1 * x * x + (20 * h.sin1 + 40 * h.sin1over3 + 150 * h.sin1over12 + 300 * h.sin1over30) * (2.0 / 3.0))
        }

        static func c(_ y: Double) -> Double {
            let h = Harmonics(y)
            return -100 + 3 * y + 0.2 * y * y + (20 * h.sin1 + 40 * h.sin1over3 + 160 * h.sin1over12 + 320 * h.sin1over30) * (2.0 / 3.0)
        }

        /// latitudeFactor and longitudeFactor, from one sine and cosine of the latitude.
        static func factors(latitude: Double) -> (latitude: Double, longitude: Double) {
            let phi = sineCosine(latitude * (Double.pi / 180))
            let magic = 1 - eccentricitySquared * phi.sin * phi.sin
            let rootMagic = magic.squareRoot()
            return (latitudeScale * magic * rootMagic, longitudeScale * rootMagic / phi.cos)
        }
    }

    /// WGS-84 → GCJ-02, unconditionally shifted.
    public static func fromWGS84(_ wgs84: Coordinate) -> Coordinate {
        let d = offset(latitude: wgs84.latitude, longitude: wgs84.longitude)
        return Coordinate(latitude: wgs84.latitude + d.latitude, longitude: wgs84.longitude + d.longitude)
    }

    /// The largest correction at which ``toWGS84(_:)``'s fixed-point steps stop, in degrees.
    ///
    /// The offset field changes by at most ~0.4% of a displacement (its steepest harmonic is
    /// 20·sin(6πx)), so each fixed-point step shrinks the error ~250-fold: once a correction is
    /// below 1e-6° the remaining error is below 1e-8°. Measured in the tests and `Scripts/bench`.
    public static let inverseStopCorrection = 1e-6
    /// The largest Newton correction at which ``toWGS84(_:)`` stops, in degrees.
    ///
    /// The offset's second derivatives are below K = 0.1 per degree in the China rectangle (the
    /// largest: ⅔·20·(6π)² offset units per degree², times at most 1.7e-5° per unit), so after a
    /// Newton step of size s the error is below K/2·s²·(1 + 1%): 5e-10° for s ≤ 1e-4°. A first
    /// step is about 3e-5° (0.4% of the offset).
    public static let inverseNewtonStopCorrection = 1e-4
    /// Safety bound on steps (never reached in the China rectangle: one Newton step is typical).
    public static let inverseMaximumSteps = 8

    /// GCJ-02 → WGS-84, unconditionally unshifted, to a round-trip error below 1e-8°.
    ///
    /// From w₀ = g − offset(g), Newton steps on forward(w) = g with the offset's Jacobian (from the
    /// polynomials of ``offset(latitude:longitude:)``): one step for almost every point, so two
    /// offset evaluations. Within 0.01° of longitude 105° (the formula's √|x| cusp, where the
    /// Jacobian is no guide) and outside the polynomials' grid, fixed-point steps
    /// w ← w − (forward(w) − g) take over, three evaluations.
    public static func toWGS84(_ gcj02: Coordinate) -> Coordinate {
        toWGS84Counting(gcj02).coordinate
    }

    /// ``toWGS84(_:)`` that also reports how many offset evaluations it made (for tests and benchmarks).
    public static func toWGS84Counting(_ gcj02: Coordinate) -> (coordinate: Coordinate, evaluations: Int) {
        let d = offset(latitude: gcj02.latitude, longitude: gcj02.longitude)
        var lat = gcj02.latitude - d.latitude
        var lon = gcj02.longitude - d.longitude
        var evaluations = 1
        let field = OffsetField.shared
        for _ in 0..<inverseMaximumSteps {
            guard let f = field.offsetAndJacobian(x: lon - 105, y: lat - 35) else { break }
            evaluations += 1
            // Residual forward(w) − g, and the step J⁻¹·residual with J = I + ∂offset (lon, lat order).
            let residualLat = lat + f.dLat - gcj02.latitude, residualLon = lon + f.dLon - gcj02.longitude
            let a = 1 + f.lonX, b = f.lonY, c = f.latX, e = 1 + f.latY
            let inverseDeterminant = 1 / (a * e - b * c)
            let stepLon = (e * residualLon - b * residualLat) * inverseDeterminant
            let stepLat = (a * residualLat - c * residualLon) * inverseDeterminant
            lon -= stepLon
            lat -= stepLat
            if max(abs(stepLat), abs(stepLon)) <= inverseNewtonStopCorrection {
                return (Coordinate(latitude: lat, longitude: lon), evaluations)
            }
        }
        for _ in 0..<inverseMaximumSteps {
            let d = offset(latitude: lat, longitude: lon)
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
