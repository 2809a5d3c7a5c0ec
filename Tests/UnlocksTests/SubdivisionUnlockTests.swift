import XCTest
import RegionTables
import Tracks
@testable import Unlocks
import UnlocksTestSupport

/// Issue 33: every country's states and provinces unlock like the other levels. The places'
/// expected codes are those of the apache-superset features holding them (SubdivisionPlaces:
/// shapely, independently of the build); the counts of Germany's and Japan's subdivisions are
/// facts (16 Länder, 47 prefectures).
final class SubdivisionUnlockTests: XCTestCase {
    static let places = ["Tokyo", "Munich", "Beijing", "Chengdu", "Paris", "Sacramento", "São Paulo", "Sydney", "Manila"]
    static let may1: Int64 = 1_714_521_600_000  // 2024-05-01T00:00:00Z

    /// A ten-minute walk east from each place at 1.4 m/s, one a day, each its own input.
    static let walked: (report: ClassifyReport, ledger: UnlockLedger) = {
        var classifier = TrackClassifier(locator: BundledTables.locator(marginRadius: 120), options: ClassifyOptions())
        for (k, name) in places.enumerated() {
            let place = SubdivisionPlaces.places[name]!
            classifier.begin(InputRecord(path: "\(k).gpx", fingerprint: "walk\(k)", format: "gpx"))
            for s in stride(from: 0, through: 600, by: 5) {
                let east = 1.4 * Double(s) / (111_320 * cos(place.latitude * .pi / 180))
                classifier.point(TrackPoint(latitude: place.latitude, longitude: place.longitude + east,
                                            time: may1 + Int64(k) * 86_400_000 + Int64(s) * 1000, accuracy: 5))
            }
            classifier.finish()
        }
        let ledger = classifier.takeLedger()
        do {
            let combined = try ledger.combined()
            return (try ClassifyReport(ledger: ledger, combined: combined, tables: BundledTables.tables, options: ClassifyOptions(), lenient: false), ledger)
        } catch {
            fatalError("\(error)")
        }
    }()

    func testEachWalkUnlocksTheSubdivisionHoldingIt() throws {
        let report = Self.walked.report
        let subdivisions = try XCTUnwrap(report.unlocks[.subdivision])
        XCTAssertEqual(Set(subdivisions.map(\.code)), Set(Self.places.map(SubdivisionPlaces.code(of:))))
        XCTAssertEqual(report.metrics.subdivisionCount, Self.places.count)
        let countries = try XCTUnwrap(report.unlocks[.country]), provinces = try XCTUnwrap(report.unlocks[.province])
        XCTAssertEqual(Set(subdivisions.compactMap(\.parentCode)), Set(countries.map(\.code)))
        for unlock in subdivisions {
            XCTAssertTrue(unlock.confirmed, unlock.code)
            XCTAssertEqual(unlock.visitDays, 1, unlock.code)
            // Its walk's region one level up (China's: the province) was first visited at the same
            // point; the walk lies inside both, so both have the same explored area.
            let level = unlock.parentCode == "CHN" ? provinces : countries
            let region = try XCTUnwrap(level.first { $0.firstVisit == unlock.firstVisit }, unlock.code)
            XCTAssertEqual(unlock.exploredSquareMetres, region.exploredSquareMetres, accuracy: 1e-6, unlock.code)
            XCTAssertGreaterThan(unlock.exploredSquareMetres, 0, unlock.code)
            let country = try XCTUnwrap(countries.first { $0.code == unlock.parentCode }, unlock.code)
            XCTAssertLessThan(unlock.areaSquareMetres, country.areaSquareMetres, unlock.code)
        }
        let tokyo = try XCTUnwrap(subdivisions.first { $0.code == "JP-13" })
        XCTAssertEqual(tokyo.name, "東京都")
        XCTAssertEqual(tokyo.englishName, "Tokyo")
        XCTAssertTrue(report.continents.contains { $0.name == "Asia" && $0.countries.contains("JPN") })
    }

    func testProgressCountsEachCountrysSubdivisions() throws {
        let children = Self.walked.report.progress.children
        let germany = try XCTUnwrap(children.first { $0.code == "DEU" })
        XCTAssertEqual(germany.childLevel, .subdivision)
        XCTAssertEqual(germany.unlocked, 1)
        XCTAssertEqual(germany.total, 16)
        XCTAssertEqual(children.first { $0.code == "JPN" }?.total, 47)
        // China's children are its provinces, as before.
        XCTAssertEqual(children.first { $0.code == "CHN" }?.childLevel, .province)
    }

