import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Issue 33, item 3: the text report names countries in a person's language (Unicode CLDR),
/// China's provinces, cities and counties in Chinese and English as before, the JSON unchanged.
/// The names expected are CLDR's as published (ja: 日本, ドイツ; de: Deutschland), written here.
final class CountryNameTests: XCTestCase {
    static let names = Result { try RegionNames(contentsOf: Repository.tables + "/" + RegionNames.fileName) }

    func testTheTextReportNamesCountriesInTheLanguageAsked() throws {
        let names = try Self.names.get()
        let ledger = ReportReadingTests.ledger([("tokyo", ContinentTests.walk(35.6812, 139.7671, day: 0)),
                                                ("berlin", ContinentTests.walk(52.5163, 13.3777, day: 1)),
                                                ("beijing", ContinentTests.walk(39.915, 116.40, day: 2))])
        let report = try ReportReadingTests.report(ledger)
        let plain = report.text()
        XCTAssertTrue(plain.contains("日本 Japan"), plain)
        XCTAssertTrue(plain.contains("德国 Germany"), plain)

        let japanese = report.text(countryNames: names.localized("ja"))
        XCTAssertTrue(japanese.contains("ドイツ"), japanese)
        XCTAssertFalse(japanese.contains("德国 Germany"), japanese)
        XCTAssertFalse(japanese.contains("日本 Japan"), japanese)
        // China's provinces keep the tables' Chinese and English whatever the language.
        XCTAssertTrue(japanese.contains("北京市 Beijing"), japanese)

        let german = report.text(countryNames: names.localized("de-AT"))
        XCTAssertTrue(german.contains("Deutschland"), german)
        XCTAssertTrue(german.contains("Japan"), german)
        XCTAssertFalse(german.contains("日本 Japan"), german)

        // A language CLDR does not have falls back to English.
        let unknown = report.text(countryNames: names.localized("xx"))
        XCTAssertTrue(unknown.contains("Germany") && !unknown.contains("德国"), unknown)
        // A period's text too.
        let period = report.period(since: nil, until: nil).text(countryNames: names.localized("ja"))
        XCTAssertTrue(period.contains("ドイツ") && !period.contains("德国 Germany"), period)
        // The JSON keeps the tables' names.
        XCTAssertEqual(report.json().rendered(), try ReportReadingTests.report(ledger).json().rendered())
    }
}
