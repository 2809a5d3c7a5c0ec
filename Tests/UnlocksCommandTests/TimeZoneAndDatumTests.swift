import Foundation
import XCTest
import UnlocksTestSupport

/// Issue 13, items 6 and 7 end to end: days in an IANA zone (`--time-zone`), the zone in the
/// state, a per-input datum (`--datum-for`), the creator's datum hint and the audit's suggestion.
final class TimeZoneAndDatumTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    /// A GPX walk of `count` points a few metres apart, one a minute from `start` (ISO-8601 UTC).
    func gpx(creator: String = "test", latitude: Double, longitude: Double, start: Date, count: Int = 6) -> String {
        let formatter = ISO8601DateFormatter()
        let points = (0..<count).map { i in
            "<trkpt lat=\"\(latitude + Double(i) * 0.00002)\" lon=\"\(longitude)\"><time>\(formatter.string(from: start.addingTimeInterval(Double(i) * 60)))</time></trkpt>"
        }.joined()
        return "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"\(creator)\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\(points)</trkseg></trk></gpx>"
    }

    func report(_ result: CommandRunner.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func metric(_ report: [String: Any], _ name: String) -> Int? { (report["metrics"] as? [String: Any])?[name] as? Int }

    func counties(_ report: [String: Any]) -> Set<String> {
        Set(((report["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
    }

    /// 30 June 2024 00:00Z (day 19904), by hand.
    static let june30 = Date(timeIntervalSince1970: 19_904 * 86_400)

    /// Two walks in Manhattan at 01:00 and 23:00 New York time (EDT, -04:00) on 30 June: one day
    /// there; at +08:00 they fall on 30 June and 1 July.
    func testAWalkAt23hInNewYorkCountsOn30June() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: 40.7580, longitude: -73.9855, start: Self.june30.addingTimeInterval(5 * 3600)).write(toFile: dir + "/early.gpx", atomically: true, encoding: .utf8)
        try gpx(latitude: 40.7580, longitude: -73.9855, start: Self.june30.addingTimeInterval(27 * 3600)).write(toFile: dir + "/late.gpx", atomically: true, encoding: .utf8)
        let zoned = try report(CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", "America/New_York", dir]))
        XCTAssertEqual(metric(zoned, "recordedDays"), 1)
        let options = try XCTUnwrap(zoned["options"] as? [String: Any])
        XCTAssertEqual(options["timeZone"] as? String, "America/New_York")
        let first = try XCTUnwrap(((zoned["unlocks"] as? [String: Any])?["countries"] as? [[String: Any]])?.first?["firstVisit"] as? [String: Any])
        XCTAssertEqual(first["time"] as? String, "2024-06-30T01:00:00.000-04:00")
        let fixed = try report(CommandRunner.run(["classify", "--tables", Self.tables, "--utc-offset", "+08:00", dir]))
        XCTAssertEqual(metric(fixed, "recordedDays"), 2)
    }

    /// Issue 23: with no flag, days follow the person's own clock (`TZ`). The walk at 23:00 EDT
    /// on 30 June 2024 is 03:00Z on 1 July (EDT is UTC−4 from 10 March to 3 November 2024, by
    /// hand from the US rule): it counts on 30 June, and the report names the zone.
    func testWithNoFlagAWalkAt23hCountsOn30JuneOnNewYorksClock() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: 40.7580, longitude: -73.9855, start: Self.june30.addingTimeInterval(27 * 3600)).write(toFile: dir + "/late.gpx", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir], environment: ["TZ": "America/New_York"])
        let zoned = try report(result)
        let days = try XCTUnwrap(zoned["days"] as? [[String: Any]], result.stdout)
        XCTAssertEqual(days.compactMap { $0["date"] as? String }, ["2024-06-30"])
        XCTAssertEqual((zoned["options"] as? [String: Any])?["timeZone"] as? String, "America/New_York")
        let text = try CommandRunner.run(["classify", "--tables", Self.tables, "--format", "text", dir], environment: ["TZ": "America/New_York"])
        XCTAssertTrue(text.stdout.contains("days in America/New_York"), text.stdout)
        // The same walk on UTC's clock (TZ=UTC; also what a system with no zone set uses) is on 1 July.
        let utc = try report(CommandRunner.run(["classify", "--tables", Self.tables, dir], environment: ["TZ": "UTC"]))
        XCTAssertEqual((utc["days"] as? [[String: Any]])?.compactMap { $0["date"] as? String }, ["2024-07-01"])
    }

    /// Berlin's spring transition (31 March 2024, +01:00 → +02:00 at 01:00Z): 12:00Z and 22:30Z
    /// on 31 March are two local days in Berlin (22:30Z is 00:30 CEST on 1 April) but one at a
    /// fixed +01:00.
    func testADaylightSavingDayInBerlin() throws {
        let dir = try temporaryDirectory()
        let march31 = Date(timeIntervalSince1970: 19_813 * 86_400)
        try gpx(latitude: 52.5163, longitude: 13.3777, start: march31.addingTimeInterval(12 * 3600)).write(toFile: dir + "/noon.gpx", atomically: true, encoding: .utf8)
        try gpx(latitude: 52.5163, longitude: 13.3777, start: march31.addingTimeInterval(22.5 * 3600)).write(toFile: dir + "/night.gpx", atomically: true, encoding: .utf8)
        XCTAssertEqual(metric(try report(CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", "Europe/Berlin", dir])), "recordedDays"), 2)
        XCTAssertEqual(metric(try report(CommandRunner.run(["classify", "--tables", Self.tables, "--utc-offset", "+01:00", dir])), "recordedDays"), 1)
    }

    /// Issue 35, item 7: zones of the tz database without a slash. A London walk at 00:30 BST on 2
    /// July 2024 (23:30Z on 1 July; BST is UTC+1 from 31 March to 27 October 2024, by hand from the
    /// EU rule) and one at 00:30 GMT on 2 January 2024 (00:30Z), run with TZ=GB: both count on
    /// the 2nd, whatever the season of the run (TZ=GB was read as the offset of the day of the run,
    /// so in winter the July walk counted on 1 July). `--time-zone GB` is taken (it was refused),
    /// and so are NZ, Japan, PRC, CET, EST5EDT and Israel; an abbreviation or an offset is not.
    func testZonesWithoutASlashAreZonesInEverySeason() throws {
        let dir = try temporaryDirectory()
        let july2 = Date(timeIntervalSince1970: 19_906 * 86_400), january2 = Date(timeIntervalSince1970: 19_724 * 86_400)
        try gpx(latitude: 51.5007, longitude: -0.1246, start: july2.addingTimeInterval(-1800)).write(toFile: dir + "/summer.gpx", atomically: true, encoding: .utf8)
        try gpx(latitude: 51.5007, longitude: -0.1246, start: january2.addingTimeInterval(1800)).write(toFile: dir + "/winter.gpx", atomically: true, encoding: .utf8)
        for (arguments, environment) in [([String](), ["TZ": "GB"]), (["--time-zone", "GB"], ["TZ": "UTC"]), ([], ["TZ": ":GB"]), ([], ["TZ": "/usr/share/zoneinfo/GB"])] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables] + arguments + [dir], environment: environment)
            XCTAssertEqual(result.status, 0, result.stderr)
            let zoned = try report(result)
            XCTAssertEqual((zoned["days"] as? [[String: Any]])?.compactMap { $0["date"] as? String }, ["2024-01-02", "2024-07-02"], "\(arguments) \(environment)")
            XCTAssertEqual((zoned["options"] as? [String: Any])?["timeZone"] as? String, "GB")
            XCTAssertFalse(result.stderr.contains("note: TZ"), result.stderr)
        }
        // A state made with TZ=GB keeps the zone, not an offset: a run in the other season agrees with it.
        let state = dir + "/gb.state"
        XCTAssertEqual(try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/winter.gpx", "--state", state, "--out", dir + "/r1"], environment: ["TZ": "GB"]).status, 0)
        let again = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/summer.gpx", "--state", state, "--out", dir + "/r2"], environment: ["TZ": "GB"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let kept = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r2"))) as? [String: Any])
        XCTAssertEqual((kept["options"] as? [String: Any])?["timeZone"] as? String, "GB")
        for name in ["NZ", "Japan", "PRC", "CET", "EST5EDT", "Israel", "Etc/GMT-8"] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", name, dir + "/winter.gpx"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
        }
        for name in ["PST", "CEST", "GMT+8", "europe/london", "Factory"] {
            let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", name, dir + "/winter.gpx"])
            XCTAssertEqual(result.status, 2, name)
            XCTAssertTrue(result.stderr.contains("'\(name)' is not a time zone of the tz database"), result.stderr)
        }
        // A TZ that names no zone (a POSIX rule) is said, not replaced silently.
        let posix = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/winter.gpx"], environment: ["TZ": "CET-1CEST"])
        XCTAssertTrue(posix.stderr.contains("note: TZ='CET-1CEST' names no time zone of the tz database"), posix.stderr)
    }

    func testAnUnknownZoneIsAUsageErrorNamingIt() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: 52.5163, longitude: 13.3777, start: Self.june30).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        for command in ["classify", "audit"] {
            let result = try CommandRunner.run([command, "--tables", Self.tables, "--time-zone", "Europe/Atlantis", dir, "--out", dir + "/out-" + command])
            XCTAssertEqual(result.status, 2, command)
            XCTAssertTrue(result.stderr.contains("Europe/Atlantis"), result.stderr)
        }
    }

    /// A state remembers its zone: a run given none takes it (whatever the system's), another
    /// zone through it, or merged with it, is refused, naming the options that differ.
    func testTheStateKeepsItsZone() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: 52.5163, longitude: 13.3777, start: Self.june30).write(toFile: dir + "/a.gpx", atomically: true, encoding: .utf8)
        let berlinState = dir + "/berlin.state", chinaState = dir + "/china.state"
        XCTAssertEqual(try CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", "Europe/Berlin", dir + "/a.gpx", "--state", berlinState, "--out", dir + "/r1"]).status, 0)
        XCTAssertEqual(try CommandRunner.run(["classify", "--tables", Self.tables, "--utc-offset", "+08:00", dir + "/a.gpx", "--state", chinaState, "--out", dir + "/r2"]).status, 0)
        let again = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/a.gpx", "--state", berlinState, "--out", dir + "/r3"],
                                          environment: ["TZ": "Europe/Paris"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let options = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r3"))) as? [String: Any])["options"] as? [String: Any]
        XCTAssertEqual(options?["timeZone"] as? String, "Europe/Berlin")
        let other = try CommandRunner.run(["classify", "--tables", Self.tables, "--time-zone", "Europe/Paris", dir + "/a.gpx", "--state", berlinState, "--out", dir + "/r4"])
        XCTAssertNotEqual(other.status, 0)
        XCTAssertTrue(other.stderr.contains("the logbook was made with --time-zone Europe/Berlin; this run uses Europe/Paris"), other.stderr)
        XCTAssertFalse(other.stderr.contains("metres") || other.stderr.contains("exploreMaxSpeed"), other.stderr)
        let slower = try CommandRunner.run(["classify", "--tables", Self.tables, "--explore-max-speed", "20", dir + "/a.gpx", "--state", berlinState, "--out", dir + "/r5"])
        XCTAssertTrue(slower.stderr.contains("the logbook was made with --explore-max-speed 30; this run uses 20"), slower.stderr)
        XCTAssertFalse(slower.stderr.contains("time-zone"), slower.stderr)
        let merged = try CommandRunner.run(["merge", "--tables", Self.tables, berlinState, chinaState])
        XCTAssertNotEqual(merged.status, 0)
        XCTAssertTrue(merged.stderr.contains("china.state"), merged.stderr)
        XCTAssertTrue(merged.stderr.contains("the logbook was made with --utc-offset +08:00; this run uses Europe/Berlin"), merged.stderr)
        XCTAssertEqual(try CommandRunner.run(["merge", "--tables", Self.tables, berlinState], environment: ["TZ": "Asia/Tokyo"]).status, 0)
    }

    /// Near the border of Dongcheng (110101) and Xicheng (110102): the same numbers are in
    /// Dongcheng read as WGS-84 and in Xicheng read as GCJ-02 (whose shift there is about 530 m
    /// east, so the WGS-84 point is that far west, across the border).
    static let border = (latitude: 39.905, longitude: 116.395)

    func testAPerInputDatumInOneRun() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: Self.border.latitude, longitude: Self.border.longitude, start: Self.june30).write(toFile: dir + "/garmin.gpx", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/amap", withIntermediateDirectories: true)
        try gpx(latitude: Self.border.latitude, longitude: Self.border.longitude, start: Self.june30.addingTimeInterval(86_400)).write(toFile: dir + "/amap/day.gpx", atomically: true, encoding: .utf8)
        let plain = try report(CommandRunner.run(["classify", "--tables", Self.tables, "--lenient", dir]))
        XCTAssertEqual(counties(plain), ["110101"])
        let both = try report(CommandRunner.run(["classify", "--tables", Self.tables, "--lenient", "--datum", "gcj02", dir]))
        XCTAssertEqual(counties(both), ["110102"])
        let mixed = try report(CommandRunner.run(["classify", "--tables", Self.tables, "--lenient", "--datum-for", "**/amap/*.gpx=gcj02", dir]))
        XCTAssertEqual(counties(mixed), ["110101", "110102"])
        let inputs = try XCTUnwrap((mixed["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        XCTAssertEqual(inputs.first { ($0["path"] as! String).hasSuffix("amap/day.gpx") }?["datum"] as? String, "gcj02")
        XCTAssertNil(inputs.first { ($0["path"] as! String).hasSuffix("garmin.gpx") }?["datum"])
        let bad = try CommandRunner.run(["classify", "--tables", Self.tables, "--datum-for", "*.gpx=osgb", dir])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("osgb"), bad.stderr)
    }

    func testACreatorNamingAMapGivesAHintNotASwitch() throws {
        let dir = try temporaryDirectory()
        try gpx(creator: "AMap 高德地图 11.2", latitude: Self.border.latitude, longitude: Self.border.longitude, start: Self.june30).write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, "--lenient", dir + "/walk.gpx"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("--datum-for"), result.stderr)
        let hinted = try report(result)
        XCTAssertEqual(counties(hinted), ["110101"])  // still read as WGS-84
        let input = try XCTUnwrap(((hinted["inputs"] as? [String: Any])?["files"] as? [[String: Any]])?.first)
        XCTAssertEqual(input["datumHint"] as? String, "gcj02")
        XCTAssertTrue((input["datumHintReason"] as? String ?? "").contains("AMap"))
        // Read as GCJ-02, it needs no hint.
        let read = try CommandRunner.run(["classify", "--tables", Self.tables, "--lenient", "--datum", "gcj02", dir + "/walk.gpx"])
        XCTAssertFalse(read.stderr.contains("note:"), read.stderr)
        XCTAssertNil(((try report(read)["inputs"] as? [String: Any])?["files"] as? [[String: Any]])?.first?["datumHint"])
    }

    /// A WGS-84 walk along a county border flips with the datum at every point, as a GCJ-02 one
    /// would: no evidence of its datum, so no suggestion (AuditDatumSuggestionTests has the
    /// evidence that is).
    func testAWalkAlongABorderIsNoEvidenceOfADatum() throws {
        let dir = try temporaryDirectory()
        try gpx(latitude: Self.border.latitude, longitude: Self.border.longitude, start: Self.june30, count: 20).write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
        // No source check (--source ''): the suggestion does not depend on it, and it is slow.
        let result = try CommandRunner.run(["audit", "--tables", Self.tables, "--source", "", dir + "/walk.gpx", "--out", dir + "/audit"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let audit = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/audit/audit.json"))) as? [String: Any])
        let summary = try XCTUnwrap(audit["summary"] as? [String: Any])
        let flips = ((summary["categories"] as? [String: Any])?["datum-flip"] as? [String: Any])?["points"] as? Int ?? 0
        let suggestions = try XCTUnwrap(summary["datumSuggestions"] as? [[String: Any]])
        // Every point of the walk changes county with the datum, and nothing suggests another datum.
        XCTAssertEqual(flips, 20)
        XCTAssertEqual(suggestions.count, 0, "\(suggestions)")
        XCTAssertFalse(result.stdout.contains("--datum-for"), result.stdout)
    }
}
