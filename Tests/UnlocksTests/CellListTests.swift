import Unlocks
import XCTest
import UnlocksTestSupport

/// The per-input cell lists and their union against the hash table that explores every visit.
final class CellListTests: XCTestCase {
    func testTheUnionKeepsEachCellsEarliestVisitLikeExploringAll() {
        var random = SplitMix64(seed: 1010)
        for lists in [0, 1, 2, 5, 17] {
            var everything = CellTable()
            var parts: [CellList] = []
            for _ in 0..<lists {
                var table = CellTable()
                for _ in 0..<Int.random(in: 0...300, using: &random) {
                    let visit = CellVisit(time: Int64.random(in: 0...50, using: &random) * 1000, country: Int32.random(in: -1...3, using: &random),
                                          chinaRegion: Int32.random(in: -1...3, using: &random))
                    let key = Int64.random(in: -400...400, using: &random)
                    table.explore(key, visit)
                    everything.explore(key, visit)
                }
                parts.append(CellList(table))
            }
            let union = CellList.union(parts)
            XCTAssertEqual(union.count, everything.count)
            XCTAssertEqual(union.keys, union.keys.sorted())
            for (key, visit) in everything { XCTAssertEqual(union[key], visit) }
            XCTAssertEqual(CellList.union(parts.reversed()), union, "order-free")
            XCTAssertNil(union[1000])
        }
    }
}
