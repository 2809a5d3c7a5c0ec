import Foundation
import TextFormats
import Tracks
import XCTest
import UnlocksTestSupport
@testable import Unlocks

/// Badge catalogs, metric paths and percents, on the report of a walk whose figures the tests
/// read back from the report's JSON by a path walker of their own.
final class BadgeTests: XCTestCase {
    /// Two walks in Beijing on two days: distance, days, unlocks, cells and tiles are non-zero.
    static let report: ClassifyReport = {
        var classifier = TrackClassifier(locator: TrackClassifierTests.locator, options: ClassifyOptions())
        for (day, fingerprint) in [(0, "a"), (1, "b")] {
            classifier.begin(InputRecord(path: fingerprint + ".gpx", fingerprint: fingerprint, format: "test"))
            let start = TrackClassifierTests.start + Int64(day) * 86_400_000
            for i in 0..<900 {
                classifier.point(TrackPoint(latitude: 39.9030 + 0.012 * Double(i) / 899, longitude: 116.3975 + 0.002 * Double(day),
                                            time: start + Int64(i) * 1000, accuracy: 5))
            }
            classifier.finish()
        }
        return try! ClassifyReport(ledger: classifier.ledger, tables: TrackClassifierTests.locator.tables, options: ClassifyOptions(), lenient: false)
    }()

    /// The number at a path of the JSON report, walked here independently of ``BadgeMetric``:
    /// a bare first name that is not a top-level member is a member of `metrics`.
    static func jsonNumber(_ path: String, in json: JSONValue) -> Double? {
        var parts = path.split(separator: ".").map(String.init)
        if let first = parts.first, json[first.split(separator: "[").first.map(String.init) ?? first] == nil { parts.insert("metrics", at: 0) }
        var current = json
        for part in parts {
            var name = part, zoom: Double?
            if let open = part.firstIndex(of: "[") {
                name = String(part[..<open])
                zoom = Double(part[part.index(after: open)..<part.index(before: part.endIndex)])
            }
            guard let next = current[name] else { return nil }
            current = next
            if let zoom {
                guard let entry = current.arrayValue?.first(where: { $0["zoom"]?.numberValue == zoom }) else { return nil }
                current = entry
            }
        }
        return current.numberValue
    }

    func testPathsNameFiguresOfTheReport() {
        XCTAssertEqual(BadgeMetric("chinaProvinceCount")?.figure, BadgeMetric("metrics.chinaProvinceCount")?.figure, "a bare name is a member of metrics")
        for path in ["globalAreaKm2", "metrics.globalAreaKm2", "explorer.tiles[14].maxSquare", "explorer.tiles[17].visited", "explorer.cells.gold",
                     "points.kept", "points.dropped.accuracy", "inputs.read", "inputs.pins", "cityUnlockCount"] {
            XCTAssertNotNil(BadgeMetric(path), path)
        }
        for unknown in ["explorer.tiles[15].maxSquare", "explorer.tiles", "explorer.tiles.maxSquare", "options.maximumAccuracyMetres", "version",
                        "days", "metrics", "noSuchMetric", "metrics.globalAreaKm2.x"] {
            XCTAssertNil(BadgeMetric(unknown), unknown)
        }
        for bad in ["", ".", "a.", ".a", "a..b", "a[", "a[x]", "a[-1]", "a[14]b", "a]", "a[14]]"] {
            XCTAssertNil(BadgeMetric(bad), bad)
        }
    }

    /// Every figure a badge can follow is the number the JSON report shows at its path.
    func testEveryFigureIsTheNumberTheJSONReportShows() {
        let report = Self.report, json = report.json()
        XCTAssertGreaterThan(report.metrics.totalDistanceKilometers, 2)
        XCTAssertEqual(report.metrics.recordedDays, 2)
        for (path, _) in BadgeMetric.figures {
            guard let metric = BadgeMetric(path) else { return XCTFail(path) }
            XCTAssertEqual(metric.value(in: report), Self.jsonNumber(path, in: json), path)
        }
        for name in ["totalDistanceKilometers", "recordedDays", "chinaAreaKm2", "countyUnlockCount"] {
            XCTAssertEqual(BadgeMetric(name)!.value(in: report), Self.jsonNumber(name, in: json), name)
        }
    }

