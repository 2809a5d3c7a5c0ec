import Foundation
import XCTest
import UnlocksTestSupport

/// Explorer tiles on the command line: the text report's line and the map's tile files. The
/// figures and their rules are tested in process: FootprintRulesTests/ExplorerTilesTests.
final class ExplorerTilesCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    /// The text report's tile line (the figures themselves: FootprintRulesTests/ExplorerTilesTests).
    func testTheTextReportGivesTheTileFigures() throws {
        let dir = try temporaryDirectory()
        try TileWalks.gpx(TileWalks.lawnmower(rows: 0..<5, n: 5), zoom: 14, start: TileWalks.start, seconds: 5)
            .write(toFile: dir + "/mow.gpx", atomically: true, encoding: .utf8)
        let text = try CommandRunner.run(["classify", "--tables", Self.tables, "--format", "text", dir + "/mow.gpx"])
        XCTAssertTrue(text.stdout.contains("Tiles z14: 25 visited, 9 cluster tiles, largest cluster 9, max square 5×5"), text.stdout)
    }

    func testTheMapExportsTheVisitedTilesAndTheNextSquare() throws {
        let dir = try temporaryDirectory()
        let n = 5
        try TileWalks.gpx(TileWalks.lawnmower(rows: 0..<n, n: n), zoom: 14, start: TileWalks.start, seconds: 5)
            .write(toFile: dir + "/mow.gpx", atomically: true, encoding: .utf8)
        let map = try CommandRunner.run(["map", "--tables", Self.tables, dir + "/mow.gpx", "--out", dir + "/map"])
        XCTAssertEqual(map.status, 0, map.stderr)
        // The visited tiles: one rectangle per row of the block, n tiles each, its corners the tiles' own.
        let tiles = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/map/tiles-z14.geojson"))) as? [String: Any])
        let features = try XCTUnwrap(tiles["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, n)
        for (r, feature) in features.enumerated() {
            XCTAssertEqual((feature["properties"] as? [String: Any])?["tiles"] as? Int, n)
            let ring = try XCTUnwrap(((feature["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first)
            let nw = TileWalks.point(x: TileWalks.origin.x, y: TileWalks.origin.y + Double(r), zoom: 14)
            let se = TileWalks.point(x: TileWalks.origin.x + Double(n), y: TileWalks.origin.y + Double(r + 1), zoom: 14)
            XCTAssertEqual(ring.map { $0[0] }.min()!, nw.longitude, accuracy: 1e-7)
            XCTAssertEqual(ring.map { $0[1] }.max()!, nw.latitude, accuracy: 1e-7)
            XCTAssertEqual(ring.map { $0[0] }.max()!, se.longitude, accuracy: 1e-7)
            XCTAssertEqual(ring.map { $0[1] }.min()!, se.latitude, accuracy: 1e-7)
        }
        // The next square: 2n + 1 tiles around the block, each centre outside it and inside the (n+1)-square.
        let gpx = try String(contentsOfFile: dir + "/map/next-square-z14.gpx", encoding: .utf8)
        let waypoints = gpx.components(separatedBy: "<wpt lat=\"").dropFirst().map { part -> (Double, Double) in
            let lat = Double(part.prefix { $0 != "\"" })!
            let lon = Double(part.components(separatedBy: "lon=\"")[1].prefix { $0 != "\"" })!
            return (lat, lon)
        }
        XCTAssertEqual(waypoints.count, 2 * n + 1)
        for (lat, lon) in waypoints {
            let c = TileWalks.tileCoordinates(latitude: lat, longitude: lon, zoom: 14)
            let dx = c.x - TileWalks.origin.x, dy = c.y - TileWalks.origin.y
            XCTAssertTrue(dx < 0 || dy < 0 || dx > Double(n) || dy > Double(n), "\(dx), \(dy) is inside the block")
            XCTAssertTrue(dx > -1 && dy > -1 && dx < Double(n + 1) && dy < Double(n + 1), "\(dx), \(dy) is not next to it")
        }
        let next = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/map/next-square-z14.geojson"))) as? [String: Any])
        XCTAssertEqual((next["features"] as? [Any])?.count, 1 + 2 * n + 1)
    }
}
