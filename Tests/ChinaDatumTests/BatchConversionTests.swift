import XCTest
@testable import ChinaDatum
import UnlocksTestSupport

/// The batch entry points against the scalar functions, bit for bit: they promise the same
/// numbers, so any difference at all is a failure.
final class BatchConversionTests: XCTestCase {
    /// Random points over and well beyond the China rectangle (beyond the offset polynomials'
    /// grid, where the formula and libm take over), points within 1e-9° of
    /// the rectangle's edges on both sides, exact edges, and NaN, infinities and ±90/±180.
    static func points(_ count: Int, seed: UInt64) -> [Coordinate] {
        var random = SplitMix64(seed: seed)
        var points: [Coordinate] = []
        points.reserveCapacity(count)
        let r = (ChinaRectangle.minimumLatitude, ChinaRectangle.maximumLatitude, ChinaRectangle.minimumLongitude, ChinaRectangle.maximumLongitude)
        while points.count < count {
            switch random.next() % 4 {
            case 0, 1:
                points.append(Coordinate(latitude: random.uniform(r.0, r.1), longitude: random.uniform(r.2, r.3)))
            case 2:
                points.append(Coordinate(latitude: random.uniform(-90, 90), longitude: random.uniform(-180, 180)))
            default:
                // Near the gate: one coordinate at an edge ± up to 1e-9°, the other anywhere along it.
                let jitter = random.uniform(-1e-9, 1e-9) * Double(random.next() % 3)
                switch random.next() % 4 {
                case 0: points.append(Coordinate(latitude: r.0 + jitter, longitude: random.uniform(r.2 - 1, r.3 + 1)))
                case 1: points.append(Coordinate(latitude: r.1 + jitter, longitude: random.uniform(r.2 - 1, r.3 + 1)))
                case 2: points.append(Coordinate(latitude: random.uniform(r.0 - 1, r.1 + 1), longitude: r.2 + jitter))
                default: points.append(Coordinate(latitude: random.uniform(r.0 - 1, r.1 + 1), longitude: r.3 + jitter))
                }
            }
        }
        let special: [Double] = [.nan, .infinity, -.infinity, 90, -90, 180, -180, 0, -0.0]
        for (k, value) in special.enumerated() {
            points[7 * k] = Coordinate(latitude: value, longitude: 116.4)
            points[7 * k + 3] = Coordinate(latitude: 39.9, longitude: value)
        }
        return points
    }

    static func differing(_ a: [Coordinate], _ b: [Coordinate]) -> Int {
        zip(a, b).filter { $0.latitude.bitPattern != $1.latitude.bitPattern || $0.longitude.bitPattern != $1.longitude.bitPattern }.count
    }

    func testUnconditionalBatchesAreBitIdenticalToTheScalarFunctions() {
        // An odd count, so the tail after the last group of four is covered too.
        let points = Self.points(1_000_003, seed: 11)
        var forward = [Coordinate](repeating: Coordinate(latitude: 0, longitude: 0), count: points.count)
        var inverse = forward
        points.withUnsafeBufferPointer { p in
            forward.withUnsafeMutableBufferPointer { GCJ02.fromWGS84(p, into: $0) }
            inverse.withUnsafeMutableBufferPointer { GCJ02.toWGS84(p, into: $0) }
        }
        XCTAssertEqual(Self.differing(forward, points.map(GCJ02.fromWGS84)), 0, "forward")
        XCTAssertEqual(Self.differing(inverse, points.map(GCJ02.toWGS84)), 0, "inverse")
        // The batch really shifted the points inside China (a no-op would fail above, but say so).
        XCTAssertNotEqual(forward[1].latitude, points[1].latitude)
    }

    func testConverterBatchesAreBitIdenticalToItsScalarConversions() {
        let points = Self.points(200_001, seed: 12)
        let converter = DatumConverter()
        for source in Datum.allCases {
            for target in Datum.allCases {
                var batch = points
                converter.convert(&batch, from: source, to: target)  // in place: input and output alias
                let scalar = points.map { converter.convert($0, from: source, to: target) }
                XCTAssertEqual(Self.differing(batch, scalar), 0, "\(source) → \(target)")
            }
        }
        // Into separate memory, and with a domain that is not the rectangle.
        struct NorthOf40: ShiftDomain {
            func appliesShift(latitude: Double, longitude: Double) -> Bool { latitude > 40 }
        }
        let north = DatumConverter(domain: NorthOf40())
        var out = [Coordinate](repeating: Coordinate(latitude: 0, longitude: 0), count: points.count)
        points.withUnsafeBufferPointer { p in out.withUnsafeMutableBufferPointer { north.convert(p, into: $0, from: .wgs84, to: .gcj02) } }
        XCTAssertEqual(Self.differing(out, points.map { north.gcj02(fromWGS84: $0) }), 0)
    }

    func testBatchesOfEveryShortLength() {
        let points = Self.points(64, seed: 13)
        for n in 0...9 {
            var batch = Array(points[0..<n])
            DatumConverter(domain: Everywhere()).convert(&batch, from: .wgs84, to: .gcj02)
            XCTAssertEqual(Self.differing(batch, points[0..<n].map(GCJ02.fromWGS84)), 0, "\(n) points")
        }
    }
}
