import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// Polar Flow's `training-session-*.json` (Tests/TracksTests/Fixtures/json-apps): decided by its
/// name's `.json` and then its `exercises` member, or by content alone when the name says
/// nothing; every route sample read, timed (never planned), in the run's zone when the file
/// gives no offset.
final class PolarIntakeTests: XCTestCase {
    static let folder = Repository.fixtures("TracksTests") + "/json-apps"

    func testTrainingSessionsByNameAndByContent() throws {
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.folder + "/expected.json"))) as? [String: [String: Any]]
        var options = IntakeOptions()
        options.classify.timeZone = try XCTUnwrap(LocalTimeZone(identifier: "Europe/Zagreb"))
        let names = ["training-session-2020-12-18-visnjan.json", "training-session-2020-12-18-multisport.json"]
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + names[0])))
        let outcome = try IntakeHarness.run(names.map { .path(Self.folder + "/" + $0) } + [.memory(name: "polar-session", bytes: bytes)], options: options)
        let records = IntakeHarness.records(outcome.ledger)
        for name in names + ["polar-session"] {
            let record = try XCTUnwrap(records[name == "polar-session" ? name : Self.folder + "/" + name], name)
            XCTAssertEqual(record.status, .read, name)
            XCTAssertEqual(record.format, "json/polarTrainingSession", name)
            let facts = try XCTUnwrap(expected?[name == "polar-session" ? names[0] : name], name)
            XCTAssertEqual(record.pointsRead, Int64(try XCTUnwrap(facts["points"] as? Int)), name)
            XCTAssertEqual(record.pointsPlanned, 0, name)
        }
        // Around Višnjan, Istria: the walk unlocks Croatia.
        let report = try ClassifyReport(ledger: outcome.ledger, tables: IntakeHarness.locator.tables, options: options.classify, lenient: false)
        XCTAssertNotNil(report.unlocks[.country]?.first { $0.code == "HRV" })
    }
}
