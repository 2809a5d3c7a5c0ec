import Foundation
import Intake
import LogbookStore
import Unlocks
import UnlocksTestSupport
import XCTest

/// Explorer tiles: walks laid out in tile coordinates (``TileWalks``: the test's own Web Mercator
/// formulas), whose tile figures are known in closed form, and the same figures through a stored
/// logbook, a merge and a forget.
final class ExplorerTilesTests: XCTestCase {
    static let rules = Footprints.rules(utcOffsetHours: 0)
    /// The day (since 1970-01-01, UTC) of 2024-05-01.
    static let may1 = Int64(TileWalks.start / 86_400)

    /// The report's tile figures by zoom.
    static func tiles(_ report: ClassifyReport) -> [Int: TileMetrics] {
        Dictionary(uniqueKeysWithValues: report.tiles.map { ($0.zoom, $0) })
    }

    static func figures(_ t: TileMetrics?) -> [Int] { t.map { [$0.visited, $0.clusterTiles, $0.largestCluster, $0.maxSquare] } ?? [] }

    /// The UTC day of a moment in milliseconds.
    static func day(_ milliseconds: Int64?) -> Int64? { milliseconds.map { $0 / 86_400_000 } }

    func testAFiveByFiveLawnmowerInBeijing() async throws {
        let dir = try temporaryDirectory()
        let n = 5
        try TileWalks.gpx(TileWalks.lawnmower(rows: 0..<n, n: n), zoom: 14, start: TileWalks.start, seconds: 5)
            .write(toFile: dir + "/mow.gpx", atomically: true, encoding: .utf8)
        let t = Self.tiles(try await Footprints.report(of: [dir + "/mow.gpx"], rules: Self.rules))
        XCTAssertEqual(Self.figures(t[14]), [n * n, (n - 2) * (n - 2), (n - 2) * (n - 2), n])
        XCTAssertEqual(Self.figures(t[14]), [25, 9, 9, 5])
        XCTAssertEqual(Self.day(t[14]?.maxSquareReached), Self.may1)
        XCTAssertEqual(t[14]?.maxSquareOrigin?.x, Int64(TileWalks.origin.x))
        XCTAssertEqual(t[14]?.maxSquareOrigin?.y, Int64(TileWalks.origin.y))
        // z17: each sweep crosses 8n tiles of one z17 row; each of the n − 1 turns crosses 8 rows
        // more of one column, 7 of them new. No two sweeps are adjacent: no cluster, squares of 1.
        XCTAssertEqual(Self.figures(t[17]), [8 * n * n + 7 * (n - 1), 0, 0, 1])
    }

    func testASparseLegThatCutsATileCornerVisitsIt() async throws {
        let dir = try temporaryDirectory()
        // A z17 corner (X, Y) inside one z14 tile; the leg passes 0.1 tile south of it, through
        // the south-west tile's corner: tiles (X−1, Y−1), (X−1, Y) and (X, Y), not (X, Y−1).
        let c = TileWalks.tileCoordinates(latitude: 39.93, longitude: 116.41, zoom: 17)
        let corner = (x: (c.x / 8).rounded(.down) * 8 + 3, y: (c.y / 8).rounded(.down) * 8 + 3)
        let leg = [(x: corner.x - 0.5, y: corner.y - 0.4), (x: corner.x + 0.4, y: corner.y + 0.5)]
        // About 300 m in a minute: 5 m/s, within walking-to-cycling speed.
        try TileWalks.gpx(leg, zoom: 17, start: TileWalks.start, seconds: 60).write(toFile: dir + "/sparse.gpx", atomically: true, encoding: .utf8)
        let t = Self.tiles(try await Footprints.report(of: [dir + "/sparse.gpx"], rules: Self.rules))
        XCTAssertEqual(t[17]?.visited, 3)
        XCTAssertEqual(t[14]?.visited, 1)
    }

