import Foundation
import XCTest
@testable import ChinaDatum
import UnlocksTestSupport

/// The offset's polynomials against the published formula, and the Newton inverse against the
/// forward. The formula here is written again with libm's sine (independent of the polynomial
/// sine the tables are made from); the golden vectors compare against two other implementations.
final class OffsetFieldTests: XCTestCase {
    /// The published algorithm the obvious way, libm sines (as `Scripts/bench datum`'s baseline).
    static func textbookOffset(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
        let x = longitude - 105, y = latitude - 35
        var dLat = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        dLat += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        dLat += (20 * sin(y * .pi) + 40 * sin(y / 3 * .pi)) * 2 / 3
        dLat += (160 * sin(y / 12 * .pi) + 320 * sin(y * .pi / 30)) * 2 / 3
        var dLon = 300 + x + 2 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        dLon += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        dLon += (20 * sin(x * .pi) + 40 * sin(x / 3 * .pi)) * 2 / 3
        dLon += (150 * sin(x / 12 * .pi) + 300 * sin(x / 30 * .pi)) * 2 / 3
        let a = GCJ02.semiMajorAxis, ee = GCJ02.eccentricitySquared
        let radLat = latitude / 180 * .pi
        let magic = 1 - ee * sin(radLat) * sin(radLat)
        let sqrtMagic = magic.squareRoot()
        return ((dLat * 180) / ((a * (1 - ee)) / (magic * sqrtMagic) * .pi), (dLon * 180) / (a / sqrtMagic * cos(radLat) * .pi))
    }

    /// Every interval of the grid, at its ends, its Chebyshev extremes and random places: the
    /// offset within 1e-13° of the textbook formula (the polynomials' own error is ~3e-15°; the
    /// rest is the two evaluations' rounding, up to ~1e-14° where the terms cancel).
    func testOffsetMatchesTheTextbookFormulaOverTheWholeGrid() {
        var random = SplitMix64(seed: 7)
        var worst = 0.0, worstAt = (0.0, 0.0), count = 0
        func check(_ lat: Double, _ lon: Double) {
            let ours = GCJ02.offset(latitude: lat, longitude: lon)
            let reference = Self.textbookOffset(latitude: lat, longitude: lon)
            let error = max(abs(ours.latitude - reference.latitude), abs(ours.longitude - reference.longitude))
            count += 1
            if error > worst { (worst, worstAt) = (error, (lat, lon)) }
        }
        // Along x: every 1/32° interval of longitude 71…139 at ten places, at random latitudes.
        for i in 0..<OffsetField.xIntervals {
            let start = OffsetField.xOrigin + 105 + Double(i) / OffsetField.xPerDegree
            for k in 0..<10 {
                let lon = k == 0 ? start : start + random.uniform(0, 1) / OffsetField.xPerDegree
                check(random.uniform(-1, 57), lon)
            }
        }
        // Along y: every 1/8° interval of latitude −1…57 at forty places, at random longitudes.
        for j in 0..<OffsetField.yIntervals {
            let start = OffsetField.yOrigin + 35 + Double(j) / OffsetField.yPerDegree
            for k in 0..<40 {
                let lat = k == 0 ? start : start + random.uniform(0, 1) / OffsetField.yPerDegree
                check(lat, random.uniform(71, 139))
            }
        }
        // Beside the cusp at longitude 105 (√|x| is exact there, not a polynomial).
        for _ in 0..<10_000 { check(random.uniform(18, 53), 105 + random.uniform(-1e-3, 1e-3)) }
        XCTAssertLessThan(worst, 1e-13, "worst at \(worstAt)")
        print("offset: \(count) points, worst difference from the textbook formula \(worst)° at \(worstAt)")
    }

