import Foundation
import RegionTables
import Tracks
import Unlocks
import XCTest
import UnlocksTestSupport

/// Explorer tiles: the tile maths against PyPI `mercantile` (fixture from
/// `Scripts/fixtures/make-tile-fixtures`), the supercover against a brute-force clip of every nearby tile,
/// and the figures against blocks whose answers are known in closed form.
final class ExplorerTileTests: XCTestCase {
    // MARK: Against mercantile

    func testTilesAndBoundsAgreeWithMercantile() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/tile-vectors.csv")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertGreaterThan(lines.count, 1000)
        for line in lines {
            let f = line.split(separator: ",").map(String.init)
            let longitude = Double(f[0])!, latitude = Double(f[1])!
            for (n, zoom) in [14, 17].enumerated() {
                let c = 2 + 6 * n
                let tile = SlippyTile.tile(latitude: latitude, longitude: longitude, zoom: zoom)
                XCTAssertEqual(tile.x, Int64(f[c])!, "x at z\(zoom) of \(longitude), \(latitude)")
                XCTAssertEqual(tile.y, Int64(f[c + 1])!, "y at z\(zoom) of \(longitude), \(latitude)")
                let b = SlippyTile.bounds(x: Int64(f[c])!, y: Int64(f[c + 1])!, zoom: zoom)
                for (mine, theirs) in [(b.west, f[c + 2]), (b.south, f[c + 3]), (b.east, f[c + 4]), (b.north, f[c + 5])] {
                    XCTAssertEqual(mine, Double(theirs)!, accuracy: 1e-12, "bounds at z\(zoom) of \(line)")
                }
            }
        }
    }

    // MARK: Supercover

    /// Whether the segment meets the closed unit square of tile (x, y): Liang–Barsky clipping.
    static func meets(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), tile x: Int64, _ y: Int64) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - Double(x)), (dx, Double(x + 1) - a.x), (-dy, a.y - Double(y)), (dy, Double(y + 1) - a.y)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
            }
        }
        return t0 <= t1
    }

    func testTheSupercoverIsEveryTileTheSegmentMeets() {
        var generator = SplitMix64(seed: 1011)
        for _ in 0..<2000 {
            let zoom = 17
            let a = (x: Double.random(in: 1000...1010, using: &generator), y: Double.random(in: 2000...2010, using: &generator))
            let b = (x: a.x + Double.random(in: -4...4, using: &generator), y: a.y + Double.random(in: -4...4, using: &generator))
            var got = Set<Int64>()
            SlippyTile.supercover(from: a, to: b, zoom: zoom) { got.insert($0) }
            var expected = Set<Int64>()
            for x in Int64(min(a.x, b.x)) - 1...Int64(max(a.x, b.x)) + 1 {
                for y in Int64(min(a.y, b.y)) - 1...Int64(max(a.y, b.y)) + 1 where Self.meets(a, b, tile: x, y) {
                    expected.insert(SlippyTile.key(x: x, y: y, zoom: zoom))
                }
            }
            XCTAssertEqual(got, expected, "segment \(a) → \(b)")
        }
    }

    func testALegThroughACornerVisitsAllFourAndAClippedCornerCounts() {
        let zoom = 14
        var through = Set<Int64>()
        SlippyTile.supercover(from: (10.5, 20.5), to: (11.5, 21.5), zoom: zoom) { through.insert($0) }
        XCTAssertEqual(through, Set([(10, 20), (11, 20), (10, 21), (11, 21)].map { SlippyTile.key(x: $0.0, y: $0.1, zoom: zoom) }))
        // Just below the corner (11, 21): the tile west of it, below, is clipped; the one north-east is not.
        var clipped = Set<Int64>()
        SlippyTile.supercover(from: (10.5, 20.6), to: (11.4, 21.5), zoom: zoom) { clipped.insert($0) }
        XCTAssertEqual(clipped, Set([(10, 20), (10, 21), (11, 21)].map { SlippyTile.key(x: $0.0, y: $0.1, zoom: zoom) }))
    }

    func testTheSupercoverTakesTheShortWayAcrossTheAntimeridian() {
        let zoom = 14, last = (Int64(1) << zoom) - 1
        var got = Set<Int64>()
        SlippyTile.supercover(from: (Double(last) + 0.5, 100.5), to: (0.5, 100.5), zoom: zoom) { got.insert($0) }
        XCTAssertEqual(got, [SlippyTile.key(x: last, y: 100, zoom: zoom), SlippyTile.key(x: 0, y: 100, zoom: zoom)])
    }

    // MARK: Figures

    static func list(_ tiles: [(x: Int64, y: Int64, time: Int64)], zoom: Int) -> TileList {
        var table: [Int64: Int64] = [:]
        for t in tiles { table[SlippyTile.key(x: t.x, y: t.y, zoom: zoom)] = t.time }
        return TileList(table)
    }

    func testAnNByNBlockHasNSquaredTilesAndAnNMinusTwoSquaredCluster() {
        for n in 1...9 {
            var tiles: [(x: Int64, y: Int64, time: Int64)] = []
            for x in 0..<Int64(n) { for y in 0..<Int64(n) { tiles.append((5000 + x, 7000 + y, (y * Int64(n) + x) * 1000)) } }
            let m = TileMetrics(tiles: Self.list(tiles, zoom: 14), zoom: 14)
            XCTAssertEqual(m.visited, n * n)
            XCTAssertEqual(m.clusterTiles, max(n - 2, 0) * max(n - 2, 0))
            XCTAssertEqual(m.largestCluster, max(n - 2, 0) * max(n - 2, 0))
            XCTAssertEqual(m.maxSquare, n)
            // Visited in row order: the whole square is complete with its last tile.
            XCTAssertEqual(m.maxSquareReached, Int64(n * n - 1) * 1000)
            XCTAssertEqual(m.visitedReached, Int64(n * n - 1) * 1000)
            XCTAssertEqual(m.maxSquareOrigin?.x, 5000)
            XCTAssertEqual(m.maxSquareOrigin?.y, 7000)
        }
    }

    func testTwoBlocksAndARing() {
        // A 6 × 6 block visited on day 1 and a 4 × 4 block far away: largest cluster 16, clusters 16 + 4.
        var tiles: [(x: Int64, y: Int64, time: Int64)] = []
        for x in 0..<6 { for y in 0..<6 { tiles.append((Int64(100 + x), Int64(100 + y), 86_400_000)) } }
        for x in 0..<4 { for y in 0..<4 { tiles.append((Int64(200 + x), Int64(300 + y), 0)) } }
        let m = TileMetrics(tiles: Self.list(tiles, zoom: 17), zoom: 17)
        XCTAssertEqual(m.visited, 52)
        XCTAssertEqual(m.clusterTiles, 16 + 4)
        XCTAssertEqual(m.largestCluster, 16)
        XCTAssertEqual(m.maxSquare, 6)
        // The small block was complete first, but the figures' present values came on day 1.
        XCTAssertEqual(m.maxSquareReached, 86_400_000)
        XCTAssertEqual(m.largestClusterReached, 86_400_000)

        // A ring (a 7 × 7 square's border, one tile wide): no cluster tile, max square 1.
        var ring: [(x: Int64, y: Int64, time: Int64)] = []
        for x in 0..<7 { for y in 0..<7 where x == 0 || y == 0 || x == 6 || y == 6 { ring.append((Int64(x), Int64(10 + y), 0)) } }
        let r = TileMetrics(tiles: Self.list(ring, zoom: 14), zoom: 14)
        XCTAssertEqual(r.visited, 24)
        XCTAssertEqual(r.clusterTiles, 0)
        XCTAssertNil(r.clusterTilesReached)
        XCTAssertEqual(r.maxSquare, 1)
    }

    func testAClusterGrowsWhenTwoGroupsJoin() {
        // Two 3 × 3 blocks' centres become cluster tiles at once; a bridge row joins the two
        // blocks into one 3 × 7 block later, whose 5 inner tiles are one group.
        var tiles: [(x: Int64, y: Int64, time: Int64)] = []
        for x in 0..<7 where x != 3 { for y in 0..<3 { tiles.append((Int64(x), Int64(50 + y), 1000)) } }
        for y in 0..<3 { tiles.append((3, Int64(50 + y), 5000)) }
        let m = TileMetrics(tiles: Self.list(tiles, zoom: 14), zoom: 14)
        XCTAssertEqual(m.clusterTiles, 5)
        XCTAssertEqual(m.largestCluster, 5)
        XCTAssertEqual(m.largestClusterReached, 5000)
        XCTAssertEqual(m.maxSquare, 3)
        XCTAssertEqual(m.maxSquareReached, 1000)
    }

    func testZoomFourteenTilesAreTheParentsWithTheEarliestChild() {
        let z17 = Self.list([(8 * 10 + 7, 8 * 20, 500), (8 * 10, 8 * 20 + 3, 200), (8 * 11, 8 * 20, 900)], zoom: 17)
        let z14 = z17.parents(from: 17, to: 14)
        XCTAssertEqual(z14.keys, [SlippyTile.key(x: 10, y: 20, zoom: 14), SlippyTile.key(x: 11, y: 20, zoom: 14)])
        XCTAssertEqual(z14.times, [200, 900])
        // Keys sort by row, then column: (87, 160), (88, 160), (80, 163).
        XCTAssertEqual(TileList.union([z17, Self.list([(8 * 11, 8 * 20, 100)], zoom: 17)]).times, [500, 100, 200])
    }

    func testTheNextSquareIsTheCheapestGrowthOfALargestSquare() throws {
        var block: [(x: Int64, y: Int64, time: Int64)] = []
        for x in 0..<5 { for y in 0..<5 { block.append((Int64(300 + x), Int64(400 + y), 0)) } }
        // A bare 5 × 5 block: every growth misses 2 × 5 + 1 tiles; the north-west one has the smallest key.
        let bare = try XCTUnwrap(SquareFrontier(tiles: Self.list(block, zoom: 14), zoom: 14))
        XCTAssertEqual(bare.side, 6)
        XCTAssertEqual(bare.missing.count, 11)
        XCTAssertTrue(bare.origin == (299, 399))
        // With the row south of it visited too, growing south-west or south-east misses 6; south-west has the smaller key.
        for x in 0..<5 { block.append((Int64(300 + x), 405, 0)) }
        let south = try XCTUnwrap(SquareFrontier(tiles: Self.list(block, zoom: 14), zoom: 14))
        XCTAssertTrue(south.origin == (299, 400))
        XCTAssertEqual(south.missing.map(\.x), Array(repeating: 299, count: 6))
        XCTAssertEqual(south.missing.map(\.y), Array(400...405))
        XCTAssertNil(SquareFrontier(tiles: TileList(), zoom: 14))
    }

    // MARK: A region's tiles

    /// The scanline count of a region's tiles against locating every tile centre of its
    /// bounding box with the locator (its own ray casting, the point shifted to GCJ-02 instead of
    /// the rings to WGS-84): Dongcheng at z17, Beijing at z14, Luxembourg (the world table) at z14.
    func testARegionsTilesAreTheTileCentresTheLocatorPutsInIt() throws {
        let locator = TrackClassifierTests.locator
        func check(_ table: RegionTable, code: String, level: RegionLevel, zoom: Int, box: (south: Double, west: Double, north: Double, east: Double),
                   tolerance: Int) throws {
            let region = try XCTUnwrap(table.regions.first { $0.code == code && $0.level == level })
            let nw = SlippyTile.tile(latitude: box.north, longitude: box.west, zoom: zoom)
            let se = SlippyTile.tile(latitude: box.south, longitude: box.east, zoom: zoom)
            var located = 0
            var all: [Int64: Int64] = [:]
            for y in nw.y...se.y {
                for x in nw.x...se.x {
                    let c = SlippyTile.centre(x: x, y: y, zoom: zoom)
                    let placement = try locator.locate(latitude: c.latitude, longitude: c.longitude)
                    if placement.level(level).region == region.index, placement.level(level).status == .inside { located += 1 }
                    all[SlippyTile.key(x: x, y: y, zoom: zoom)] = 0
                }
            }
            var counter = RegionTileCounter(table: table, visited: [zoom: TileList(all)])
            let count = try XCTUnwrap(counter.counts(ofRegions: [region.index], zoom: zoom)[region.index])
            let total = try XCTUnwrap(count.total)
            XCTAssertLessThanOrEqual(abs(total - located), tolerance, "\(code) at z\(zoom): \(total) against \(located) located")
            XCTAssertGreaterThan(located, 100)
            XCTAssertEqual(count.visited, total, "every tile of the box visited")
            // Half the box's tiles visited (every other column): about half the region's.
            let half = TileList(all.filter { SlippyTile.tile(ofKey: $0.key, zoom: zoom).x % 2 == 0 })
            var halfCounter = RegionTileCounter(table: table, visited: [zoom: half])
            let halfCount = halfCounter.counts(ofRegions: [region.index], zoom: zoom)[region.index]!
            let expected = Double(total) / 2
            XCTAssertEqual(Double(halfCount.visited), expected, accuracy: expected * 0.1 + 2)
            // No visited tile near it: no scan, visited 0.
            var none = RegionTileCounter(table: table, visited: [zoom: TileList([SlippyTile.key(x: 5, y: 5, zoom: zoom): 0])])
            let nothing = try XCTUnwrap(none.counts(ofRegions: [region.index], zoom: zoom)[region.index])
            XCTAssertEqual(nothing.visited, 0)
            XCTAssertNil(nothing.total)
            XCTAssertEqual(nothing.percent, 0)
        }
        try check(locator.china, code: "110101", level: .county, zoom: 17, box: (39.85, 116.37, 39.98, 116.45), tolerance: 2)
        try check(locator.china, code: "110000", level: .province, zoom: 14, box: (39.4, 115.4, 41.1, 117.6), tolerance: 2)
        try check(locator.world, code: "LUX", level: .country, zoom: 14, box: (49.4, 5.7, 50.2, 6.6), tolerance: 2)
    }

    // MARK: Through the classifier and the state

    func classify(_ points: [TrackPoint]) -> UnlockLedger {
        var c = TrackClassifier(locator: TrackClassifierTests.locator, options: ClassifyOptions())
        c.begin(InputRecord(path: "walk.csv", fingerprint: "f1", format: "csv"))
        for p in points { c.point(p) }
        c.finish()
        return c.takeLedger()
    }

    func testAPausedStretchAndAFlightVisitNoTilesBetween() throws {
        // Two walks 20 minutes and 4 z17 tiles apart: the gap starts a new segment, no leg across it.
        let zoom = 17
        let start = SlippyTile.centre(x: 107_900, y: 49_600, zoom: zoom)
        let end = SlippyTile.centre(x: 107_904, y: 49_600, zoom: zoom)
        let t0: Int64 = 1_700_000_000_000
        let ledger = classify([TrackPoint(latitude: start.latitude, longitude: start.longitude, time: t0),
                               TrackPoint(latitude: end.latitude, longitude: end.longitude, time: t0 + 20 * 60_000)])
        XCTAssertEqual(ledger.contributions["f1"]?.tiles.keys, [SlippyTile.key(x: 107_900, y: 49_600, zoom: zoom), SlippyTile.key(x: 107_904, y: 49_600, zoom: zoom)])
        // The same two points (937 m apart) a minute apart (56 km/h, a vehicle): only the start's
        // tile, as only the start's cell (a point explores alone only where a segment starts).
        let vehicle = classify([TrackPoint(latitude: start.latitude, longitude: start.longitude, time: t0),
                                TrackPoint(latitude: end.latitude, longitude: end.longitude, time: t0 + 60_000)])
        XCTAssertEqual(vehicle.contributions["f1"]?.tiles.keys, [SlippyTile.key(x: 107_900, y: 49_600, zoom: zoom)])
        XCTAssertEqual(vehicle.contributions["f1"]?.cells.count, 1)
        // 4 minutes apart (3.9 m/s): the leg visits the 3 tiles between.
        let walk = classify([TrackPoint(latitude: start.latitude, longitude: start.longitude, time: t0),
                             TrackPoint(latitude: end.latitude, longitude: end.longitude, time: t0 + 4 * 60_000)])
        XCTAssertEqual(walk.contributions["f1"]?.tiles.count, 5)
    }

    func testTilesSurviveTheStateAndCraftedTilesAreRefused() throws {
        let points = (0..<40).map { TrackPoint(latitude: 39.9030 + Double($0) * 0.0005, longitude: 116.3975, time: 1_700_000_000_000 + Int64($0) * 10_000) }
        let ledger = classify(points)
        let tables = TrackClassifierTests.locator.tables
        XCTAssertGreaterThan(ledger.contributions["f1"]!.tiles.count, 2)
        let bytes = LedgerState.encode(ledger, options: ClassifyOptions(), tables: tables)
        XCTAssertEqual(try LedgerState.decode(bytes, path: "s", options: ClassifyOptions(), tables: tables), ledger)
        var beyond = ledger
        beyond.contributions["f1"]!.tiles = TileList([1 << 40: 0])
        XCTAssertThrowsError(try LedgerState.decode(LedgerState.encode(beyond, options: ClassifyOptions(), tables: tables),
                                                    path: "s", options: ClassifyOptions(), tables: tables)) {
            XCTAssertTrue("\($0)".contains("beyond zoom 17"), "\($0)")
        }
        var late = ledger
        late.contributions["f1"]!.tiles = TileList([5: 0, 6: 1 << 62])
        XCTAssertThrowsError(try LedgerState.decode(LedgerState.encode(late, options: ClassifyOptions(), tables: tables),
                                                    path: "s", options: ClassifyOptions(), tables: tables)) {
            XCTAssertTrue("\($0)".contains("tile time"), "\($0)")
        }
        var version3 = bytes
        version3.replaceSubrange(0..<8, with: Array("AUSTATE3".utf8))
        XCTAssertThrowsError(try LedgerState.decode(version3, path: "s", options: ClassifyOptions(), tables: tables)) {
            XCTAssertTrue("\($0)".contains("version 3"), "\($0)")
        }
    }
}
