import RegionTables
import Tracks
import Unlocks
import XCTest
import UnlocksTestSupport

/// Effective passes: the greedy over the union of the inputs' candidates, the classifier's rules
/// for a candidate (accuracy, moving), and the state's familiarity section.
final class CellFamiliarityTests: XCTestCase {
    static var locator: RegionLocator { TrackClassifierTests.locator }

    /// The test's own greedy over one cell's times.
    static func greedy(_ seconds: [Int64]) -> Int32 {
        var counted: Int32 = 0, last = Int64.min
        for s in seconds.sorted() where counted == 0 || s - last > 4 * 3600 {
            counted += 1
            last = s
        }
        return counted
    }

    /// B at 0 h, A at 3 h and 6 h: the union's greedy counts 0 h and 6 h. Reducing A alone first
    /// (to 3 h) would give one pass; so would counting only the earliest input.
    func testTheUnionIsCountedNotEachInputsCount() throws {
        let walk = try walkLedger(starts: [("a", [3 * 3600, 6 * 3600]), ("b", [0])])
        let combined = try walk.combined()
        XCTAssertGreaterThan(combined.cells.count, 5)
        XCTAssertEqual(Self.greedy([0, 3 * 3600, 6 * 3600]), 2)
        XCTAssertEqual(Set(combined.cellPasses), [2])
        var withoutB = walk
        withoutB.forget(["b"])
        XCTAssertEqual(Set(try withoutB.combined().cellPasses), [Self.greedy([3 * 3600, 6 * 3600])])
    }

