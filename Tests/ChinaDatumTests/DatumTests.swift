#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import ChinaDatum

final class DatumTests: XCTestCase {
    /// The inverse is checked on a 0.05° grid over the whole China rectangle, not just on
    /// the fixture's points: round-trip error and evaluation count everywhere.
    func testInverseRoundTripOverTheWholeRectangle() {
        var worst = 0.0
        var evaluations = 0
        var count = 0
        var lat = ChinaRectangle.minimumLatitude
        while lat <= ChinaRectangle.maximumLatitude {
            var lon = ChinaRectangle.minimumLongitude
            while lon <= ChinaRectangle.maximumLongitude {
                let gcj = Coordinate(latitude: lat, longitude: lon)
                let (wgs, n) = GCJ02.toWGS84Counting(gcj)
                let again = GCJ02.fromWGS84(wgs)
                worst = max(worst, abs(again.latitude - lat), abs(again.longitude - lon))
                evaluations += n
                count += 1
                lon += 0.05
            }
            lat += 0.05
        }
        XCTAssertLessThan(worst, 1e-8, "round trip error")
        XCTAssertLessThanOrEqual(Double(evaluations) / Double(count), 3.01)
        print("inverse over \(count) grid points: worst round trip \(worst)°, \(Double(evaluations) / Double(count)) evaluations/point")
    }

    func testBD09InverseIsPrecise() {
        var worst = 0.0
        for i in 0..<10_000 {
            let gcj = Coordinate(latitude: 18 + Double(i % 100) * 0.37, longitude: 74 + Double(i / 100) * 0.63)
            let back = BD09.toGCJ02(BD09.fromGCJ02(gcj))
            worst = max(worst, abs(back.latitude - gcj.latitude), abs(back.longitude - gcj.longitude))
        }
        XCTAssertLessThan(worst, 1e-10)
    }

    func testConverterComposesThroughGCJ02() {
        let converter = DatumConverter()
        let wgs = Coordinate(latitude: 39.9087, longitude: 116.3975)
        let bd = converter.convert(wgs, from: .wgs84, to: .bd09)
        XCTAssertEqual(bd, BD09.fromGCJ02(GCJ02.fromWGS84(wgs)))
        let back = converter.convert(bd, from: .bd09, to: .wgs84)
        XCTAssertEqual(back.latitude, wgs.latitude, accuracy: 1e-8)
        XCTAssertEqual(back.longitude, wgs.longitude, accuracy: 1e-8)
        for datum in Datum.allCases {
            XCTAssertEqual(converter.convert(wgs, from: datum, to: datum), wgs)
        }
    }

    func testRectangleIsThePublishedOneWithInclusiveEdges() {
        let r = ChinaRectangle()
        XCTAssertTrue(r.appliesShift(latitude: 0.8293, longitude: 72.004))
        XCTAssertTrue(r.appliesShift(latitude: 55.8271, longitude: 137.8347))
        XCTAssertFalse(r.appliesShift(latitude: 0.8293.nextDown, longitude: 100))
        XCTAssertFalse(r.appliesShift(latitude: 30, longitude: 137.8347.nextUp))
        // The rectangle's known false positives (Manila, Seoul, Thimphu, Osaka), which a
        // ShiftDomain backed by the real China polygon fixes.
        for (lat, lon) in [(14.5995, 120.9842), (37.5665, 126.978), (27.4728, 89.639), (34.6937, 135.5023)] {
            XCTAssertTrue(r.appliesShift(latitude: lat, longitude: lon), "\(lat),\(lon)")
        }
    }

    func testCustomShiftDomainGatesTheShift() {
        struct NorthOf40: ShiftDomain {
            func appliesShift(latitude: Double, longitude: Double) -> Bool { latitude > 40 }
        }
        let converter = DatumConverter(domain: NorthOf40())
        let south = Coordinate(latitude: 39.9, longitude: 116.4)
        let north = Coordinate(latitude: 40.1, longitude: 116.4)
        XCTAssertEqual(converter.gcj02(fromWGS84: south), south)
        XCTAssertNotEqual(converter.gcj02(fromWGS84: north), north)
        XCTAssertEqual(DatumConverter(domain: Everywhere()).gcj02(fromWGS84: south), GCJ02.fromWGS84(south))
    }

    func testSineCosineMatchesLibm() {
        var worst = 0.0
        var theta = -2.5
        while theta <= 2.5 {
            let (s, c) = sineCosine(theta)
            worst = max(worst, abs(s - sin(theta)), abs(c - cos(theta)))
            theta += 0.0001
        }
        XCTAssertLessThan(worst, 1e-15)
    }

    func testOffsetIsWithinThePublishedMagnitude() {
        // Across China the shift is a few hundred metres, never more than ~0.01°.
        for lat in stride(from: 18.0, through: 53.0, by: 1) {
            for lon in stride(from: 74.0, through: 134.0, by: 1) {
                let d = GCJ02.offset(latitude: lat, longitude: lon)
                XCTAssertLessThan(abs(d.latitude), 0.01)
                XCTAssertLessThan(abs(d.longitude), 0.012)
            }
        }
    }
}
