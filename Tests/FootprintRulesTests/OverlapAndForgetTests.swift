import Foundation
import Intake
import LogbookStore
import Unlocks
import UnlocksTestSupport
import XCTest

/// One moment counts once: the same walk recorded by several apps, a file that grew, and inputs
/// forgotten from a logbook — in one import, through a stored logbook, through a merge, in any
/// order. Expected numbers come from the generated points themselves (haversine sums, time
/// spans), never from the program's output.
final class OverlapAndForgetTests: XCTestCase {
    /// Local days in Beijing's zone.
    static let rules = Footprints.rules(utcOffsetHours: 8)

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
    static func length(_ seconds: [Int], latitude: Double = 39.9050, longitude: Double = 116.3900) -> Double {
        let points = seconds.map { position(Double($0), latitude: latitude, longitude: longitude) }
        return zip(points, points.dropFirst()).reduce(0) { $0 + haversine($1.0, $1.1) }
    }

    static func gpx(_ seconds: [Int], start: Int = start) -> String {
        let formatter = ISO8601DateFormatter()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"Garmin Connect\"><trk><trkseg>\n"
        for s in seconds {
            let p = position(Double(s))
            let time = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + s)))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", p.lat, p.lon, time)
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

    func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// The report of `paths` imported into a new in-memory logbook.
    func report(_ paths: [String]) async throws -> ClassifyReport { try await Footprints.report(of: paths, rules: Self.rules) }

    /// A logbook stored at `path` with `paths` imported.
    func stored(_ path: String, _ paths: [String]) async throws -> Logbook {
        let logbook = try Footprints.logbook(at: path, rules: Self.rules)
        _ = try await logbook.importSources(paths.map { IntakeSource.path($0) })
        return logbook
    }

    /// Two reports count the same: metrics, unlocks, the day series and the points counted.
    func assertSameFootprint(_ a: ClassifyReport, _ b: ClassifyReport, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.metrics, b.metrics, message, file: file, line: line)
        XCTAssertEqual(a.unlocks, b.unlocks, message, file: file, line: line)
        XCTAssertEqual(a.days, b.days, message, file: file, line: line)
        XCTAssertEqual(a.pointsCounted, b.pointsCounted, message, file: file, line: line)
    }

    // MARK: Overlapping sources

    func testThreeRecordingsOfOneWalkCountOnce() async throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let report = try await report(paths)
        let metres = Self.length(Self.gpxSeconds), hours = 1800.0 / 3600
        XCTAssertEqual(report.metrics.totalDistanceKilometers, metres / 1000, accuracy: metres / 1000 * 0.05)
        XCTAssertEqual(report.metrics.totalDurationHours, hours, accuracy: hours * 0.05)
        XCTAssertEqual(report.metrics.recordedDays, 1)
        let expected = Double(Self.gpxSeconds.count)
        XCTAssertEqual(Double(report.pointsCounted), expected, accuracy: expected * 0.05)
        // Per region, too: the points in counties add up to one recording's.
        let inCounties = (report.unlocks[.county] ?? []).reduce(Int64(0)) { $0 + $1.insidePoints + $1.edgePoints + $1.passedPoints }
        XCTAssertEqual(Double(inCounties), expected, accuracy: expected * 0.05)
        // Each input names the other two; the densest (the GPX) stood for every minute.
        for input in report.inputs {
            let overlaps = report.overlaps(of: input)
            XCTAssertEqual(Set(overlaps.map(\.path)), Set(paths.filter { $0 != input.path }))
            XCTAssertTrue(overlaps.allSatisfy { $0.seconds >= 1800 }, "\(overlaps)")
            let standing = try XCTUnwrap(report.standing[input.fingerprint])
            XCTAssertEqual(standing.countedMinutes == standing.minutes, input.path.hasSuffix(".gpx"), input.path)
            XCTAssertEqual(standing.countedMinutes == 0, !input.path.hasSuffix(".gpx"), input.path)
        }
    }

    /// One file that records the same walk twice (two segments with the same times): each minute
    /// holds at most a minute of recording, and the logbook it is stored in takes the next import.
    func testAFileRecordingTheSameMinutesTwiceKeepsAReadableLogbook() async throws {
        let dir = try temporaryDirectory()
        let seconds = Self.seconds(0, 1800, step: 2)
        let once = Self.gpx(seconds)
        let segment = once.components(separatedBy: "<trkseg>\n")[1].components(separatedBy: "</trkseg>")[0]
        try write(once.replacingOccurrences(of: "</trkseg>", with: "</trkseg><trkseg>\n" + segment + "</trkseg>"), dir + "/twice.gpx")
        let logbook = try Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules)
        let first = try await logbook.importSources([.path(dir + "/twice.gpx")])
        XCTAssertEqual(first.report.metrics.totalDurationHours, 1800.0 / 3600, accuracy: 0.001, "the minutes recorded, each once")
        try write(Self.gpx(seconds, start: Self.start + 86_400), dir + "/next.gpx")
        let reopened = try Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules)
        let second = try await reopened.importSources([.path(dir + "/next.gpx")])
        XCTAssertEqual(second.report.metrics.recordedDays, 2)
        let integrity = try await reopened.integrityCheck()
        XCTAssertEqual(integrity, ["ok"], "SQLite's own integrity check")
    }

    func testEveryOrderStoredLogbookAndMergeGiveTheSameReport() async throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let reference = try await report(paths)
        for order in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            assertSameFootprint(try await report(order.map { paths[$0] }), reference, "order \(order)")
        }
        // Through a stored logbook, one input per import, in two orders.
        for (n, order) in [[2, 0, 1], [1, 2, 0]].enumerated() {
            let logbook = try Footprints.logbook(at: dir + "/order-\(n).logbook", rules: Self.rules)
            var last: ClassifyReport?
            for i in order { last = try await logbook.importSources([.path(paths[i])]).report }
            assertSameFootprint(try XCTUnwrap(last), reference, "through a logbook in order \(order)")
        }
        // Shards merged in different groupings.
        var shard = 0
        for grouping in [[[0], [1, 2]], [[2, 0], [1]], [[1], [0], [2]]] {
            var shards: [String] = []
            for indices in grouping {
                shard += 1
                shards.append(dir + "/shard-\(shard).logbook")
                _ = try await stored(shards.last!, indices.map { paths[$0] })
            }
            let merged = try Footprints.logbook(at: dir + "/merged-\(shard).logbook", rules: Self.rules)
            var last: ClassifyReport?
            for path in shards.reversed() { last = try await merged.merge(contentsOf: URL(fileURLWithPath: path)) }
            assertSameFootprint(try XCTUnwrap(last), reference, "merge of \(grouping)")
        }
    }

    func testAFileThatGrewCountsOnceThroughAStoredLogbook() async throws {
        let dir = try temporaryDirectory()
        let logger = dir + "/logger.csv", complete = dir + "/complete/logger.csv"
        try FileManager.default.createDirectory(atPath: dir + "/complete", withIntermediateDirectories: true)
        try write(Self.csv(Self.seconds(0, 1100, step: 2)), logger)
        let logbook = try await stored(dir + "/s.logbook", [logger])
        let whole = Self.csv(Self.seconds(0, 1800, step: 2))
        try write(whole, logger)
        let grown = try await logbook.importSources([.path(logger)]).report
        // The complete file alone, at another path.
        try write(whole, complete)
        let fresh = try await report([complete])
        assertSameFootprint(grown, fresh, "grown")
        let metres = Self.length(Self.seconds(0, 1800, step: 2))
        XCTAssertEqual(grown.metrics.totalDistanceKilometers, metres / 1000, accuracy: metres / 1000 * 0.01)
        XCTAssertEqual(grown.inputs.map(\.path), [logger, logger])
        XCTAssertEqual(Set(grown.inputs.map { grown.status(of: $0) }), ["read", "superseded"])
        XCTAssertEqual(grown.supersededCount, 1)
    }

    func testInputsOnDifferentDaysAreNotAffected() async throws {
        let dir = try temporaryDirectory()
        try write(Self.csv(Self.seconds(0, 1200, step: 2)), dir + "/a.csv")
        try write(Self.csv(Self.seconds(0, 1200, step: 5), start: Self.start + 86_400), dir + "/b.csv")
        let both = try await report([dir + "/a.csv", dir + "/b.csv"])
        let metres = Self.length(Self.seconds(0, 1200, step: 2)) + Self.length(Self.seconds(0, 1200, step: 5))
        XCTAssertEqual(both.metrics.totalDistanceKilometers, metres / 1000, accuracy: metres / 1000 * 0.01)
        XCTAssertEqual(both.metrics.totalDurationHours, 2 * 1200.0 / 3600, accuracy: 0.001)
        XCTAssertEqual(both.metrics.recordedDays, 2)
        XCTAssertEqual(both.pointsCounted, Int64(601 + 241))
        XCTAssertTrue(both.inputs.allSatisfy { both.overlaps(of: $0).isEmpty })
    }

    // MARK: Forget

    func testForgettingLeavesWhatAnImportWithoutTheInputGives() async throws {
        let dir = try temporaryDirectory()
        // `first` walks the route on day 1 and first reaches every cell and region; `again` walks
        // it on day 2; `elsewhere` is a walk in Shanghai.
        try write(Self.csv(Self.seconds(0, 900, step: 2)), dir + "/first.csv")
        try write(Self.csv(Self.seconds(0, 900, step: 3), start: Self.start + 86_400), dir + "/again.csv")
        try write(Self.csv(Self.seconds(0, 600, step: 2), latitude: 31.2304, longitude: 121.4737), dir + "/elsewhere.csv")
        let logbook = try await stored(dir + "/s.logbook", [dir + "/first.csv", dir + "/again.csv", dir + "/elsewhere.csv"])
        let forgot = try await logbook.forget([.path(dir + "/first.csv")])
        XCTAssertEqual(forgot.inputs.map(\.path), [dir + "/first.csv"])
        let fresh = try await report([dir + "/again.csv", dir + "/elsewhere.csv"])
        assertSameFootprint(forgot.report, fresh, "forgotten")
        // The logbook also keeps what was forgotten (so the next import does not read it back);
        // once that is undone it is still the fresh import's.
        let undone = try await logbook.unforget([.path(dir + "/first.csv")])
        assertSameFootprint(undone.report, fresh, "the forget undone")
        // The later walk now gives the first visits: 2 May, 09:00 in Beijing (01:00 UTC).
        let may2 = Int64(Self.start + 86_400) * 1000
        XCTAssertTrue((fresh.unlocks[.county] ?? []).contains { ($0.firstVisit.time ?? 0) >= may2 && ($0.firstVisit.time ?? 0) < may2 + 3_600_000 })

        // By content: a copy of `elsewhere.csv` somewhere else names it.
        try FileManager.default.copyItem(atPath: dir + "/elsewhere.csv", toPath: dir + "/copy.csv")
        let byContent = try await logbook.forget([.path(dir + "/copy.csv")])
        XCTAssertEqual(byContent.inputs.map(\.path), [dir + "/elsewhere.csv"])
        assertSameFootprint(byContent.report, try await report([dir + "/again.csv"]), "forgotten by content")

        // A name that matches nothing: an error of its kind, and nothing changed.
        let before = try await logbook.report()
        do {
            _ = try await logbook.forget([.path(dir + "/first.csv"), .path(dir + "/nowhere.csv")])
            XCTFail("a forget matching nothing changed the logbook")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .nothingMatched, "\(error)")
        }
        assertSameFootprint(try await logbook.report(), before, "after the refused forget")
    }

    func testForgettingTheInputThatStoodForAnOverlapLetsTheOtherTakeOver() async throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        let logbook = try await stored(dir + "/s.logbook", paths)
        let forgot = try await logbook.forget([.path(paths[0])])
        let fresh = try await report([paths[1], paths[2]])
        assertSameFootprint(forgot.report, fresh, "forgotten")
        // The GeoJSON (every 2 s) now stands for the walk.
        let metres = Self.length(Self.seconds(0, 1800, step: 2))
        XCTAssertEqual(fresh.metrics.totalDistanceKilometers, metres / 1000, accuracy: metres / 1000 * 0.05)
        let geojson = try XCTUnwrap(fresh.inputs.first { $0.path == paths[2] })
        let standing = try XCTUnwrap(fresh.standing[geojson.fingerprint])
        XCTAssertEqual(standing.countedMinutes, standing.minutes)
    }

    // MARK: The per-day series

    /// Three recordings of a walk on 1 May, the same walk again on 2 May, and a walk from 23:50
    /// to 00:20 local time: each day's distance and duration counted once, split at midnight;
    /// new cells and unlocks on the day of their first visit.
    func testTheDaySeriesCountsEachMomentOnceOnItsLocalDay() async throws {
        let dir = try temporaryDirectory()
        let paths = try threeSources(in: dir)
        try write(Self.csv(Self.seconds(0, 1800, step: 2), start: Self.start + 86_400), dir + "/again.csv")
        // 2024-05-03T15:50:00Z is 23:50 in Beijing: 10 minutes on 3 May, 20 on 4 May, in Shanghai.
        let late = 1_714_751_400
        try write(Self.csv(Self.seconds(0, 1800, step: 2), start: late, latitude: 31.2304, longitude: 121.4737), dir + "/late.csv")
        let series = try await report(paths + [dir + "/again.csv", dir + "/late.csv"]).days
        // 1 May in Beijing is day 19844 since 1970-01-01.
        let may1 = Int64((Self.start + 8 * 3600) / 86_400)
        XCTAssertEqual(series.map(\.day), [may1, may1 + 1, may1 + 2, may1 + 3])
        func kilometres(_ day: ClassifyReport.Day) -> Double { Double(day.distanceMillimetres) / 1e6 }
        func hours(_ day: ClassifyReport.Day) -> Double { Double(day.durationMilliseconds) / 3_600_000 }
        let walk = Self.length(Self.gpxSeconds) / 1000, again = Self.length(Self.seconds(0, 1800, step: 2)) / 1000
        XCTAssertEqual(kilometres(series[0]), walk, accuracy: walk * 0.05)
        XCTAssertEqual(hours(series[0]), 0.5, accuracy: 0.025)
        XCTAssertEqual(kilometres(series[1]), again, accuracy: again * 0.01)
        let beforeMidnight = Self.length(Self.seconds(0, 600, step: 2), latitude: 31.2304, longitude: 121.4737) / 1000
        let afterMidnight = Self.length(Self.seconds(600, 1800, step: 2), latitude: 31.2304, longitude: 121.4737) / 1000
        XCTAssertEqual(kilometres(series[2]), beforeMidnight, accuracy: beforeMidnight * 0.005)
        XCTAssertEqual(kilometres(series[3]), afterMidnight, accuracy: afterMidnight * 0.005)
        XCTAssertEqual(hours(series[2]), 600.0 / 3600, accuracy: 0.001)
        XCTAssertEqual(hours(series[3]), 1200.0 / 3600, accuracy: 0.001)
        // The walk repeated on 2 May reaches no new cell and unlocks nothing new; 1 May unlocks
        // China, Beijing, its city and the county.
        XCTAssertEqual(series[1].newCells, 0)
        XCTAssertEqual(series[0].newUnlocks[.country], 1)
        XCTAssertEqual(series[0].newUnlocks[.province], 1)
        XCTAssertEqual(series[1].newUnlocks.values.reduce(0, +), 0)
        // Cells explored on the late walk: about one per 25 m walked, each on the day it was reached.
        XCTAssertEqual(Double(series[3].newCells) / Double(series[2].newCells), afterMidnight / beforeMidnight, accuracy: 0.35)
    }
}
