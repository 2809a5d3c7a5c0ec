import RegionTables
import Tracks
import Unlocks
import XCTest

/// States with a valid checksum but numbers no run can produce are refused with an error naming
/// the number, never a trap; merges that would overflow say so.
final class LedgerStateTests: XCTestCase {
    static var world: RegionTable { TrackClassifierTests.locator.world }
    static var china: RegionTable { TrackClassifierTests.locator.china }

    /// A small real ledger: one input, one region, a few cells.
    func ledger() -> UnlockLedger {
        var c = TrackClassifier(locator: TrackClassifierTests.locator, options: ClassifyOptions())
        c.begin(InputRecord(path: "walk.csv", fingerprint: "f1", format: "csv"))
        for i in 0..<20 {
            c.point(TrackPoint(latitude: 39.9030 + Double(i) * 0.0005, longitude: 116.3975, time: 1_700_000_000_000 + Int64(i) * 10_000))
        }
        c.finish()
        return c.takeLedger()
    }

    /// The state's bytes with its JSON edited by `edit`, the length and checksum made valid again.
    func crafted(_ edit: (String) -> String) -> [UInt8] {
        let bytes = LedgerState.encode(ledger(), options: ClassifyOptions(), world: Self.world, china: Self.china)
        let length = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
        let json = String(decoding: bytes[16..<(16 + length)], as: UTF8.self)
        let edited = Array(edit(json).utf8)
        XCTAssertNotEqual(edited, Array(json.utf8), "the edit must change the state")
        var result = Array(bytes[0..<8])
        withUnsafeBytes(of: UInt64(edited.count).littleEndian) { result += $0 }
        result += edited + bytes[(16 + length)..<(bytes.count - 8)]
        withUnsafeBytes(of: result.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { result += $0 }
        return result
    }

    func decode(_ bytes: [UInt8]) throws -> UnlockLedger {
        try LedgerState.decode(bytes, path: "crafted", options: ClassifyOptions(), world: Self.world, china: Self.china)
    }

    func assertRefused(_ bytes: [UInt8], mentioning word: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(bytes), file: file, line: line) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("crafted: "), text, file: file, line: line)
            XCTAssertTrue(text.contains(word), text, file: file, line: line)
        }
    }

    func replacing(_ pattern: String, with replacement: String) -> [UInt8] {
        crafted { $0.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression) }
    }

    func testAnUneditedCraftedStateStillDecodes() throws {
        XCTAssertEqual(try decode(crafted { $0.replacingOccurrences(of: "\"walk.csv\"", with: "\"walk2.csv\"") }).inputs["f1"]?.path, "walk2.csv")
    }

    func testHugeNegativeAndFractionalCountsAreRefused() {
        assertRefused(replacing("\"distanceMillimetres\":[0-9]+", with: "\"distanceMillimetres\":1e300"), mentioning: "distance")
        assertRefused(replacing("\"read\":[0-9]+", with: "\"read\":-5"), mentioning: "points read")
        assertRefused(replacing("\"durationMilliseconds\":[0-9]+", with: "\"durationMilliseconds\":1.5"), mentioning: "duration")
        assertRefused(replacing("\"kept\":[0-9]+", with: "\"kept\":9223372036854775807"), mentioning: "points kept")
        // A region's inside count (the fifth member of its entry) and its level.
        assertRefused(replacing(",([0-9]+),([0-9]+)\\]\\]", with: ",1e300,0]]"), mentioning: "inside point count")
        assertRefused(replacing("\"regions\":\\[\\[[0-9]+", with: "\"regions\":[[1e300"), mentioning: "region level")
        assertRefused(replacing("\"days\":\\[[0-9]+", with: "\"days\":[-1e300"), mentioning: "day")
        assertRefused(replacing("(\"regions\":\\[\\[[0-9]+,\"[^\"]*\",\\[)[0-9]+", with: "$11e300"), mentioning: "visit time")
    }

    func testAVersionOneStateIsRefusedWithTheReason() {
        var bytes = LedgerState.encode(ledger(), options: ClassifyOptions(), world: Self.world, china: Self.china)
        bytes.replaceSubrange(0..<8, with: Array("AUSTATE1".utf8))
        assertRefused(bytes, mentioning: "version 1")
    }

    func testMergesThatWouldOverflowAreRefused() {
        var a = ledger(), b = ledger()
        b.inputs = [:]
        a.distanceMillimetres = Int64.max - 10
        b.distanceMillimetres = Int64.max - 10
        XCTAssertThrowsError(try a.merge(b)) { XCTAssertEqual("\($0)", "the merged distance overflows 64 bits") }
        var c = ledger(), d = ledger()
        let key = c.regions.keys.first!
        c.regions[key]!.insidePoints = Int64.max
        d.regions[key]!.insidePoints = 1
        XCTAssertThrowsError(try c.merge(d)) { XCTAssertEqual("\($0)", "the merged inside point count overflows 64 bits") }
    }
}
