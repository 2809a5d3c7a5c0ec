import ChinaDatum
import Foundation
import XCTest
@testable import RegionTables

/// The locator over the committed tables: the datum gate, all levels at once, edge and margins.
final class RegionLocatorTests: XCTestCase {
    static let locator: RegionLocator = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Data/regions").standardized.path
        return try! RegionLocator(directory: directory)
    }()

    func code(_ level: LevelPlacement, _ table: RegionTable) -> String? {
        level.region.map { table.region($0).code }
    }

    func testPointsOutsideChinaAreNeverShiftedEvenInsideTheRectangle() throws {
        let l = Self.locator
        for (lat, lon, country) in [(14.5995, 120.9842, "PHL"), (37.5665, 126.978, "KOR"), (27.4728, 89.639, "BTN"),
                                    (34.6937, 135.5023, "JPN"), (21.0285, 105.8542, "VNM"), (47.9184, 106.9177, "MNG")] {
            XCTAssertTrue(ChinaRectangle().appliesShift(latitude: lat, longitude: lon), "the rectangle would shift \(country)")
            let p = try l.locate(latitude: lat, longitude: lon)
            XCTAssertEqual(code(p.country, l.world), country)
            XCTAssertNil(p.gcj02, "\(country) must not be shifted")
            XCTAssertNil(p.province.region)
        }
    }

    func testHongKongAndMacauAreShiftedAndFoundAtEveryLevel() throws {
        let l = Self.locator
        let hk = try l.locate(latitude: 22.2804, longitude: 114.1588)  // Central
        XCTAssertEqual(code(hk.country, l.world), "CHN")
        XCTAssertNotNil(hk.gcj02)
        XCTAssertEqual(code(hk.province, l.china), "810000")
        XCTAssertEqual(code(hk.county, l.china), "810001")  // 中西区
        let macau = try l.locate(latitude: 22.1987, longitude: 113.5439)
        XCTAssertEqual(code(macau.province, l.china), "820000")
        XCTAssertEqual(macau.county.status, .inside)
    }

    func testLevelsNestAndCountyImpliesCityAndProvince() throws {
        let l = Self.locator
        let p = try l.locate(latitude: 39.9087, longitude: 116.3975)  // Tiananmen, WGS-84
        XCTAssertEqual(code(p.county, l.china), "110101")
        XCTAssertEqual(code(p.city, l.china), "110100")
        XCTAssertEqual(code(p.province, l.china), "110000")
        XCTAssertEqual(l.china.region(p.county.region!).parent, p.city.region)
        XCTAssertEqual(l.china.region(p.city.region!).parent, p.province.region)
    }

    /// The classic failure: testing raw WGS-84 against the GCJ-02 table puts people near the
    /// Beijing–Hebei border in the wrong province. Walk east from Tongzhou across the border into
    /// Hebei (Yanjiao, Dachang) and find where the two answers differ; the locator must give the
    /// GCJ-02 one there.
    func testTheShiftDecidesProvincesNearTheBeijingHebeiBorder() throws {
        let l = Self.locator
        var differing = 0
        var provinces = Set<String>()
        var lon = 116.6
        while lon < 117.2 {
            let lat = 39.91
            let raw = l.china.unit(atX: Int64((lon / 1e-5).rounded()), y: Int64((lat / 1e-5).rounded()))
            let g = GCJ02.fromWGS84(Coordinate(latitude: lat, longitude: lon))
            let shifted = l.china.unit(atX: Int64((g.longitude / 1e-5).rounded()), y: Int64((g.latitude / 1e-5).rounded()))
            let rawProvince = raw.flatMap { l.china.region(ofUnit: $0, at: .province) }
            let shiftedProvince = shifted.flatMap { l.china.region(ofUnit: $0, at: .province) }
            let p = try l.locate(latitude: lat, longitude: lon)
            XCTAssertEqual(p.province.region, shiftedProvince, "lon \(lon)")
            if rawProvince != shiftedProvince { differing += 1 }
            if let province = code(p.province, l.china) { provinces.insert(province) }
            lon += 0.0002
        }
        XCTAssertTrue(provinces.isSuperset(of: ["110000", "130000"]), "the walk should cross from Beijing into Hebei: \(provinces)")
        XCTAssertGreaterThan(differing, 0, "no point on this walk changes province with the shift")
    }

    func testMarginsArePositiveInsideAndSmallNearABorder() throws {
        let l = Self.locator
        let deep = try l.locate(latitude: 39.9087, longitude: 116.3975)
        // Tiananmen is about a kilometre from any district border: no margin within 300 m.
        if let margin = deep.county.marginMetres { XCTAssertGreaterThan(margin, 0) }
        // Walk from Beijing's Tongzhou towards Hebei: some point gets a small positive margin.
        var found = false
        var lon = 116.6
        while lon < 117.2 && !found {
            let p = try l.locate(latitude: 39.91, longitude: lon)
            if let m = p.province.marginMetres, p.province.status == .inside, m < 50 { XCTAssertGreaterThanOrEqual(m, 0); found = true }
            lon += 0.0002
        }
        XCTAssertTrue(found)
    }

    func testJustOffACoastIsEdgeWithANegativeMargin() throws {
        let l = Self.locator
        // An outer (coast) arc of the China table: step 60 m off one of its vertices until the point
        // is in no unit; it must then be `edge` for a province, with a negative margin no farther
        // than the 60 m to that vertex (another part of the coast may be nearer).
        let table = l.china
        var checked = 0
        for arc in 0..<table.arcCount where table.arcLeft[arc] < 0 || table.arcRight[arc] < 0 {
            let v = table.arcVertices(arc)[0]
            let lat = Double(v.y) * 1e-5, lon = Double(v.x) * 1e-5
            guard lat > 20, lat < 40 else { continue }
            for angle in stride(from: 0.0, to: 2 * Double.pi, by: Double.pi / 4) {
                let dLat = 60 / 111_320 * sin(angle), dLon = 60 / (111_320 * cos(lat * .pi / 180)) * cos(angle)
                let gx = Int64(((lon + dLon) / 1e-5).rounded()), gy = Int64(((lat + dLat) / 1e-5).rounded())
                guard table.unit(atX: gx, y: gy) == nil else { continue }
                let wgs = GCJ02.toWGS84(Coordinate(latitude: lat + dLat, longitude: lon + dLon))
                let p = try l.locate(latitude: wgs.latitude, longitude: wgs.longitude)
                guard p.gcj02 != nil else { continue }  // the world table put it out at sea
                XCTAssertEqual(p.province.status, .edge)
                let margin = try XCTUnwrap(p.province.marginMetres)
                XCTAssertLessThan(margin, 0)
                XCTAssertGreaterThanOrEqual(margin, -62)
                checked += 1
                break
            }
            if checked >= 20 { break }
        }
        XCTAssertGreaterThanOrEqual(checked, 10)
    }

    func testBadCoordinatesAreRejected() {
        let l = Self.locator
        for (lat, lon) in [(Double.nan, 1.0), (1, .infinity), (90.5, 1), (1, -180.01)] {
            XCTAssertThrowsError(try l.locate(latitude: lat, longitude: lon), "\(lat),\(lon)")
        }
        XCTAssertNoThrow(try l.locate(latitude: -90, longitude: 180))
    }
}
