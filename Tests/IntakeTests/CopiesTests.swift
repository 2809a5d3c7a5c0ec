import ChinaDatum
import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// Issue 26 items 6 and 9: byte-identical copies are all accounted for, and which one is read is
/// decided by the paths (the first in byte order), never by the order they are given, met
/// through a state, or split into shards; empty files are empty, never copies of each other.
final class CopiesTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = try temporaryDirectory()
        _ = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import os, zipfile, io
        os.makedirs("a"); os.makedirs("b")
        # Near the border of Xicheng and Dongcheng: read in WGS-84 or GCJ-02 it unlocks differently.
        for name in ["a/walk.csv", "b/walk.csv"]: open(name, "wb").write(walk(400, lat=39.9042))
        damaged = b"PK\\x05\\x06 a download cut short"
        for name in ["a/download.zip", "b/download.zip"]: open(name, "wb").write(damaged)
        for name in ["empty.csv", "empty.kmz", "a/empty.gpx", "b/empty.json"]: open(name, "wb").close()
        """, in: folder)
    }

    func path(_ name: String) -> String { folder + "/" + name }

    /// What the report shows of the inputs: path, status, reason, duplicateOf, points, datum.
    func view(_ ledger: UnlockLedger) -> [String] {
        ledger.inputs.values.map { "\($0.path) \($0.status) \($0.skipReason?.description ?? "-") \($0.duplicateOf ?? "-") \($0.pointsRead) \($0.datum?.rawValue ?? "wgs84")" }.sorted()
    }

    func testEveryCopyAndEveryEmptyFileIsAccounted() throws {
        let outcome = try IntakeHarness.run([.path(folder)])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[path("b/walk.csv")]?.duplicateOf, path("a/walk.csv"))
        XCTAssertEqual(records[path("a/walk.csv")]?.pointsRead, 400)
        // Two copies of a damaged download: both listed, the second as the first's duplicate.
        XCTAssertEqual(records[path("a/download.zip")]?.status, .rejected)
        XCTAssertEqual(records[path("b/download.zip")]?.duplicateOf, path("a/download.zip"))
        for name in ["empty.csv", "empty.kmz", "a/empty.gpx", "b/empty.json"] {
            XCTAssertEqual(records[path(name)]?.skipReason?.description, "empty file", name)
            XCTAssertNil(records[path(name)]?.duplicateOf, name)
        }
    }

    /// Argument order, a state's run order and a shard split give the same ledger; with the copies
    /// read in different datums (`--datum-for`), the unlocks too.
    func testWhichCopyIsReadDoesNotDependOnOrder() throws {
        var options = IntakeOptions()
        options.datums = try DatumRules(["b/**=gcj02"], fallback: .wgs84)
        let a = IntakeSource.path(path("a")), b = IntakeSource.path(path("b"))
        let forward = try IntakeHarness.run([a, b], options: options).ledger
        let backward = try IntakeHarness.run([b, a], options: options).ledger
        XCTAssertEqual(view(forward), view(backward))
        XCTAssertEqual(forward, backward)
        var jobs = options
        jobs.jobs = 3
        XCTAssertEqual(try IntakeHarness.run([b, a], options: jobs).ledger, forward)
        // Through a state: b first, then a.
        let first = try IntakeHarness.run([b], options: options).ledger
        XCTAssertEqual(try IntakeHarness.run([a], options: options, ledger: first).ledger, forward)
        XCTAssertEqual(try IntakeHarness.run([a], options: jobs, ledger: first).ledger, forward)
        // Shards merged, either way round.
        let shardA = try IntakeHarness.run([a], options: options).ledger
        var merged = first
        Copies.merge(shardA, into: &merged)
        XCTAssertEqual(view(merged), view(forward))
        var other = shardA
        Copies.merge(first, into: &other)
        XCTAssertEqual(view(other), view(forward))
        // The copy read is a's, in its own datum (WGS-84).
        XCTAssertNil(IntakeHarness.records(forward)[path("a/walk.csv")]?.datum)
        let regions = { (ledger: UnlockLedger) in try ClassifyReport(ledger: ledger, tables: IntakeHarness.locator.tables, options: ClassifyOptions(), lenient: false).json().rendered() }
        XCTAssertEqual(try regions(forward), try regions(backward))
        XCTAssertEqual(try regions(merged), try regions(forward))
    }
}
