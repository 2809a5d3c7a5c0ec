import Foundation
import RegionTables
import Unlocks
import UnlocksTestSupport
import XCTest

/// Selected local days (`since` / `until`, inclusive) and the per-year series: expected figures
/// from the generated points themselves (dates by hand in UTC+8, haversine distances), and from
/// reports that select one year, whose totals the full report's year rows must equal.
final class SelectedDaysTests: XCTestCase {
    typealias Point = TimedPoint

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

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date, by Foundation's Gregorian calendar.
    static func day(_ date: String) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = date.split(separator: "-").map { Int($0)! }
        let midnight = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
        return Int64(midnight.timeIntervalSince1970 / 86_400)
    }

    /// The report of `files` with local days in UTC+8, selecting `since` … `until` when given.
    static func report(_ files: [String], since: String? = nil, until: String? = nil) async throws -> ClassifyReport {
        var rules = Footprints.rules(utcOffsetHours: 8)
        rules.since = since.map(day)
        rules.until = until.map(day)
        return try await Footprints.report(of: files, rules: rules)
    }

    func testSinceAndUntilCountOnlyTheirLocalDaysAndTheYearsAddUp() async throws {
        let dir = try temporaryDirectory()
        // 2023-12-31T23:40+08:00: a walk in Dongcheng across the new year; 2024-05-01 and -03: walks in Huangpu, Shanghai.
        let newYear = 1_704_037_200, may1 = 1_714_525_200
        let walks = [TimedWalks.eastward(39.915, 116.405, start: newYear, seconds: 1800),
                     TimedWalks.eastward(31.2304, 121.4700, start: may1, seconds: 1800),
                     TimedWalks.eastward(31.2304, 121.4700, start: may1 + 2 * 86_400, seconds: 1800)]
        let files = walks.indices.map { dir + "/walk\($0).gpx" }
        for (walk, file) in zip(walks, files) { try TimedWalks.gpx(walk).write(toFile: file, atomically: true, encoding: .utf8) }

        // 2024-01-01 … 2024-05-01: the new year's minutes after midnight and May 1.
        let selected = try await Self.report(files, since: "2024-01-01", until: "2024-05-01")
        let inWindow: (Point) -> Bool = { let d = TimedWalks.date($0.time); return d >= "2024-01-01" && d <= "2024-05-01" }
        let all = walks.joined()
        XCTAssertEqual(selected.pointTotals.kept, Int64(all.filter(inWindow).count))
        XCTAssertEqual(selected.pointTotals.dropped[.outsideDates], Int64(all.count - all.filter(inWindow).count))
        let expected = Self.metres(walks, keep: inWindow) / 1000
        XCTAssertEqual(selected.metrics.totalDistanceKilometers, expected, accuracy: expected * 0.005)
        XCTAssertEqual(selected.metrics.recordedDays, Set(all.filter(inWindow).map { TimedWalks.date($0.time) }).count)
        XCTAssertEqual(selected.days.map(\.day), [Self.day("2024-01-01"), Self.day("2024-05-01")])
        // Without a selection, nothing is dropped for its dates.
        let full = try await Self.report(files)
        XCTAssertNil(full.pointTotals.dropped[.outsideDates])

        // The years of the full report: each row as a report selecting that year alone gives.
        XCTAssertEqual(full.years.map(\.year), [2023, 2024])
        for row in full.years {
            let alone = try await Self.report(files, since: "\(row.year)-01-01", until: "\(row.year)-12-31")
            let inYear: (Point) -> Bool = { TimedWalks.date($0.time).hasPrefix("\(row.year)-") }
            let kilometres = Self.metres(walks, keep: inYear) / 1000
            XCTAssertEqual(Double(row.distanceMillimetres) / 1e6, kilometres, accuracy: kilometres * 0.005 + 0.01, "\(row.year)")
            XCTAssertEqual(row.recordedDays, Set(all.filter(inYear).map { TimedWalks.date($0.time) }).count, "\(row.year)")
            // The walks of one year explore cells no other year's do, so the year's new area is a report of that
            // year's, but for the one 7 m leg across midnight, which the report cut at midnight does not draw (at most 2 cells).
            if row.year == 2023 {
                XCTAssertEqual(row.newSquareMetres / 1e6, alone.metrics.globalAreaKm2, accuracy: 2 * 625e-6 + 1e-4)
                let m = alone.metrics
                let counts: [RegionLevel: Int] = [.country: m.countryCount, .subdivision: m.subdivisionCount, .province: m.chinaProvinceCount,
                                                  .city: m.cityUnlockCount, .county: m.countyUnlockCount]
                for (level, count) in counts { XCTAssertEqual(row.newUnlocks[level] ?? 0, count, "\(level)") }
            }
        }
        XCTAssertEqual(full.years.reduce(0) { $0 + ($1.newUnlocks[.county] ?? 0) }, full.metrics.countyUnlockCount)
        XCTAssertEqual(full.years[1].newUnlocks[.province], 1, "Shanghai first visited in 2024")
    }
}
