import Foundation
import XCTest
import UnlocksTestSupport

/// Issue 32's files from other projects, through `unlocks classify` as a person runs it: MemoLanes'
/// Fog of World data (a tile in a `Sync/` folder and the same tile in a zip are one input; a `.fwss`
/// snapshot in a folder is read), gpsd's u-blox logs in a folder, and a GeoJSON point repeating the
/// previous time. Expected values from independent decoders (the fixtures' `expected.json`).
final class ReaderCasesCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func classify(_ paths: [String]) throws -> [String: Any] {
        let result = try CommandRunner.run(["classify"] + paths + ["--tables", Self.tables, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func files(_ report: [String: Any]) -> [String: [String: Any]] {
        let list = ((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]]) ?? []
        return Dictionary(list.map { ($0["path"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    func testFogOfWorldCopiesInAndOutOfAnArchiveAndASnapshotInAFolder() throws {
        let folder = Repository.fixtures("IntakeTests") + "/fog-of-world/memolanes"
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))) as? [String: Any])
        let inputs = files(try classify([folder]))
        for archive in ["fow_1.zip", "Snapshot-20260601T232045+0800.fwss"] {
            for (member, pixels) in try XCTUnwrap(expected[archive] as? [String: Int]) {
                // The loose copy in Sync/ is read; the zip's member of the same bytes is its duplicate.
                if archive == "fow_1.zip", member == "23e4lltkkoke" {
                    let copy = try XCTUnwrap(inputs["\(folder)/\(archive):\(member)"])
                    XCTAssertEqual(copy["status"] as? String, "skipped")
                    XCTAssertEqual(copy["duplicateOf"] as? String, "\(folder)/Sync/\(member)")
                    XCTAssertEqual(inputs["\(folder)/Sync/\(member)"]?["pointsRead"] as? Int, pixels)
                    continue
                }
                let input = try XCTUnwrap(inputs["\(folder)/\(archive):\(member)"], member)
                XCTAssertEqual(input["status"] as? String, "read", member)
                XCTAssertEqual(input["pointsRead"] as? Int, pixels, member)
            }
        }
    }

    func testAUbloxLogInAFolderIsReadAsNMEA() throws {
        let folder = Repository.fixtures("TracksTests") + "/nmea/gpsd"
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))) as? [String: [String: Any]])
        let inputs = files(try classify([folder]))
        for name in ["ublox-zed-f9t-ubx_nmea_l5.log", "ublox8-uniqid-monhw.log"] {
            let input = try XCTUnwrap(inputs["\(folder)/\(name)"], name)
            XCTAssertEqual(input["format"] as? String, "nmea", name)
            XCTAssertEqual(input["pointsRead"] as? Int, expected[name]?["points"] as? Int, name)
        }
        // Named, too (once read as CSV and rejected).
        let named = files(try classify([folder + "/ublox8-uniqid-monhw.log"]))
        XCTAssertEqual(named.values.first?["format"] as? String, "nmea")
    }

    func testAGeoJSONPointRepeatingThePreviousTimeIsADuplicate() throws {
        let folder = Repository.fixtures("TracksTests") + "/geojson"
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))) as? [String: [String: Any]])
        let report = try classify([folder + "/repeated-time.geojson"])
        let dropped = ((report["points"] as? [String: Any])?["dropped"] as? [String: Any]) ?? [:]
        XCTAssertEqual(dropped["duplicateTime"] as? Int, expected["repeated-time.geojson"]?["duplicateTimes"] as? Int)
        XCTAssertEqual(expected["repeated-time.geojson"]?["duplicateTimes"] as? Int, 1)
    }
}
