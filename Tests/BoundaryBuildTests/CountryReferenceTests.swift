import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import XCTest
@testable import BoundaryBuild

/// The source reference's country level (WGS-84 input), on a few countries of the pinned source
/// (``SourceSubset``): China, Mongolia, Russia and the two Koreas. The answers near borders are
/// derived from the source polygons themselves (ring orientation, GEOS distance and containment
/// on geometries built here), not written down.
final class CountryReferenceTests: XCTestCase {
    static let subset: Set<String> = ["CHN", "KOR", "MNG", "PRK", "RUS"]

    // SourceReference holds a GEOS context, which one thread at a time may use: XCTest runs these
    // tests one after another on one thread, the only one that touches the fixture.
    nonisolated(unsafe) static let fixture: Result<(catalog: SourceCatalog, reference: SourceReference), Error> = Result {
        let catalog = try SourceCatalog(try SourceSubset.archive.get(), levels: [.country], includeWorld: true, countries: subset)
        return (catalog, try SourceReference(catalog))
    }

    func country(_ code: String) throws -> SourceRegion {
        let (catalog, _) = try Self.fixture.get()
        return try XCTUnwrap(code == "CHN" ? catalog.chinaOutline : catalog.countries.first { $0.code == code }, code)
    }

    func geometry(_ region: SourceRegion, _ context: GEOSContext) throws -> Geometry {
        try context.multiPolygon(region.polygons.map { $0.rings.map { ring in ring.flatMap { [$0.x, $0.y] } } })
    }

