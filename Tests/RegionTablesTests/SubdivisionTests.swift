import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The subdivision level (issue 33): the committed `subdivisions.bin` through the locator in both
/// views. Expected codes are ISO 3166-2's (the places are tens of kilometres inside their units, so
/// no border tolerance can change them); what each view answers where they differ is
/// docs/boundaries.md's "Subdivisions" table.
final class SubdivisionTests: XCTestCase {
    static let china = BundledTables.locator(marginRadius: 0)
    static let international: RegionLocator = {
        do { return try RegionLocator(directory: Repository.tables, worldview: .international, marginRadius: 0) } catch { fatalError("\(error)") }
    }()

    func code(_ locator: RegionLocator, _ latitude: Double, _ longitude: Double) throws -> String? {
        let placement = try locator.locate(latitude: latitude, longitude: longitude)
        return placement.subdivision.region.map { locator.tables.subdivisions!.region($0).code }
    }

    func testPlacesAnswerTheirISOCodeInBothViews() throws {
        // The international view answers the code of the apache-superset feature that holds the
        // place (SubdivisionPlaces: shapely on the pinned wheel); China's view the same, but where
        // its country is China (its provinces' ISO 3166-2:CN codes: Taipei CN-TW, Itanagar in
        // Arunachal Pradesh CN-XZ, Tibet).
        let chinasView = ["Taipei": "CN-TW", "Itanagar": "CN-XZ"]
        let places = ["Tokyo", "Munich", "Beijing", "Chengdu", "Taipei", "Paris", "Sacramento", "São Paulo", "Simferopol", "Itanagar", "Sydney", "Manila"]
        XCTAssertEqual(Set(places), Set(SubdivisionPlaces.places.keys).subtracting(["Beijing Tiananmen"]))
        for name in places {
            let place = try XCTUnwrap(SubdivisionPlaces.places[name])
            let expected = SubdivisionPlaces.code(of: name)
            XCTAssertEqual(try code(Self.china, place.latitude, place.longitude), chinasView[name] ?? expected, "\(name), China's view")
            XCTAssertEqual(try code(Self.international, place.latitude, place.longitude), expected, "\(name), international view")
        }
        // The places, by their ISO codes.
        XCTAssertEqual(SubdivisionPlaces.code(of: "Tokyo"), "JP-13")
        XCTAssertEqual(SubdivisionPlaces.code(of: "Munich"), "DE-BY")
        XCTAssertEqual(SubdivisionPlaces.code(of: "Beijing"), "CN-BJ")
    }

    func testHongKongAndMacauFollowTheView() throws {
        // China's view: the China table's provinces; the international view: Natural Earth's units of HKG and MAC.
        XCTAssertEqual(try code(Self.china, 22.2800, 114.1588), "CN-HK")
        XCTAssertEqual(try code(Self.china, 22.1987, 113.5439), "CN-MO")
        let hongKong = try Self.international.locate(latitude: 22.2800, longitude: 114.1588)
        let subdivision = try XCTUnwrap(hongKong.subdivision.region.map { Self.international.tables.subdivisions!.region($0) })
        XCTAssertEqual(Self.international.tables.subdivisions!.region(try XCTUnwrap(subdivision.parent)).code, "HKG")
    }

    func testAViewsDisputedAreaWithoutSubdivisionsAnswersNone() throws {
        // Srinagar: China's view draws Jammu and Kashmir as the disputed area IND-PAK-JK, which has no subdivisions.
        let placement = try Self.china.locate(latitude: 34.0837, longitude: 74.7973)
        XCTAssertEqual(placement.country.region.map { Self.china.world.region($0).code }, "IND-PAK-JK")
        XCTAssertNil(placement.subdivision.region)
        XCTAssertNotNil(try code(Self.international, 34.0837, 74.7973))
    }

    func testAtSeaThereIsNoSubdivision() throws {
        XCTAssertNil(try code(Self.china, 0, -140))
        XCTAssertNil(try code(Self.international, 30, -40))
    }

    /// Whatever the point, the subdivision is one of the answered country's, and a country with
    /// subdivisions of its own gets one wherever it is `inside` (in both views, on random land).
    func testTheSubdivisionIsAlwaysTheAnsweredCountrys() throws {
        var state: UInt64 = 33
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
        for locator in [Self.china, Self.international] {
            let subdivisions = try XCTUnwrap(locator.tables.subdivisions)
            var withCountry = 0, answered = 0
            for _ in 0..<40_000 {
                let lat = uniform() * 140 - 60, lon = uniform() * 360 - 180
                let placement = try locator.locate(latitude: lat, longitude: lon)
                guard let country = placement.country.region else {
                    XCTAssertNil(placement.subdivision.region, "\(lat),\(lon)")
                    continue
                }
                withCountry += 1
                guard let region = placement.subdivision.region else { continue }
                answered += 1
                let code = locator.world.region(country).code
                let parent = try XCTUnwrap(subdivisions.region(region).parent)
                let chinaInChinasView = locator.tables.worldview == .china && code == "CHN"
                XCTAssertEqual(chinaInChinasView ? "CHN" : subdivisions.region(parent).code, code, "\(lat),\(lon)")
                if placement.country.status != .inside { XCTAssertNotEqual(placement.subdivision.status, .inside, "\(lat),\(lon)") }
            }
            XCTAssertGreaterThan(Double(answered), 0.97 * Double(withCountry), "\(locator.tables.worldview)")
        }
    }

    func testChinasProvincesAreTheirISOCodesAsCLDRNamesThem() throws {
        // The China table's provinces against CLDR's Chinese subdivision names (common/subdivisions/zh.xml).
        let cldr = try CLDRDataTests.entries(CLDRDataTests.cldr + "/subdivisions/zh.xml", element: "subdivision")
        for province in Self.china.china.regions where province.level == .province {
            let iso = try XCTUnwrap(RegionLocator.chinaProvinceISOCodes[province.code], province.code)
            var name = try XCTUnwrap(cldr[iso.replacingOccurrences(of: "-", with: "").lowercased()], iso)
            // CLDR's zh names Macau in traditional characters (澳門), the China table in simplified (澳门).
            if iso == "CN-MO" { name = name.replacingOccurrences(of: "門", with: "门") }
            XCTAssertTrue(name.hasPrefix(province.name) || province.name.hasPrefix(name), "\(province.code) \(province.name): CLDR \(iso) is \(name)")
        }
    }
}
