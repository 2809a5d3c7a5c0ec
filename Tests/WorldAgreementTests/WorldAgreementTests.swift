import ChinaDatum
import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import PlaceWalks
import UnlocksTestSupport

/// The committed world table against the full-resolution source countries (GEOS on the pinned
/// wheel, read as the world build reads it), where it was once wrong: the regions and places of
/// the world-table issue, plus random, border-band and coast-band points and a grid scan there.
/// The expected answers are the source's, computed here; none is written down. The whole world
/// is checked by `Scripts/bench agreement` (BENCHMARKS.md).
final class WorldAgreementTests: XCTestCase {
    /// Boxes (south, west, north, east) where the table once answered a country far from it.
    static let boxes: [(name: String, box: (south: Double, west: Double, north: Double, east: Double))] = [
        ("the Micronesia band (Ant atoll's latitude)", (6.05, 131.5, 7.5, 158.5)),
        ("Palau", (6.8, 134.0, 8.2, 134.9)),
        ("Chuuk", (7.0, 151.4, 7.7, 152.2)),
        ("Guyana and Suriname along the Corentyne", (4.5, -59.5, 6.0, -56.5)),
        ("the Bay of Bengal off Bangladesh", (21.4, 88.8, 22.4, 90.0)),
        ("the Chukchi Sea off Alaska", (69.4, -170.0, 69.9, -163.0)),
        ("Abyei", (9.4, 28.0, 9.9, 29.0)),
        ("French Guiana at 3.97 N", (3.8, -52.1, 4.1, -51.6)),
    ]

    /// The examples of the issue: (latitude, longitude).
    static let examples: [(Double, Double)] = [(5.3, -59.0), (5.4, -58.0), (6.8, 150.0), (7.0, 134.5), (21.7797, 89.3927)]

    /// Places where a walk once unlocked the country only with `--lenient`.
    static let namedPlaces: [PlaceVisits.Place] = [
        .init(id: "male", latitude: 4.1755, longitude: 73.5093, name: "Malé"),
        .init(id: "miami", latitude: 25.7617, longitude: -80.1918, name: "downtown Miami"),
        .init(id: "barcelona", latitude: 41.3784, longitude: 2.1925, name: "Barcelona's beach"),
        .init(id: "willemstad", latitude: 12.1091, longitude: -68.9316, name: "Willemstad"),
    ]
    /// Countries (ISO 3166 alpha-2, as GeoNames writes them) whose every populated place is walked in CI.
    static let islandCountries: Set<String> = ["PH", "MV", "CW", "FM", "PW", "MH", "BS", "MU", "FJ"]

    struct Fixture {
        var locator: RegionLocator
        var reference: SourceReference
        var outlines: SourceOutlines
        var limits: [CountryAgreementReport.Kind: Double]
        var places: [PlaceVisits.Place]
    }

    static let root = Repository.root

