import TextFormats
import Unlocks
import XCTest
import UnlocksTestSupport

/// Badge catalogs, metric paths and percents, on hand-made reports whose values the tests know.
final class BadgeTests: XCTestCase {
    /// A report-shaped document: metrics, and an explorer section with a list by zoom.
    let report: JSONValue = .object([
        ("metrics", .object([("chinaProvinceCount", .number(3)), ("globalAreaKm2", .number(2.5))])),
        ("explorer", .object([
            ("tiles", .array([.object([("zoom", .number(14)), ("maxSquare", .number(4))]),
                              .object([("zoom", .number(17)), ("maxSquare", .number(11))])])),
            ("cells", .object([("gold", .number(7))])),
        ])),
    ])

    func value(_ path: String) -> Double? { BadgeMetric(path)?.value(in: report) }

    func testPathsNameNumbersInTheReport() {
        XCTAssertEqual(value("chinaProvinceCount"), 3, "a bare name is a member of metrics")
        XCTAssertEqual(value("metrics.globalAreaKm2"), 2.5)
        XCTAssertEqual(value("explorer.tiles[14].maxSquare"), 4)
        XCTAssertEqual(value("explorer.tiles[17].maxSquare"), 11, "[N] picks the entry whose zoom is N, not the Nth")
        XCTAssertEqual(value("explorer.cells.gold"), 7)
        XCTAssertNil(value("explorer.tiles[15].maxSquare"), "no entry of that zoom")
        XCTAssertNil(value("explorer.tiles"), "a list is not a number")
        XCTAssertNil(value("cityUnlockCount"), "not in this report")
        for bad in ["", ".", "a.", ".a", "a..b", "a[", "a[x]", "a[-1]", "a[14]b", "a]", "a[14]]"] {
            XCTAssertNil(BadgeMetric(bad), bad)
        }
    }

    func testPercentIsRoundedDownAndReachesAHundredOnlyWhenAchieved() throws {
        let catalog = try BadgeCatalog(json: Array(#"{"badges": [{"id": "p", "track": "china", "metric": "chinaProvinceCount", "target": 3.0000001}, {"id": "a", "track": "exploration", "metric": "globalAreaKm2", "target": 2.5}, {"id": "t", "track": "pro", "metric": "explorer.tiles[14].maxSquare", "target": 3}, {"id": "g", "track": "exploration", "metric": "explorer.cells.gold", "target": 8}]}"#.utf8), path: "b.json")
        var reported: [String: Int] = [:]
        let progress = catalog.progress(in: report, reported: &reported)
        XCTAssertEqual(progress.map(\.percent), [99, 100, 100, 87])  // 3/3.0000001, 2.5/2.5, 4/3, 7/8 = 87.5
        XCTAssertEqual(progress.map(\.achieved), [false, true, true, false])
        XCTAssertEqual(progress.map(\.value), [3, 2.5, 4, 7])
        XCTAssertEqual(reported, ["p": 99, "a": 100, "t": 100, "g": 87])
    }

    func testTheReportedPercentNeverFalls() throws {
        let catalog = try BadgeCatalog(json: Array(#"{"badges": [{"id": "p", "track": "china", "metric": "chinaProvinceCount", "target": 4}]}"#.utf8), path: "b.json")
        var reported = ["p": 90, "removed-badge": 12]
        let progress = catalog.progress(in: report, reported: &reported)
        XCTAssertEqual(progress.first?.percent, 75)
        XCTAssertEqual(progress.first?.reportedPercent, 90)
        XCTAssertEqual(reported, ["p": 90, "removed-badge": 12], "kept, and a badge no longer in the file keeps its maximum")
        reported = ["p": 10]
        XCTAssertEqual(catalog.progress(in: report, reported: &reported).first?.reportedPercent, 75)
        XCTAssertEqual(reported, ["p": 75])
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
        for target in ["0", "-2", "\"5\"", "null"] {
            XCTAssertEqual(refusal("{\"badges\": [{\"id\": \"a\", \"track\": \"world\", \"metric\": \"countryCount\", \"target\": \(target)}]}"),
                           "b.json: badge 1 (\"a\"): \"target\" must be a number above 0", target)
        }
        XCTAssertEqual(refusal("{\"badges\": [\(one)]}"), "accepted")
    }

    /// The example catalog shipped in Data/ has the seed app's five tracks, and every metric it
    /// names is a number in an empty ledger's report.
    func testTheShippedCatalogNamesOnlyMetricsOfTheReport() throws {
        let path = Repository.path("Data/badges/example.json")
        let catalog = try BadgeCatalog(json: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        XCTAssertEqual(Set(catalog.badges.map(\.track)), Set(Badge.Track.allCases))
        let locator = TrackClassifierTests.locator
        let empty = try ClassifyReport(ledger: UnlockLedger(), tables: locator.tables, options: ClassifyOptions(), lenient: false).json()
        XCTAssertEqual(catalog.unknownMetrics(in: empty).map(\.id), [])
    }
}
