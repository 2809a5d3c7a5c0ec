import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// The formats first read in issue 22: IGC, OziExplorer PLT, OwnTracks `.rec`, Huawei HiTrack.
/// Real files against independent decoders (aerofiles for IGC, `Scripts/fixtures/make-igc-fixture-expectations`;
/// plain Python for the others, `Scripts/fixtures/make-line-format-fixture-expectations`), each read however
/// its bytes arrive, and the rules on the smallest inputs that show them.
final class NewFormatReaderTests: XCTestCase {
    typealias Read = (FedSource, inout TrackEventRecorder) throws -> Void

    func check(_ folder: String, files: Int, segments: Bool = false, read: Read, recognizes: ([UInt8]) -> Bool) throws {
        let fixtures = FixtureSet(folder)
        let expected = try fixtures.expected()
        XCTAssertEqual(expected.count, files, folder)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try fixtures.bytes(name)
            XCTAssertTrue(recognizes(Array(bytes.prefix(4096))), name)
            let (sink, error) = ReaderVerifier.verifyEvents(bytes, read: read)
            XCTAssertNil(error, name)
            XCTAssertEqual(sink.problems.count, facts["unreadablePoints"] as? Int ?? 0, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            if segments { XCTAssertEqual(sink.breaks, facts["segments"] as? Int, name) }
            let all = try XCTUnwrap(facts["all"] as? [Any], name)
            XCTAssertEqual(sink.points.count, all.count, name)
            XCTAssertEqual(sink.points.count, facts["points"] as? Int, name)
            for (index, (got, want)) in zip(sink.points, all).enumerated() {
                var exact = try XCTUnwrap(want as? [String: Any])
                let accuracy = exact.removeValue(forKey: "accuracy") as? Double
                let elevation = exact.removeValue(forKey: "ele") as? Double
                exact["ele"] = got.elevation  // compared below, within rounding
                assertPoint(got, exact, "\(name) point \(index)", tolerance: 1e-9)
                XCTAssertEqual(got.elevation ?? -1e9, elevation ?? -1e9, accuracy: 1e-9, "\(name) point \(index)")
                XCTAssertEqual(got.accuracy ?? -1, accuracy ?? -1, accuracy: 1e-9, "\(name) point \(index)")
            }
        }
    }

    func testIGCFilesMatchAerofiles() throws {
        try check("igc", files: 6, read: { try IGCReader.read($0, path: "t.igc", into: &$1) }, recognizes: IGCReader.recognizes)
    }

    func testPLTFilesMatchAnIndependentDecoder() throws {
        try check("plt", files: 4, segments: true, read: { try OziPLTReader.read($0, path: "t.plt", into: &$1) }, recognizes: OziPLTReader.recognizes)
    }

    func testOwnTracksFilesMatchAnIndependentDecoder() throws {
        try check("owntracks", files: 2, read: { try OwnTracksReader.read($0, path: "t.rec", into: &$1) }, recognizes: OwnTracksReader.recognizes)
    }

    func testHiTrackFileMatchesAnIndependentDecoder() throws {
        try check("hitrack", files: 1, read: { try HiTrackReader.read($0, path: "HiTrack_1", into: &$1) }, recognizes: HiTrackReader.recognizes)
    }

    // MARK: Rules

    func read(_ text: String, _ read: (MemorySource, inout TrackEventRecorder) throws -> Void) throws -> TrackEventRecorder {
        var sink = TrackEventRecorder()
        try read(MemorySource(Array(text.utf8)), &sink)
        return sink
    }

    func testIGCRollsOverMidnightAndReadsFixAccuracy() throws {
        let igc = """
        AXXX001
        HFDTEDATE:311223,01
        I013638FXA
        B2359584530000N00730000EA0100001200005
        B0000034530010N00730010EA0100101201007
        B0000084530020N00730020EV0000000000012
        B0000X84530020N00730020EA0000000000012
        """
        let sink = try read(igc) { try IGCReader.read($0, path: "t.igc", into: &$1) }
        XCTAssertEqual(sink.points.map(\.time), ["2023-12-31T23:59:58Z", "2024-01-01T00:00:03Z", "2024-01-01T00:00:08Z"].map { Timestamp.parse($0) })
        XCTAssertEqual(sink.points.map(\.accuracy), [5, 7, 12])
        XCTAssertEqual(sink.points.map(\.elevation), [1200, 1201, nil])  // a V fix has no elevation
        XCTAssertEqual(sink.points.first?.latitude ?? 0, 45.5, accuracy: 1e-12)
        XCTAssertEqual(sink.problems.map(\.line), [7])
        XCTAssertFalse(IGCReader.recognizes(Array("lat,lon\n1,2\n".utf8)))
    }