    /// Each one-variable polynomial against its term of the formula, densely: U and D within
    /// 2e-9 offset units (≈ 3e-14°), C within 1e-9, the two latitude factors within 1e-14 relative.
    func testEachPolynomialMatchesItsTerm() {
        var worstU = 0.0, worstD = 0.0, worstC = 0.0, worstLat = 0.0, worstLon = 0.0
        let field = OffsetField.shared
        for i in 0..<OffsetField.xIntervals {
            let row = UnsafePointer(field.xRows + i * OffsetField.xStride)
            for k in 0...64 {
                let u = -1 + Double(k) / 32
                let x = OffsetField.xOrigin + (Double(i) + 0.5 + u / 2) / OffsetField.xPerDegree
                worstU = max(worstU, abs(OffsetField.horner(row, degree: 7, u) - GCJ02.Terms.uAndD(x).u))
                worstD = max(worstD, abs(OffsetField.horner(row + 8, degree: 5, u) - GCJ02.Terms.uAndD(x).d))
            }
        }
        for j in 0..<OffsetField.yIntervals {
            let row = UnsafePointer(field.yRows + j * OffsetField.yStride)
            for k in 0...64 {
                let u = -1 + Double(k) / 32
                let y = OffsetField.yOrigin + (Double(j) + 0.5 + u / 2) / OffsetField.yPerDegree
                worstC = max(worstC, abs(OffsetField.horner(row, degree: 6, u) - GCJ02.Terms.c(y)))
                let (lat, lon) = GCJ02.Terms.factors(latitude: y + 35)
                worstLat = max(worstLat, abs(OffsetField.horner(row + 7, degree: 4, u) - lat) / lat)
                worstLon = max(worstLon, abs(OffsetField.horner(row + 12, degree: 4, u) - lon) / lon)
            }
        }
        XCTAssertLessThan(worstU, 2e-9)
        XCTAssertLessThan(worstD, 2e-9)
        XCTAssertLessThan(worstC, 1e-9)
        XCTAssertLessThan(worstLat, 1e-14)
        XCTAssertLessThan(worstLon, 1e-14)
        print("polynomials: U \(worstU), D \(worstD), C \(worstC) units; factors \(worstLat), \(worstLon) relative")
    }

    /// The Jacobian the inverse steers by, against central differences of the forward offset.
    func testJacobianMatchesFiniteDifferences() {
        var random = SplitMix64(seed: 11)
        let h = 1e-6
        for _ in 0..<20_000 {
            let lat = random.uniform(1, 55.8), lon = random.uniform(72.1, 137.8)
            guard abs(lon - 105) > 0.02, let j = OffsetField.shared.offsetAndJacobian(x: lon - 105, y: lat - 35) else { continue }
            let east = GCJ02.offset(latitude: lat, longitude: lon + h), west = GCJ02.offset(latitude: lat, longitude: lon - h)
            let north = GCJ02.offset(latitude: lat + h, longitude: lon), south = GCJ02.offset(latitude: lat - h, longitude: lon)
            XCTAssertEqual(j.latX, (east.latitude - west.latitude) / (2 * h), accuracy: 1e-7)
            XCTAssertEqual(j.lonX, (east.longitude - west.longitude) / (2 * h), accuracy: 1e-7)
            XCTAssertEqual(j.latY, (north.latitude - south.latitude) / (2 * h), accuracy: 1e-7)
            XCTAssertEqual(j.lonY, (north.longitude - south.longitude) / (2 * h), accuracy: 1e-7)
        }
    }

    /// The inverse round-trips within 1e-9° over the rectangle and at its edges, with two offset
    /// evaluations a point, and within its promised 1e-8° beside the cusp (fixed-point steps).
    func testInverseRoundTripsWithTwoEvaluations() {
        var random = SplitMix64(seed: 5)
        var worst = 0.0, worstBesideCusp = 0.0, evaluations = 0, count = 0, cusp = 0
        let r = (ChinaRectangle.minimumLatitude, ChinaRectangle.maximumLatitude, ChinaRectangle.minimumLongitude, ChinaRectangle.maximumLongitude)
        for n in 0..<400_000 {
            let wgs: Coordinate
            switch n % 8 {
            case 0: wgs = Coordinate(latitude: random.uniform(r.0, r.1), longitude: 105 + random.uniform(-0.03, 0.03))
            case 1: wgs = Coordinate(latitude: n % 16 == 1 ? r.0 : r.1, longitude: random.uniform(r.2, r.3))
            case 2: wgs = Coordinate(latitude: random.uniform(r.0, r.1), longitude: n % 16 == 2 ? r.2 : r.3)
            default: wgs = Coordinate(latitude: random.uniform(r.0, r.1), longitude: random.uniform(r.2, r.3))
            }
            let (back, used) = GCJ02.toWGS84Counting(GCJ02.fromWGS84(wgs))
            let error = max(abs(back.latitude - wgs.latitude), abs(back.longitude - wgs.longitude))
            if abs(wgs.longitude - 105) < 0.011 {
                cusp += 1
                worstBesideCusp = max(worstBesideCusp, error)
            } else {
                evaluations += used
                count += 1
                worst = max(worst, error)
            }
        }
        XCTAssertLessThan(worst, 1e-9)
        XCTAssertLessThan(worstBesideCusp, 1e-8)
        XCTAssertLessThan(Double(evaluations) / Double(count), 2.01)
        print("inverse: worst round trip \(worst)° (beside the cusp \(worstBesideCusp)°), \(Double(evaluations) / Double(count)) evaluations a point away from the cusp (\(cusp) beside it)")
    }
}
