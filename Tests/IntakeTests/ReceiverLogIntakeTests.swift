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
