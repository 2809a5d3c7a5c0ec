import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The two worldviews over the committed tables (docs/boundaries.md, "Worldviews"): the default
/// `china` (world.bin) and `international` (international.bin, Natural Earth from Germany's point
/// of view), against what each view's own source says at well-known places
/// (Fixtures/worldview-places.csv, written by Scripts/fixtures/make-worldview-places from the
/// sources with pyshp and Python, not by this package).
final class WorldviewTests: XCTestCase {
    static let international: TableSet = {
        do { return try TableSet(directory: Repository.tables, worldview: .international) } catch { fatalError("cannot open international.bin: \(error)") }
    }()
    static let internationalLocator: RegionLocator = {
        do { return try RegionLocator(tables: international) } catch { fatalError("\(error)") }
    }()

    struct Place {
        var name: String, latitude: Double, longitude: Double
        var internationalCountry: String?, internationalProvince: String?, chinaCountry: String?, chinaProvince: String?
    }

    static let places: [Place] = {
        let path = Repository.fixtures("RegionTablesTests") + "/worldview-places.csv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            func code(_ k: Int) -> String? { f[k].isEmpty ? nil : f[k] }
            return Place(name: f[0], latitude: Double(f[1])!, longitude: Double(f[2])!, internationalCountry: code(3),
                         internationalProvince: code(4), chinaCountry: code(5), chinaProvince: code(6))
        }
    }()

    /// (country code, province code) a locator answers, `inside` or at the `edge`.
    func answer(_ locator: RegionLocator, _ p: Place) throws -> (String?, String?) {
        let placement = try locator.locate(latitude: p.latitude, longitude: p.longitude)
        return (placement.country.region.map { locator.world.region($0).code }, placement.province.region.map { locator.china.region($0).code })
    }

    func testInternationalViewAnswersAsNaturalEarth() throws {
        XCTAssertEqual(Self.places.count, 20)
        for place in Self.places {
            let (country, province) = try answer(Self.internationalLocator, place)
            XCTAssertEqual(country, place.internationalCountry, place.name)
            XCTAssertEqual(province, place.internationalProvince, place.name)
        }
        // The issue's four, spelled out: Taipei TWN, Hong Kong HKG, Macau MAC, Simferopol UKR.
        let named = Dictionary(uniqueKeysWithValues: Self.places.map { ($0.name, $0.internationalCountry) })
        XCTAssertEqual([named["Taipei"], named["Hong Kong Mong Kok"], named["Macau Senado Square"], named["Simferopol"]], ["TWN", "HKG", "MAC", "UKR"])
    }

    func testChinaViewIsTheDefaultAndAnswersAsCnmaps() throws {
        let locator = BundledTables.locator()
        XCTAssertEqual(locator.tables.worldview, .china)
        for place in Self.places {
            let (country, province) = try answer(locator, place)
            XCTAssertEqual(country, place.chinaCountry, place.name)
            XCTAssertEqual(province, place.chinaProvince, place.name)
        }
    }

    /// The default view's tables are the ones committed before there were two views: opening
    /// without a worldview reads world.bin, the international view reads international.bin.
    func testEachViewReadsItsOwnFile() throws {
        let china = BundledTables.tables, international = Self.international
        XCTAssertEqual(china.world.path, Repository.tables + "/world.bin")
        XCTAssertEqual(international.world.path, Repository.tables + "/international.bin")
        XCTAssertEqual(international.china.path, china.china.path)
        XCTAssertEqual(international.world.levels, [.country])
        XCTAssertEqual(international.world.datum, .wgs84)
        // Codes: ISO alpha-3 where one exists; every region code is three capitals.
        XCTAssertTrue(international.world.regions.allSatisfy { $0.code.count == 3 && $0.code.allSatisfy { $0.isUppercase } })
        XCTAssertNil(international.world.regions.first { $0.code.contains("-") })
    }

    func testInternationalTableMeetsTheWorldTableBudgets() throws {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Repository.tables + "/manifest.json"))) as! [String: Any]
        let tables = manifest["tables"] as! [[String: Any]]
        let entry = try XCTUnwrap(tables.first { $0["file"] as? String == "international.bin" })
        let bytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: Repository.tables + "/international.bin")[.size] as? Int)
        XCTAssertEqual(entry["bytes"] as? Int, bytes)
        XCTAssertLessThanOrEqual(bytes, 2_500_000, "international table over 2.5 MB")
        let levels = try XCTUnwrap(entry["levels"] as? [[String: Any]])
        XCTAssertLessThanOrEqual(try XCTUnwrap(levels[0]["maximumDeviationMetres"] as? Double), 100)
        let scan = try XCTUnwrap(entry["gridScan"] as? [String: Any])
        XCTAssertEqual(scan["misassignedKm2"] as? Double, 0, "\(scan["clusters"] ?? "")")
        XCTAssertGreaterThan(try XCTUnwrap(scan["insidePoints"] as? Int), 1_000_000)
        let source = try XCTUnwrap(manifest["source"] as? [String: Any])
        // The table says which wheel it was built from, as the manifest does (the pin itself is
        // checked against the manifest in BoundaryBuildTests.SourcePinTests).
        let sha256 = try XCTUnwrap(source["internationalSHA256"] as? String)
        XCTAssertEqual(sha256.count, 64)
        XCTAssertEqual(Self.international.world.sourceSHA256, sha256)
    }
}
