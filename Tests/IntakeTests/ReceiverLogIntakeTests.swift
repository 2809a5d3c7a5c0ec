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
        XCTAssertEqual(logs.count, 9)
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
        for (folder, format, count) in [("igc", "igc", 6), ("plt", "plt", 4), ("owntracks", "owntracks", 2)] {
            let records = IntakeHarness.records(try IntakeHarness.run([.path(fixtures + "/" + folder)]).ledger)
            let read = records.values.filter { $0.format == format }
            XCTAssertEqual(read.count, count, folder)
            XCTAssertTrue(read.allSatisfy { $0.status == .read && $0.pointsRead > 0 }, folder)
        }
        let hitrack = fixtures + "/hitrack/HiTrack_1551732120000155173259000030001"
        let alone = IntakeHarness.records(try IntakeHarness.run([.path(hitrack)]).ledger)
        XCTAssertEqual(alone[hitrack]?.format, "hitrack")
        XCTAssertEqual(alone[hitrack]?.pointsRead, 235)
        // In its folder too (it has no extension; once it was `not a track format` there).
        let inFolder = IntakeHarness.records(try IntakeHarness.run([.path(fixtures + "/hitrack")]).ledger)
        XCTAssertEqual(inFolder[hitrack]?.format, "hitrack")
        XCTAssertEqual(inFolder[hitrack]?.status, .read)
        XCTAssertEqual(inFolder[hitrack]?.pointsRead, 235)
    }
}

/// A FIT whose sub-sport is `virtual_activity` (Zwift draws its rides on real coordinates near the
/// Solomon Islands) is a virtual activity by its own word, as a Strava label makes one: skipped
/// unless `includeVirtual`. Once, it was labelled "virtual cycling" yet read, unlocking the islands.
final class VirtualFITIntakeTests: XCTestCase {
    /// Writes `name` with Python: a FIT of a sport message (cycling, the given sub-sport) and three
    /// timed records near Watopia's coordinates, CRCs as the FIT SDK computes them.
    static let fitWriter = """
    import struct
    TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401, 0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    def crc(data):
        c = 0
        for b in data:
            t = TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c ^= t ^ TABLE[b & 0xF]
            t = TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c ^= t ^ TABLE[(b >> 4) & 0xF]
        return c
    def fit(name, sub_sport):
        semi = lambda d: int(d * 2**31 / 180)
        body = bytes([0x40, 0, 0]) + struct.pack('<HB', 12, 2) + bytes([0, 1, 0, 1, 1, 0])
        body += bytes([0, 2, sub_sport])
        body += bytes([0x41, 0, 0]) + struct.pack('<HB', 20, 3) + bytes([253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
        for i in range(3):
            body += bytes([1]) + struct.pack('<Iii', 1078099200 + i, semi(-11.64 + i * 1e-4), semi(166.95))
        header = struct.pack('<BBHI4s', 14, 0x10, 2093, len(body), b'.FIT')
        header += struct.pack('<H', crc(header))
        data = header + body
        open(name, 'wb').write(data + struct.pack('<H', crc(data)))

    """

    func testAFITThatSaysItIsVirtualIsSkippedUnlessIncluded() throws {
        let folder = try temporaryDirectory()
        _ = try IntakeHarness.python(Self.fitWriter + "fit('zwift.fit', 58)\nfit('ride.fit', 0)\n", in: folder)
        let records = IntakeHarness.records(try IntakeHarness.run([.path(folder)]).ledger)
        XCTAssertEqual(records[folder + "/zwift.fit"]?.status, .skipped)
        XCTAssertEqual(records[folder + "/zwift.fit"]?.skipReason?.description, "virtual activity")
        XCTAssertEqual(records[folder + "/zwift.fit"]?.activityType, "virtual cycling")
        XCTAssertEqual(records[folder + "/ride.fit"]?.status, .read)
        XCTAssertEqual(records[folder + "/ride.fit"]?.pointsRead, 3)
        var options = IntakeOptions()
        options.includeVirtual = true
        let included = IntakeHarness.records(try IntakeHarness.run([.path(folder)], options: options).ledger)
        XCTAssertEqual(included[folder + "/zwift.fit"]?.status, .read)
        XCTAssertEqual(included[folder + "/zwift.fit"]?.pointsRead, 3)
    }
}
