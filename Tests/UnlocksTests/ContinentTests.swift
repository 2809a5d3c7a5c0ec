import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Issue 33, item 2: the report's continents (UN M.49 as CLDR groups the countries) of the counted
/// countries, their count in the metrics, a badge on it. The continents expected are facts about
/// the places walked (Tokyo and Beijing are in Asia, Berlin in Europe, Nairobi in Africa),
/// written here, never read from the program.
final class ContinentTests: XCTestCase {
    /// Ten minutes' walk east from a place, a fix every 5 s, starting on `day` (days after 1 May 2024).
    static func walk(_ latitude: Double, _ longitude: Double, day: Int64) -> [TrackPoint?] {
        let start = ReportReadingTests.may1 + day * 86_400_000
        return stride(from: 0, through: 600, by: 5).map { s in
            TrackPoint(latitude: latitude, longitude: longitude + 1.4 * Double(s) / (111_320 * cos(latitude * .pi / 180)),
                       time: start + Int64(s) * 1000, accuracy: 5)
        }
    }

    func testCountedCountriesGiveTheirContinents() throws {
        let ledger = ReportReadingTests.ledger([("tokyo", Self.walk(35.6812, 139.7671, day: 0)), ("beijing", Self.walk(39.915, 116.40, day: 1)),
                                                ("berlin", Self.walk(52.5163, 13.3777, day: 2)), ("nairobi", Self.walk(-1.2864, 36.8172, day: 3))])
        let report = try ReportReadingTests.report(ledger)
        let countries = (report.unlocks[.country] ?? []).filter(\.confirmed).map(\.code).sorted()
        XCTAssertEqual(countries, ["CHN", "DEU", "JPN", "KEN"])
        XCTAssertEqual(report.continents.map(\.name), ["Africa", "Asia", "Europe"])
        XCTAssertEqual(report.continents.map(\.countries), [["KEN"], ["CHN", "JPN"], ["DEU"]])
        XCTAssertEqual(report.metrics.continentCount, 3)
        XCTAssertTrue(report.text().contains("Continents: 3 (Africa: 1 country, Asia: 2 countries, Europe: 1 country)"), report.text())
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json().rendered().utf8)) as? [String: Any])
        XCTAssertEqual((json["metrics"] as? [String: Any])?["continentCount"] as? Int, 3)
        XCTAssertEqual((json["continents"] as? [[String: Any]])?.compactMap { $0["code"] as? String }, ["002", "142", "150"])

        // A badge for three continents is achieved; one for five is at 60 %.
        let catalog = try BadgeCatalog(json: Array(#"""
        {"badges": [{"id": "three", "track": "world", "metric": "continentCount", "target": 3, "title": "Three continents"},
                    {"id": "five", "track": "world", "metric": "metrics.continentCount", "target": 5, "title": "Five continents"}]}
        """#.utf8), path: "badges.json")
        var reported: [String: Int] = [:]
        let progress = catalog.progress(in: report, reported: &reported)
        XCTAssertEqual(progress.map(\.achieved), [true, false])
        XCTAssertEqual(progress.map(\.percent), [100, 60])
    }
}
