/// The GCJ-02 offset as short polynomials on a grid of intervals: what makes the datum fast.
///
/// The published offset is a sum of one-variable terms (harmonics of x = lon − 105 and of
/// y = lat − 35), two small products (0.1·xy and the cusp √|x|) and two factors of the latitude
/// alone (the Krasovsky radii of curvature):
///
///     dLat = (U(x) + C(y) + 0.1·xy + 0.2·√|x|) · Sφ(y)
///     dLon = (U(x) + D(x) + 2y + 0.1·xy + 0.1·√|x|) · Sλ(y)
///
/// with U = 2x + ⅔(20 sin 6πx + 20 sin 2πx), D the rest of the longitude's x terms, C the
/// latitude's y terms. Each one-variable function is smooth, so on short intervals a polynomial
/// of low degree reproduces it far below the datum's needs: per 1/32° of x, U of degree 7 and D of
/// degree 5; per 1/8° of y, C of degree 6 and the two factors of degree 4. Each is the Chebyshev
/// series through its function's values at the interval's Chebyshev nodes (eight for x, seven
/// for y), cut at its degree: within a small factor of the best polynomial of that degree. The
/// largest error, C's, is under 5e-10 offset units, about 5e-15° (`OffsetFieldTests` measures
/// every function against the formula over the whole grid, and the converted points against
/// two independent implementations). √|x| and 0.1·xy stay exact (the cusp at x = 0 would spoil
/// a polynomial).
///
/// The coefficients are computed once, at first use (1.4–1.6 ms), from
/// ``GCJ02/formulaOffset(latitude:longitude:)``'s own terms (the polynomial sine, no libm), with
/// IEEE arithmetic only: the same bits on every platform, so region tables and reports stay
/// reproducible. Points outside the grid (which covers the China rectangle with a degree to
/// spare) take the formula.
final class OffsetField: @unchecked Sendable {
    static let shared = OffsetField()

    /// x intervals: [−34, 34) in steps of 1/32; y intervals: [−36, 22) in steps of 1/8.
    static let xOrigin = -34.0, xPerDegree = 32.0, xIntervals = 68 * 32
    static let yOrigin = -36.0, yPerDegree = 8.0, yIntervals = 58 * 8
    /// Coefficients per x interval: U (degree 7), then D (degree 5), in u ∈ [−1, 1] over the interval.
    static let xStride = 8 + 6
    /// Coefficients per y interval: C (degree 6), then Sφ and Sλ (degree 4 each).
    static let yStride = 7 + 5 + 5

    /// Never freed: one table for the process's lifetime (about 240 kB and 63 kB).
    let xRows: UnsafeMutablePointer<Double>
    let yRows: UnsafeMutablePointer<Double>

