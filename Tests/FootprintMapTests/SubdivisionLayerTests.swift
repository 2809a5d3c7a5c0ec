import XCTest
import RegionTables
import TextFormats
import Tracks
import Unlocks
@testable import FootprintMap
import UnlocksTestSupport

/// Issue 33: the map shows the states and provinces of the countries a person has been in,
/// beneath China's table, and carries no others (Japan has 47 prefectures, Germany 16 Länder).
final class SubdivisionLayerTests: XCTestCase {
    func footprint(names: LocalizedNames? = nil) throws -> Footprint {
        let tables = BundledTables.tables
        var classifier = TrackClassifier(locator: BundledTables.locator(marginRadius: 120), options: ClassifyOptions())
        let may1: Int64 = 1_714_521_600_000
        for (k, name) in ["Tokyo", "Munich"].enumerated() {
            let place = try XCTUnwrap(SubdivisionPlaces.places[name])
            classifier.begin(InputRecord(path: "\(name).gpx", fingerprint: name, format: "gpx"))
            for s in stride(from: 0, through: 600, by: 5) {
                classifier.point(TrackPoint(latitude: place.latitude + 1.4 * Double(s) / 111_320, longitude: place.longitude,
                                            time: may1 + Int64(k) * 86_400_000 + Int64(s) * 1000, accuracy: 5))
            }
            classifier.finish()
        }
        let ledger = classifier.takeLedger()
        let combined = try ledger.combined()
        let report = try ClassifyReport(ledger: ledger, combined: combined, tables: tables, options: ClassifyOptions(), lenient: false)
        return Footprint(report: report, cells: combined.cells, cellPasses: combined.cellPasses, tables: tables, names: names)
    }

    func testThePageShadesTheVisitedCountriesSubdivisions() throws {
        let footprint = try footprint()
        XCTAssertEqual(footprint.shadedTables.map(\.name), ["world", "subdivisions", "china"])
        let subdivisions = try XCTUnwrap(footprint.subdivisions)
        let json = footprint.tableJSON(subdivisions, name: "subdivisions", shownSubdivisions: footprint.shownSubdivisions)
        XCTAssertEqual(json["levels"]?.arrayValue?.compactMap(\.stringValue), ["country", "subdivision"])
        let rows = try XCTUnwrap(json["regions"]?.arrayValue?.compactMap(\.arrayValue))
        // Subdivision rows (level index 1) with a name: those of Japan and Germany only.
        let named = rows.filter { $0[0].numberValue == 1 && !($0[3].stringValue ?? "").isEmpty }
        XCTAssertEqual(named.count, 47 + 16)
        XCTAssertEqual(Set(named.compactMap { $0[2].stringValue?.prefix(3) }), ["JP-", "DE-"])
        // Tokyo and Bavaria carry their unlock: confirmed.
        for code in ["JP-13", "DE-BY"] {
            let row = try XCTUnwrap(rows.first { $0[2].stringValue == code }, code)
            XCTAssertEqual(row.count, 9, code)
            XCTAssertEqual(row[5].numberValue, 1, code)
        }
        XCTAssertTrue(footprint.cardFigures().contains { $0 == ("2 · 2", "countries · states and provinces") })
    }

    /// `--language`: the page names countries and subdivisions in the person's language (the
    /// CLDR names the tables carry, checked against CLDR's XML in CLDRDataTests); China keeps its own.
    func testThePageNamesCountriesAndSubdivisionsInThePersonsLanguage() throws {
        let names = try RegionNames(contentsOf: Repository.tables + "/" + RegionNames.fileName).localized("fr")
        let footprint = try footprint(names: names)
        for table in footprint.shadedTables {
            let rows = try XCTUnwrap(footprint.tableJSON(table.table, name: table.name, shownSubdivisions: footprint.shownSubdivisions)["regions"]?.arrayValue?.compactMap(\.arrayValue))
            for code in ["DEU", "JPN", "DE-BY", "JP-13"] where table.name != "china" {
                guard let row = rows.first(where: { $0[2].stringValue == code }) else { continue }
                XCTAssertEqual(row[3].stringValue, names.name(of: code), "\(table.name) \(code)")
                XCTAssertEqual(row[4].stringValue, "", "\(table.name) \(code)")
            }
        }
        XCTAssertEqual(names.name(of: "DE-BY"), "Bavière")
        XCTAssertTrue(footprint.regionTables().contains("<td>DE-BY</td><td>Bavière</td><td></td>"))
        XCTAssertTrue(footprint.regionTables().contains("States and provinces"))
        let outlines = footprint.geoJSON()
        XCTAssertTrue(outlines.contains(#""level":"subdivision","code":"DE-BY""#), "the GeoJSON outlines the unlocked subdivisions")
    }
}