    func testTheTextReportNamesSubdivisionsInThePersonsLanguage() throws {
        let report = Self.walked.report
        let names = try RegionNames(contentsOf: Repository.tables + "/" + RegionNames.fileName)
        let german = report.text(countryNames: names.localized("de"))
        for code in ["DE-BY", "JP-13", "US-CA"] {
            let name = try XCTUnwrap(names.localized("de").name(of: code))
            XCTAssertTrue(german.contains(code.padding(toLength: 8, withPad: " ", startingAt: 0) + name), "\(code) \(name)")
        }
        XCTAssertTrue(report.text().contains("Unlocked: 8 countries, 9 subdivisions, 2 provinces"))
    }

    func testBadgesOnSetsOfRegions() throws {
        let catalog = try BadgeCatalog(json: Array("""
            {"badges": [{"id": "länder", "track": "exploration", "regions": {"level": "subdivision", "within": "DEU"}, "target": 16},
                        {"id": "three", "track": "exploration", "regions": {"level": "subdivision", "codes": ["JP-13", "DE-BY", "IT-25"]}},
                        {"id": "nordic", "track": "exploration", "regions": {"level": "country", "codes": ["DNK", "FIN", "ISL", "NOR", "SWE"]}},
                        {"id": "continents", "track": "exploration", "regions": {"level": "continent", "codes": ["002", "003", "005", "009", "142", "150"]}, "target": 5}]}
            """.utf8), path: "b.json")
        var reported: [String: Int] = [:]
        let progress = catalog.progress(in: Self.walked.report, reported: &reported)
        // Bavaria of 16; Tokyo and Bavaria of three; no Nordic country; Asia, Europe, North and
        // South America and Oceania: five continents.
        XCTAssertEqual(progress.map(\.value), [1, 2, 0, 5])
        XCTAssertEqual(progress.map(\.target), [16, 3, 5, 5])
        XCTAssertEqual(progress.map(\.percent), [6, 66, 0, 100])
        XCTAssertEqual(progress.map(\.achieved), [false, false, false, true])
        for (text, problem) in [(#"{"regions": {"level": "country", "within": "DEU"}, "target": 1}"#, "below countries"),
                                (#"{"regions": {"level": "subdivision", "within": "DEU"}}"#, "needs one"),
                                (#"{"regions": {"level": "state", "codes": ["X"]}}"#, "none of"),
                                (#"{"regions": {"level": "country", "codes": []}}"#, "distinct region codes"),
                                (#"{"metric": "countryCount", "regions": {"level": "country", "codes": ["DEU"]}, "target": 1}"#, "not both")] {
            let file = #"{"badges": [{"id": "x", "track": "exploration", "# + text.dropFirst() + "]}"
            XCTAssertThrowsError(try BadgeCatalog(json: Array(file.utf8), path: "b.json"), text) { error in
                XCTAssertTrue("\(error)".contains(problem), "\(error)")
            }
        }
    }

    func testContributionsKeepSubdivisionsThroughTheCodec() throws {
        let ledger = Self.walked.ledger
        let regions = ContributionCodec.Regions(tables: BundledTables.tables)
        for (fingerprint, part) in ledger.contributions {
            let decoded = try ContributionCodec.decode(ContributionCodec.encode(part, tables: BundledTables.tables), regions: regions)
            XCTAssertEqual(decoded, part, fingerprint)
            XCTAssertTrue(decoded.places.contains { $0.regions.4 >= 0 }, fingerprint)
            XCTAssertTrue(decoded.cells.visits.allSatisfy { $0.subdivision >= 0 }, fingerprint)
        }
    }

    /// A contribution written before subdivisions (layout 1, bytes as docs' layout gives them):
    /// four levels per place, the lone flag in bit 4. It reads with no subdivision and the lone
    /// flag where this version keeps it.
    func testALayout1ContributionReadsWithoutSubdivisions() throws {
        let jpn = Array("JPN".utf8)
        let bytes: [UInt8] = [1,                        // layout 1
                              1, 0, UInt8(jpn.count)] + jpn + [  // one region: level 0 (country), its code
                              0,                        // no evidence
                              0,                        // no days
                              1, 1, 0, 0, 0, 0x01, 0x11,  // one place: JPN, inside there, confirming, lone
                              0,                        // no minutes
                              0, 0, 0,                  // no cells, an empty palette, first second 0
                              0]                        // no tiles (no cells: no pass candidates)
        let part = try ContributionCodec.decode(bytes, regions: ContributionCodec.Regions(tables: BundledTables.tables))
        let place = try XCTUnwrap(part.places.first)
        let japan = try XCTUnwrap(BundledTables.tables.world.regions.first { $0.code == "JPN" }).index
        XCTAssertTrue(place.regions == (japan, -1, -1, -1, -1))
        XCTAssertTrue(place.isLone)
        XCTAssertEqual(place.flags, 0x01 | PlaceSignature.loneFlag)
        XCTAssertEqual(place.entries.map(\.key), [RegionKey(level: .country, index: japan)])
    }
}
