import ChinaDatum
import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The locator over the committed tables: the datum gate, all levels at once, edge and margins.
final class RegionLocatorTests: XCTestCase {
    static var locator: RegionLocator { BundledTables.locator() }

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

    /// Near China's border and at sea the world table is coarser than the China table, so the
    /// China table decides there (docs/locator.md, rule 3).
    func testTheChinaTableDecidesAtSeaAndNearChinasBorder() throws {
        let l = Self.locator
        func worldCountry(_ lat: Double, _ lon: Double) -> String? {
            l.world.unit(atX: Int64((lon / 1e-5).rounded()), y: Int64((lat / 1e-5).rounded()))
                .flatMap { l.world.region(ofUnit: $0, at: .country) }.map { l.world.region($0).code }
        }
        func chinaUnit(_ lat: Double, _ lon: Double) -> Int32? {
            let g = GCJ02.fromWGS84(Coordinate(latitude: lat, longitude: lon))
            return l.china.unit(atX: Int64((g.longitude / 1e-5).rounded()), y: Int64((g.latitude / 1e-5).rounded()))
        }
        // A point on a small Chinese island that the world table keeps only as a speck (a point in
        // no polygon, docs/boundaries.md), where the China table has land.
        let chn = try XCTUnwrap(l.world.regions.first { $0.code == "CHN" }?.index)
        let arc = try XCTUnwrap((0..<l.world.arcCount).first { arc in
            let v = l.world.arcVertices(arc)
            return v.count == 2 && v[0] == v[1] && l.world.region(ofUnit: max(l.world.arcLeft[arc], l.world.arcRight[arc]), at: .country) == chn
                && chinaUnit(Double(v[0].y) * 1e-5, Double(v[0].x) * 1e-5) != nil
        })
        let speck = l.world.arcVertices(arc)[0]
        let (lat, lon) = (Double(speck.y) * 1e-5, Double(speck.x) * 1e-5)
        XCTAssertNil(worldCountry(lat, lon))
        let island = try l.locate(latitude: lat, longitude: lon)
        XCTAssertEqual(code(island.country, l.world), "CHN")
        XCTAssertNotNil(island.province.region)
        XCTAssertEqual(island.county.status, .inside)
        // Around China's land borders in the world table (every 25th vertex of the arcs with China
        // on one side and a neighbour on the other): wherever the China table holds the point, it is in China
        // with that unit's regions, whatever the world table says; elsewhere the world decides.
        var overruled = 0, neighbour = 0
        let china = try XCTUnwrap(l.world.regions.first { $0.code == "CHN" }?.index)
        let borders = (0..<l.world.arcCount).filter { arc in
            let sides = [l.world.arcLeft[arc], l.world.arcRight[arc]].map { $0 < 0 ? nil : l.world.region(ofUnit: $0, at: .country) }
            return sides.contains(china) && !sides.contains(nil)
        }
        for v in borders.flatMap({ l.world.arcVertices($0) }).enumerated().filter({ $0.offset % 25 == 0 }).map(\.element) {
            for angle in stride(from: 0.0, to: 2 * Double.pi, by: Double.pi / 4) {
                for metres in [20.0, 60.0, 120.0] {
                    let lat = Double(v.y) * 1e-5 + metres / 111_320 * sin(angle)
                    let lon = Double(v.x) * 1e-5 + metres / (111_320 * cos(lat * .pi / 180)) * cos(angle)
                    let p = try l.locate(latitude: lat, longitude: lon)
                    if let unit = chinaUnit(lat, lon) {
                        XCTAssertEqual(code(p.country, l.world), "CHN", "(\(lat), \(lon))")
                        XCTAssertEqual(p.county.region, l.china.region(ofUnit: unit, at: .county), "(\(lat), \(lon))")
                        if let other = worldCountry(lat, lon), other != "CHN" { overruled += 1 }
                    } else if let other = worldCountry(lat, lon), other != "CHN" {
                        XCTAssertEqual(code(p.country, l.world), other, "(\(lat), \(lon))")
                        XCTAssertNil(p.gcj02, "(\(lat), \(lon)) is in \(other) by both tables: not shifted")
                        neighbour += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(overruled, 5, "no point where the world table says a neighbour and the China table China")
        XCTAssertGreaterThan(neighbour, 100)
    }

    func testBadCoordinatesAreRejected() {
        let l = Self.locator
        for (lat, lon) in [(Double.nan, 1.0), (1, .infinity), (90.5, 1), (1, -180.01)] {
            XCTAssertThrowsError(try l.locate(latitude: lat, longitude: lon), "\(lat),\(lon)")
        }
        XCTAssertNoThrow(try l.locate(latitude: -90, longitude: 180))
        for (lat, lon) in [(Double.nan, 116.0), (39.9, .infinity), (1e300, 1e300), (-91, 116)] {
            XCTAssertNil(l.chinaRegions(gcj02Latitude: lat, longitude: lon).county, "\(lat),\(lon)")
        }
        // Tiananmen in GCJ-02, straight into the China table.
        let tiananmen = l.chinaRegions(gcj02Latitude: 39.908722, longitude: 116.397245)
        XCTAssertEqual(tiananmen.county.map { l.china.region($0).code }, "110101")
    }
}

/// Holes, multipolygons and points exactly on a border, on the committed China table.
final class RegionGeometryLookupTests: XCTestCase {
    var china: RegionTable { RegionLocatorTests.locator.china }

    /// The point `quanta` to the left (positive) or right (negative) of the midpoint of segment
    /// a→b, rounded to the quantum grid; the segment must be long for this to stay near it.
    func beside(_ a: (x: Int32, y: Int32), _ b: (x: Int32, y: Int32), quanta: Double) -> (x: Int64, y: Int64) {
        let dx = Double(b.x - a.x), dy = Double(b.y - a.y), length = (dx * dx + dy * dy).squareRoot()
        let mx = (Double(a.x) + Double(b.x)) / 2, my = (Double(a.y) + Double(b.y)) / 2
        return (Int64((mx - dy / length * quanta).rounded()), Int64((my + dx / length * quanta).rounded()))
    }

    /// The longest segment of a ring.
    func longest(_ ring: [(x: Int32, y: Int32)]) -> (a: (x: Int32, y: Int32), b: (x: Int32, y: Int32), length: Double) {
        var best = (a: ring[0], b: ring[0], length: -1.0)
        for (a, b) in zip(ring, ring.dropFirst()) {
            let dx = Double(b.x) - Double(a.x), dy = Double(b.y) - Double(a.y)
            let length = (dx * dx + dy * dy).squareRoot()
            if length > best.length { best = (a, b, length) }
        }
        return best
    }

    func county(_ unit: Int32?) -> String? {
        unit.flatMap { china.region(ofUnit: $0, at: .county) }.map { china.region($0).code }
    }

    /// Every hole of every unit: just inside the hole is another unit (an enclave) or nothing,
    /// never the unit itself; just outside it, the unit. Outer rings run counter-clockwise and holes
    /// clockwise, so the unit is on the left of both.
    func testHolesAreRespected() throws {
        var holes = 0, enclaves: [String: String] = [:]
        for unit in 0..<Int32(china.unitCount) {
            for polygon in china.unitPolygons(unit) {
                for hole in polygon.dropFirst() {
                    let (a, b, length) = longest(hole)
                    guard length >= 20 else { continue }
                    let inside = beside(a, b, quanta: -3), outside = beside(a, b, quanta: 3)
                    XCTAssertEqual(china.unit(atX: outside.x, y: outside.y), unit, "just outside a hole of unit \(unit)")
                    let enclave = china.unit(atX: inside.x, y: inside.y)
                    XCTAssertNotEqual(enclave, unit, "inside a hole of unit \(unit)")
                    if let code = county(enclave), let host = county(unit) { enclaves[code] = host }
                    holes += 1
                }
            }
        }
        XCTAssertGreaterThan(holes, 10)
        // A real enclave: 晋城市城区 (140502) lies in a hole of 泽州县 (140525), which surrounds it.
        XCTAssertEqual(enclaves["140502"], "140525")
    }

    /// The same enclave through the locator, from WGS-84: either side of the hole's longest edge.
    func testTheJinchengEnclaveThroughTheLocator() throws {
        let l = RegionLocatorTests.locator
        let host = try XCTUnwrap((0..<Int32(china.unitCount)).first { county($0) == "140525" })
        let hole = try XCTUnwrap(china.unitPolygons(host).first { $0.count > 1 }?[1])
        let (a, b, _) = longest(hole)
        for (quanta, expected) in [(-3.0, "140502"), (3.0, "140525")] {
            let p = beside(a, b, quanta: quanta)
            let wgs = GCJ02.toWGS84(Coordinate(latitude: Double(p.y) * 1e-5, longitude: Double(p.x) * 1e-5))
            let placement = try l.locate(latitude: wgs.latitude, longitude: wgs.longitude)
            XCTAssertEqual(code(placement.county, china), expected)
            XCTAssertEqual(code(placement.city, china), "140500")
            XCTAssertEqual(placement.county.status, .inside)
        }
    }

    func code(_ level: LevelPlacement, _ table: RegionTable) -> String? {
        level.region.map { table.region($0).code }
    }

    /// Every part of every unit made of several polygons (islands) is found: just inside the
    /// longest edge of each part's outer ring is the unit itself.
    func testEveryPartOfAMultipolygonIsFound() throws {
        var parts = 0, units = 0
        for unit in 0..<Int32(china.unitCount) {
            let polygons = china.unitPolygons(unit)
            guard polygons.count > 1 else { continue }
            units += 1
            for polygon in polygons {
                let (a, b, length) = longest(polygon[0])
                guard length >= 20 else { continue }
                let p = beside(a, b, quanta: 3)
                XCTAssertEqual(china.unit(atX: p.x, y: p.y), unit, "a part of unit \(unit) (\(county(unit) ?? "-")) at \(p)")
                parts += 1
            }
        }
        XCTAssertGreaterThan(units, 100)
        XCTAssertGreaterThan(parts, 2_000)
    }

    /// 长海县 (210224), the Changshan islands: 52 polygons, each found by the locator from WGS-84.
    func testEveryIslandOfChanghaiThroughTheLocator() throws {
        let l = RegionLocatorTests.locator
        let unit = try XCTUnwrap((0..<Int32(china.unitCount)).first { county($0) == "210224" })
        var islands = 0
        for polygon in china.unitPolygons(unit) {
            let (a, b, length) = longest(polygon[0])
            guard length >= 20 else { continue }
            let p = beside(a, b, quanta: 3)
            let wgs = GCJ02.toWGS84(Coordinate(latitude: Double(p.y) * 1e-5, longitude: Double(p.x) * 1e-5))
            let placement = try l.locate(latitude: wgs.latitude, longitude: wgs.longitude)
            XCTAssertEqual(code(placement.county, china), "210224", "island at \(p)")
            XCTAssertEqual(code(placement.country, l.world), "CHN", "island at \(p)")
            islands += 1
        }
        XCTAssertGreaterThan(islands, 30)
    }

    /// The documented rule for points exactly on a border (docs/region-table-format.md): such a
    /// point belongs where the points just west of it, and on an east–west edge just north of it,
    /// belong, i.e. where (x − ε, y + ε²) is for an infinitesimal ε. The oracle here is the local
    /// geometry alone: the segments through the point, sorted by direction; the sector holding the
    /// direction "west, a hair north" is on the clockwise side of the first segment counter-clockwise
    /// from it. Checked at arc vertices (junctions of three or more units included) and at exact
    /// midpoints of segments, all over the table.
    func testPointsExactlyOnABorderFollowTheRule() throws {
        var checked: [String: Int] = [:]
        for arc in stride(from: 0, to: china.arcCount, by: 7) where china.arcLeft[arc] >= 0 && china.arcRight[arc] >= 0 {
            let vertices = china.arcVertices(arc)
            // The arc's first vertex is a junction; a middle vertex and an exact midpoint are not.
            var points: [(x: Int64, y: Int64, kind: String)] = [(Int64(vertices[0].x), Int64(vertices[0].y), "junction")]
            if vertices.count > 2 { points.append((Int64(vertices[vertices.count / 2].x), Int64(vertices[vertices.count / 2].y), "vertex")) }
            for (a, b) in zip(vertices, vertices.dropFirst()) where (a.x - b.x) % 2 == 0 && (a.y - b.y) % 2 == 0 && (a.x != b.x || a.y != b.y) {
                points.append(((Int64(a.x) + Int64(b.x)) / 2, (Int64(a.y) + Int64(b.y)) / 2, "midpoint"))
                break
            }
            for p in points {
                let expected = try XCTUnwrap(expectedUnit(x: p.x, y: p.y), "no segment through \(p)")
                XCTAssertEqual(china.unit(atX: p.x, y: p.y), expected, "\(p.kind) on the border at (\(p.x), \(p.y)), arc \(arc)")
                checked[p.kind, default: 0] += 1
            }
        }
        XCTAssertGreaterThan(checked["junction"] ?? 0, 500)
        XCTAssertGreaterThan(checked["vertex"] ?? 0, 300)
        XCTAssertGreaterThan(checked["midpoint"] ?? 0, 300)
    }

    /// The unit the rule gives a point that lies on one or more segments of the table (nil: none
    /// passes through it), from the directions of the segments leaving it.
    func expectedUnit(x: Int64, y: Int64) -> Int32?? {
        var rays: [(angle: Double, clockwiseUnit: Int32)] = []
        for (arc, metres) in china.arcsNear(x: x, y: y, radius: 1) where metres < 0.5 {
            let v = china.arcVertices(arc)
            for (a, b) in zip(v, v.dropFirst()) {
                let ax = Int64(a.x), ay = Int64(a.y), bx = Int64(b.x), by = Int64(b.y)
                guard (bx - ax) * (y - ay) == (by - ay) * (x - ax), min(ax, bx) <= x, x <= max(ax, bx), min(ay, by) <= y, y <= max(ay, by) else { continue }
                // Walking away from the point along the arc's direction, the right unit is clockwise;
                // against it, the left unit.
                if (bx, by) != (x, y) { rays.append((atan2(Double(by - y), Double(bx - x)), china.arcRight[arc])) }
                if (ax, ay) != (x, y) { rays.append((atan2(Double(ay - y), Double(ax - x)), china.arcLeft[arc])) }
            }
        }
        guard !rays.isEmpty else { return nil }
        // Angles in [0, 2π); "west, a hair north" is just below π: the first ray at or after π
        // counter-clockwise, else (wrapping) the first from 0.
        let normalised = rays.map { (angle: $0.angle < 0 ? $0.angle + 2 * Double.pi : $0.angle, unit: $0.clockwiseUnit) }
        let next = normalised.filter { $0.angle >= Double.pi }.min { $0.angle < $1.angle } ?? normalised.min { $0.angle < $1.angle }!
        return .some(next.unit < 0 ? nil : next.unit)
    }

    /// A neighbourhood gives exactly the fresh lookup's margins for nearby points in its regions,
    /// and nothing beyond its reach (central Beijing, county borders all around; Yanjiao; Paris).
    func testNeighbourhoodMarginsEqualFreshLookups() throws {
        let locator = RegionLocatorTests.locator
        var served = 0
        for (lat, lon) in [(39.9263, 116.3931), (39.94, 116.7740), (48.8566, 2.3522)] {
            let centre = try locator.locate(latitude: lat, longitude: lon)
            let n = try XCTUnwrap(locator.neighbourhood(latitude: lat, longitude: lon, placement: centre, reach: 200), "\(lat),\(lon)")
            for i in 0..<400 {
                // A spiral out to about 250 m.
                let r = Double(i) * 0.6, a = Double(i) * 0.7
                let p = (lat + r * sin(a) / 111_320, lon + r * cos(a) / (111_320 * cos(lat * .pi / 180)))
                let fresh = try locator.locate(latitude: p.0, longitude: p.1)
                let same = [fresh.country, fresh.province, fresh.city, fresh.county].map(\.region) == [centre.country, centre.province, centre.city, centre.county].map(\.region)
                guard let near = locator.placement(latitude: p.0, longitude: p.1, in: n) else {
                    XCTAssertGreaterThan(r, 190)
                    continue
                }
                XCTAssertLessThanOrEqual(r, 200)
                if same {
                    XCTAssertEqual(near, fresh, "\(p)")
                    served += 1
                }
            }
        }
        XCTAssertGreaterThan(served, 600)
    }
}

/// The locator's fast paths (jump table, chunk boxes, allocation-free nearby-arc walk) give
/// exactly the answers of the table's plain lookups.
final class RegionLocatorFastPathTests: XCTestCase {
    func testFastLookupsAndMarginsMatchThePlainOnes() throws {
        let l = RegionLocatorTests.locator
        let china = l.china
        var state: UInt64 = 99
        func uniform(_ low: Double, _ high: Double) -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return low + (high - low) * Double(state >> 11) / Double(1 << 53)
        }
        var found = 0, withMargin = 0
        for k in 0..<3_000 {
            // Half anywhere in China's box, half near Beijing, where county borders are dense.
            let lat = k % 2 == 0 ? uniform(18, 54) : uniform(39.6, 40.2), lon = k % 2 == 0 ? uniform(73, 135) : uniform(116.0, 116.8)
            let x = Int64((lon / 1e-5).rounded()), y = Int64((lat / 1e-5).rounded())
            let unit = china.unit(atX: x, y: y)
            let fast = l.chinaRegions(gcj02Latitude: lat, longitude: lon)
            XCTAssertEqual(fast.county, unit.flatMap { china.region(ofUnit: $0, at: .county) }, "(\(lat), \(lon))")
            XCTAssertEqual(fast.province, unit.flatMap { china.region(ofUnit: $0, at: .province) }, "(\(lat), \(lon))")
            guard let unit, let county = china.region(ofUnit: unit, at: .county) else { continue }
            found += 1
            // The county margin, by brute force over the plain nearby-arc search.
            let plain = china.arcsNear(x: x, y: y, radius: Int64((l.marginRadius / 1.1132).rounded(.up))).filter { arc, _ in
                let sides = [china.arcLeft[arc], china.arcRight[arc]].map { $0 < 0 ? nil : china.region(ofUnit: $0, at: .county) }
                return sides[0] != sides[1] && sides.contains(county)
            }.map(\.metres).min()
            let wgs = GCJ02.toWGS84(Coordinate(latitude: Double(y) * 1e-5, longitude: Double(x) * 1e-5))
            let placement = try l.locate(latitude: wgs.latitude, longitude: wgs.longitude)
            guard placement.gcj02 != nil, placement.county.region == county else { continue }
            XCTAssertEqual(placement.county.marginMetres ?? -1, plain ?? -1, accuracy: 1e-9, "(\(lat), \(lon))")
            if plain != nil { withMargin += 1 }
        }
        XCTAssertGreaterThan(found, 1_000)
        XCTAssertGreaterThan(withMargin, 100)
    }
}

/// The batch entry point gives, point for point, exactly what `locate(latitude:longitude:)` gives.
final class RegionLocatorBatchTests: XCTestCase {
    func testBatchPlacementsEqualScalarOnesEverywhere() throws {
        let l = RegionLocatorTests.locator
        let plain = try RegionLocator(tables: l.tables, marginRadius: 0)
        var state: UInt64 = 2026
        func uniform(_ low: Double, _ high: Double) -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return low + (high - low) * Double(state >> 11) / Double(1 << 53)
        }
        var points: [Coordinate] = []
        for k in 0..<40_001 {
            switch k % 4 {
            case 0: points.append(Coordinate(latitude: uniform(18, 54), longitude: uniform(73, 135)))  // China's box
            case 1: points.append(Coordinate(latitude: uniform(39.4, 41.0), longitude: uniform(115.4, 117.6)))  // Beijing–Hebei borders
            case 2: points.append(Coordinate(latitude: uniform(-60, 75), longitude: uniform(-180, 180)))  // the world
            default:
                // Along China's land borders and the rectangle's edges: Erenhot, Hong Kong, the Korean border, Bhutan.
                let centres = [(43.65, 111.98), (22.5, 114.1), (42.0, 128.0), (27.8, 89.6), (0.8293, 110.0), (40.0, 137.8347)]
                let c = centres[k / 4 % centres.count]
                points.append(Coordinate(latitude: c.0 + uniform(-0.3, 0.3), longitude: c.1 + uniform(-0.3, 0.3)))
            }
        }
        for locator in [l, plain] {
            var batch = [Placement](repeating: Placement(), count: points.count)
            try points.withUnsafeBufferPointer { p in try batch.withUnsafeMutableBufferPointer { try locator.locate(p, into: $0) } }
            var differing = 0, inChina = 0
            for (p, b) in zip(points, batch) {
                let scalar = try locator.locate(latitude: p.latitude, longitude: p.longitude)
                if scalar != b { differing += 1 }
                if scalar.gcj02 != nil { inChina += 1 }
            }
            XCTAssertEqual(differing, 0, "margin radius \(locator.marginRadius)")
            XCTAssertGreaterThan(inChina, 10_000)
        }
    }

    func testBatchNamesTheFirstBadPoint() {
        let points = [Coordinate(latitude: 39.9, longitude: 116.4), Coordinate(latitude: .nan, longitude: 116.4)]
        var batch = [Placement](repeating: Placement(), count: 2)
        XCTAssertThrowsError(try points.withUnsafeBufferPointer { p in try batch.withUnsafeMutableBufferPointer { try RegionLocatorTests.locator.locate(p, into: $0) } }) { error in
            XCTAssertEqual((error as? LocatorError)?.reason, "point 1: coordinate is not a finite number")
        }
        XCTAssertNotNil(batch[0].county.region)
    }
}
