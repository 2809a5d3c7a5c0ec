import ChinaDatum
import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// The CI subset of the agreement harness (`UnlocksBench agreement` runs the whole of it): the
/// committed tables' locator against GEOS on the full-resolution source for Beijing, Tianjin and
/// Hebei (``SourceSubset``), where the datum shift decides
/// provinces, Langfang is cut in two and there is a coast: 20,000 random points in their
/// bounding box, points within 2 km of their borders, and the real places in them. Every
/// disagreement must lie within the table's stated maximum deviation + 1 m of the source border.
final class SourceAgreementTests: XCTestCase {
    static let root = URL(fileURLWithPath: Repository.root)

    // SourceReference holds a GEOS context, which one thread at a time may use: XCTest runs these
    // tests one after another on one thread, the only one that touches the fixture.
    nonisolated(unsafe) static let fixture: Result<(catalog: SourceCatalog, reference: SourceReference, locator: RegionLocator), Error> = Result {
        let catalog = try SourceSubset.catalog.get()
        let locator = try RegionLocator(directory: root.appendingPathComponent("Data/regions").path, marginRadius: 0)
        return (catalog, try SourceReference(catalog), locator)
    }

    /// china.bin's largest `maximumDeviationMetres` in the committed manifest, + 1 m.
    func limit() throws -> Double {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.root.appendingPathComponent("Data/regions/manifest.json"))) as! [String: Any]
        let china = try XCTUnwrap((manifest["tables"] as! [[String: Any]]).first { $0["file"] as? String == "china.bin" })
        let deviations = (china["levels"] as! [[String: Any]]).compactMap { $0["maximumDeviationMetres"] as? Double }
        return try XCTUnwrap(deviations.max()) + 1
    }

    func assertAgreement(_ points: [Coordinate], _ name: String, expectWithin: Bool) throws {
        let (_, reference, locator) = try Self.fixture.get()
        let report = try AgreementReport(points, locator: locator, reference: reference, limit: try limit())
        XCTAssertEqual(report.levels, [.province, .city, .county])
        XCTAssertTrue(report.beyondLimit.isEmpty, "\(name): \(report.beyondLimit.count) disagreements beyond \(report.limit) m, e.g. "
                      + report.beyondLimit.prefix(5).map(\.description).joined(separator: "; "))
        for level in report.levels {
            let split = report.split(level)
            XCTAssertEqual(split.beyond.agreeing, split.beyond.points, "\(name) \(level.name)")
            XCTAssertEqual(split.within.points + split.beyond.points, points.count)
            // Points inside the three provinces must have been judged, not waved through.
            XCTAssertGreaterThan(split.beyond.points, points.count / 2, "\(name) \(level.name)")
            if expectWithin { XCTAssertGreaterThan(split.within.points, 0, "\(name) \(level.name): no point near a border") }
        }
    }

    func testRandomPointsAgreeBeyondTheStatedDeviation() throws {
        let (catalog, _, _) = try Self.fixture.get()
        let all = catalog.china.filter { $0.level == .province }.flatMap { $0.polygons.flatMap { $0.rings.flatMap { $0 } } }
        let points = AgreementPoints.random(count: 20_000, longitudes: all.map(\.x).min()!...all.map(\.x).max()!,
                                            latitudes: all.map(\.y).min()!...all.map(\.y).max()!, seed: 21)
        try assertAgreement(points, "random", expectWithin: false)
    }

    func testPointsNearProvincialBordersAgreeBeyondTheStatedDeviation() throws {
        let (catalog, _, _) = try Self.fixture.get()
        let points = AgreementPoints.nearBorders(of: catalog.china.filter { $0.level == .province }, spacing: 250, width: 2000, seed: 22)
        XCTAssertGreaterThan(points.count, 10_000)
        try assertAgreement(points, "near borders", expectWithin: true)
    }

    func testRealPlacesAgreeAndAreGCJ02() throws {
        let (_, reference, _) = try Self.fixture.get()
        let path = Self.root.appendingPathComponent("Tests/RegionTablesTests/Fixtures/real-places.csv").path
        let places = try AgreementPoints.places(csv: try SourceArchive.readFile(path), path: path)
            .filter { SourceSubset.provinces.contains(String($0.code.prefix(2))) }
        XCTAssertGreaterThan(places.count, 150)
        try assertAgreement(places.map { GCJ02.toWGS84(Coordinate(latitude: $0.latitude, longitude: $0.longitude)) }, "real places", expectWithin: false)
        // The seats lie in their own region in the source when read as GCJ-02, and fewer do when
        // read as WGS-84 (the measurement behind the fixture's README; the whole set is in BENCHMARKS.md).
        let known = places.filter { reference.hasRegion($0.code, at: $0.level) }
        let own = try known.filter { try reference.region(at: $0.level, longitude: $0.longitude, latitude: $0.latitude) == $0.code }
        let ownIfWGS84 = try known.filter {
            let gcj = GCJ02.fromWGS84(Coordinate(latitude: $0.latitude, longitude: $0.longitude))
            return try reference.region(at: $0.level, longitude: gcj.longitude, latitude: gcj.latitude) == $0.code
        }
        XCTAssertGreaterThan(Double(own.count), 0.98 * Double(known.count))
        XCTAssertGreaterThan(own.count, ownIfWGS84.count)
    }
}
