import Foundation
import XCTest
@testable import Intake
import Tracks
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
        // A copy named on the command line without an extension: its content decides.
        let copy = NSTemporaryDirectory() + "polar-session-\(getpid())"
        try FileManager.default.copyItem(atPath: Self.folder + "/" + names[0], toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let outcome = try IntakeHarness.run(names.map { .path(Self.folder + "/" + $0) }, options: options)
        // A run of its own: the same bytes in one run are a duplicate of the file.
        let records = IntakeHarness.records(outcome.ledger).merging(IntakeHarness.records(try IntakeHarness.run([.path(copy)], options: options).ledger)) { a, _ in a }
        for name in names + [copy] {
            let record = try XCTUnwrap(records[name == copy ? name : Self.folder + "/" + name], "\(name) in \(records.keys.sorted())")
            XCTAssertEqual(record.status, .read, name)
            XCTAssertEqual(record.format, "json/polarTrainingSession", name)
            let facts = try XCTUnwrap(expected?[name == copy ? names[0] : name], name)
            XCTAssertEqual(record.pointsRead, Int64(try XCTUnwrap(facts["points"] as? Int)), name)
            XCTAssertEqual(record.pointsPlanned, 0, name)
        }
        // Around Višnjan, Istria: the walk unlocks Croatia.
        let report = try ClassifyReport(ledger: outcome.ledger, tables: IntakeHarness.locator.tables, options: options.classify, lenient: false)
        XCTAssertNotNil(report.unlocks[.country]?.first { $0.code == "HRV" })
    }
}