    func testAFlightVisitsOnlyWhereItStartsAndLands() async throws {
        let dir = try temporaryDirectory()
        // Beijing to Shanghai (about 1,070 km) at 250 m/s, a point every 10 s: only the take-off
        // and landing points are on the ground.
        let from = TileWalks.tileCoordinates(latitude: 40.08, longitude: 116.58, zoom: 14)
        let to = TileWalks.tileCoordinates(latitude: 31.15, longitude: 121.80, zoom: 14)
        let points = TileWalks.path([from, to], step: hypot(to.x - from.x, to.y - from.y) / 428)
        try TileWalks.gpx(points, zoom: 14, start: TileWalks.start, seconds: 10).write(toFile: dir + "/flight.gpx", atomically: true, encoding: .utf8)
        let t = Self.tiles(try await Footprints.report(of: [dir + "/flight.gpx"], rules: Self.rules))
        XCTAssertEqual(t[14]?.visited, 2)
        XCTAssertEqual(t[17]?.visited, 2)
    }

    func testTilesThroughAStoredLogbookAMergeAndAForgetAreOneImports() async throws {
        let dir = try temporaryDirectory()
        let n = 5, day = 86_400
        // Rows 0–1 on 1 May, rows 2–3 on 2 May, row 4 on 3 May, one file each.
        let parts = [0..<2, 2..<4, 4..<5]
        var paths: [String] = []
        for (k, rows) in parts.enumerated() {
            let path = dir + "/part\(k).gpx"
            try TileWalks.gpx(TileWalks.lawnmower(rows: rows, n: n), zoom: 14, start: TileWalks.start + k * day, seconds: 5)
                .write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let reference = try await Footprints.report(of: paths, rules: Self.rules)
        let t = Self.tiles(reference)
        XCTAssertEqual(Self.figures(t[14]), [25, 9, 9, 5])
        XCTAssertEqual(Self.day(t[14]?.maxSquareReached), Self.may1 + 2)
        // 4 × 4 was complete on 2 May, but the 5 × 5 only on 3 May.
        XCTAssertEqual(Self.day(t[14]?.visitedReached), Self.may1 + 2)
        // Without turns between files, z17 has 8n tiles per row and a turn within each two-row part.
        XCTAssertEqual(t[17]?.visited, 8 * n * n + 7 * 2)
        // The per-day gains: 10, 10 and 5 new z14 tiles.
        XCTAssertEqual(reference.days.map { $0.newTiles[14] ?? -1 }, [10, 10, 5])

        // One input per import into a stored logbook, in another order.
        let stored = try Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules)
        var last: ClassifyReport?
        for i in [2, 0, 1] { last = try await stored.importSources([.path(paths[i])]).report }
        XCTAssertEqual(try XCTUnwrap(last).tiles, reference.tiles)
        XCTAssertEqual(try XCTUnwrap(last).days, reference.days)
        // Shards merged.
        _ = try await Footprints.logbook(at: dir + "/a.logbook", rules: Self.rules).importSources([.path(paths[1])])
        let merged = try Footprints.logbook(at: dir + "/b.logbook", rules: Self.rules)
        _ = try await merged.importSources([.path(paths[2]), .path(paths[0])])
        let both = try await merged.merge(contentsOf: URL(fileURLWithPath: dir + "/a.logbook"))
        XCTAssertEqual(both.tiles, reference.tiles)
        XCTAssertEqual(both.metrics, reference.metrics)
        // Forgetting the last row: a 5 × 4 block, as an import of the other two gives.
        let forgot = try await stored.forget([.path(paths[2])])
        let fresh = try await Footprints.report(of: Array(paths.prefix(2)), rules: Self.rules)
        XCTAssertEqual(forgot.report.tiles, fresh.tiles)
        XCTAssertEqual(forgot.report.metrics, fresh.metrics)
        // The logbook remembers what was forgotten (so the next import of the folder skips it);
        // with that undone it is the fresh import's still.
        let undone = try await stored.unforget([.path(paths[2])])
        XCTAssertEqual(undone.report.tiles, fresh.tiles)
        let f = Self.tiles(fresh)
        XCTAssertEqual(Self.figures(f[14]), [n * 4, (n - 2) * 2, (n - 2) * 2, 4])
        XCTAssertEqual(Self.day(f[14]?.maxSquareReached), Self.may1 + 1)
    }
}
