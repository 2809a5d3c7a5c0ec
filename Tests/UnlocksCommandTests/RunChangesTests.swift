import Foundation
import XCTest
import UnlocksTestSupport

/// `changes`: what a run through `--state` added, checked against the difference of two
/// independent fresh runs (one without the new inputs, one with them), never against the
/// changes' own figures.
final class RunChangesTests: XCTestCase {
    static let tables = Repository.tables

    func classify(_ arguments: [String]) throws -> [String: Any] {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--badges", Repository.path("Data/badges/example.json")] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static let levels = ["countries", "provinces", "cities", "counties"]

    /// A walk eastward at 1.4 m/s sampled every 5 s for `seconds`, from (`latitude`, `longitude`)
    /// at `start` (Unix seconds); `untimed` adds points without a time after it.
    static func walk(latitude: Double, longitude: Double, start: Int, seconds: Int, untimed: [(Double, Double)] = []) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let formatter = ISO8601DateFormatter()
        for s in stride(from: 0, through: seconds, by: 5) {
            let east = 1.4 * Double(s)
            let lon = longitude + east / (111_320 * cos(latitude * .pi / 180))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", latitude, lon,
                           formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + s))))
        }
        for (lat, lon) in untimed { text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"/>\n", lat, lon) }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Per level, the codes a report counts as unlocked (confirmed; the runs are not lenient).
    func counted(_ report: [String: Any]) throws -> [String: Set<String>] {
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        return Dictionary(uniqueKeysWithValues: Self.levels.map { level in
            (level, Set((unlocks[level] ?? []).filter { $0["evidence"] as? String == "confirmed" }.compactMap { $0["code"] as? String }))
        })
    }

    func evidence(_ report: [String: Any]) throws -> [String: [String: String]] {
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        return Dictionary(uniqueKeysWithValues: Self.levels.map { level in
            (level, Dictionary(uniqueKeysWithValues: (unlocks[level] ?? []).map { ($0["code"] as! String, $0["evidence"] as! String) }))
        })
    }

    func codes(_ lists: Any?) throws -> [String: Set<String>] {
        let object = try XCTUnwrap(lists as? [String: [[String: Any]]])
        return Dictionary(uniqueKeysWithValues: Self.levels.map { ($0, Set((object[$0] ?? []).compactMap { $0["code"] as? String })) })
    }

    func testARunThroughAStateReportsWhatTheNewInputsAddedAsTwoFreshRunsDiffer() throws {
        let dir = try temporaryDirectory()
        let first = dir + "/first", both = dir + "/both"
        for folder in [first, both] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // A: an hour in Dongcheng, Beijing, and one untimed point in Shanghai's Huangpu (tentative
        // evidence only). B: an hour in Huangpu the next day (confirms it) and one in Tianjin.
        let a = Self.walk(latitude: 39.9050, longitude: 116.3900, start: 1_714_525_200, seconds: 3600, untimed: [(31.2304, 121.4737)])
        let b = Self.walk(latitude: 31.2304, longitude: 121.4700, start: 1_714_611_600, seconds: 3600)
        let c = Self.walk(latitude: 39.1300, longitude: 117.2000, start: 1_714_698_000, seconds: 1800)
        for folder in [first, both] { try a.write(toFile: folder + "/a.gpx", atomically: true, encoding: .utf8) }
        try b.write(toFile: both + "/b.gpx", atomically: true, encoding: .utf8)
        try c.write(toFile: both + "/c.gpx", atomically: true, encoding: .utf8)

        let onlyA = try classify([first]), withB = try classify([both])
        XCTAssertNil(onlyA["changes"], "no state given: no changes")
        let state = dir + "/s.state"
        let firstRun = try classify([first, "--state", state])
        let secondRun = try classify([both, "--state", state])
        let changes = try XCTUnwrap(secondRun["changes"] as? [String: Any])

        // Newly unlocked: counted in the run with B, not in the run without.
        let before = try counted(onlyA), after = try counted(withB)
        let unlocked = try codes(changes["unlocked"])
        for level in Self.levels { XCTAssertEqual(unlocked[level], after[level]!.subtracting(before[level]!), level) }
        XCTAssertEqual(unlocked["provinces"]?.contains("120000"), true, "Tianjin is new")
        // Tentative without B (not counted), confirmed with it (Shanghai): newly unlocked, and so
        // not "Now confirmed" as well (that list is for regions counted before, with --lenient).
        let was = try evidence(onlyA), now = try evidence(withB)
        let confirmed = try codes(changes["confirmed"])
        for level in Self.levels {
            let raised = Set(now[level]!.filter { $0.value == "confirmed" && was[level]![$0.key] != nil && was[level]![$0.key] != "confirmed" }.keys)
            XCTAssertTrue(raised.isSubset(of: unlocked[level]!), level)
            XCTAssertEqual(confirmed[level], [], level)
        }
        XCTAssertEqual(was["provinces"]?["310000"], "tentative")
        XCTAssertEqual(unlocked["provinces"]?.contains("310000"), true, "Shanghai was tentative (an untimed point), confirmed by B")

        let m0 = try XCTUnwrap(onlyA["metrics"] as? [String: Double]), m1 = try XCTUnwrap(withB["metrics"] as? [String: Double])
        XCTAssertEqual(changes["exploredCells"] as? Double, m1["exploredCellCount"]! - m0["exploredCellCount"]!)
        XCTAssertEqual(try XCTUnwrap(changes["exploredKm2"] as? Double), m1["globalAreaKm2"]! - m0["globalAreaKm2"]!, accuracy: 1e-4)
        XCTAssertEqual(try XCTUnwrap(changes["distanceKilometers"] as? Double), m1["totalDistanceKilometers"]! - m0["totalDistanceKilometers"]!, accuracy: 1e-3)
        XCTAssertEqual(changes["recordedDays"] as? Double, 2)
        func files(_ report: [String: Any]) -> Int { ((report["inputs"] as? [String: Any])?["files"] as? [Any])?.count ?? -1 }
        // Files met: b and c read, and first/a.gpx now a skipped copy of both/a.gpx beside it.
        XCTAssertEqual((changes["inputs"] as? Int ?? 0) + (changes["skipped"] as? Int ?? 0), files(secondRun) - files(firstRun))
        XCTAssertEqual(changes["inputs"] as? Int, 2)
        XCTAssertEqual(changes["skipped"] as? Int, 1)
        func tiles(_ report: [String: Any]) throws -> [Int: (Int, Int)] {
            let list = try XCTUnwrap((report["explorer"] as? [String: Any])?["tiles"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: list.map { ($0["zoom"] as! Int, ($0["visited"] as! Int, $0["maxSquare"] as! Int)) })
        }
        let t0 = try tiles(onlyA), t1 = try tiles(withB)
        for change in try XCTUnwrap(changes["tiles"] as? [[String: Any]]) {
            let zoom = change["zoom"] as! Int
            XCTAssertEqual(change["visited"] as? Int, t1[zoom]!.0 - t0[zoom]!.0)
            XCTAssertEqual(change["maxSquare"] as? [String: Int], ["from": t0[zoom]!.1, "to": t1[zoom]!.1])
        }
        let c0 = try XCTUnwrap((onlyA["explorer"] as? [String: Any])?["cells"] as? [String: Int])
        let c1 = try XCTUnwrap((withB["explorer"] as? [String: Any])?["cells"] as? [String: Int])
        XCTAssertEqual(changes["cells"] as? [String: Int], c1.merging(c0) { $0 - $1 })

        // Badges: those whose percent rose from the run without B to the run with it.
        func percents(_ report: [String: Any]) throws -> [String: (Int, Bool)] {
            Dictionary(uniqueKeysWithValues: try XCTUnwrap(report["badges"] as? [[String: Any]]).map { ($0["id"] as! String, ($0["percent"] as! Int, $0["achieved"] as! Bool)) })
        }
        let p0 = try percents(onlyA), p1 = try percents(withB)
        let rose = try XCTUnwrap(changes["badges"] as? [[String: Any]])
        XCTAssertEqual(Set(rose.compactMap { $0["id"] as? String }), Set(p1.keys.filter { p1[$0]!.0 > p0[$0]!.0 }))
        XCTAssertFalse(rose.isEmpty)
        for b in rose {
            let id = b["id"] as! String
            XCTAssertEqual(b["fromPercent"] as? Int, p0[id]!.0, id)
            XCTAssertEqual(b["toPercent"] as? Int, p1[id]!.0, id)
            XCTAssertEqual(b["achieved"] as? Bool, p1[id]!.1, id)
        }

        // The first run through a new state: everything is new.
        let all = try codes((firstRun["changes"] as? [String: Any])?["unlocked"])
        XCTAssertEqual(all, before)
        // A third run adds nothing.
        let again = try XCTUnwrap(try classify([both, "--state", state])["changes"] as? [String: Any])
        XCTAssertEqual(again["exploredCells"] as? Double, 0)
        XCTAssertEqual(try codes(again["unlocked"]).values.map(\.count).reduce(0, +), 0)
        XCTAssertEqual(again["inputs"] as? Double, 0)
    }

    func testTheTextReportTellsTheChangesFirst() throws {
        let dir = try temporaryDirectory()
        try Self.walk(latitude: 39.9050, longitude: 116.3900, start: 1_714_525_200, seconds: 600).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--state", dir + "/s.state", "--format", "text"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("This run added: 1 input read\n  Unlocked: 1 country (中华人民共和国 China)"), result.stdout)
        let again = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--state", dir + "/s.state", "--format", "text"])
        XCTAssertTrue(again.stdout.hasPrefix("This run added: 0 inputs read, nothing new counted\n"), again.stdout)
    }
}
