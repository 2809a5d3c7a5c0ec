import Foundation
import XCTest
import UnlocksTestSupport

/// One moment counts once: the same walk recorded by several apps, a file that grew, and inputs
/// forgotten from a state — in one run, through `--state`, through `merge`, in any order. Expected
/// numbers come from the generated points themselves (haversine sums, time spans), never from the
/// program's output.
final class OverlapAndForgetTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables

    func run(_ arguments: [String]) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments)
        return result
    }

    func classify(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(["classify", "--tables", Self.tables] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func metrics(_ report: [String: Any]) throws -> [String: Double] {
        try XCTUnwrap(report["metrics"] as? [String: Double])
    }

    func files(_ report: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
    }

    // MARK: The walk

    /// A walk eastward through central Beijing at 1.4 m/s with a 30 m wiggle every 5 minutes,
    /// as a function of seconds since `start`.
    static let start = 1_714_525_200  // 2024-05-01T01:00:00Z, 09:00 in Beijing
    static func position(_ second: Double, latitude: Double = 39.9050, longitude: Double = 116.3900) -> (lat: Double, lon: Double) {
        let east = 1.4 * second, north = 30 * sin(second / 300 * 2 * .pi)
        return (latitude + north / 111_000, longitude + east / (111_320 * cos(latitude * .pi / 180)))
    }

    static func haversine(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        let r = 6_371_008.8, p1 = a.lat * .pi / 180, p2 = b.lat * .pi / 180
        let dp = p2 - p1, dl = (b.lon - a.lon) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }

    /// The seconds `from`, `from + step`, … up to `to`.
    static func seconds(_ from: Int, _ to: Int, step: Int) -> [Int] { Array(stride(from: from, through: to, by: step)) }

    /// Metres along the samples taken at `seconds`.
    static func length(_ seconds: [Int], start: Int = start, latitude: Double = 39.9050, longitude: Double = 116.3900) -> Double {
        let points = seconds.map { position(Double($0), latitude: latitude, longitude: longitude) }
        return zip(points, points.dropFirst()).reduce(0) { $0 + haversine($1.0, $1.1) }
    }

    static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func gpx(_ seconds: [Int], start: Int = start) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"Garmin Connect\"><trk><trkseg>\n"
        for s in seconds {
            let p = position(Double(s))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", p.lat, p.lon, iso(start + s))
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    static func csv(_ seconds: [Int], start: Int = start, latitude: Double = 39.9050, longitude: Double = 116.3900) -> String {
        var text = "latitude,longitude,time\n"
        for s in seconds {
            let p = position(Double(s), latitude: latitude, longitude: longitude)
            text += String(format: "%.7f,%.7f,%d\n", p.lat, p.lon, start + s)
        }
        return text
    }

    /// togeojson's layout: one LineString feature with `coordTimes` (milliseconds here).
    static func geojson(_ seconds: [Int], start: Int = start) -> String {
        let coordinates = seconds.map { s -> String in
            let p = position(Double(s))
            return String(format: "[%.7f,%.7f]", p.lon, p.lat)
        }
        let times = seconds.map { String(Int64(start + $0) * 1000) }
        return "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"coordTimes\":["
            + times.joined(separator: ",") + "]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":["
            + coordinates.joined(separator: ",") + "]}}]}\n"
    }

    /// The three-source walk: Garmin's GPX every second, a CSV copy every 3 s, a GeoJSON every 2 s.
    static let gpxSeconds = seconds(0, 1800, step: 1)
    func threeSources(in dir: String) throws -> [String] {
        let files = [("walk.gpx", Self.gpx(Self.gpxSeconds)), ("walk-strava.csv", Self.csv(Self.seconds(1, 1798, step: 3))),
                     ("walk-togeojson.geojson", Self.geojson(Self.seconds(0, 1800, step: 2)))]
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return files.map { dir + "/" + $0.0 }
    }

    // MARK: Overlapping sources

    func testThreeRecordingsOfOneWalkCountOnce() throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let report = try json(try classify(paths))
        let m = try metrics(report)
        let metres = Self.length(Self.gpxSeconds), hours = 1800.0 / 3600
        XCTAssertEqual(m["totalDistanceKilometers"]!, metres / 1000, accuracy: metres / 1000 * 0.05)
        XCTAssertEqual(m["totalDurationHours"]!, hours, accuracy: hours * 0.05)
        XCTAssertEqual(m["recordedDays"], 1)
        let points = try XCTUnwrap(report["points"] as? [String: Any])
        let counted = try XCTUnwrap(points["counted"] as? Double)
        XCTAssertEqual(counted, Double(Self.gpxSeconds.count), accuracy: Double(Self.gpxSeconds.count) * 0.05)
        // Per region, too: the points in counties add up to one recording's.
        let counties = try XCTUnwrap((report["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]])
        let inCounties = counties.reduce(0.0) { $0 + ($1["insidePoints"] as! Double) + ($1["edgePoints"] as! Double) + ($1["passedPoints"] as! Double) }
        XCTAssertEqual(inCounties, Double(Self.gpxSeconds.count), accuracy: Double(Self.gpxSeconds.count) * 0.05)
        // Each file names the other two; the densest (the GPX) stood for every minute.
        for file in try files(report) {
            let overlaps = try XCTUnwrap(file["overlaps"] as? [[String: Any]], "\(file)")
            XCTAssertEqual(Set(overlaps.map { $0["path"] as! String }), Set(paths.filter { $0 != file["path"] as! String }))
            XCTAssertTrue(overlaps.allSatisfy { ($0["seconds"] as! Double) >= 1800 }, "\(overlaps)")
            XCTAssertEqual(file["countedShare"] as? Double, (file["path"] as! String).hasSuffix(".gpx") ? 1 : 0)
        }
    }

    /// One file that records the same walk twice (two segments with the same times): each minute
    /// holds at most a minute of recording, and the state it writes is read back by the next run.
    func testAFileRecordingTheSameMinutesTwiceKeepsAReadableState() throws {
        let dir = try temporaryDirectory()
        let seconds = Self.seconds(0, 1800, step: 2)
        let once = Self.gpx(seconds)
        let segment = once.components(separatedBy: "<trkseg>\n")[1].components(separatedBy: "</trkseg>")[0]
        try once.replacingOccurrences(of: "</trkseg>", with: "</trkseg><trkseg>\n" + segment + "</trkseg>")
            .write(toFile: dir + "/twice.gpx", atomically: true, encoding: .utf8)
        let first = try json(try classify([dir + "/twice.gpx", "--state", dir + "/state"]))
        XCTAssertEqual(try metrics(first)["totalDurationHours"]!, 1800.0 / 3600, accuracy: 0.001, "the minutes recorded, each once")
        try Self.gpx(seconds, start: Self.start + 86_400).write(toFile: dir + "/next.gpx", atomically: true, encoding: .utf8)
        let second = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/next.gpx", "--state", dir + "/state"])
        XCTAssertEqual(second.status, 0, second.stderr)
    }

    func testEveryOrderStateAndMergeGiveTheSameReport() throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let reference = try classify(paths)
        for order in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            XCTAssertEqual(try classify(order.map { paths[$0] }), reference, "order \(order)")
        }
        // Through a state, one input per run, in two orders.
        for (n, order) in [[2, 0, 1], [1, 2, 0]].enumerated() {
            let state = dir + "/state-\(n)"
            var last = ""
            for i in order { last = try classify([paths[i], "--state", state]) }
            XCTAssertEqual(ReportText.withoutChanges(last), reference, "through a state in order \(order)")
        }
        // Shards merged in different groupings.
        var shard = 0
        func state(_ indices: [Int]) throws -> String {
            shard += 1
            let path = dir + "/shard-\(shard)"
            _ = try classify(indices.map { paths[$0] } + ["--state", path])
            return path
        }
        for grouping in [[[0], [1, 2]], [[2, 0], [1]], [[1], [0], [2]]] {
            let states = try grouping.map(state)
            let merged = try CommandRunner.run(["merge", "--tables", Self.tables] + states.reversed())
            XCTAssertEqual(merged.status, 0, merged.stderr)
            XCTAssertEqual(merged.stdout, reference, "merge of \(grouping)")
        }
    }

    func testAFileThatGrewCountsOnceThroughTheState() throws {
        let dir = try temporaryDirectory()
        let logger = dir + "/logger.csv", complete = dir + "/complete/logger.csv"
        try FileManager.default.createDirectory(atPath: dir + "/complete", withIntermediateDirectories: true)
        try Self.csv(Self.seconds(0, 1100, step: 2)).write(toFile: logger, atomically: true, encoding: .utf8)
        _ = try classify([logger, "--state", dir + "/state"])
        let whole = Self.csv(Self.seconds(0, 1800, step: 2))
        try whole.write(toFile: logger, atomically: true, encoding: .utf8)
        let grown = try json(try classify([logger, "--state", dir + "/state"]))
        // The complete file alone, at another path (its report names that path).
        try whole.write(toFile: complete, atomically: true, encoding: .utf8)
        let fresh = try json(try classify([complete]))
        XCTAssertEqual(try metrics(grown), try metrics(fresh))
        XCTAssertEqual((grown["unlocks"] as! NSDictionary), (fresh["unlocks"] as! NSDictionary))
        XCTAssertEqual((grown["points"] as! [String: Any])["counted"] as? Double, (fresh["points"] as! [String: Any])["counted"] as? Double)
        let metres = Self.length(Self.seconds(0, 1800, step: 2))
        XCTAssertEqual(try metrics(grown)["totalDistanceKilometers"]!, metres / 1000, accuracy: metres / 1000 * 0.01)
        let listed = try files(grown)
        XCTAssertEqual(listed.map { $0["path"] as! String }, [logger, logger])
        XCTAssertEqual(Set(listed.map { $0["status"] as! String }), ["read", "superseded"])
        XCTAssertEqual((grown["inputs"] as! [String: Any])["superseded"] as? Double, 1)
    }

    func testInputsOnDifferentDaysAreNotAffected() throws {
        let dir = try temporaryDirectory()
        let day = 86_400
        try Self.csv(Self.seconds(0, 1200, step: 2)).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try Self.csv(Self.seconds(0, 1200, step: 5), start: Self.start + day).write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let both = try json(try classify([dir + "/a.csv", dir + "/b.csv"]))
        let metres = Self.length(Self.seconds(0, 1200, step: 2)) + Self.length(Self.seconds(0, 1200, step: 5))
        XCTAssertEqual(try metrics(both)["totalDistanceKilometers"]!, metres / 1000, accuracy: metres / 1000 * 0.01)
        XCTAssertEqual(try metrics(both)["totalDurationHours"]!, 2 * 1200.0 / 3600, accuracy: 0.001)
        XCTAssertEqual(try metrics(both)["recordedDays"], 2)
        XCTAssertEqual((both["points"] as! [String: Any])["counted"] as? Double, Double(601 + 241))
        XCTAssertTrue(try files(both).allSatisfy { $0["overlaps"] == nil })
    }

    // MARK: Forget

    func testForgettingLeavesWhatAFreshRunWithoutTheInputGives() throws {
        let dir = try temporaryDirectory()
        let day = 86_400
        // `first` walks the route on day 1 and first reaches every cell and region; `again` walks
        // it on day 2; `elsewhere` is a walk in Shanghai.
        try Self.csv(Self.seconds(0, 900, step: 2)).write(toFile: dir + "/first.csv", atomically: true, encoding: .utf8)
        try Self.csv(Self.seconds(0, 900, step: 3), start: Self.start + day).write(toFile: dir + "/again.csv", atomically: true, encoding: .utf8)
        try Self.csv(Self.seconds(0, 600, step: 2), latitude: 31.2304, longitude: 121.4737).write(toFile: dir + "/elsewhere.csv", atomically: true, encoding: .utf8)
        let all = [dir + "/first.csv", dir + "/again.csv", dir + "/elsewhere.csv"]
        _ = try classify(all + ["--state", dir + "/state"])
        let forgot = try run(["forget", "--tables", Self.tables, dir + "/first.csv", "--state", dir + "/state"])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        let fresh = try classify([dir + "/again.csv", dir + "/elsewhere.csv", "--state", dir + "/fresh-state"])
        XCTAssertEqual(ReportText.withoutChanges(forgot.stdout), ReportText.withoutChanges(fresh))
        // The state also keeps what was forgotten (so the next run does not read it back); once
        // that is undone it is the fresh run's, byte for byte.
        let undone = try run(["forget", "--undo", "--tables", Self.tables, dir + "/first.csv", "--state", dir + "/state"])
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertEqual(ReportText.withoutChanges(undone.stdout), ReportText.withoutChanges(fresh))
        XCTAssertEqual(try ReportText.shown(dir + "/state", tables: Self.tables), try ReportText.shown(dir + "/fresh-state", tables: Self.tables))
        // The later walk now gives the first visits: the day-2 date.
        let counties = try XCTUnwrap((try json(fresh)["unlocks"] as? [String: Any])?["counties"] as? [[String: Any]])
        XCTAssertTrue(counties.contains { (($0["firstVisit"] as! [String: Any])["time"] as! String).hasPrefix("2024-05-02T09:") })

        // By content: a copy of `elsewhere.csv` somewhere else names it.
        try FileManager.default.copyItem(atPath: dir + "/elsewhere.csv", toPath: dir + "/copy.csv")
        let byContent = try run(["forget", "--tables", Self.tables, dir + "/copy.csv", "--state", dir + "/state"])
        XCTAssertEqual(byContent.status, 0, byContent.stderr)
        XCTAssertEqual(ReportText.withoutChanges(byContent.stdout), try classify([dir + "/again.csv"]))

        // A name that matches nothing: an error, the state untouched.
        let before = try ReportText.shown(dir + "/state", tables: Self.tables)
        let nothing = try run(["forget", "--tables", Self.tables, dir + "/first.csv", dir + "/nowhere.csv", "--state", dir + "/state"])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("no input has the path or the content of '\(dir)/first.csv'"), nothing.stderr)
        XCTAssertEqual(try ReportText.shown(dir + "/state", tables: Self.tables), before)
    }

    func testForgettingTheInputThatStoodForAnOverlapLetsTheOtherTakeOver() throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        _ = try classify(paths + ["--state", dir + "/state"])
        let forgot = try run(["forget", "--tables", Self.tables, paths[0], "--state", dir + "/state"])
        XCTAssertEqual(forgot.status, 0, forgot.stderr)
        let fresh = try classify([paths[1], paths[2], "--state", dir + "/fresh"])
        XCTAssertEqual(ReportText.withoutChanges(forgot.stdout), ReportText.withoutChanges(fresh))
        // Byte for byte the fresh state once the forgotten content's record is lifted.
        XCTAssertEqual(try run(["forget", "--undo", "--tables", Self.tables, paths[0], "--state", dir + "/state"]).status, 0)
        XCTAssertEqual(try ReportText.shown(dir + "/state", tables: Self.tables), try ReportText.shown(dir + "/fresh", tables: Self.tables))
        // The GeoJSON (every 2 s) now stands for the walk.
        let metres = Self.length(Self.seconds(0, 1800, step: 2))
        XCTAssertEqual(try metrics(try json(fresh))["totalDistanceKilometers"]!, metres / 1000, accuracy: metres / 1000 * 0.05)
        let shares = try files(try json(fresh)).map { ($0["path"] as! String, $0["countedShare"] as? Double) }
        XCTAssertEqual(shares.first { $0.0 == paths[2] }?.1, 1)
    }

    // MARK: The per-day series

    func days(_ report: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap(report["days"] as? [[String: Any]])
    }

    /// Three recordings of a walk on 1 May, the same walk again on 2 May, and a walk from 23:50
    /// to 00:20 local time: each day's distance and duration counted once, split at midnight;
    /// new cells and unlocks on the day of their first visit.
    func testTheDaySeriesCountsEachMomentOnceOnItsLocalDay() throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let day = 86_400
        try Self.csv(Self.seconds(0, 1800, step: 2), start: Self.start + day).write(toFile: dir + "/again.csv", atomically: true, encoding: .utf8)
        // 2024-05-03T15:50:00Z is 23:50 in Beijing: 10 minutes on 3 May, 20 on 4 May, in Shanghai.
        let late = 1_714_751_400
        try Self.csv(Self.seconds(0, 1800, step: 2), start: late, latitude: 31.2304, longitude: 121.4737)
            .write(toFile: dir + "/late.csv", atomically: true, encoding: .utf8)
        let report = try json(try classify(paths + [dir + "/again.csv", dir + "/late.csv"]))
        let series = try days(report)
        XCTAssertEqual(series.map { $0["date"] as! String }, ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"])
        func number(_ entry: [String: Any], _ key: String) -> Double { entry[key] as! Double }
        let walk = Self.length(Self.gpxSeconds) / 1000, again = Self.length(Self.seconds(0, 1800, step: 2)) / 1000
        XCTAssertEqual(number(series[0], "distanceKilometers"), walk, accuracy: walk * 0.05)
        XCTAssertEqual(number(series[0], "durationHours"), 0.5, accuracy: 0.025)
        XCTAssertEqual(number(series[1], "distanceKilometers"), again, accuracy: again * 0.01)
        let beforeMidnight = Self.length(Self.seconds(0, 600, step: 2), latitude: 31.2304, longitude: 121.4737) / 1000
        let afterMidnight = Self.length(Self.seconds(600, 1800, step: 2), latitude: 31.2304, longitude: 121.4737) / 1000
        XCTAssertEqual(number(series[2], "distanceKilometers"), beforeMidnight, accuracy: beforeMidnight * 0.005)
        XCTAssertEqual(number(series[3], "distanceKilometers"), afterMidnight, accuracy: afterMidnight * 0.005)
        XCTAssertEqual(number(series[2], "durationHours"), 600.0 / 3600, accuracy: 0.001)
        XCTAssertEqual(number(series[3], "durationHours"), 1200.0 / 3600, accuracy: 0.001)
        // The walk repeated on 2 May reaches no new cell and unlocks nothing new; 1 May unlocks
        // China, Beijing, its city and the county.
        XCTAssertEqual(number(series[1], "newCells"), 0)
        let first = try XCTUnwrap(series[0]["newUnlocks"] as? [String: Double])
        XCTAssertEqual(first["countries"], 1)
        XCTAssertEqual(first["provinces"], 1)
        XCTAssertEqual(try XCTUnwrap(series[1]["newUnlocks"] as? [String: Double]).values.reduce(0, +), 0)
        // Cells explored on the late walk: about one per 25 m walked, each on the day it was reached.
        XCTAssertEqual(number(series[3], "newCells") / number(series[2], "newCells"), afterMidnight / beforeMidnight, accuracy: 0.35)
    }

    /// A state kept inside the archive it records (whatever its name) is the tool's own output.
    func testAStateInsideTheArchiveIsSkipped() throws {
        let dir = try temporaryDirectory()
        try Self.csv(Self.seconds(0, 600, step: 2)).write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        _ = try classify([dir, "--state", dir + "/state.csv"])
        let again = try json(try classify([dir, "--state", dir + "/state.csv"]))
        let entry = try XCTUnwrap(try files(again).first { $0["path"] as? String == dir + "/state.csv" })
        XCTAssertEqual(entry["reason"] as? String, "the tool's own output")
    }

    func testForgetIsInTheCommandList() throws {
        let help = try run(["--help"])
        XCTAssertTrue(help.stdout.contains("  forget "), help.stdout)
        let usage = try run(["forget", "--tables", Self.tables, "x.gpx"])
        XCTAssertEqual(usage.status, 2, usage.stderr)
    }
}
