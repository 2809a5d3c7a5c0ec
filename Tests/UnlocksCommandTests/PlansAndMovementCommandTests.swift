import Foundation
import XCTest
import UnlocksTestSupport

/// Plans, untimed points and vehicle legs through `unlocks classify`, `--state` and `merge`.
final class PlansAndMovementCommandTests: XCTestCase {
    let tables = ClassifyCommandTests.tables

    func report(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// 40 random untimed points over eastern China as a CSV without a time column (the issue's
    /// 2.4 GB case): quick, small, a plan; with `--include-plans`, no leg drawn (every one is
    /// kilometres long), no distance, no day, nothing confirmed.
    func testFortyRandomUntimedPointsAreQuickSmallAndAPlan() throws {
        let dir = try temporaryDirectory()
        var state: UInt64 = 40
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let rows = (0..<40).map { _ in String(format: "%.6f,%.6f", 25 + next() * 15, 105 + next() * 15) }
        try ("lat,lon\n" + rows.joined(separator: "\n") + "\n").write(toFile: dir + "/random.csv", atomically: false, encoding: .utf8)
        for extra in [[], ["--include-plans"]] {
            let clock = Date()
            let result = try CommandRunner.run(["classify", "--tables", tables, dir + "/random.csv"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            // The case took minutes and gigabytes; a shared, loaded machine can take seconds.
            XCTAssertLessThan(Date().timeIntervalSince(clock), 60, "\(extra)")
            XCTAssertLessThan(result.peakResidentBytes, 100 << 20, "\(extra)")
            let json = try report(result.stdout)
            let file = try XCTUnwrap(((json["inputs"] as? [String: Any])?["files"] as? [[String: Any]])?.first)
            XCTAssertEqual(file["status"] as? String, "planned")
            XCTAssertEqual(file["pointsPlanned"] as? Int, 40)
            XCTAssertEqual((json["inputs"] as? [String: Any])?["planned"] as? Int, 1)
            let metrics = try XCTUnwrap(json["metrics"] as? [String: Any])
            XCTAssertEqual(metrics["totalDistanceKilometers"] as? Double, 0)
            XCTAssertEqual(metrics["recordedDays"] as? Int, 0)
            XCTAssertEqual(metrics["countyUnlockCount"] as? Int, 0)
            XCTAssertLessThanOrEqual(metrics["exploredCellCount"] as! Int, extra.isEmpty ? 0 : 1)
            if extra.isEmpty { XCTAssertTrue(result.stderr.contains("1 input is a plan"), result.stderr) }
        }
    }

    /// A train ride file (300 km/h between walks at Beijing South and Tianjin), an untimed CSV
    /// and a GPX route: one run, a run through a state and two merged shards give the same bytes,
    /// with the passed-through regions and planned inputs in them.
    func testPlansAndPassedThroughAgreeThroughStateAndMerge() throws {
        let dir = try temporaryDirectory()
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var rows = ["lat,lon,time"]
        let t0 = 1_714_525_200  // 2024-05-01T01:00:00Z
        func add(_ a: (Double, Double), _ b: (Double, Double), count: Int, step: Int, start: Int) {
            for i in 0..<count {
                let f = Double(i) / Double(count - 1)
                rows.append(String(format: "%.6f,%.6f,%d", a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, start + i * step))
            }
        }
        add((39.8690, 116.3790), (39.8650, 116.3790), count: 120, step: 1, start: t0)
        add((39.8650, 116.3790), (39.1350, 117.2100), count: 145, step: 9, start: t0 + 120)
        add((39.1350, 117.2100), (39.1390, 117.2100), count: 120, step: 1, start: t0 + 120 + 144 * 9 + 1)
        try (rows.joined(separator: "\n") + "\n").write(toFile: input + "/train.csv", atomically: false, encoding: .utf8)
        try "lat,lon\n31.2400,121.4900\n31.2401,121.4901\n".write(toFile: input + "/bund.csv", atomically: false, encoding: .utf8)
        try """
        <?xml version="1.0"?><gpx version="1.1" creator="planner"><rte>
        <rtept lat="39.9030" lon="116.3975"/><rtept lat="39.9500" lon="116.4500"/><rtept lat="40.0000" lon="116.5000"/>
        </rte></gpx>
        """.write(toFile: input + "/route.gpx", atomically: false, encoding: .utf8)
        let names = ["bund.csv", "route.gpx", "train.csv"].map { input + "/" + $0 }
        for extra in [[], ["--include-plans"]] {
            let all = try CommandRunner.run(["classify", "--tables", tables] + names + extra)
            XCTAssertEqual(all.status, 0, all.stderr)
            let json = try report(all.stdout)
            let files = try XCTUnwrap((json["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
            XCTAssertEqual(files.map { $0["status"] as? String }, ["planned", "planned", "read"])
            let counties = try XCTUnwrap((json["unlocks"] as? [String: [[String: Any]]])?["counties"])
            XCTAssertTrue(counties.contains { $0["evidence"] as? String == "passedThrough" })
            // Pudong (by the Bund, east bank) only from the untimed plan: tentative with --include-plans, else absent.
            let pudong = counties.first { $0["code"] as? String == "310115" }
            XCTAssertEqual(pudong?["evidence"] as? String, extra.isEmpty ? nil : "tentative")

            let state = dir + "/state\(extra.count)"
            XCTAssertEqual(try CommandRunner.run(["classify", "--tables", tables, names[0], "--state", state] + extra).status, 0)
            let resumed = try CommandRunner.run(["classify", "--tables", tables] + names + ["--state", state] + extra)
            XCTAssertEqual(ReportText.withoutChanges(resumed.stdout), all.stdout)
            XCTAssertEqual(try CommandRunner.run(["classify", "--tables", tables, names[2], "--state", state + "a"] + extra).status, 0)
            XCTAssertEqual(try CommandRunner.run(["classify", "--tables", tables, names[0], names[1], "--state", state + "b"] + extra).status, 0)
            let merged = try CommandRunner.run(["merge", "--tables", tables, state + "b", state + "a"] + extra)
            XCTAssertEqual(merged.status, 0, merged.stderr)
            XCTAssertEqual(merged.stdout, all.stdout)
        }
    }
}
