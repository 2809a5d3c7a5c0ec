import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// Strava's `activities.csv` labels the bundle's tracks; a table whose labels cannot be read
/// (a quote never closed, no Filename column) is rejected with the reason, so the run says so
/// (exit 3) instead of reading a virtual ride as a real one in silence.
final class StravaLabelTests: XCTestCase {
    static let header = "Activity ID,Activity Date,Activity Name,Activity Type,Elapsed Time,Filename\n"

    /// A Strava export in a new folder: `table` as activities.csv, a Beijing walk as activities/1.csv.
    func bundle(_ table: String) throws -> String {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/export/activities", withIntermediateDirectories: true)
        _ = try IntakeHarness.python(IntakeHarness.csvWalk + "open('export/activities/1.csv', 'wb').write(walk(300))", in: dir)
        try table.write(toFile: dir + "/export/activities.csv", atomically: true, encoding: .utf8)
        return dir + "/export"
    }

    func testDotSlashFilenamesLabelTheirActivities() throws {
        let folder = try bundle(Self.header + "1,\"May 1, 2024, 9:00:00 AM\",Zwift ride,Virtual Ride,600,./activities/1.csv\n")
        let outcome = try IntakeHarness.run([.path(folder)])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[folder + "/activities/1.csv"]?.skipReason, .virtualActivity)
        XCTAssertEqual(records[folder + "/activities/1.csv"]?.activityName, "Zwift ride")
        XCTAssertEqual(records[folder + "/activities.csv"]?.skipReason, .metadata(.strava))
        XCTAssertEqual(outcome.failedInputs, 0)
    }

    func testATableWhoseLabelsCannotBeReadIsRejected() throws {
        let cases = [
            ("unterminated", Self.header + "1,May 1 2024,Morning walk,Walk,600,activities/9.gpx\n2,\"May 1, 2024,Zwift ride,Virtual Ride,600,activities/1.csv\n",
             ":3: a quoted field opened here is never closed"),
            ("no Filename", "Activity ID,Activity Date,Activity Name,Activity Type\n1,May 1 2024,Zwift ride,Virtual Ride\n",
             ":1: no Filename column"),
        ]
        for (name, table, expected) in cases {
            let folder = try bundle(table)
            var messages: [String] = []
            let outcome = try IntakeHarness.run([.path(folder)], messages: &messages)
            let records = IntakeHarness.records(outcome.ledger)
            let csv = try XCTUnwrap(records[folder + "/activities.csv"], name)
            XCTAssertEqual(csv.status, .rejected, name)
            XCTAssertTrue(csv.error?.contains("activities are not labelled") == true, "\(name): \(csv.error ?? "nil")")
            XCTAssertEqual(outcome.failedInputs, 1, name)
            XCTAssertTrue(messages.contains { $0.contains("activities.csv" + expected) }, "\(name): \(messages)")
            // The track is read, unlabelled: the report says why.
            XCTAssertEqual(records[folder + "/activities/1.csv"]?.status, .read, name)
        }
    }

    /// The same inside a zip: the table is the archive's member and is rejected there.
    func testATableInAZipIsRejectedToo() throws {
        let folder = try bundle("Activity ID,Activity Name,Activity Type\n1,Zwift ride,Virtual Ride\n")
        let dir = (folder as NSString).deletingLastPathComponent
        _ = try IntakeHarness.python("""
        import zipfile
        with zipfile.ZipFile('export.zip', 'w') as z:
            for name in ['activities.csv', 'activities/1.csv']: z.write('export/' + name, name)
        """, in: dir)
        let outcome = try IntakeHarness.run([.path(dir + "/export.zip")])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[dir + "/export.zip:activities.csv"]?.status, .rejected, "\(records.keys.sorted())")
        XCTAssertEqual(outcome.failedInputs, 1)
    }
}
