import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Issue 31, item 3: "what did I do in May" from a logbook's figures (`unlocks show --since
/// --until`). Walks on known days in known countries; the expected days, distances and regions
/// are computed here from the generated points (haversine, the days they were walked on).
final class PeriodTests: XCTestCase {
    func testAPeriodCountsItsDaysWhatWasNewInItAndWhereThePersonWas() throws {
        let beijing = ContinentTests.walk(39.915, 116.40, day: 0), tokyo = ContinentTests.walk(35.6812, 139.7671, day: 1)
        let again = ContinentTests.walk(39.915, 116.40, day: 3), berlin = ContinentTests.walk(52.5163, 13.3777, day: 5)
        let report = try ReportReadingTests.report(ReportReadingTests.ledger([("beijing", beijing), ("tokyo", tokyo), ("again", again), ("berlin", berlin)]))
        // The walks' day 0 is 2024-05-01 in the report's zone (+08:00): may1 is its local midnight.
        let may1 = (ReportReadingTests.may1 + 8 * 3_600_000) / 86_400_000
        let period = report.period(since: may1 + 1, until: may1 + 3)

        // Days 1 and 3 were recorded; day 2 was not.
        XCTAssertEqual(period.recordedDays, 2)
        XCTAssertEqual(period.days.filter(\.recorded).map { $0.day - may1 }, [1, 3])
        // The distance walked on those days, on foot.
        func length(_ walk: [TrackPoint?]) -> Double {
            let points = walk.compactMap { $0 }
            return zip(points, points.dropFirst()).reduce(0) { $0 + ReportReadingTests.haversine($1.0, $1.1) }
        }
        let walked = length(tokyo) + length(again)
        XCTAssertEqual(Double(period.distanceMillimetres) / 1000, walked, accuracy: walked * 0.003)  // the classifier's scale, as ReportReadingTests allows
        // Japan was new in the period, China had days in it but was first visited before it;
        // Germany came after it.
        let countries = try XCTUnwrap(period.visited[.country])
        XCTAssertEqual(Set(countries.map(\.code)), ["CHN", "JPN"])
        XCTAssertEqual(countries.first { $0.code == "JPN" }?.firstVisitInPeriod, true)
        XCTAssertEqual(countries.first { $0.code == "CHN" }?.firstVisitInPeriod, false)
        XCTAssertEqual(countries.map(\.days), [1, 1])
        XCTAssertEqual(period.newUnlocks(.country), 1)
        // The second Beijing walk repeats the first: nothing new explored on day 3.
        XCTAssertEqual(period.days.first { $0.day == may1 + 3 }?.newCells, 0)
        XCTAssertGreaterThan(period.newCells, 0)

        // An open end takes every day after; the whole span is the whole report's figures.
        let all = report.period(since: nil, until: nil)
        XCTAssertEqual(all.recordedDays, report.metrics.recordedDays)
        XCTAssertEqual(all.newCells, report.metrics.exploredCellCount)
        XCTAssertEqual(Set(all.visited[.country]?.map(\.code) ?? []), ["CHN", "DEU", "JPN"])
        XCTAssertEqual(report.period(since: may1 + 4, until: nil).visited[.country]?.map(\.code), ["DEU"])
        // JSON and text say the same.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(period.json().rendered().utf8)) as? [String: Any])
        XCTAssertEqual((json["period"] as? [String: Any])?["since"] as? String, "2024-05-02")
        XCTAssertEqual(json["recordedDays"] as? Int, 2)
        XCTAssertTrue(period.text().contains("From 2024-05-02 to 2024-05-04: 2 recorded days"), period.text())
    }
}
