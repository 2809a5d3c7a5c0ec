import Foundation
import XCTest
@testable import Intake
import Tracks
import Unlocks
import UnlocksTestSupport

/// Fog of World (世界迷雾) sync data, written from the sample tracks by
/// Scripts/fixtures/make-fog-of-world; the pixel and cell counts are fog-of-world-data-parser's.
final class FogOfWorldIntakeTests: XCTestCase {
    static let folder = Repository.fixtures("IntakeTests") + "/fog-of-world"

    struct Expected: Decodable {
        struct File: Decodable { let pixels: Int64; let tileX: Int; let tileY: Int }
        let files: [String: File]
        let pixels: Int64
        let cells: Int
    }

    static func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json")))
    }

    static func report(_ ledger: UnlockLedger) throws -> ClassifyReport {
        try ClassifyReport(ledger: ledger, tables: IntakeHarness.locator.tables, options: ClassifyOptions(), lenient: false)
    }

    func testTileNamesGiveTheirTiles() throws {
        for (name, file) in try Self.expected().files {
            let tile = try XCTUnwrap(FogOfWorldTile.tile(named: name), name)
            XCTAssertEqual(tile.x, file.tileX, name)
            XCTAssertEqual(tile.y, file.tileY, name)
        }
        // A check letter that is not the id's last digit's, a leading zero, an id beyond the world.
        XCTAssertNil(FogOfWorldTile.tile(named: "0921iihwtxm"))
        XCTAssertNil(FogOfWorldTile.tile(named: "0921oihwtxn"))
        XCTAssertNil(FogOfWorldTile.tile(named: "0921hkhkhkhzz"))
        XCTAssertNil(FogOfWorldTile.tile(named: "notes.txt"))
    }

    /// The sync folder: every tile read with the decoder's pixels, the union of their cells the
    /// decoder's cells; untimed, yet not a plan: no distance, no days; Beijing confirmed.
    func testTheSyncFolderIsReadPixelForPixel() throws {
        let expected = try Self.expected()
        let outcome = try IntakeHarness.run([.path(Self.folder + "/sync")])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records.count, expected.files.count)
        for (name, file) in expected.files {
            let record = try XCTUnwrap(records[Self.folder + "/sync/Sync/" + name], name)
            XCTAssertEqual(record.format, "fogofworld", name)
            XCTAssertEqual(record.status, .read, name)
            XCTAssertEqual(record.pointsRead, file.pixels, name)
            XCTAssertEqual(record.pointsKept, file.pixels, name)
            XCTAssertEqual(record.pointsPlanned, 0, name)
        }
        let report = try Self.report(outcome.ledger)
        XCTAssertEqual(report.pointTotals.read, expected.pixels)
        XCTAssertEqual(report.metrics.exploredCellCount, expected.cells)
        XCTAssertEqual(report.metrics.totalDistanceKilometers, 0)
        XCTAssertEqual(report.metrics.recordedDays, 0)
        let countries = report.unlocks[.country] ?? []
        let china = try XCTUnwrap(countries.first { $0.code == "CHN" })
        XCTAssertTrue(china.confirmed)
        XCTAssertNil(china.firstVisit.time)
        let provinces = (report.unlocks[.province] ?? []).filter(\.confirmed).map(\.englishName)
        XCTAssertTrue(provinces.contains { $0.contains("Beijing") }, "\(provinces)")
    }

    /// The same tiles zipped (`Sync/…` members) read the same.
    func testTheZippedFolderReadsTheSame() throws {
        let expected = try Self.expected()
        let outcome = try IntakeHarness.run([.path(Self.folder + "/zipped/Sync.zip")])
        let read = outcome.ledger.inputs.values.filter { $0.format == "fogofworld" && $0.status == .read }
        XCTAssertEqual(read.count, expected.files.count)
        XCTAssertEqual(read.reduce(0) { $0 + $1.pointsRead }, expected.pixels)
        XCTAssertEqual(try Self.report(outcome.ledger).metrics.exploredCellCount, expected.cells)
    }

    /// Damage: a block whose count disagrees with its bitmap is unreadable (its pixels not
    /// read), a cut zlib stream stops the file with the byte offset; a tile's name on other
    /// bytes is no tile.
    func testDamagedTilesAreReportedNotGuessed() throws {
        let expected = try Self.expected()
        let (name, file) = try XCTUnwrap(expected.files.min { $0.value.pixels < $1.value.pixels })
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/sync/Sync/" + name))
        let temporary = try temporaryDirectory()
        let sync = temporary + "/Sync"
        try FileManager.default.createDirectory(atPath: sync, withIntermediateDirectories: true)
        // Inflate, flip one bit of the first block's bitmap, deflate again (Python's zlib).
        let script = """
        import zlib
        data = bytearray(zlib.decompress(open('\(Self.folder)/sync/Sync/\(name)', 'rb').read()))
        data[32768] ^= 0x01
        open('Sync/\(name)', 'wb').write(zlib.compress(bytes(data)))
        open('cut/\(name)', 'wb').write(open('\(Self.folder)/sync/Sync/\(name)', 'rb').read()[:200])
        """
        try FileManager.default.createDirectory(atPath: temporary + "/cut", withIntermediateDirectories: true)
        _ = try IntakeHarness.python(script, in: temporary)
        let damaged = IntakeHarness.records(try IntakeHarness.run([.path(sync)]).ledger)[sync + "/" + name]
        XCTAssertEqual(damaged?.status, .read)
        XCTAssertEqual(damaged?.unreadablePoints, 1)
        XCTAssertLessThan(damaged?.pointsKept ?? .max, file.pixels)
        let cut = temporary + "/cut/" + name
        let cutRecord = IntakeHarness.records(try IntakeHarness.run([.path(cut)]).ledger)[cut]
        XCTAssertEqual(cutRecord?.status, .rejected)
        XCTAssertTrue(cutRecord?.error?.contains("zlib stream truncated") ?? false, cutRecord?.error ?? "")
        XCTAssertGreaterThan(original.count, 200)
    }
}

/// Untimed confirmed evidence (a footprint's) and a photo's visit survive the state: the report of
/// the decoded ledger is the report of the run, byte for byte.
final class ColdStartStateTests: XCTestCase {
    func testFootprintsAndPhotosRoundTripThroughTheState() throws {
        let sources: [IntakeSource] = [.path(FogOfWorldIntakeTests.folder + "/sync"), .path(Repository.fixtures("TracksTests") + "/photos/written")]
        let ledger = try IntakeHarness.run(sources).ledger
        let tables = IntakeHarness.locator.tables
        let bytes = LedgerState.encode(ledger, options: ClassifyOptions(), tables: tables)
        let decoded = try LedgerState.decode(bytes, path: "state", options: ClassifyOptions(), tables: tables)
        func rendered(_ ledger: UnlockLedger) throws -> String {
            try ClassifyReport(ledger: ledger, tables: tables, options: ClassifyOptions(), lenient: false).json().rendered()
        }
        let before = try rendered(ledger), after = try rendered(decoded)
        XCTAssertEqual(before, after)
        XCTAssertTrue(before.contains("\"fogofworld\""))
        XCTAssertTrue(before.contains("\"photo/heif\""))
    }
}