    private init() {
        xRows = .allocate(capacity: Self.xIntervals * Self.xStride)
        yRows = .allocate(capacity: Self.yIntervals * Self.yStride)
        // U and D share x's eight nodes (one set of harmonics a node); C and the two factors share
        // y's seven. Each part's series is cut at its degree.
        let xNodes = ChebyshevNodes(count: 8), yNodes = ChebyshevNodes(count: 7)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * 8) { values in
            let v = values.baseAddress!
            for i in 0..<Self.xIntervals {
                let centre = Self.xOrigin + (Double(i) + 0.5) / Self.xPerDegree, half = 0.5 / Self.xPerDegree
                for (j, node) in xNodes.nodes.enumerated() {
                    (v[j], v[8 + j]) = GCJ02.Terms.uAndD(centre + half * node)
                }
                let row = xRows + i * Self.xStride
                xNodes.coefficients(of: v, degree: 7, into: row)
                xNodes.coefficients(of: v + 8, degree: 5, into: row + 8)
            }
            for j in 0..<Self.yIntervals {
                let centre = Self.yOrigin + (Double(j) + 0.5) / Self.yPerDegree, half = 0.5 / Self.yPerDegree
                for (k, node) in yNodes.nodes.enumerated() {
                    let y = centre + half * node
                    v[k] = GCJ02.Terms.c(y)
                    (v[8 + k], v[16 + k]) = GCJ02.Terms.factors(latitude: y + 35)
                }
                let row = yRows + j * Self.yStride
                yNodes.coefficients(of: v, degree: 6, into: row)
                yNodes.coefficients(of: v + 8, degree: 4, into: row + 7)
                yNodes.coefficients(of: v + 16, degree: 4, into: row + 12)
            }
        }
    }

    /// The grid's row and position for x and y, or nil outside it (NaN included).
    @inline(__always)
    static func locate(x: Double, y: Double) -> (xRow: Int, xu: Double, yRow: Int, yu: Double)? {
        let sx = (x - xOrigin) * xPerDegree, sy = (y - yOrigin) * yPerDegree
        guard sx >= 0, sx < Double(xIntervals), sy >= 0, sy < Double(yIntervals) else { return nil }
        let i = Int(sx), j = Int(sy)
        return (i, 2 * (sx - Double(i)) - 1, j, 2 * (sy - Double(j)) - 1)
    }

    /// The polynomial of `degree` (≤ 7) with coefficients `c` at u, by Estrin's scheme (pairs,
    /// then u², then u⁴): three dependent steps instead of Horner's seven, so the processor
    /// overlaps the five polynomials of a point. `u2` and `u4` are u² and u⁴.
    @inline(__always)
    static func evaluate(_ c: UnsafePointer<Double>, degree: Int, _ u: Double, _ u2: Double, _ u4: Double) -> Double {
        let low = (c[0] + c[1] * u) + u2 * (c[2] + c[3] * u)
        switch degree {
        case 4: return low + u4 * c[4]
        case 5: return low + u4 * (c[4] + c[5] * u)
        case 6: return low + u4 * ((c[4] + c[5] * u) + u2 * c[6])
        default: return low + u4 * ((c[4] + c[5] * u) + u2 * (c[6] + c[7] * u))
        }
    }

    /// ``evaluate(_:degree:_:_:_:)`` at u alone (tests, the table's checks).
    static func horner(_ c: UnsafePointer<Double>, degree: Int, _ u: Double) -> Double {
        let u2 = u * u
        return evaluate(c, degree: degree, u, u2, u2 * u2)
    }

    /// The derivative in u of a polynomial, from its coefficients c₁…c_upTo only (1…5): the
    /// Newton step needs the Jacobian to ~1e-3 of its size, and the higher coefficients add less
    /// than 1e-5 of it (``offsetAndJacobian(x:y:)`` says which are kept).
    @inline(__always)
    static func slope(_ c: UnsafePointer<Double>, upTo n: Int, _ u: Double, _ u2: Double) -> Double {
        switch n {
        case 1: return c[1]
        case 2: return c[1] + 2 * c[2] * u
        case 3: return (c[1] + 2 * c[2] * u) + u2 * (3 * c[3])
        case 4: return (c[1] + 2 * c[2] * u) + u2 * (3 * c[3] + 4 * c[4] * u)
        default: return (c[1] + 2 * c[2] * u) + u2 * ((3 * c[3] + 4 * c[4] * u) + u2 * (5 * c[5]))
        }
    }

    /// The offset (degrees) at (x, y) = (lon − 105, lat − 35) from the grid, or nil outside it.
    @inline(__always)
    func offset(x: Double, y: Double) -> (latitude: Double, longitude: Double)? {
        guard let at = Self.locate(x: x, y: y) else { return nil }
        let xr = UnsafePointer(xRows + at.xRow * Self.xStride), yr = UnsafePointer(yRows + at.yRow * Self.yStride)
        let xu = at.xu, xu2 = xu * xu, xu4 = xu2 * xu2, yu = at.yu, yu2 = yu * yu, yu4 = yu2 * yu2
        let u = Self.evaluate(xr, degree: 7, xu, xu2, xu4), d = Self.evaluate(xr + 8, degree: 5, xu, xu2, xu4)
        let c = Self.evaluate(yr, degree: 6, yu, yu2, yu4)
        let sLat = Self.evaluate(yr + 7, degree: 4, yu, yu2, yu4), sLon = Self.evaluate(yr + 12, degree: 4, yu, yu2, yu4)
        let xy = 0.1 * x * y, root = abs(x).squareRoot()
        return ((u + c + xy + 0.2 * root) * sLat, (u + d + 2 * y + xy + 0.1 * root) * sLon)
    }

    /// ``offset(x:y:)`` and its Jacobian (degrees per degree: ∂dLat/∂lon, ∂dLat/∂lat,
    /// ∂dLon/∂lon, ∂dLon/∂lat); nil outside the grid or within 0.01° of the cusp x = 0, where
    /// √|x| has no useful derivative.
    ///
    /// The Jacobian is approximate, within 1e-7 per entry (`OffsetFieldTests` checks it against
    /// differences of the offset): each slope keeps the coefficients whose share is above ~1e-3
    /// offset units per degree (U's slope c₁…c₅ of 7, D's c₁…c₃, C's c₁…c₄, the factors' c₁…c₂:
    /// on an interval of half-width r a coefficient c_k is about f⁽ᵏ⁾rᵏ/k!, and U's steepest
    /// harmonic has 6πr = 0.29). An error δ in the Jacobian adds δ times the step to the Newton
    /// step's error: under 1e-11° for a step of 1e-4°.
    @inline(__always)
    func offsetAndJacobian(x: Double, y: Double) -> (dLat: Double, dLon: Double, latX: Double, latY: Double, lonX: Double, lonY: Double)? {
        guard abs(x) >= 0.01, let at = Self.locate(x: x, y: y) else { return nil }
        let xr = UnsafePointer(xRows + at.xRow * Self.xStride), yr = UnsafePointer(yRows + at.yRow * Self.yStride)
        let xScale = 2 * Self.xPerDegree, yScale = 2 * Self.yPerDegree
        let xu = at.xu, xu2 = xu * xu, xu4 = xu2 * xu2, yu = at.yu, yu2 = yu * yu, yu4 = yu2 * yu2
        let u = Self.evaluate(xr, degree: 7, xu, xu2, xu4), uSlope = Self.slope(xr, upTo: 5, xu, xu2)
        let d = Self.evaluate(xr + 8, degree: 5, xu, xu2, xu4), dSlope = Self.slope(xr + 8, upTo: 3, xu, xu2)
        let c = Self.evaluate(yr, degree: 6, yu, yu2, yu4), cSlope = Self.slope(yr, upTo: 4, yu, yu2)
        let sLat = Self.evaluate(yr + 7, degree: 4, yu, yu2, yu4), sLatSlope = Self.slope(yr + 7, upTo: 2, yu, yu2)
        let sLon = Self.evaluate(yr + 12, degree: 4, yu, yu2, yu4), sLonSlope = Self.slope(yr + 12, upTo: 2, yu, yu2)
        let root = abs(x).squareRoot(), rootSlope = (x < 0 ? -0.5 : 0.5) / root
        let latSum = u + c + 0.1 * x * y + 0.2 * root
        let lonSum = u + d + 2 * y + 0.1 * x * y + 0.1 * root
        return (latSum * sLat, lonSum * sLon,
                (uSlope * xScale + 0.1 * y + 0.2 * rootSlope) * sLat,
                (cSlope * yScale + 0.1 * x) * sLat + latSum * sLatSlope * yScale,
                (uSlope * xScale + dSlope * xScale + 0.1 * y + 0.1 * rootSlope) * sLon,
                (2 + 0.1 * x) * sLon + lonSum * sLonSlope * yScale)
    }
}