    /// Random candidate sets in a few cells, split at random between inputs: the combined count
    /// is the greedy over each cell's union, whatever the split.
    func testRandomSplitsGiveTheUnionsGreedy() throws {
        var random = SplitMix64(seed: 1008)
        for _ in 0..<200 {
            let cells: [Int64] = [11, 12, 40]
            var all: [Int64: [Int64]] = [:]
            var inputs: [[(key: Int64, second: Int64)]] = [[], [], []]
            for key in cells {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let s = Int64.random(in: 0...(30 * 3600), using: &random)
                    all[key, default: []].append(s)
                    inputs[Int.random(in: 0..<3, using: &random)].append((key, s))
                }
            }
            var table = CellTable()
            for key in [5, 11, 12, 13, 40, 41] as [Int64] { table.explore(key, CellVisit(time: 0, country: -1, chinaRegion: -1)) }
            var passes = PassCandidates.effectivePasses(inputs.map { PassCandidates($0) }, of: CellList(table))
            XCTAssertEqual([passes[0], passes[3], passes[5]], [0, 0, 0])
            passes = [passes[1], passes[2], passes[4]]
            XCTAssertEqual(passes, cells.map { Self.greedy(all[$0]!) })
        }
    }

    // MARK: The classifier's rules

    /// A 5-minute walk north-east at 1.4 m/s, a point every 2 s, per start (seconds), one segment each.
    static func walk(_ c: inout TrackClassifier, start: Int64, accuracy: Double? = nil, speed: Double = 1.4) {
        c.segmentBreak()
        for s in stride(from: Int64(0), through: 300, by: 2) {
            let metres = speed * Double(s)
            c.point(TrackPoint(latitude: 39.9150 + metres * 0.42 / 111_000, longitude: 116.4000 + metres * 0.9 / 85_300,
                               time: (1_714_521_600 + start + s) * 1000, accuracy: accuracy))
        }
    }

    func walkLedger(starts: [(String, [Int64])], options: ClassifyOptions = ClassifyOptions(), accuracy: Double? = nil,
                    speed: Double = 1.4) throws -> UnlockLedger {
        var c = TrackClassifier(locator: Self.locator, options: options)
        for (name, times) in starts {
            c.begin(InputRecord(path: name, fingerprint: name, format: "gpx"))
            for start in times { Self.walk(&c, start: start, accuracy: accuracy, speed: speed) }
            c.finish()
        }
        return c.takeLedger()
    }

    /// Better than 65 m counts, 65 m and worse do not (the filter loosened so such points are kept).
    func testAccuracyBetterThanSixtyFiveMetresCounts() throws {
        var options = ClassifyOptions()
        options.maximumAccuracy = 100
        for (accuracy, lit) in [(64.0, true), (65.0, false), (66.0, false)] {
            let combined = try walkLedger(starts: [("a", [0])], options: options, accuracy: accuracy).combined()
            XCTAssertGreaterThan(combined.cells.count, 5)
            XCTAssertEqual(Set(combined.cellPasses), [lit ? 1 : 0], "accuracy \(accuracy)")
        }
    }

    /// Standing still (a phone on a desk sampled for 10 minutes) or creeping below 0.5 m/s gives
    /// no pass; 0.6 m/s does.
    func testOnlyMovingLegsGivePasses() throws {
        for (speed, passes) in [(0.0, Int32(0)), (0.4, 0), (0.6, 1)] {
            let combined = try walkLedger(starts: [("a", [0])], speed: speed).combined()
            XCTAssertFalse(combined.cells.count == 0)
            XCTAssertEqual(Set(combined.cellPasses), [passes], "speed \(speed)")
        }
    }

    // MARK: The state

    func encode(_ ledger: UnlockLedger) -> [UInt8] {
        LedgerState.encode(ledger, options: ClassifyOptions(), tables: Self.locator.tables)
    }

    func decode(_ bytes: [UInt8], options: ClassifyOptions = ClassifyOptions()) throws -> UnlockLedger {
        try LedgerState.decode(bytes, path: "crafted", options: options, tables: Self.locator.tables)
    }

    func testTheStateKeepsEveryCandidate() throws {
        let ledger = try walkLedger(starts: [("a", [3 * 3600, 6 * 3600, 6 * 3600 + 400, 6 * 3600 + 800]), ("b", [0])])
        XCTAssertGreaterThan(ledger.contributions["a"]!.passes.count, 3 * ledger.contributions["a"]!.cells.count)
        let decoded = try decode(encode(ledger))
        XCTAssertEqual(decoded, ledger)
        XCTAssertEqual(try decoded.combined().cellPasses, try ledger.combined().cellPasses)
        // Other levels are other rules.
        var options = ClassifyOptions()
        options.familiarityLevels = FamiliarityLevels(lit: 1, bright: 2, gold: 3)!
        XCTAssertThrowsError(try decode(encode(ledger), options: options)) { XCTAssertTrue("\($0)".contains("--familiarity-levels 1,5,20; this run uses 1,2,3"), "\($0)") }
    }

    func testAVersionThreeStateIsRefusedWithTheReason() throws {
        var bytes = encode(try walkLedger(starts: [("a", [0])]))
        bytes.replaceSubrange(0..<8, with: Array("AUSTATE3".utf8))
        XCTAssertThrowsError(try decode(bytes)) { XCTAssertTrue("\($0)".contains("version 3"), "\($0)") }
    }

    /// Candidates no run writes (times out of order, beyond ±2^53 ms, counts beyond the file) are
    /// refused by name; random damage to the section is read or refused, never a trap.
    func testCraftedFamiliaritySectionsAreRefused() throws {
        var ledger = try walkLedger(starts: [("a", [0])])
        var part = ledger.contributions["a"]!
        let key = part.cells.keys[0]
        func withCandidates(_ seconds: [Int64]) -> [UInt8] {
            part.passes = PassCandidates(seconds.map { (key, $0) })
            ledger.contributions["a"] = part
            return encode(ledger)
        }
        XCTAssertNoThrow(try decode(withCandidates([5, 6, 7, 8, 9])))
        XCTAssertThrowsError(try decode(withCandidates([Int64(1) << 60]))) { XCTAssertTrue("\($0)".contains("cell pass"), "\($0)") }
        XCTAssertThrowsError(try decode(withCandidates([0, Int64(1) << 55]))) { XCTAssertTrue("\($0)".contains("cell pass"), "\($0)") }
        let bytes = withCandidates([100, 200, 300, 400])
        var random = SplitMix64(seed: 1009)
        let sectionStart = bytes.count - 8 - part.cells.count - 3
        for _ in 0..<150 {
            var damaged = Array(bytes[0..<(bytes.count - 8)])
            damaged[Int.random(in: sectionStart..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            withUnsafeBytes(of: damaged.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { damaged += $0 }
            do { _ = try decode(damaged) } catch { XCTAssertTrue("\(error)".hasPrefix("crafted: "), "\(error)") }
        }
    }
}