    /// Issue 32: a date line with a space after its colon dates the fixes; an altitude that is
    /// not a number makes its fix unreadable, whatever the validity (as aerofiles reads both).
    func testIGCDateAfterASpaceAndAltitudesThatAreNotNumbers() throws {
        let igc = """
        AXXX001
        HFDTEDATE: 311223,01
        B2359584530000N00730000EA0100001200005
        B2359594530000N00730000EV01000-----005
        B2359594530000N00730000EV0100000000005
        B2359594530000N00730000EA01X0001200005
        """
        let sink = try read(igc) { try IGCReader.read($0, path: "t.igc", into: &$1) }
        XCTAssertEqual(sink.points.map(\.time), [Timestamp.parse("2023-12-31T23:59:58Z"), Timestamp.parse("2023-12-31T23:59:59Z")])
        XCTAssertEqual(sink.points.map(\.elevation), [1200, nil])
        XCTAssertEqual(sink.problems.map(\.line), [4, 6])
    }

    func testPLTReadsBreaksFeetAndDelphiDaysAndRefusesOtherDatums() throws {
        let header = "OziExplorer Track Point File Version 2.1\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,t,0,0,2,8421376\n3\n"
        let points = "1.5,2.5,1,100,40180.5,,\n1.6,2.6,0,-777,40180.5000116,,\n1.7,2.7,1,0,0,,\n1.8,2.8,0,0,25569.0000000,01-Jan-70,00:00:00\n"
        let sink = try read(header + points) { try OziPLTReader.read($0, path: "t.plt", into: &$1) }
        XCTAssertEqual(sink.breaks, 2)
        // 25569 (1970-01-01 00:00), the "unset" value, is no time, as 0 is.
        XCTAssertEqual(sink.points.map(\.time), [Timestamp.parse("2010-01-02T12:00:00Z"), Timestamp.parse("2010-01-02T12:00:01Z"), nil, nil])
        XCTAssertEqual(sink.points.map(\.elevation), [30.48, nil, 0, 0])
        XCTAssertThrowsError(try read(header.replacingOccurrences(of: "WGS 84", with: "Pulkovo 1942") + "1,2,0,0,40180,,\n") { try OziPLTReader.read($0, path: "t.plt", into: &$1) }) { error in
            XCTAssertEqual((error as? InputError)?.line, 2)
        }
    }

    func testOwnTracksReadsLocationsOnlyWithTheFixTime() throws {
        let text = """
        2024-03-01T09:03:09Z\t*\t{"_type":"location","lat":52.2,"lon":13.3,"tst":1709283789,"acc":10,"alt":36}
        2024-03-01T09:04:00Z\t*\t{"_type":"transition","lat":52.2,"lon":13.3,"tst":1709283800,"event":"leave"}
        2024-03-01T09:05:00Z\t*\t{"_type":"location","lat":52.3,"lon":13.4}
        2024-03-01T09:06:00Z\t*\tnot json
        """
        let sink = try read(text) { try OwnTracksReader.read($0, path: "t.rec", into: &$1) }
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 52.2, longitude: 13.3, time: 1_709_283_789_000, accuracy: 10, elevation: 36)])
        XCTAssertEqual(sink.problems.map(\.line), [3, 4])
    }

    func testHiTrackPassesOverLostFixesAndOtherRecords() throws {
        let text = "tp=lbs;k=0;lat=50.1;lon=-3.5;alt=0.0;t=1.55173212E12;\ntp=lbs;k=1;lat=90.0;lon=-80.0;alt=0.0;t=1.551732121E12;\ntp=h-r;k=1551732120000;v=120;\ntp=lbs;k=2;lat=50.2;lon=-3.6;alt=12.5;t=1551732125;\n"
        var sink = TrackEventRecorder()
        let summary = try HiTrackReader.read(MemorySource(Array(text.utf8)), path: "HiTrack_1", into: &sink)
        XCTAssertEqual(sink.points.map(\.time), [1_551_732_120_000, 1_551_732_125_000])
        XCTAssertEqual(sink.points.map(\.elevation), [nil, 12.5])
        XCTAssertEqual(summary.lostFixes, 1)
        XCTAssertEqual(summary.otherRecords, 1)
    }
}