/// Interpolation at the Chebyshev nodes of [−1, 1], set up once per node count: the polynomial
/// through a function's values at the nodes, as a Chebyshev series, cut at a degree and written
/// in monomials of u. Cutting the series leaves the largest dropped coefficients as the error,
/// close to the best polynomial of that degree for a smooth function.
struct ChebyshevNodes {
    let count: Int
    /// u_j = cos((2j + 1)π / 2n) = sin(π/2 − that), by the polynomial sine (|θ| ≤ π/2).
    let nodes: [Double]
    /// weights[k·n + j] = (k = 0 ? 1 : 2) / n · T_k(u_j): c_k = Σ_j weights[k·n + j] · f(u_j).
    let weights: [Double]
    /// monomials[k·n + m]: the coefficient of u^m in T_k (T_k = 2u·T_{k−1} − T_{k−2}).
    let monomials: [Double]

    init(count n: Int) {
        count = n
        nodes = (0..<n).map { j in sineCosine(Double.pi / 2 - Double(2 * j + 1) * Double.pi / Double(2 * n)).sin }
        var weights = [Double](repeating: 0, count: n * n), monomials = weights
        for (j, u) in nodes.enumerated() {
            var older = 1.0, old = u
            for k in 0..<n {
                let t = k == 0 ? 1.0 : k == 1 ? u : 2 * u * old - older
                if k >= 2 { (older, old) = (old, t) }
                weights[k * n + j] = (k == 0 ? 1.0 : 2.0) / Double(n) * t
            }
        }
        monomials[0] = 1
        if n > 1 { monomials[n + 1] = 1 }
        for k in stride(from: 2, to: n, by: 1) {
            for m in 0..<n {
                monomials[k * n + m] = (m > 0 ? 2 * monomials[(k - 1) * n + m - 1] : 0) - monomials[(k - 2) * n + m]
            }
        }
        self.weights = weights
        self.monomials = monomials
    }

    /// Writes the monomial coefficients u⁰…u^degree of the series through `values` (one per
    /// node) cut at `degree` (< count).
    func coefficients(of values: UnsafePointer<Double>, degree: Int, into out: UnsafeMutablePointer<Double>) {
        for m in 0...degree { out[m] = 0 }
        for k in 0...degree {
            var c = 0.0
            for j in 0..<count { c += weights[k * count + j] * values[j] }
            for m in 0...k { out[m] += c * monomials[k * count + m] }
        }
    }
}
