/// WGS-84 ⇄ GCJ-02 over batches of points, four at a time in `SIMD4<Double>` lanes.
///
/// Every lane runs exactly the operations of the scalar ``GCJ02/offset(latitude:longitude:)``
/// in the same order (IEEE additions, multiplications, divisions and square roots, no fused
/// multiply-adds), so each result is bit for bit what the scalar functions return: the batch
/// entry points are a faster way to get the same numbers, never different ones. A group of four
/// with any argument outside the polynomial sine's range (|θ| > 2, or not finite: points far
/// outside China, NaN) is handed to the scalar functions whole, which take libm there.
extension GCJ02 {
    /// WGS-84 → GCJ-02 for every point of `points`, written to `output` (same count; it may be
    /// the same memory as `points`), unconditionally shifted; each is ``fromWGS84(_:)`` of its point.
    public static func fromWGS84(_ points: UnsafeBufferPointer<Coordinate>, into output: UnsafeMutableBufferPointer<Coordinate>) {
        precondition(output.count == points.count, "GCJ02.fromWGS84: output holds \(output.count) points, input \(points.count)")
        guard let input = points.baseAddress, let out = output.baseAddress else { return }
        var i = 0
        while i + 4 <= points.count {
            let lat = SIMD4(input[i].latitude, input[i + 1].latitude, input[i + 2].latitude, input[i + 3].latitude)
            let lon = SIMD4(input[i].longitude, input[i + 1].longitude, input[i + 2].longitude, input[i + 3].longitude)
            if let d = offsets(latitude: lat, longitude: lon) {
                let gLat = lat + d.latitude, gLon = lon + d.longitude
                for k in 0..<4 { out[i + k] = Coordinate(latitude: gLat[k], longitude: gLon[k]) }
            } else {
                for k in i..<(i + 4) { out[k] = fromWGS84(input[k]) }
            }
            i += 4
        }
        while i < points.count {
            out[i] = fromWGS84(input[i])
            i += 1
        }
    }

    /// GCJ-02 → WGS-84 for every point of `points`, written to `output` (same count; it may be
    /// the same memory), unconditionally unshifted; each is ``toWGS84(_:)`` of its point: a lane
    /// stops updating at the step where the scalar iteration would stop.
    public static func toWGS84(_ points: UnsafeBufferPointer<Coordinate>, into output: UnsafeMutableBufferPointer<Coordinate>) {
        precondition(output.count == points.count, "GCJ02.toWGS84: output holds \(output.count) points, input \(points.count)")
        guard let input = points.baseAddress, let out = output.baseAddress else { return }
        var i = 0
        while i + 4 <= points.count {
            let gLat = SIMD4(input[i].latitude, input[i + 1].latitude, input[i + 2].latitude, input[i + 3].latitude)
            let gLon = SIMD4(input[i].longitude, input[i + 1].longitude, input[i + 2].longitude, input[i + 3].longitude)
            if let w = inverse(latitude: gLat, longitude: gLon) {
                for k in 0..<4 { out[i + k] = Coordinate(latitude: w.latitude[k], longitude: w.longitude[k]) }
            } else {
                for k in i..<(i + 4) { out[k] = toWGS84(input[k]) }
            }
            i += 4
        }
        while i < points.count {
            out[i] = toWGS84(input[i])
            i += 1
        }
    }

    /// The scalar iteration of ``toWGS84Counting(_:)`` in four lanes; nil when an evaluation
    /// leaves the vector sine's range (the caller then takes the scalar path for all four).
    @inlinable
    static func inverse(latitude gLat: SIMD4<Double>, longitude gLon: SIMD4<Double>) -> (latitude: SIMD4<Double>, longitude: SIMD4<Double>)? {
        guard var d = offsets(latitude: gLat, longitude: gLon) else { return nil }
        var lat = gLat - d.latitude
        var lon = gLon - d.longitude
        var running = SIMDMask<SIMD4<Int64>>(repeating: true)
        for _ in 0..<inverseMaximumSteps {
            guard let next = offsets(latitude: lat, longitude: lon) else { return nil }
            d = next
            let errorLat = lat + d.latitude - gLat
            let errorLon = lon + d.longitude - gLon
            lat.replace(with: lat - errorLat, where: running)
            lon.replace(with: lon - errorLon, where: running)
            // Scalar: max(|errorLat|, |errorLon|) < stop ⇔ both are below it (neither is NaN here).
            let stopped = magnitude(errorLat) .< inverseStopCorrection .& magnitude(errorLon) .< inverseStopCorrection
            running = running .& .!stopped
            if !any(running) { break }
        }
        return (lat, lon)
    }

    /// ``offset(latitude:longitude:)`` in four lanes, operation for operation; nil when any lane's
    /// sine argument is outside the polynomial's range (|θ| > 2 or not finite).
    @inlinable
    static func offsets(latitude: SIMD4<Double>, longitude: SIMD4<Double>) -> (latitude: SIMD4<Double>, longitude: SIMD4<Double>)? {
        let x = longitude - 105
        let y = latitude - 35
        let thetaX = x * (Double.pi / 60), thetaY = y * (Double.pi / 60), thetaLat = latitude * (Double.pi / 180)
        // Written so that NaN fails it too.
        guard all(magnitude(thetaX) .<= 2 .& magnitude(thetaY) .<= 2 .& magnitude(thetaLat) .<= 2) else { return nil }
        let hx = HarmonicLanes(sineCosineLanes(thetaX))
        let hy = HarmonicLanes(sineCosineLanes(thetaY))
        let xy = x * y
        let rootX = magnitude(x).squareRoot()
        let common = 20 * hx.sin6 + 20 * hx.sin2
        // Left to right as the scalar expressions associate (split only for the type checker).
        var dLat: SIMD4<Double> = 2 * x - 100
        dLat += 3 * y
        dLat += 0.2 * y * y
        dLat += 0.1 * xy
        dLat += 0.2 * rootX
        var harmonicsLat: SIMD4<Double> = common + 20 * hy.sin1
        harmonicsLat += 40 * hy.sin1over3
        harmonicsLat += 160 * hy.sin1over12
        harmonicsLat += 320 * hy.sin1over30
        dLat += harmonicsLat * (2.0 / 3.0)
        var dLon: SIMD4<Double> = x + 300
        dLon += 2 * y
        dLon += 0.1 * x * x
        dLon += 0.1 * xy
        dLon += 0.1 * rootX
        var harmonicsLon: SIMD4<Double> = common + 20 * hx.sin1
        harmonicsLon += 40 * hx.sin1over3
        harmonicsLon += 150 * hx.sin1over12
        harmonicsLon += 300 * hx.sin1over30
        dLon += harmonicsLon * (2.0 / 3.0)

        let phi = sineCosineLanes(thetaLat)
        let magic = 1 - eccentricitySquared * phi.sin * phi.sin
        let rootMagic = magic.squareRoot()
        return (dLat * latitudeScale * magic * rootMagic, dLon * longitudeScale * rootMagic / phi.cos)
    }
}

/// |v| lane by lane (−0 stays −0, which no caller can tell from +0; NaN stays NaN).
@inlinable
func magnitude(_ v: SIMD4<Double>) -> SIMD4<Double> {
    v.replacing(with: -v, where: v .< 0)
}

/// ``Harmonics`` in four lanes, operation for operation.
@usableFromInline
struct HarmonicLanes {
    @usableFromInline let sin1over30, sin1over12, sin1over3, sin1, sin2, sin6: SIMD4<Double>

    @inlinable
    init(_ sc: (sin: SIMD4<Double>, cos: SIMD4<Double>)) {
        let (s, c) = sc
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
