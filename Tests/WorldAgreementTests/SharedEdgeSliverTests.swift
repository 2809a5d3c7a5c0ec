import ChinaDatum
import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// International view: the band along Egypt's and Bir Tawil's shared edge at 22 N (issue 23).
/// Each country simplified on its own before noding left two copies of the edge a few metres
/// apart; snap rounding joined that sliver with Egypt's and Sudan's east of the tripoint into one
/// face, claimed by Sudan at the one point tested: a band 9–27 m tall answered Sudan 9–29 km from
/// Sudan's outline, where the source has Egypt or Bir Tawil (docs/boundaries.md). The expected answers are
/// Natural Earth's, computed here with GEOS on the pinned wheel (`CountryAgreementReport`), on
/// the harness's four points, on rows through the band and on random points around it.
final class SharedEdgeSliverTests: XCTestCase {
    /// The four points the international harness found beyond tolerance (latitude, longitude).
    static let harnessPoints: [(Double, Double)] = [
        (21.995440727180608, 33.85268069391168), (21.99547237511628, 33.71094394283686),
        (21.995451779461405, 33.731471743750305), (21.99544884377607, 33.98725285484889),
    ]

    func testTheBandAlongBirTawilsNorthernEdgeAnswersAsNaturalEarth() throws {
        guard let wheel = ProcessInfo.processInfo.environment["ADMINUNLOCKS_NATURAL_EARTH"] else {
            throw SourceError(path: "ADMINUNLOCKS_NATURAL_EARTH", reason: "not set: run the tests through Scripts/test, which fetches the pinned wheel")
        }
        let tables = Repository.root + "/Data/regions"
        let locator = try RegionLocator(directory: tables, worldview: .international, marginRadius: 0)
        // The countries around the band, read as the international build reads them.
        let wanted: Set<String> = ["EGY", "SDN", "BRT", "LBY", "TCD", "SAU"]
        let countries = try NaturalEarthSource(location: wheel).countries.filter { wanted.contains($0.code) }
        XCTAssertEqual(Set(countries.map(\.code)), wanted)
        let reference = try SourceReference(countries: countries, seamCountry: nil)
        let outlines = SourceOutlines(countries: countries)
        let deviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: Worldview.international.worldFile)
        var limits = CountryAgreementReport.limits(world: locator.world, landDeviation: deviation, coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance)
        limits[.seam] = limits[.landBorder]

        var points = Self.harnessPoints.map { Coordinate(latitude: $0.0, longitude: $0.1) }
        // Rows 1.1 m apart across the band (21.9953–21.9957 N), every 0.01° from Bir Tawil's
        // western corner to past the Red Sea end of Egypt's 22nd-parallel line.
        for row in 0...36 {
            for column in 0...370 {
                points.append(Coordinate(latitude: 21.9953 + Double(row) * 0.00001, longitude: 33.17 + Double(column) * 0.01))
            }
        }
        points += AgreementPoints.random(count: 20_000, longitudes: 33.1...36.9, latitudes: 21.97...22.02, seed: 2_301)
        let report = try CountryAgreementReport(points, locator: locator, reference: reference, outlines: outlines, limits: limits,
                                                coastTolerance: BoundaryBuilder.defaultWorldCoastTolerance)
        XCTAssertEqual(report.failures.count, 0, report.failures.prefix(20).map(\.description).joined(separator: "\n"))
        // And the band itself is not Sudan's west of the eastern tripoint (34.084 E), where Sudan's
        // outline is more than 9 km away.
        for column in 0...90 {
            let longitude = 33.2 + Double(column) * 0.0095
            for latitude in stride(from: 21.99535, through: 21.99560, by: 0.00001) {
                let country = try locator.locate(latitude: latitude, longitude: longitude).country
                let code = country.status == .inside ? country.region.map { locator.world.region($0).code } : nil
                XCTAssertNotEqual(code, "SDN", "\(latitude), \(longitude)")
            }
        }
    }
}
