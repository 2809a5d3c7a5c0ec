import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// Receivers' logs as people hold them: gpsd's regression logs (named `.log`, opening with `#`
/// comment lines) in a folder are read as NMEA, every one, with times; named on their own too.
final class ReceiverLogIntakeTests: XCTestCase {
    func testCommentedNMEALogsInAFolderAreReadNotSkipped() throws {
        let folder = Repository.fixtures("TracksTests") + "/nmea/gpsd"
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".log") }
        XCTAssertEqual(logs.count, 7)
        let records = IntakeHarness.records(try IntakeHarness.run([.path(folder)]).ledger)
        for log in logs {
            let record = try XCTUnwrap(records[folder + "/" + log], log)
            XCTAssertEqual(record.format, "nmea", log)
            XCTAssertEqual(record.status, .read, log)  // timed: not `planned`
            XCTAssertGreaterThan(record.pointsRead, 0, log)
        }
        // Named on the command line: NMEA by content, not CSV.
        let one = folder + "/ublox-neo-m9n-nmea.log"
        let alone = IntakeHarness.records(try IntakeHarness.run([.path(one)]).ledger)
        XCTAssertEqual(alone[one]?.format, "nmea")
        XCTAssertEqual(alone[one]?.pointsRead, 61)
    }
}

/// The formats first read in issue 22, found in a folder by their names (`.igc`, `.plt`, `.rec`)
/// or, named on their own, by content (a `HiTrack_…` file has no extension).
final class NewFormatIntakeTests: XCTestCase {
    func testNewFormatsAreReadByNameAndContent() throws {
        let fixtures = Repository.fixtures("TracksTests")
        for (folder, format, count) in [("igc", "igc", 3), ("plt", "plt", 3), ("owntracks", "owntracks", 2)] {
            let records = IntakeHarness.records(try IntakeHarness.run([.path(fixtures + "/" + folder)]).ledger)
            let read = records.values.filter { $0.format == format }
            XCTAssertEqual(read.count, count, folder)
            XCTAssertTrue(read.allSatisfy { $0.status == .read && $0.pointsRead > 0 }, folder)
        }
        let hitrack = fixtures + "/hitrack/HiTrack_1551732120000155173259000030001"
        let alone = IntakeHarness.records(try IntakeHarness.run([.path(hitrack)]).ledger)
        XCTAssertEqual(alone[hitrack]?.format, "hitrack")
        XCTAssertEqual(alone[hitrack]?.pointsRead, 235)
    }
}
