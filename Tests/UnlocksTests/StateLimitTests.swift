import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks

/// Checksum-valid states crafted at the edges of what a state may hold: every number read from
/// a state, and every sum over loaded numbers, is checked or refused with a message, never a
/// trap; and the points of a superseded reading count nothing.
final class StateLimitTests: XCTestCase {
    let tables = TrackClassifierTests.locator.tables
    let twoTo53: Int64 = 1 << 53

    func decode(_ bytes: [UInt8]) throws -> UnlockLedger {
        try LedgerState.decode(bytes, path: "crafted", options: ClassifyOptions(), tables: tables)
    }

    func encode(_ ledger: UnlockLedger) -> [UInt8] {
        LedgerState.encode(ledger, options: ClassifyOptions(), tables: tables)
    }

    /// `bytes` (a state without its checksum) with a valid checksum again.
    func checksummed(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        withUnsafeBytes(of: result.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { result += $0 }
        return result
    }

    func assertRefused(_ bytes: [UInt8], mentioning word: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(bytes), file: file, line: line) { error in
            XCTAssertTrue("\(error)".hasPrefix("crafted: "), "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(word), "\(error)", file: file, line: line)
        }
    }

    /// A walk of `count` points a second apart in central Beijing, read as `path`.
    func walk(_ classifier: inout TrackClassifier, path: String, fingerprint: String, count: Int, inaccurate: Int = 0) {
        classifier.begin(InputRecord(path: path, fingerprint: fingerprint, format: "test"))
        for i in 0..<inaccurate {
            classifier.point(TrackPoint(latitude: 39.90, longitude: 116.39, time: TrackClassifierTests.start - Int64(i + 1) * 1000, accuracy: 500))
        }
        for i in 0..<count {
            classifier.point(TrackPoint(latitude: 39.9030 + 0.00001 * Double(i), longitude: 116.3975,
                                        time: TrackClassifierTests.start + Int64(i) * 1000, accuracy: 5))
        }
        classifier.finish()
    }

    func oneWalk() -> UnlockLedger {
        var classifier = TrackClassifier(locator: TrackClassifierTests.locator, options: ClassifyOptions())
        walk(&classifier, path: "walk.gpx", fingerprint: "f1", count: 60)
        return classifier.takeLedger()
    }

    /// A cell's pass count near 2^64 (3 plus a varint of 2^64 − 3): the addition itself would
    /// overflow; the count is refused as beyond the bytes left, in the input's contribution
    /// (``ContributionCodec``) as in a state holding it.
    func testAPassCountNear2To64IsRefused() throws {
        var ledger = oneWalk()
        var part = ledger.contributions["f1"]!
        let last = part.cells.keys.last!, visit = part.cells.visits.last!.time / 1000
        part.passes = PassCandidates(sortedKeys: [last, last, last], seconds: [visit, visit + 20_000, visit + 40_000])
        ledger.contributions["f1"] = part
        XCTAssertEqual(try decode(encode(ledger)).contributions["f1"]?.passes.count, 3, "the honest state loads")
        let bytes = ContributionCodec.encode(part, tables: tables)
        let regions = ContributionCodec.Regions(tables: tables)
        XCTAssertEqual(try ContributionCodec.decode(bytes, regions: regions), part)
        // The contribution ends with the last cell's passes: head, count − 3 (0), two steps.
        var tail: [UInt8] = []
        for value in [UInt64(0) << 2 | 3, 0, 20_000, 20_000] { UnsignedVarint.append(value, to: &tail) }
        XCTAssertEqual(Array(bytes.suffix(tail.count)), tail)
        var huge: [UInt8] = []
        UnsignedVarint.append(UInt64.max - 2, to: &huge)
        let crafted = Array(bytes.dropLast(tail.count)) + [tail[0]] + huge + Array(tail.dropFirst(2))
        XCTAssertThrowsError(try ContributionCodec.decode(crafted, regions: regions)) {
            XCTAssertTrue("\($0)".contains("passes of a cell do not fit"), "\($0)")
        }
    }

    /// 4,100 minutes of 2^53 points each: every minute is in range, their sum is not.
    func testMinutesWhosePointsAddUpBeyond64BitsAreRefused() throws {
        var ledger = oneWalk()
        var part = ledger.contributions["f1"]!
        let first = part.moments.keys.min()!
        var tally = MomentTally()
        tally.points = twoTo53
        part.moments = Dictionary(uniqueKeysWithValues: (0..<4_100).map { (first + Int64($0), tally) })
        ledger.contributions["f1"] = part
        ledger.inputs["f1"]!.pointsRead = twoTo53
        ledger.inputs["f1"]!.pointsKept = twoTo53
        ledger.inputs["f1"]!.dropped = [:]
        assertRefused(encode(ledger), mentioning: "overflows 64 bits")
        // And in memory (a ledger an app built): an error, not a trap.
        XCTAssertThrowsError(try ledger.combined()) { XCTAssertTrue("\($0)".contains("point count of an input"), "\($0)") }
    }

    /// Two states of 600 inputs of 2^53 points each: each loads (600 · 2^53 < 2^63), the two
    /// merged (1,200 · 2^53) do not fit: the report says so instead of trapping.
    func testTwoStatesThatEachLoadButOverflowMergedAreRefused() throws {
        func state(_ prefix: String) -> [UInt8] {
            var ledger = UnlockLedger()
            for i in 0..<600 {
                var record = InputRecord(path: "\(prefix)\(i).csv", fingerprint: "\(prefix)\(i)", format: "csv")
                record.pointsRead = twoTo53
                record.pointsKept = twoTo53 - 1
                record.dropped = [.accuracy: 1]
                ledger.inputs[record.fingerprint] = record
            }
            return encode(ledger)
        }
        var a = try decode(state("a")), b = try decode(state("b"))
        XCTAssertEqual(try ClassifyReport(ledger: a, tables: tables, options: ClassifyOptions(), lenient: false).pointTotals.read, 600 * twoTo53)
        a.merge(b)
        XCTAssertThrowsError(try ClassifyReport(ledger: a, tables: tables, options: ClassifyOptions(), lenient: false)) {
            XCTAssertEqual("\($0)", "the merged points read overflows 64 bits")
        }
        // A state holding the merged ledger cannot be made from them either: it is refused on load.
        assertRefused(encode(a), mentioning: "points read overflows 64 bits")
        b = UnlockLedger()
        XCTAssertEqual(b.inputs.count, 0)
    }

    /// Every point read is kept or dropped: a state that says otherwise is refused.
    func testAStateWhoseReadIsNotKeptPlusDroppedIsRefused() throws {
        var ledger = oneWalk()
        let record = ledger.inputs["f1"]!
        XCTAssertEqual(record.pointsRead, record.pointsKept + record.dropped.values.reduce(0, +), "the classifier keeps the invariant")
        ledger.inputs["f1"]!.pointsRead += 1
        assertRefused(encode(ledger), mentioning: "every point read is kept or dropped")
        ledger.inputs["f1"]!.pointsRead -= 1
        ledger.inputs["f1"]!.dropped[.duplicateTime, default: 0] += 1
        assertRefused(encode(ledger), mentioning: "every point read is kept or dropped")
    }

    /// Cell keys off the grid and days beyond the days of ±2^53 ms are refused by name.
    func testCellKeysOffTheGridAndFarDaysAreRefused() throws {
        let row = ExploredGrid.cell(ofKey: oneWalk().contributions["f1"]!.cells.keys.last!).row
        // Beyond the last row, and one column beyond the last of the walk's last row (both sort last).
        for key in [Int64.max - 1, ExploredGrid.key(row: row, column: ExploredGrid.columnCount(row: row))] {
            var ledger = oneWalk()
            var part = ledger.contributions["f1"]!
            part.cells = CellList(sortedKeys: part.cells.keys + [key], visits: part.cells.visits + [part.cells.visits[0]])
            part.passes = PassCandidates()
            ledger.contributions["f1"] = part
            assertRefused(encode(ledger), mentioning: "is not on the grid")
        }
        var ledger = oneWalk()
        ledger.contributions["f1"]!.days.insert(1 << 50)
        assertRefused(encode(ledger), mentioning: "beyond the days of ±2^53 ms")
    }

    /// A file that grew, read twice: the earlier reading is superseded and counts nothing in the
    /// report's points (the later reading's own counts, computed here from what was fed).
    func testASupersededReadingCountsNoPoints() throws {
        var classifier = TrackClassifier(locator: TrackClassifierTests.locator, options: ClassifyOptions())
        walk(&classifier, path: "grows.gpx", fingerprint: "early", count: 100, inaccurate: 7)
        walk(&classifier, path: "grows.gpx", fingerprint: "late", count: 200, inaccurate: 3)
        let report = try ClassifyReport(ledger: classifier.ledger, tables: tables, options: ClassifyOptions(), lenient: false)
        XCTAssertEqual(report.supersededCount, 1)
        XCTAssertTrue(report.isSuperseded(classifier.ledger.inputs["early"]!))
        XCTAssertEqual(report.pointTotals.read, 203)
        XCTAssertEqual(report.pointTotals.kept, 200)
        XCTAssertEqual(report.pointTotals.dropped, [.accuracy: 3])
        let json = report.json()
        XCTAssertEqual(json["points"]?["read"]?.numberValue, 203)
        XCTAssertEqual(json["points"]?["dropped"]?["accuracy"]?.numberValue, 3)
        XCTAssertTrue(report.text().contains("Points: 203 read, 200 kept"), report.text())
        // Through a state as well.
        let reloaded = try decode(encode(classifier.ledger))
        XCTAssertEqual(try ClassifyReport(ledger: reloaded, tables: tables, options: ClassifyOptions(), lenient: false).pointTotals, report.pointTotals)
    }
}
