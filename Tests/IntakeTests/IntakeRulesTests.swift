import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// The intake's rules in-process: the one format decision (by name, by content, or both), and
/// the same ledger for any number of workers and any order of sources.
final class IntakeRulesTests: XCTestCase {
    func decide(_ name: String, _ content: String, explicit: Bool) -> String? {
        FormatTable.decide(name: name, prefix: ContentPrefix(Array(content.utf8)), explicit: explicit)?.name
    }

    func testTheFormatIsDecidedByNameThenContent() {
        let nmea = "Start log\n$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\n"
        XCTAssertEqual(decide("a.txt", nmea, explicit: false), "nmea", "a .txt holding NMEA is NMEA")
        XCTAssertEqual(decide("a.txt", "lat,lon\n1,2\n", explicit: false), "csv", "a .txt that begins like a CSV of coordinates is CSV")
        XCTAssertNil(decide("notes.txt", "Buy milk, eggs\n1,2\n", explicit: false), "a found .txt of other text is no track")
        XCTAssertEqual(decide("notes.txt", "Buy milk, eggs\n", explicit: true), "csv", "named by the caller: read as CSV")
        XCTAssertEqual(decide("a.log.gz", nmea, explicit: false), "nmea")
        XCTAssertNil(decide("a.log", "lat,lon\n", explicit: false), "a found .log that is not NMEA is no track")
        XCTAssertEqual(decide("a.log", "<gpx>", explicit: true), "gpx", "named by the caller: its content decides")
        XCTAssertEqual(decide("track.GPX", "lat,lon", explicit: false), "gpx", "the name wins over content")
        XCTAssertEqual(decide("-", "<?xml version=\"1.0\"?><!-- c --><TrainingCenterDatabase>", explicit: true), "tcx")
        XCTAssertEqual(decide("-", "\u{FEFF}  <kml:kml>", explicit: true), "kml")
        XCTAssertEqual(decide("-", " [1]", explicit: true), "json")
        XCTAssertNil(decide("image.png", "\u{FF}", explicit: false))
        XCTAssertEqual(decide("Sync/3551iitsowe", "\u{78}\u{01}", explicit: false), "fogofworld", "a tile by its name and zlib content")
        XCTAssertEqual(FormatTable.decide(name: "photo.jpg", prefix: ContentPrefix([0xFF, 0xD8, 0xFF, 0xE1]), explicit: false)?.name, "photo",
                       "a photo is read by its name and content")
        XCTAssertNil(decide("photo.jpg", "not a photo", explicit: false), "a .jpg that is no JPEG is no track")
        XCTAssertNil(decide("photo.jpg", "not a photo", explicit: true))
        XCTAssertNil(decide("3551iitsowe", "lat,lon", explicit: false), "a Fog of World tile's name on non-zlib bytes")
        XCTAssertEqual(FormatTable.recordFormat(of: "x.fit.gz"), "fit")
        XCTAssertEqual(FormatTable.recordFormat(of: "x.KMZ"), "kmz")
        XCTAssertEqual(FormatTable.recordFormat(of: "x.tgz"), "tar")
        XCTAssertEqual(ContainerKind(name: "Takeout.TAR.GZ"), .gzippedTar)
        XCTAssertEqual(ContainerKind(content: [0x50, 0x4B, 0x05, 0x06]), .zip, "an empty zip's end record")
    }

    /// The samples (a GPX, a CSV.gz, a zip, a backup, GeoJSON, Takeout) give the same ledger with
    /// 1, 2 and 4 workers, and with the sources in either order.
    func testWorkersAndOrderDoNotChangeTheLedger() throws {
        let samples = try FileManager.default.contentsOfDirectory(atPath: Repository.samples).sorted().map { IntakeSource.path(Repository.samples + "/" + $0) }
        var options = IntakeOptions()
        let one = try IntakeHarness.run(samples, options: options)
        XCTAssertGreaterThan(one.ledger.inputs.values.map(\.pointsRead).reduce(0, +), 0)
        for jobs in [2, 4] {
            options.jobs = jobs
            XCTAssertEqual(try IntakeHarness.run(samples, options: options).ledger, one.ledger, "\(jobs) jobs")
            XCTAssertEqual(try IntakeHarness.run(samples.reversed(), options: options).ledger, one.ledger, "\(jobs) jobs, reversed")
        }
    }
}
