import Foundation
import XCTest
import UnlocksTestSupport

/// Explorer tiles through the real `unlocks classify`: walks laid out in tile coordinates (the
/// test's own Web Mercator formulas), whose tile figures are known in closed form, and the same
/// figures through `--state`, `merge` and `forget`.
final class ExplorerTilesCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    /// 2024-05-01T00:00:00Z.
    static let start = 1_714_521_600

    func classify(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    /// `explorer.tiles` of a report, by zoom.
    func tiles(_ report: String) throws -> [Int: [String: Any]] {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        let list = try XCTUnwrap((json["explorer"] as? [String: Any])?["tiles"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["zoom"] as! Int, $0) })
    }

    func figures(_ entry: [String: Any]?) -> [Int] {
        ["visited", "clusterTiles", "largestCluster", "maxSquare"].map { entry?[$0] as? Int ?? -1 }
    }

    // MARK: Web Mercator, written out here

    /// Tile coordinates (x east, y south, in tiles of `zoom`) of a point.
    static func tileCoordinates(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let n = pow(2, Double(zoom)), phi = latitude * .pi / 180
        return ((longitude + 180) / 360 * n, (1 - asinh(tan(phi)) / .pi) / 2 * n)
    }

    static func point(x: Double, y: Double, zoom: Int) -> (latitude: Double, longitude: Double) {
        let n = pow(2, Double(zoom))
        return (atan(sinh(.pi * (1 - 2 * y / n))) * 180 / .pi, x / n * 360 - 180)
    }

    /// GPX of points given in tile coordinates, `seconds` apart from `start`.
    static func gpx(_ points: [(x: Double, y: Double)], zoom: Int, start: Int, seconds: Int) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let formatter = ISO8601DateFormatter()
        for (i, p) in points.enumerated() {
            let q = point(x: p.x, y: p.y, zoom: zoom)
            let time = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + i * seconds)))
            text += String(format: "<trkpt lat=\"%.9f\" lon=\"%.9f\"><time>%@</time></trkpt>\n", q.latitude, q.longitude, time)
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Points every `step` tiles along straight pieces through `corners` (the corners included).
    static func path(_ corners: [(x: Double, y: Double)], step: Double) -> [(x: Double, y: Double)] {
        var points = [corners[0]]
        for (a, b) in zip(corners, corners.dropFirst()) {
            let length = hypot(b.x - a.x, b.y - a.y)
            let pieces = max(1, Int((length / step).rounded(.up)))
            for k in 1...pieces { points.append((a.x + (b.x - a.x) * Double(k) / Double(pieces), a.y + (b.y - a.y) * Double(k) / Double(pieces))) }
        }
        return points
    }

    /// The z14 tile west of Tiananmen where the block starts.
    static let origin: (x: Double, y: Double) = {
        let c = tileCoordinates(latitude: 39.95, longitude: 116.30, zoom: 14)
        return (c.x.rounded(.down), c.y.rounded(.down))
    }()

    /// A lawnmower over rows `rows` of an n-wide block of z14 tiles: each row swept at 0.45 of its
    /// height (clear of z17 edges) from 0.1 tile inside its west edge to 0.1 inside its east edge,
    /// alternating direction, with a turn leg 0.1 inside the block between rows. 20 m apart at
    /// 4 m/s (a jog).
    static func lawnmower(rows: Range<Int>, n: Int) -> [(x: Double, y: Double)] {
        var corners: [(x: Double, y: Double)] = []
        for r in rows {
            let y = origin.y + Double(r) + 0.45
            let west = origin.x + 0.1, east = origin.x + Double(n) - 0.1
            corners += r % 2 == 0 ? [(west, y), (east, y)] : [(east, y), (west, y)]
        }
        // A z14 tile here is about 1,870 m wide (40,075 km × cos 39.95° / 2^14).
        return path(corners, step: 20.0 / 1870)
    }

    func testAFiveByFiveLawnmowerInBeijing() throws {
        let dir = try temporaryDirectory()
        let n = 5
        try Self.gpx(Self.lawnmower(rows: 0..<n, n: n), zoom: 14, start: Self.start, seconds: 5)
            .write(toFile: dir + "/mow.gpx", atomically: true, encoding: .utf8)
        let report = try classify([dir + "/mow.gpx"])
        let t = try tiles(report)
        XCTAssertEqual(figures(t[14]), [n * n, (n - 2) * (n - 2), (n - 2) * (n - 2), n])
        XCTAssertEqual(figures(t[14]), [25, 9, 9, 5])
        XCTAssertEqual(t[14]?["maxSquareReached"] as? String, "2024-05-01")
        XCTAssertEqual(t[14]?["maxSquareOrigin"] as? [String: Int], ["x": Int(Self.origin.x), "y": Int(Self.origin.y)])
        // z17: each sweep crosses 8n tiles of one z17 row; each of the n − 1 turns crosses 8 rows
        // more of one column, 7 of them new. No two sweeps are adjacent: no cluster, squares of 1.
        XCTAssertEqual(figures(t[17]), [8 * n * n + 7 * (n - 1), 0, 0, 1])
        let text = try CommandRunner.run(["classify", "--tables", Self.tables, "--format", "text", dir + "/mow.gpx"])
        XCTAssertTrue(text.stdout.contains("Tiles z14: 25 visited, 9 cluster tiles, largest cluster 9, max square 5×5"), text.stdout)
    }

    func testTheMapExportsTheVisitedTilesAndTheNextSquare() throws {
        let dir = try temporaryDirectory()
        let n = 5
        try Self.gpx(Self.lawnmower(rows: 0..<n, n: n), zoom: 14, start: Self.start, seconds: 5)
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
            let nw = Self.point(x: Self.origin.x, y: Self.origin.y + Double(r), zoom: 14)
            let se = Self.point(x: Self.origin.x + Double(n), y: Self.origin.y + Double(r + 1), zoom: 14)
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
            let c = Self.tileCoordinates(latitude: lat, longitude: lon, zoom: 14)
            let dx = c.x - Self.origin.x, dy = c.y - Self.origin.y
            XCTAssertTrue(dx < 0 || dy < 0 || dx > Double(n) || dy > Double(n), "\(dx), \(dy) is inside the block")
            XCTAssertTrue(dx > -1 && dy > -1 && dx < Double(n + 1) && dy < Double(n + 1), "\(dx), \(dy) is not next to it")
        }
        let next = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/map/next-square-z14.geojson"))) as? [String: Any])
        XCTAssertEqual((next["features"] as? [Any])?.count, 1 + 2 * n + 1)
    }

    func testASparseLegThatCutsATileCornerVisitsIt() throws {
        let dir = try temporaryDirectory()
        // A z17 corner (X, Y) inside one z14 tile; the leg passes 0.1 tile south of it, through
        // the south-west tile's corner: tiles (X−1, Y−1), (X−1, Y) and (X, Y), not (X, Y−1).
        let c = Self.tileCoordinates(latitude: 39.93, longitude: 116.41, zoom: 17)
        let corner = (x: (c.x / 8).rounded(.down) * 8 + 3, y: (c.y / 8).rounded(.down) * 8 + 3)
        let leg = [(x: corner.x - 0.5, y: corner.y - 0.4), (x: corner.x + 0.4, y: corner.y + 0.5)]
        // About 300 m in a minute: 5 m/s, within walking-to-cycling speed.
        try Self.gpx(leg, zoom: 17, start: Self.start, seconds: 60).write(toFile: dir + "/sparse.gpx", atomically: true, encoding: .utf8)
        let t = try tiles(try classify([dir + "/sparse.gpx"]))
        XCTAssertEqual(t[17]?["visited"] as? Int, 3)
        XCTAssertEqual(t[14]?["visited"] as? Int, 1)
    }

    func testAFlightVisitsOnlyWhereItStartsAndLands() throws {
        let dir = try temporaryDirectory()
        // Beijing to Shanghai (about 1,070 km) at 250 m/s, a point every 10 s: only the take-off
        // and landing points are on the ground.
        let from = Self.tileCoordinates(latitude: 40.08, longitude: 116.58, zoom: 14)
        let to = Self.tileCoordinates(latitude: 31.15, longitude: 121.80, zoom: 14)
        let points = Self.path([from, to], step: hypot(to.x - from.x, to.y - from.y) / 428)
        try Self.gpx(points, zoom: 14, start: Self.start, seconds: 10).write(toFile: dir + "/flight.gpx", atomically: true, encoding: .utf8)
        let t = try tiles(try classify([dir + "/flight.gpx"]))
        XCTAssertEqual(t[14]?["visited"] as? Int, 2)
        XCTAssertEqual(t[17]?["visited"] as? Int, 2)
    }

    func testTilesThroughTheStateMergeAndForgetAreAFreshRun() throws {
        let dir = try temporaryDirectory()
        let n = 5, day = 86_400
        // Rows 0–1 on 1 May, rows 2–3 on 2 May, row 4 on 3 May, one file each.
        let parts = [0..<2, 2..<4, 4..<5]
        var paths: [String] = []
        for (k, rows) in parts.enumerated() {
            let path = dir + "/part\(k).gpx"
            try Self.gpx(Self.lawnmower(rows: rows, n: n), zoom: 14, start: Self.start + k * day, seconds: 5).write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let reference = try classify(paths)
        let t = try tiles(reference)
        XCTAssertEqual(figures(t[14]), [25, 9, 9, 5])
        XCTAssertEqual(t[14]?["maxSquareReached"] as? String, "2024-05-03")
        // 4 × 4 was complete on 2 May, but the 5 × 5 only on 3 May.
        XCTAssertEqual(t[14]?["visitedReached"] as? String, "2024-05-03")
        // Without turns between files, z17 has 8n tiles per row and a turn within each two-row part.
        XCTAssertEqual(t[17]?["visited"] as? Int, 8 * n * n + 7 * 2)

        // One input per run through a state, in another order.
        let state = dir + "/state"
        var last = ""
        for i in [2, 0, 1] { last = try classify([paths[i], "--state", state]) }
        XCTAssertEqual(ReportText.withoutChanges(last), reference)
        // Shards merged.
        _ = try classify([paths[1], "--state", dir + "/a"])
        _ = try classify([paths[2], paths[0], "--state", dir + "/b"])
        let merged = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/b", dir + "/a"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertEqual(merged.stdout, reference)
        // Forgetting the last row: a 5 × 4 block, as a fresh run of the other two gives, byte for byte.
        let forgot = try CommandRunner.run(["forget", "--tables", Self.tables, paths[2], "--state", state])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        let fresh = try classify([paths[0], paths[1], "--state", dir + "/fresh"])
        XCTAssertEqual(ReportText.withoutChanges(forgot.stdout), ReportText.withoutChanges(fresh))
        // The state remembers what was forgotten (so the next classify of the folder skips it);
        // with that undone it is the fresh run's, byte for byte.
        let undone = try CommandRunner.run(["forget", "--undo", "--tables", Self.tables, paths[2], "--state", state])
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertEqual(try ReportText.shown(state, tables: Self.tables), try ReportText.shown(dir + "/fresh", tables: Self.tables))
        let f = try tiles(fresh)
        XCTAssertEqual(figures(f[14]), [n * 4, (n - 2) * 2, (n - 2) * 2, 4])
        XCTAssertEqual(f[14]?["maxSquareReached"] as? String, "2024-05-02")
        // The per-day gains: 10, 10 and 5 new z14 tiles.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reference.utf8)) as? [String: Any])
        let days = try XCTUnwrap(json["days"] as? [[String: Any]])
        XCTAssertEqual(days.map { ($0["newTiles"] as? [String: Int])?["14"] ?? -1 }, [10, 10, 5])
    }
}
