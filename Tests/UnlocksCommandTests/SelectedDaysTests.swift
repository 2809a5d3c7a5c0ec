import Foundation
import XCTest
import UnlocksTestSupport

/// `--since` / `--until` (local days, inclusive) and the per-year table: expected figures from
/// the generated points themselves (dates by hand in UTC+8, haversine distances), and from runs
/// that select one year, whose totals the full run's year rows must equal.
final class SelectedDaysTests: XCTestCase {
    static let tables = Repository.tables

    typealias Point = TimedPoint

    /// A walk eastward at 1.4 m/s, a point every 5 s, for `seconds` from `start`.
    static func walk(_ lat: Double, _ lon: Double, start: Int, seconds: Int) -> [Point] {
        TimedWalks.eastward(lat, lon, start: start, seconds: seconds)
    }

    static func haversine(_ a: Point, _ b: Point) -> Double {
        let r = 6_371_008.8, p1 = a.lat * .pi / 180, p2 = b.lat * .pi / 180
        let dp = p2 - p1, dl = (b.lon - a.lon) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }

    /// Metres along each walk's consecutive points that both pass `keep`.
    static func metres(_ walks: [[Point]], keep: (Point) -> Bool) -> Double {
        walks.reduce(0) { sum, walk in
            let kept = walk.filter(keep)
            return sum + zip(kept, kept.dropFirst()).reduce(0) { $0 + haversine($1.0, $1.1) }
        }
    }

    func classify(_ arguments: [String]) throws -> [String: Any] {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--utc-offset", "+08:00"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func testSinceAndUntilCountOnlyTheirLocalDaysAndTheYearsAddUp() throws {
        let dir = try temporaryDirectory()
        // 2023-12-31T23:40+08:00: a walk in Dongcheng across the new year; 2024-05-01 and -03: walks in Huangpu, Shanghai.
        let newYear = 1_704_037_200, may1 = 1_714_525_200
        let walks = [Self.walk(39.915, 116.405, start: newYear, seconds: 1800),
                     Self.walk(31.2304, 121.4700, start: may1, seconds: 1800),
                     Self.walk(31.2304, 121.4700, start: may1 + 2 * 86_400, seconds: 1800)]
        let files = walks.indices.map { dir + "/walk\($0).gpx" }
        for (walk, file) in zip(walks, files) { try TimedWalks.gpx(walk).write(toFile: file, atomically: true, encoding: .utf8) }

        // --since 2024-01-01 --until 2024-05-01: the new year's minutes after midnight and May 1.
        let selected = try classify(files + ["--since", "2024-01-01", "--until", "2024-05-01"])
        let inWindow: (Point) -> Bool = { let d = TimedWalks.date($0.time); return d >= "2024-01-01" && d <= "2024-05-01" }
        let all = walks.joined()
        let points = try XCTUnwrap(selected["points"] as? [String: Any])
        XCTAssertEqual(points["kept"] as? Int, all.filter(inWindow).count)
        XCTAssertEqual((points["dropped"] as? [String: Int])?["outsideDates"], all.count - all.filter(inWindow).count)
        let metrics = try XCTUnwrap(selected["metrics"] as? [String: Double])
        let expected = Self.metres(walks, keep: inWindow) / 1000
        XCTAssertEqual(metrics["totalDistanceKilometers"]!, expected, accuracy: expected * 0.005)
        XCTAssertEqual(metrics["recordedDays"], Double(Set(all.filter(inWindow).map { TimedWalks.date($0.time) }).count))
        let days = try XCTUnwrap(selected["days"] as? [[String: Any]]).compactMap { $0["date"] as? String }
        XCTAssertEqual(days, ["2024-01-01", "2024-05-01"])
        let options = try XCTUnwrap(selected["options"] as? [String: Any])
        XCTAssertEqual(options["since"] as? String, "2024-01-01")
        XCTAssertEqual(options["until"] as? String, "2024-05-01")
        // A run without them has no outsideDates key.
        let full = try classify(files)
        XCTAssertNil(((full["points"] as? [String: Any])?["dropped"] as? [String: Any])?["outsideDates"])

        // The years of the full run: each row as a run selecting that year alone gives.
        let years = try XCTUnwrap(full["years"] as? [[String: Any]])
        XCTAssertEqual(years.compactMap { $0["year"] as? Int }, [2023, 2024])
        for row in years {
            let year = row["year"] as! Int
            let alone = try classify(files + ["--since", "\(year)-01-01", "--until", "\(year)-12-31"])
            let m = try XCTUnwrap(alone["metrics"] as? [String: Double])
            let inYear: (Point) -> Bool = { TimedWalks.date($0.time).hasPrefix("\(year)-") }
            let metres = Self.metres(walks, keep: inYear) / 1000
            XCTAssertEqual(try XCTUnwrap(row["distanceKilometers"] as? Double), metres, accuracy: metres * 0.005 + 0.01, "\(year)")
            XCTAssertEqual(row["recordedDays"] as? Int, Set(all.filter(inYear).map { TimedWalks.date($0.time) }).count, "\(year)")
            // The walks of one year explore cells no other year's do, so the year's new area is a run of that year's,
            // but for the one 7 m leg across midnight, which the run cut at midnight does not draw (at most 2 cells).
            if year == 2023 {
                XCTAssertEqual(try XCTUnwrap(row["newKm2"] as? Double), m["globalAreaKm2"]!, accuracy: 2 * 625e-6 + 1e-4)
                let newUnlocks = try XCTUnwrap(row["newUnlocks"] as? [String: Int])
                XCTAssertEqual(newUnlocks, ["countries": Int(m["countryCount"]!), "subdivisions": Int(m["subdivisionCount"]!),
                                            "provinces": Int(m["chinaProvinceCount"]!), "cities": Int(m["cityUnlockCount"]!),
                                            "counties": Int(m["countyUnlockCount"]!)])
            }
        }
        let byLevel = years.map { $0["newUnlocks"] as! [String: Int] }
        XCTAssertEqual(byLevel.reduce(0) { $0 + $1["counties"]! }, Int((full["metrics"] as! [String: Double])["countyUnlockCount"]!))
        XCTAssertEqual(byLevel[1]["provinces"], 1, "Shanghai first visited in 2024")
    }

    func testDatesAreCheckedAndNotTakenWithAState() throws {
        let dir = try temporaryDirectory()
        try TimedWalks.gpx(Self.walk(39.915, 116.405, start: 1_714_525_200, seconds: 60)).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        for bad in [["--since", "2024-02-30"], ["--until", "24-05-01"], ["--since", "2024-05-02", "--until", "2024-05-01"],
                    ["--since", "2024-05-01", "--state", dir + "/s"]] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx"] + bad)
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--since") || result.stderr.contains("--until"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/s"), "no state written")
        // The map takes them too (and refuses them with --state).
        let refused = try CommandRunner.run(["map", "--tables", Self.tables, "--state", dir + "/none", "--since", "2024-05-02", "--out", dir + "/map"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        let drawn = try CommandRunner.run(["map", "--tables", Self.tables, dir + "/a.gpx", "--since", "2024-05-01", "--out", dir + "/map"])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/map/footprint.html"))
    }
}