    /// Twice the ring's signed area (positive when it runs counter-clockwise).
    static func signedArea(_ ring: [Position]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0.x * $1.1.y - $1.1.x * $1.0.y }
    }

    /// Planar distance (degrees) from `p` to the segment `a`–`b`, and whether the foot of the
    /// perpendicular falls strictly inside the segment.
    static func distance(_ p: Position, _ a: Position, _ b: Position) -> (Double, interior: Bool) {
        let dx = b.x - a.x, dy = b.y - a.y
        let t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)
        let c = min(max(t, 0), 1)
        return (((p.x - a.x - c * dx) * (p.x - a.x - c * dx) + (p.y - a.y - c * dy) * (p.y - a.y - c * dy)).squareRoot(), t > 0.05 && t < 0.95)
    }

    func testASubsetCatalogHoldsOnlyTheCountriesAskedFor() throws {
        let (catalog, reference) = try Self.fixture.get()
        XCTAssertEqual(catalog.countries.map(\.code), ["KOR", "MNG", "PRK", "RUS"])
        XCTAssertEqual(catalog.chinaOutline?.code, "CHN")
        XCTAssertTrue(catalog.china.isEmpty)
        XCTAssertTrue(catalog.hasCountryLevel)
        XCTAssertEqual(reference.levels, [.country])
        for code in Self.subset { XCTAssertTrue(reference.hasRegion(code, at: .country), code) }
        XCTAssertFalse(reference.hasRegion("JPN", at: .country))
        // Tokyo is in a country the catalog does not hold: no answer.
        XCTAssertNil(try reference.region(at: .country, longitude: 139.6917, latitude: 35.6895))

        let archive = try SourceSubset.archive.get()
        let mongolia = try SourceCatalog(archive, levels: [.country], includeWorld: true, countries: ["MNG"])
        XCTAssertNil(mongolia.chinaOutline, "CHN was not asked for")
        XCTAssertEqual(mongolia.countries.map(\.code), ["MNG"])
        XCTAssertThrowsError(try SourceCatalog(archive, levels: [.country], countries: ["MNG", "XYZ"])) { error in
            XCTAssertTrue("\(error)".contains("no country XYZ"), "\(error)")
        }
    }

    func testTheProvinceFilterIsUndisturbedAndChinaOnlyCatalogsHaveNoCountryLevel() throws {
        let both = try SourceCatalog(try SourceSubset.archive.get(), levels: [.province], includeWorld: true, provinces: ["15"], countries: ["MNG"])
        XCTAssertEqual(both.china.map(\.code), ["150000"])
        XCTAssertNil(both.chinaOutline)
        XCTAssertEqual(both.countries.map(\.code), ["MNG"])
        let reference = try SourceReference(both)
        XCTAssertEqual(reference.levels, [.country, .province])
        // Hohhot (GCJ-02) at province level, Ulaanbaatar (WGS-84) at country level.
        XCTAssertEqual(try reference.region(at: .province, longitude: 111.7490, latitude: 40.8424), "150000")
        XCTAssertEqual(try reference.region(at: .country, longitude: 106.9177, latitude: 47.9186), "MNG")
        XCTAssertNil(try reference.region(at: .country, longitude: 111.7490, latitude: 40.8424), "China's outline was not asked for")

        // China-only catalogs (includeWorld: false) keep their outline but get no country level.
        let chinaOnly = try SourceSubset.catalog.get()
        XCTAssertFalse(chinaOnly.hasCountryLevel)
        XCTAssertNotNil(chinaOnly.chinaOutline)
        XCTAssertTrue(chinaOnly.countries.isEmpty)
        XCTAssertEqual(try SourceAgreementTests.fixture.get().reference.levels, [.province, .city, .county])
    }

    func testPlacesAndSeaInWGS84() throws {
        let (_, reference) = try Self.fixture.get()
        let places: [(name: String, latitude: Double, longitude: Double, code: String?)] = [
            ("Ulaanbaatar", 47.9186, 106.9177, "MNG"),
            ("Beijing, Tiananmen", 39.9055, 116.3976, "CHN"),
            ("Moscow", 55.7539, 37.6208, "RUS"),
            ("Chukotka, west of the antimeridian", 66.5, -175.0, "RUS"),
            ("Pyongyang", 39.0392, 125.7625, "PRK"),
            ("Seoul", 37.5665, 126.9780, "KOR"),
            ("Yellow Sea (in China's bounding box)", 36.0, 123.0, nil),
            ("Bohai Sea", 38.9, 120.2, nil),
        ]
        for place in places {
            XCTAssertEqual(try reference.region(at: .country, longitude: place.longitude, latitude: place.latitude), place.code, place.name)
        }
        // North Korea's source polygon is invalid and repaired as the world build repairs it.
        XCTAssertEqual(Array(reference.repairedCountries.keys), ["PRK"])
        XCTAssertThrowsError(try reference.borderDistance(at: .country, longitude: 106.9, latitude: 47.9))
    }

    /// Mongolia and Russia share their border vertex for vertex in the source. Points 30 m either
    /// side of it, where that border is the nearest of either country's: the side each country's
    /// interior lies on follows from its ring's orientation.
    func testPointsJustEitherSideOfTheMongoliaRussiaBorder() throws {
        let (_, reference) = try Self.fixture.get()
        let context = GEOSContext()
        let mongolia = try country("MNG"), russia = try country("RUS")
        struct Edge: Hashable { var ax, ay, bx, by: Double }
        // Russia's directed edges, each with whether Russia's interior lies on its left.
        var russian: [Edge: Bool] = [:]
        for polygon in russia.polygons {
            for (k, ring) in polygon.rings.enumerated() {
                let left = (Self.signedArea(ring) > 0) == (k == 0)
                for (a, b) in zip(ring, ring.dropFirst()) { russian[Edge(ax: a.x, ay: a.y, bx: b.x, by: b.y)] = left }
            }
        }
        // Mongolia's edges that Russia has too (in the opposite direction, or the two would overlap).
        var shared: [(a: Position, b: Position, mongoliaLeft: Bool)] = []
        for polygon in mongolia.polygons {
            for (k, ring) in polygon.rings.enumerated() {
                let left = (Self.signedArea(ring) > 0) == (k == 0)
                for (a, b) in zip(ring, ring.dropFirst()) {
                    XCTAssertNil(russian[Edge(ax: a.x, ay: a.y, bx: b.x, by: b.y)], "an edge both run the same way")
                    guard let russiaLeftOfBA = russian[Edge(ax: b.x, ay: b.y, bx: a.x, by: a.y)] else { continue }
                    // Russia's interior left of b→a is its interior right of a→b: opposite Mongolia's.
                    XCTAssertEqual(russiaLeftOfBA, left, "Russia and Mongolia on the same side of \(a)–\(b)")
                    shared.append((a, b, left))
                }
            }
        }
        XCTAssertGreaterThan(shared.count, 3000)

        let mongolianBorder = try PreparedGeometry(try geometry(mongolia, context).boundary())
        let russianBorder = try PreparedGeometry(try geometry(russia, context).boundary())
        let offset = 30.0
        var checked = 0
        for (a, b, mongoliaLeft) in stride(from: 0, to: shared.count, by: 37).map({ shared[$0] }) {
            let latitude = (a.y + b.y) / 2 * Double.pi / 180
            let kx = 111_320 * cos(latitude), ky = 110_574.0
            let dx = (b.x - a.x) * kx, dy = (b.y - a.y) * ky
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 8 * offset else { continue }
            let mid = Position(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
            // The left normal, offset metres long, in degrees.
            let nx = -dy / length * offset / kx, ny = dx / length * offset / ky
            for (sign, expected) in [(1.0, mongoliaLeft ? "MNG" : "RUS"), (-1.0, mongoliaLeft ? "RUS" : "MNG")] {
                let p = Position(x: mid.x + sign * nx, y: mid.y + sign * ny)
                // This edge must be the nearest piece of either border (then its side decides).
                let (d, interior) = Self.distance(p, a, b)
                let point = try context.point(x: p.x, y: p.y)
                guard interior, try abs(mongolianBorder.distance(to: point) - d) < 1e-12 * max(d, 1),
                      try abs(russianBorder.distance(to: point) - d) < 1e-12 * max(d, 1) else { continue }
                XCTAssertEqual(try reference.region(at: .country, longitude: p.x, latitude: p.y), expected, "\(p) beside \(a)–\(b)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// Mongolia's source follows China's GCJ-02 line; China in WGS-84 moves off it by a few hundred
    /// metres, overlapping Mongolia in places and leaving gaps in others. Around that border the
    /// reference answers as the world build decides: China where both claim a point, nothing in
    /// the gaps. Expected answers come from geometries built here (China converted with
    /// ``GCJ02/toWGS84(_:)``).
    func testTheDatumSeamWithMongoliaFollowsTheWorldBuildsRule() throws {
        let (_, reference) = try Self.fixture.get()
        let context = GEOSContext()
        let mongolia = try country("MNG"), russia = try country("RUS")
        var china = try country("CHN")
        china.polygons = china.polygons.map { polygon in
            PolygonRings(rings: polygon.rings.map { ring in
                ring.map { p in
                    let w = GCJ02.toWGS84(Coordinate(latitude: p.y, longitude: p.x))
                    return Position(x: w.longitude, y: w.latitude)
                }
            })
        }
        let claimants: [(code: String, prepared: PreparedGeometry)] = try [("CHN", china), ("MNG", mongolia), ("RUS", russia)].map { code, region in
            let g = try geometry(region, context)
            XCTAssertTrue(try g.isValid(), code)
            return (code, try PreparedGeometry(g))
        }
        let russianVertices = Set(russia.polygons.flatMap { $0.rings.flatMap { $0.map { [$0.x, $0.y] } } })
        var overlap = 0, gap = 0, mongolian = 0, chinese = 0
        let ring = mongolia.polygons.max { $0.rings[0].count < $1.rings[0].count }!.rings[0]
        for k in stride(from: 0, to: ring.count - 1, by: 11) {
            let a = ring[k], b = ring[k + 1]
            guard !russianVertices.contains([a.x, a.y]), !russianVertices.contains([b.x, b.y]) else { continue }
            let latitude = (a.y + b.y) / 2 * Double.pi / 180
            let kx = 111_320 * cos(latitude), ky = 110_574.0
            let dx = (b.x - a.x) * kx, dy = (b.y - a.y) * ky
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            for metres in [-600.0, -200, -50, 50, 200, 600] {
                let x: Double = (a.x + b.x) / 2 - dy / length * metres / kx
                let y: Double = (a.y + b.y) / 2 + dx / length * metres / ky
                let p = Position(x: x, y: y)
                let point = try context.point(x: p.x, y: p.y)
                let claiming = try claimants.filter { try $0.prepared.contains(point) }.map(\.code)
                let expected: String?
                if claiming.contains("CHN") {
                    expected = "CHN"
                    if claiming.contains("MNG") { overlap += 1 } else { chinese += 1 }
                } else if claiming == ["MNG"] {
                    expected = "MNG"
                    mongolian += 1
                } else if claiming.isEmpty {
                    expected = nil
                    gap += 1
                } else {
                    continue  // Mongolia and Russia both: not this test's business
                }
                XCTAssertEqual(try reference.region(at: .country, longitude: p.x, latitude: p.y), expected, "\(p): claimed by \(claiming)")
            }
        }
        // The seam is real in both directions, and most points are plainly on one side.
        XCTAssertGreaterThan(overlap, 10)
        XCTAssertGreaterThan(gap, 10)
        XCTAssertGreaterThan(mongolian, overlap)
        XCTAssertGreaterThan(chinese, overlap)
    }
}
