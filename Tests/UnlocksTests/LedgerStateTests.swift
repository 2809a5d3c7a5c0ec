import RegionTables
import Tracks
import Unlocks
import XCTest
import UnlocksTestSupport

/// States with a valid checksum but numbers no run can produce are refused with an error naming
/// the number, never a trap; merges that would overflow say so.
final class LedgerStateTests: XCTestCase {

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
        let bytes = LedgerState.encode(ledger(), options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
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
        try LedgerState.decode(bytes, path: "crafted", options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
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
        assertRefused(replacing("\"read\":[0-9]+", with: "\"read\":-5"), mentioning: "points read")
        assertRefused(replacing("\"kept\":[0-9]+", with: "\"kept\":9223372036854775807"), mentioning: "points kept")
        assertRefused(replacing("\"contribution\":[0-9]+", with: "\"contribution\":1.5"), mentioning: "contribution length")
        assertRefused(replacing("\"contribution\":[0-9]+", with: "\"contribution\":4503599627370496"), mentioning: "does not fit in the file")
        assertRefused(replacing("\"contribution\":[0-9]+", with: "\"contribution\":3"), mentioning: "its contribution from byte")
    }

    /// Numbers of an input's contribution (``ContributionCodec``) no run can write: refused by name.
    func testOutOfRangeEvidenceAndDaysAreRefused() {
        func encoded(_ edit: (inout InputContribution) -> Void) -> [UInt8] {
            var l = ledger()
            edit(&l.contributions["f1"]!)
            return LedgerState.encode(l, options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
        }
        let key = ledger().contributions["f1"]!.regions.keys.min()!
        assertRefused(encoded { $0.regions[key]!.confirmedBy!.time = 1 << 60 }, mentioning: "visit time")
        assertRefused(encoded { $0.regions[key]!.confirmedBy!.latitude = 91 }, mentioning: "is no position")
        assertRefused(encoded { $0.days = [1 << 40] }, mentioning: "beyond the days")
        assertRefused(encoded { $0.places[0].flags = 0xFF }, mentioning: "out of range")
        assertRefused(encoded { part in
            let minute = part.moments.keys.min()!
            part.moments[minute]!.vehicleDistanceMillimetres = part.moments[minute]!.distanceMillimetres + 1
        }, mentioning: "by vehicle than in all")
    }

    /// Numbers of the binary part (a minute's tally) no run can write: refused by name.
    func testOutOfRangeMinutesAreRefused() {
        func encoded(_ edit: (inout MomentTally) -> Void) -> [UInt8] {
            var l = ledger()
            let minute = l.contributions["f1"]!.moments.keys.min()!
            edit(&l.contributions["f1"]!.moments[minute]!)
            return LedgerState.encode(l, options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
        }
        assertRefused(encoded { $0.distanceMillimetres = 1 << 60 }, mentioning: "distance of minute")
        assertRefused(encoded { $0.durationMilliseconds = 70_000 }, mentioning: "not within the minute")
        assertRefused(encoded { $0.inFlight = $0.points + 1 }, mentioning: "more in flight")
        assertRefused(encoded { $0.places = [(place: 99, points: 1)] }, mentioning: "not in its palette")
    }

    /// Random bytes of the binary part (places, minutes, cells) changed, the checksum made valid:
    /// every such state decodes or is refused with an error naming it, never a trap.
    func testDamagedBinaryPartsAreRefusedOrRead() {
        var two = ledger()
        var other = two.contributions["f1"]!
        other.moments = Dictionary(uniqueKeysWithValues: other.moments.map { ($0.key + 100, $0.value) })
        two.inputs["f2"] = InputRecord(path: "later.csv", fingerprint: "f2", format: "csv")
        two.contributions["f2"] = other
        let bytes = LedgerState.encode(two, options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
        let start = 16 + Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
        var random = SplitMix64(seed: 1012)
        var refused = 0
        for _ in 0..<500 {
            var damaged = Array(bytes[0..<(bytes.count - 8)])
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: start..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            withUnsafeBytes(of: damaged.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { damaged += $0 }
            do {
                _ = try decode(damaged)
            } catch {
                XCTAssertTrue("\(error)".hasPrefix("crafted: "), "\(error)")
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 250, "most damage is caught")
    }

    func testOlderVersionsAreRefusedWithTheReason() {
        var bytes = LedgerState.encode(ledger(), options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
        bytes.replaceSubrange(0..<8, with: Array("AUSTATE1".utf8))
        assertRefused(bytes, mentioning: "version 1")
        bytes.replaceSubrange(0..<8, with: Array("AUSTATE2".utf8))
        assertRefused(bytes, mentioning: "version 2")
        bytes.replaceSubrange(0..<8, with: Array("AUSTATE3".utf8))
        assertRefused(bytes, mentioning: "version 3")
    }

    /// The badge percents reported survive encoding; a percent out of 0–100 is refused.
    func testReportedBadgePercentsRoundTripAndAreRangeChecked() throws {
        var original = ledger()
        original.reportedBadgePercents = ["area-1": 37, "streak-7": 100, "tiles": 0]
        let bytes = LedgerState.encode(original, options: ClassifyOptions(), tables: TrackClassifierTests.locator.tables)
        XCTAssertEqual(try decode(bytes).reportedBadgePercents, original.reportedBadgePercents)
        for bad in ["101", "-1", "2.5", "\"7\"", "null"] {
            assertRefused(crafted { $0.replacingOccurrences(of: "\"badgesReported\":{}", with: "\"badgesReported\":{\"area-1\":\(bad)}") }, mentioning: "badgesReported")
        }
        assertRefused(crafted { $0.replacingOccurrences(of: "\"badgesReported\":{}", with: "\"badgesReported\":{\"a\":1,\"a\":2}") }, mentioning: "badgesReported")
        assertRefused(crafted { $0.replacingOccurrences(of: ",\"badgesReported\":{}", with: "") }, mentioning: "badgesReported")
    }

    /// Sums of the combined view that do not fit in 64 bits are an error naming the quantity.
    func testCombinedSumsThatWouldOverflowAreRefused() {
        var a = ledger()
        var other = a.contributions["f1"]!
        let minute = other.moments.keys.min()!
        other.moments = [minute - 10: other.moments[minute]!]
        other.moments[minute - 10]!.distanceMillimetres = Int64.max - 10
        a.contributions["f1"]!.moments[minute]!.distanceMillimetres = Int64.max - 10
        a.inputs["f2"] = InputRecord(path: "other.csv", fingerprint: "f2", format: "csv")
        a.contributions["f2"] = other
        XCTAssertThrowsError(try a.combined()) { XCTAssertEqual("\($0)", "the merged distance overflows 64 bits") }
        var b = ledger()
        b.contributions["f1"]!.moments[minute]!.places = [(place: 0, points: Int64.max), (place: 0, points: 1)]
        XCTAssertThrowsError(try b.combined()) { XCTAssertTrue("\($0)".hasSuffix("point count overflows 64 bits"), "\($0)") }
    }

    /// The worldview is one of the state's rules: a state made in the international view keeps
    /// its view and is refused by a run in the default one, naming the option; a default state
    /// records no view (as states did before there were two) and is refused by an international run.
    func testAStateKeepsItsWorldview() throws {
        let china = TrackClassifierTests.locator.tables
        let international = try TableSet(directory: Repository.tables, worldview: .international)
        let made = LedgerState.encode(ledger(), options: ClassifyOptions(), tables: international)
        XCTAssertTrue(String(decoding: made, as: UTF8.self).contains("\"worldview\":\"international\""))
        XCTAssertNoThrow(try LedgerState.decode(made, path: "state", options: ClassifyOptions(), tables: international))
        XCTAssertThrowsError(try LedgerState.decode(made, path: "state", options: ClassifyOptions(), tables: china)) {
            XCTAssertTrue("\($0)".contains("made in the international worldview") && "\($0)".contains("--worldview international"), "\($0)")
        }
        let plain = LedgerState.encode(ledger(), options: ClassifyOptions(), tables: china)
        XCTAssertFalse(String(decoding: plain, as: UTF8.self).contains("worldview"))
        XCTAssertThrowsError(try LedgerState.decode(plain, path: "state", options: ClassifyOptions(), tables: international)) {
            XCTAssertTrue("\($0)".contains("made in the china worldview"), "\($0)")
        }
    }
}
