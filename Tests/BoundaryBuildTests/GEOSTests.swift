import CPROJ
import Foundation
import XCTest
@testable import BoundaryBuild

final class GEOSTests: XCTestCase {
    func testBufferOfASquareHasTheAnalyticArea() throws {
        let context = GEOSContext()
        let square = try context.geometry(wkt: "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))")
        XCTAssertEqual(try square.area(), 100)
        // A square of side 10 grown by 1: 100 + 4·10·1 + π·1² (the corners become quarter circles).
        let grown = try square.buffer(1, quadrantSegments: 64)
        XCTAssertEqual(try grown.area(), 140 + Double.pi, accuracy: 0.001)
        XCTAssertTrue(try grown.isValid())
        // Shrinking by more than half the side leaves nothing.
        XCTAssertEqual(try square.buffer(-6).area(), 0)
    }

    func testInvalidGeometryIsReportedAsInvalid() throws {
        let context = GEOSContext()
        let bowtie = try context.geometry(wkt: "POLYGON((0 0, 10 10, 10 0, 0 10, 0 0))")
        XCTAssertFalse(try bowtie.isValid())
        XCTAssertTrue(context.notices.contains { $0.contains("Self-intersection") }, "\(context.notices)")
    }

    func testGEOSErrorsCarryGEOSMessage() {
        let context = GEOSContext()
        XCTAssertThrowsError(try context.geometry(wkt: "POLYGON((0 0, 1 1")) { error in
            guard let error = error as? GEOSError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.operation, "read WKT")
            XCTAssertTrue(error.message.contains("ParseException"), error.message)
        }
        XCTAssertTrue(context.version.hasPrefix("3."), context.version)
    }

    func testWKTRoundTrip() throws {
        let context = GEOSContext()
        let wkt = "POLYGON ((0 0, 4 0, 4 3, 0 0))"
        XCTAssertEqual(try context.geometry(wkt: wkt).wkt(), wkt)
    }
}

final class ProjectionTests: XCTestCase {
    static let chinaAlbers = "+proj=aea +lat_1=25 +lat_2=47 +lon_0=105 +ellps=WGS84"

    func testBeijingRoundTripsThroughAlbersWithinANanodegree() throws {
        let projection = try Projection(Self.chinaAlbers)
        let (x, y) = try projection.forward(longitude: 116.3975, latitude: 39.9087)
        // Beijing lies ~11.4° east of the central meridian: about 950 km east, and north of
        // the projection's origin latitude (0°).
        XCTAssertEqual(x, 950_000, accuracy: 60_000)
        XCTAssertGreaterThan(y, 4_000_000)
        let (lon, lat) = try projection.inverse(x: x, y: y)
        XCTAssertEqual(lon, 116.3975, accuracy: 1e-9)
        XCTAssertEqual(lat, 39.9087, accuracy: 1e-9)
    }

    func testAlbersIsEqualArea() throws {
        // A 1°×1° cell at 40° N has an ellipsoidal area we can compute independently
        // (authalic-latitude formula); the projected polygon must match it closely.
        let projection = try Projection(Self.chinaAlbers)
        var xs: [Double] = [], ys: [Double] = []
        let steps = 100
        for i in 0..<steps { xs.append(116 + Double(i) / Double(steps)); ys.append(40) }
        for i in 0..<steps { xs.append(117); ys.append(40 + Double(i) / Double(steps)) }
        for i in 0..<steps { xs.append(117 - Double(i) / Double(steps)); ys.append(41) }
        for i in 0..<steps { xs.append(116); ys.append(41 - Double(i) / Double(steps)) }
        try projection.transform(PJ_FWD, first: &xs, second: &ys)
        var area = 0.0
        for i in 0..<xs.count {
            let j = (i + 1) % xs.count
            area += xs[i] * ys[j] - xs[j] * ys[i]
        }
        area = abs(area) / 2
        XCTAssertEqual(area, ellipsoidalCellArea(lat0: 40, lat1: 41, degreesLongitude: 1), accuracy: area * 1e-5)
    }

    /// Area of a lat/lon cell on the WGS-84 ellipsoid: (a²(1−e²)/2)·Δλ·[q(φ₁) − q(φ₀)] with
    /// q(φ) = sinφ/(1−e²sin²φ) + (1/2e)·ln((1+e sinφ)/(1−e sinφ)).
    func ellipsoidalCellArea(lat0: Double, lat1: Double, degreesLongitude: Double) -> Double {
        let a = 6378137.0, f = 1 / 298.257223563
        let e2 = f * (2 - f), e = e2.squareRoot()
        func q(_ phi: Double) -> Double {
            let s = sin(phi * .pi / 180)
            return s / (1 - e2 * s * s) + log((1 + e * s) / (1 - e * s)) / (2 * e)
        }
        return a * a * (1 - e2) / 2 * (degreesLongitude * .pi / 180) * (q(lat1) - q(lat0))
    }

    func testBadDefinitionIsAnErrorWithPROJsMessage() {
        XCTAssertThrowsError(try Projection("+proj=nonsense")) { error in
            guard let error = error as? ProjectionError else { return XCTFail("\(error)") }
            XCTAssertFalse(error.message.isEmpty)
        }
    }
}
