import Foundation
import XCTest
@testable import Intake
import Tracks
import Unlocks
import UnlocksTestSupport

/// Photos in a folder (Tests/TracksTests/Fixtures/photos): read with their positions, skipped
/// when they have none, a damaged GPS IFD rejected; each a visit at a moment: its day and its
/// regions, no explored cell, no distance.
final class PhotoIntakeTests: XCTestCase {
    static let folder = Repository.fixtures("TracksTests") + "/photos"

    struct Expected: Decodable {
        struct Photo: Decodable { let time: Int64?; let noLocation: Bool?; let unusable: Bool? }
        let photos: [String: Photo]
    }

    func testAFolderOfPhotosAndSidecars() throws {
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: Self.folder + "/expected.json"))).photos
        // The photos' local times without an offset are read in the run's zone; the fixture
        // script wrote their expected instants for Asia/Shanghai, so the run says so.
        var options = IntakeOptions()
        options.classify.timeZone = try XCTUnwrap(LocalTimeZone(identifier: "Asia/Shanghai"))
        let outcome = try IntakeHarness.run([.path(Self.folder)], options: options)
        let records = IntakeHarness.records(outcome.ledger)
        for (name, photo) in expected {
            let record = try XCTUnwrap(records[Self.folder + "/" + name], name)
            if photo.noLocation == true {
                XCTAssertEqual(record.status, .skipped, name)
                XCTAssertEqual(record.skipReason?.description, "photo without a location", name)
            } else if photo.unusable == true {
                XCTAssertEqual(record.status, .rejected, name)
            } else {
                XCTAssertEqual(record.status, .read, name)
                XCTAssertEqual(record.pointsKept, 1, name)
                XCTAssertEqual(record.format, name.hasSuffix(".json") ? "json/photoSidecar" : name.hasSuffix(".heic") ? "photo/heif" : "photo/jpeg", name)
            }
        }
        let report = try ClassifyReport(ledger: outcome.ledger, tables: IntakeHarness.locator.tables, options: options.classify, lenient: false)
        XCTAssertEqual(report.metrics.exploredCellCount, 0)
        XCTAssertEqual(report.metrics.totalDistanceKilometers, 0)
        // Each located photo's local day (+08:00, the run's zone) counts.
        let times = expected.values.compactMap { $0.noLocation == true || $0.unusable == true ? nil : $0.time }
        XCTAssertEqual(times.count, 7)
        let days = Set(times.map { ($0 + 8 * 3_600_000) / 86_400_000 })
        XCTAssertEqual(report.metrics.recordedDays, days.count)
        // China: confirmed by the earliest photo there (Shanghai, 2023-10-02); Brazil by Rio's,
        // 100 m assumed, far inside.
        let countries = report.unlocks[.country] ?? []
        let china = try XCTUnwrap(countries.first { $0.code == "CHN" })
        XCTAssertTrue(china.confirmed)
        XCTAssertEqual(china.firstVisit.time, expected["written/shanghai.heic"]?.time)
        let brazil = try XCTUnwrap(countries.first { $0.code == "BRA" })
        XCTAssertTrue(brazil.confirmed)
        XCTAssertEqual(brazil.firstVisit.time, expected["written/rio-no-offset.jpg"]?.time)
    }
}