    func testPercentIsRoundedDownAndReachesAHundredOnlyWhenAchieved() throws {
        let report = Self.report
        let provinces = Double(report.metrics.chinaProvinceCount), days = Double(report.metrics.recordedDays)
        let area = report.metrics.globalAreaKm2, cells = Double(report.metrics.exploredCellCount)
        XCTAssertEqual(provinces, 1)
        let catalog = try BadgeCatalog(json: Array("""
            {"badges": [{"id": "p", "track": "china", "metric": "chinaProvinceCount", "target": \(provinces + 1e-7)},
                        {"id": "a", "track": "exploration", "metric": "globalAreaKm2", "target": \(area)},
                        {"id": "d", "track": "consistency", "metric": "metrics.recordedDays", "target": \(days * 0.75)},
                        {"id": "c", "track": "pro", "metric": "exploredCellCount", "target": \(cells / 0.875)}]}
            """.utf8), path: "b.json")
        var reported: [String: Int] = [:]
        let progress = catalog.progress(in: report, reported: &reported)
        XCTAssertEqual(progress.map(\.percent), [99, 100, 100, 87])
        XCTAssertEqual(progress.map(\.achieved), [false, true, true, false])
        XCTAssertEqual(progress.map(\.value), [provinces, area, days, cells])
        XCTAssertEqual(reported, ["p": 99, "a": 100, "d": 100, "c": 87])
    }

    func testTheReportedPercentNeverFalls() throws {
        let catalog = try BadgeCatalog(json: Array(#"{"badges": [{"id": "p", "track": "china", "metric": "recordedDays", "target": 8}]}"#.utf8), path: "b.json")
        var reported = ["p": 90, "removed-badge": 12]
        let progress = catalog.progress(in: Self.report, reported: &reported)
        XCTAssertEqual(progress.first?.percent, 25)
        XCTAssertEqual(progress.first?.reportedPercent, 90)
        XCTAssertEqual(reported, ["p": 90, "removed-badge": 12], "kept, and a badge no longer in the file keeps its maximum")
        reported = ["p": 10]
        XCTAssertEqual(catalog.progress(in: Self.report, reported: &reported).first?.reportedPercent, 25)
        XCTAssertEqual(reported, ["p": 25])
    }

    func testBadCatalogsAreRefusedNamingTheBadge() {
        func refusal(_ text: String) -> String {
            do {
                _ = try BadgeCatalog(json: Array(text.utf8), path: "b.json")
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertTrue(refusal("{\"badges\": [").hasPrefix("b.json: not JSON: byte "), refusal("{\"badges\": ["))
        XCTAssertEqual(refusal("[]"), "b.json: no \"badges\" list (the file is {\"badges\": [ … ]})")
        XCTAssertEqual(refusal(#"{"badges": [7]}"#), "b.json: badge 1: not an object")
        XCTAssertEqual(refusal(#"{"badges": [{"track": "china", "metric": "x", "target": 1}]}"#), "b.json: badge 1: no \"id\" string")
        let one = #"{"id": "a", "track": "china", "metric": "chinaProvinceCount", "target": 1}"#
        XCTAssertEqual(refusal("{\"badges\": [\(one), \(one)]}"), "b.json: badge 2 (\"a\"): the id is given twice")
        XCTAssertEqual(refusal(#"{"badges": [{"id": "a", "track": "fun", "metric": "x", "target": 1}]}"#),
                       "b.json: badge 1 (\"a\"): unknown track \"fun\" (one of exploration, consistency, china, world, pro)")
        XCTAssertTrue(refusal(#"{"badges": [{"id": "a", "track": "world", "metric": "a..b", "target": 1}]}"#).contains("is not a metric path"))
        XCTAssertEqual(refusal(#"{"badges": [{"id": "a", "track": "world", "metric": "explorer.tiles[15].maxSquare", "target": 1}]}"#),
                       "b.json: badge 1 (\"a\"): \"explorer.tiles[15].maxSquare\" names no number in the report (docs/badges.md lists the metrics)")
        for target in ["0", "-2", "\"5\"", "null"] {
            XCTAssertEqual(refusal("{\"badges\": [{\"id\": \"a\", \"track\": \"world\", \"metric\": \"countryCount\", \"target\": \(target)}]}"),
                           "b.json: badge 1 (\"a\"): \"target\" must be a number above 0", target)
        }
        XCTAssertEqual(refusal("{\"badges\": [\(one)]}"), "accepted")
    }

    /// The example catalog shipped in Data/ has the seed app's five tracks (every metric it
    /// names is one of the report's: the catalog would not load otherwise).
    func testTheShippedCatalogNamesOnlyMetricsOfTheReport() throws {
        let path = Repository.path("Data/badges/example.json")
        let catalog = try BadgeCatalog(json: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        XCTAssertEqual(Set(catalog.badges.map(\.track)), Set(Badge.Track.allCases))
    }
}
