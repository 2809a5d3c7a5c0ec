import ChinaDatum
import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// The subdivision table: slivers claimed at one point that reach past a tripoint (issue 33).
/// Natural Earth's admin-1 draws Mali's border with Niger's Tahoua as one straight segment, which
/// Gao's and Kidal's edges meet at their tripoint 4.5 m off it; so with Ohio, Pennsylvania and
/// Ontario's straight line in Lake Erie. Snap rounding made each sliver one triangle, claimed at
/// its point on surface by Gao (Ohio) south (west) of the tripoint, and the whole triangle went to
/// it: Gao answered 30.8 km from Gao's outline where the source has no unit, Ohio 4.5 km from
/// Ohio's where it has Pennsylvania (docs/boundaries.md, "Subdivisions"). The expected answers
/// are the source's, computed here with GEOS on the pinned wheels (`CountryAgreementReport`, the
/// subdivision harness's judge), on the harness's two points and on rows across both slivers.
final class ClaimedSliverTests: XCTestCase {
    /// The two points the subdivision harness found beyond tolerance (latitude, longitude).
    static let harnessPoints: [(Double, Double)] = [(18.252166261345238, 4.231507927835497), (42.331996807845684, -80.46623255351734)]
    /// The straight source segments the slivers run along (longitude, latitude of each end): where
    /// to look, not what to expect. Tahoua's border with Mali; Ontario's line in Lake Erie.
    static let segments: [((Double, Double), (Double, Double))] = [
        ((4.235637655000119, 16.995862935000076), (4.230270911936543, 18.64537384726256)),
        ((-81.27666215099995, 42.208665060000115), (-80.24659582599989, 42.36547719400012)),
    ]

    func testSliversPastATripointAnswerAsTheSource() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let naturalEarth = environment["ADMINUNLOCKS_NATURAL_EARTH"], let orange = environment["ADMINUNLOCKS_ORANGE_GEO"],
              let superset = environment["ADMINUNLOCKS_SUPERSET"] else {
            throw SourceError(path: "ADMINUNLOCKS_ORANGE_GEO", reason: "not set: run the tests through Scripts/test, which fetches the pinned wheels")
        }
        let tables = Repository.root + "/Data/regions"
        let table = try RegionTable(contentsOf: tables + "/" + TableSet.subdivisionsFile)
        // The units of the countries around both slivers, read as the subdivision build reads them.
        let countries = try NaturalEarthSource(location: naturalEarth)
        let source = try SubdivisionSource(orange: orange, superset: superset, codeByADM0A3: countries.codeByADM0A3, codeByAlpha2: countries.codeByAlpha2)
        let wanted: Set<String> = ["MLI", "NER", "DZA", "USA", "CAN"]
        let units = source.units.filter { wanted.contains($0.parentCode) }
        let reference = try SourceReference(countries: units, seamCountry: nil)
        let outlines = SourceOutlines(countries: units)
        let deviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: TableSet.subdivisionsFile)
        let coast = BoundaryBuilder.defaultWorldCoastTolerance
        var limits = CountryAgreementReport.limits(world: table, landDeviation: deviation, coastTolerance: coast)
        limits[.seam] = limits[.landBorder]

        var points = Self.harnessPoints.map { Coordinate(latitude: $0.0, longitude: $0.1) }
        // Every 500 m along each segment, rows of points 1 m apart from 40 m on one side to 40 m
        // on the other (the slivers are at most 4.5 m wide).
        for (a, b) in Self.segments {
            let cosine = cos((a.1 + b.1) / 2 * Double.pi / 180)
            let dx = (b.0 - a.0) * cosine * 111_320, dy = (b.1 - a.1) * 110_574
            let length = (dx * dx + dy * dy).squareRoot()
            let (nx, ny) = (-dy / length, dx / length)  // unit normal, metres
            for step in 0...Int(length / 500) {
                let t = Double(step) * 500 / length
                let x = a.0 + t * (b.0 - a.0), y = a.1 + t * (b.1 - a.1)
                for offset in -40...40 {
                    points.append(Coordinate(latitude: y + Double(offset) * ny / 110_574, longitude: x + Double(offset) * nx / (111_320 * cosine)))
                }
            }
        }
        XCTAssertGreaterThan(points.count, 40_000)
        let report = try CountryAgreementReport(points, answer: { p in
            let x = Int64((p.longitude / TableFormat.quantum).rounded()), y = Int64((p.latitude / TableFormat.quantum).rounded())
            guard let unit = table.unit(atX: x, y: y), let region = table.region(ofUnit: unit, at: .province) else { return (nil, .outside) }
            return (table.region(region).code, .inside)
        }, reference: reference, outlines: outlines, limits: limits, coastTolerance: coast)
        XCTAssertEqual(report.failures.count, 0, report.failures.prefix(20).map(\.description).joined(separator: "\n"))
        // The rows cross the slivers: some points disagree with the source there, within tolerance.
        XCTAssertGreaterThan(report.points - report.agreeing, 0)
    }
}