    /// The committed tables and the source countries whose table bounding boxes meet a box or a place.
    // The fixture holds a SourceReference, a GEOS context that one thread at a time may use: XCTest
    // runs these tests one after another on one thread, the only one that touches it.
    nonisolated(unsafe) static let fixture: Result<Fixture, Error> = Result {
        guard let path = ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"] else {
            throw SourceError(path: "ADMINUNLOCKS_SOURCE", reason: "not set: run the tests through Scripts/test, which fetches the pinned source")
        }
        let tables = root + "/Data/regions"
        let locator = try RegionLocator(directory: tables, marginRadius: 120)
        let fixturePath = root + "/" + PlaceVisits.fixture
        let all = try PlaceVisits.places(csv: try SourceArchive.readFile(fixturePath), path: fixturePath)
        let countryOf = try WorldAgreementTests.countryColumn(fixturePath)
        let places = namedPlaces + all.filter { islandCountries.contains(countryOf[$0.id] ?? "") }
        var areas = boxes.map(\.box)
        for p in places { areas.append((p.latitude - 0.02, p.longitude - 0.02, p.latitude + 0.02, p.longitude + 0.02)) }
        var wanted = Set<String>()
        for region in locator.world.regions {
            let b = region.boundingBox
            let south = Double(b.minY) * TableFormat.quantum, north = Double(b.maxY) * TableFormat.quantum
            let west = Double(b.minX) * TableFormat.quantum, east = Double(b.maxX) * TableFormat.quantum
            // Countries across the antimeridian have boxes around the world: they are asked for only
            // where a box meets one of their parts, which a world-wide box cannot tell; keep them out
            // unless named (none of the regions here is near one).
            guard east - west < 300 else { continue }
            if areas.contains(where: { $0.south <= north && south <= $0.north && $0.west <= east && west <= $0.east }) { wanted.insert(region.code) }
        }
        wanted.insert("USA")
        let catalog = try SourceCatalog(try SourceArchive(location: path), levels: [.country], includeWorld: true, countries: wanted)
        let landDeviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: "world.bin")
        return Fixture(locator: locator, reference: try SourceReference(catalog), outlines: SourceOutlines(catalog),
                       limits: CountryAgreementReport.limits(world: locator.world, landDeviation: landDeviation,
                                                              coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance),
                       places: places)
    }

    /// geonameid → ISO alpha-2 country, from the fixture's fourth column.
    static func countryColumn(_ path: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in String(decoding: try SourceArchive.readFile(path), as: UTF8.self).split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false)
            if f.count == 5 { result[String(f[0])] = String(f[3]) }
        }
        return result
    }

    func testTheIssuesExamplesAnswerAsTheSourceDoes() throws {
        let f = try Self.fixture.get()
        for (lat, lon) in Self.examples {
            let answer = try f.locator.locate(latitude: lat, longitude: lon).country
            let mine = answer.status == .inside ? answer.region.map { f.locator.world.region($0).code } : nil
            let theirs = try f.reference.region(at: .country, longitude: lon, latitude: lat)
            XCTAssertEqual(mine, theirs, "\(lat), \(lon): locator \(answer), source \(theirs ?? "none")")
        }
    }

    func testCountriesAgreeWithTheSourceBeyondToleranceWhereTheyOnceDidNot() throws {
        let f = try Self.fixture.get()
        var points: [Coordinate] = []
        for (k, entry) in Self.boxes.enumerated() {
            let b = entry.box
            points += AgreementPoints.random(count: 3_000, longitudes: b.west...b.east, latitudes: b.south...b.north, seed: 100 + UInt64(k))
            points += AgreementPoints.nearWorldArcs(f.locator.world, coasts: true, spacing: 200, width: 5_000, seed: 200 + UInt64(k), within: b)
            points += AgreementPoints.nearWorldArcs(f.locator.world, coasts: false, spacing: 100, width: 5_000, seed: 300 + UInt64(k), within: b)
        }
        let report = try CountryAgreementReport(points, locator: f.locator, reference: f.reference, outlines: f.outlines, limits: f.limits,
                                                coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance)
        XCTAssertGreaterThan(report.points, 30_000)
        XCTAssertEqual(report.failures.count, 0, report.failures.prefix(20).map(\.description).joined(separator: "\n"))
    }

    func testTheGridScanFindsNoMisassignedAreaThere() throws {
        let f = try Self.fixture.get()
        for entry in Self.boxes {
            let b = entry.box
            let scan = try CountryGridScan(latitudes: b.south...b.north, longitudes: b.west...b.east, latitudeStep: 0.01, longitudeStep: 0.05,
                                           locator: f.locator, reference: f.reference, outlines: f.outlines, limits: f.limits,
                                           coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance)
            XCTAssertGreaterThan(scan.points, 0)
            XCTAssertEqual(scan.misassignedKm2, 0, "\(entry.name): " + scan.clusters.prefix(10).map(\.description).joined(separator: "; "))
        }
    }

    func testAWalkInEveryIslandTownConfirmsItsCountry() throws {
        let f = try Self.fixture.get()
        let result = try PlaceVisits.check(f.places, locator: f.locator, reference: f.reference)
        XCTAssertGreaterThan(result.inACountry, 150)
        XCTAssertEqual(result.failures.count, 0, result.failures.prefix(30).map(\.description).joined(separator: "\n"))
        // The named places are all in a country by the source.
        for place in Self.namedPlaces {
            XCTAssertNotNil(try f.reference.region(at: .country, longitude: place.longitude, latitude: place.latitude), place.name)
        }
    }
}
