import XCTest
import RegionTables
import Tracks
@testable import Unlocks
import UnlocksTestSupport

/// The cold start's evidence rules (docs/report-format.md, "Footprints" and "Photos"): explored
/// spots confirm a region from the 10th inside it, untimed; a photo confirms alone when its
/// accuracy (or 100 m) is inside the margin; neither draws legs or adds distance.
final class ColdStartEvidenceTests: XCTestCase {
    static var locator: RegionLocator { TrackClassifierTests.locator }
    static let start = TrackClassifierTests.start

    func codes(_ ledger: UnlockLedger, _ level: RegionLevel, confirmed: Bool = true) -> Set<String> {
        let table = level == .country ? Self.locator.world : Self.locator.china
        return Set(ledger.view.regions.filter { $0.key.level == level && $0.value.isConfirmed == confirmed }.map { table.region($0.key.index).code })
    }

    func spots(_ count: Int, at latitude: Double, _ longitude: Double) -> TrackClassifier {
        var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
        classifier.begin(InputRecord(path: "tile", fingerprint: "t", format: "fogofworld"))
        classifier.annotate(.exploredArea)
        for i in 0..<count { classifier.point(TrackPoint(latitude: latitude + Double(i) * 0.0001, longitude: longitude)) }
        classifier.finish()
        return classifier
    }

    func testTenSpotsInsideConfirmNineDoNot() {
        // Tiananmen Square, far inside China, Beijing and Dongcheng.
        let nine = spots(9, at: 39.9042, 116.3975), ten = spots(10, at: 39.9042, 116.3975)
        XCTAssertEqual(codes(nine.ledger, .country), [])
        XCTAssertEqual(codes(nine.ledger, .country, confirmed: false), ["CHN"])
        XCTAssertEqual(codes(ten.ledger, .country), ["CHN"])
        XCTAssertEqual(ten.ledger.inputs["t"]?.status, .read, "untimed, yet no plan")
        XCTAssertEqual(ten.ledger.inputs["t"]?.pointsPlanned, 0)
        let view = ten.ledger.view
        XCTAssertNil(view.regions.values.first { $0.isConfirmed }?.confirmedBy?.time)
        XCTAssertEqual(view.distanceMillimetres, 0)
        XCTAssertTrue(view.days.isEmpty)
        // Ten spots 11 m apart: every one its own cell or a neighbour's, none joined by a leg.
        XCTAssertGreaterThanOrEqual(view.cells.count, 4)
        XCTAssertLessThanOrEqual(view.cells.count, 10)
    }

    func photo(_ latitude: Double, _ longitude: Double, accuracy: Double?) -> TrackClassifier {
        var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
        classifier.begin(InputRecord(path: "p.jpg", fingerprint: "p", format: "photo/jpeg"))
        classifier.annotate(.snapshot)
        classifier.point(TrackPoint(latitude: latitude, longitude: longitude, time: Self.start, accuracy: accuracy))
        classifier.finish()
        return classifier
    }

    func testOnePhotoConfirmsWithItsDayAndNoCell() {
        let inside = photo(39.9042, 116.3975, accuracy: nil)
        XCTAssertEqual(codes(inside.ledger, .country), ["CHN"])
        XCTAssertEqual(inside.ledger.view.days.count, 1)
        XCTAssertEqual(inside.ledger.view.cells.count, 0)
        XCTAssertEqual(inside.ledger.view.distanceMillimetres, 0)
    }
}
