import Foundation
import XCTest
import UnlocksTestSupport

/// Explorer tiles end at Web Mercator's edge (±85.0511°): points beyond it visit no tile (clamped
/// to the edge row, a small circle round the pole crossed every column of it), and the work per
/// leg stays bounded. Expected tiles from the test's own Mercator formulas.
final class PolarTilesTests: XCTestCase {
    typealias Tiles = TileWalks
    /// atan(sinh π), written out here.
    static let edge = 85.051_128_779_806_59

    /// A CSV walk through `points` (latitude, longitude), one every `seconds` from 2024-05-01.
    func csv(_ points: [(Double, Double)], seconds: Int) -> String {
        var text = "latitude,longitude,time\n"
        for (i, p) in points.enumerated() { text += String(format: "%.9f,%.9f,%d\n", p.0, p.1, Tiles.start + i * seconds) }
        return text
    }

    func visited(_ csv: String) throws -> [Int: Int] {
        let dir = try temporaryDirectory()
        try csv.write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", ClassifyCommandTests.tables, dir + "/walk.csv"], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((json["points"] as? [String: Any])?["kept"] as? Int, csv.split(separator: "\n").count - 1, "every point kept")
        let list = try XCTUnwrap((json["explorer"] as? [String: Any])?["tiles"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["zoom"] as! Int, $0["visited"] as! Int) })
    }

    /// Two laps of a circle of about 1.1 km round the North Pole at 89.99°, walked (a point every
    /// 5 s, 7 m apart): no tile at all (it reported 131,072 z17 tiles).
    func testAWalkBeyondMercatorsEdgeVisitsNoTile() throws {
        let points = (0..<2_000).map { i in (89.99, -180 + Double(i % 1_000) * 0.36) }
        XCTAssertEqual(try visited(csv(points, seconds: 5)), [14: 0, 17: 0])
    }

    /// 3 km east along 85.0° (a point every 10 s, 14 m apart): one row of z17 tiles, from the
    /// first point's column to the last's; then north along a meridian across the edge: the
    /// rows from the first point's up to row 0, none beyond.
    func testLegsNearTheEdgeVisitTheirTilesOnly() throws {
        let metresPerDegree = 111_195.0 * cos(85.0 * .pi / 180)
        let east = (0...214).map { i in (85.0, 10.0 + Double(i) * 14 / metresPerDegree) }
        let first = Tiles.tileCoordinates(latitude: 85.0, longitude: east.first!.1, zoom: 17)
        let last = Tiles.tileCoordinates(latitude: 85.0, longitude: east.last!.1, zoom: 17)
        let columns = Int(last.x.rounded(.down)) - Int(first.x.rounded(.down)) + 1
        XCTAssertGreaterThan(columns, 100)
        XCTAssertEqual(try visited(csv(east, seconds: 10))[17], columns)

        let north = (0...600).map { i in (85.02 + Double(i) * 14 / 111_195.0, 20.0001) }
        XCTAssertLessThan(north.first!.0, Self.edge)
        XCTAssertGreaterThan(north.last!.0, Self.edge + 0.01)
        let lastInside = try XCTUnwrap(north.last { $0.0 <= Self.edge })
        XCTAssertEqual(Tiles.tileCoordinates(latitude: lastInside.0, longitude: 20.0001, zoom: 17).y.rounded(.down), 0, "the walk reaches row 0")
        let rows = Int(Tiles.tileCoordinates(latitude: 85.02, longitude: 20.0001, zoom: 17).y.rounded(.down)) + 1
        XCTAssertEqual(try visited(csv(north, seconds: 10))[17], rows)
    }
}
