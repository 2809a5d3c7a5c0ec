import BoundaryBuild
import ChinaDatum
import RegionTables
import TextFormats

/// `subdivisions.bin` against GEOS on its full-resolution source (the admin-1 units as the build
/// reads them: Orange3-Geo's polygons with Superset's codes, MakeValid where invalid, overlaps to
/// the smallest claimant), on the country harness's four point sets: (a) uniform on the sphere,
/// (b) within 5 km either side of every land border of the table (between subdivisions too),
/// (c) within 5 km of every coast, (d) a grid scan. Then each view's locator: where the view's
/// country is the source unit's country, its subdivision must be the source's beyond tolerance;
/// elsewhere it follows the view's country (counted apart).
enum SubdivisionAgreementBenchmark {
    static func run(naturalEarth: String, orange: String, superset: String, tables: String, sphere: Int = 1_000_000,
                    gridLatitudeStep: Double = 0.01, gridLongitudeStep: Double = 0.25) throws -> [String] {
        let started = Stopwatch.now()
        let countries = try NaturalEarthSource(location: naturalEarth)
        let source = try SubdivisionSource(orange: orange, superset: superset, codeByADM0A3: countries.codeByADM0A3, codeByAlpha2: countries.codeByAlpha2)
        let reference = try SourceReference(countries: source.units, seamCountry: nil)
        let outlines = SourceOutlines(countries: source.units)
        let table = try RegionTable(contentsOf: tables + "/subdivisions.bin")
        let landDeviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: "subdivisions.bin")
        let coast = BoundaryBuilder.defaultWorldCoastTolerance
        var limits = CountryAgreementReport.limits(world: table, landDeviation: landDeviation, coastTolerance: coast)
        limits[.seam] = limits[.landBorder]
        func answer(_ p: Coordinate) -> (code: String?, status: PlacementStatus) {
            let x = Int64((p.longitude / TableFormat.quantum).rounded()), y = Int64((p.latitude / TableFormat.quantum).rounded())
            guard let unit = table.unit(atX: x, y: y), let region = table.region(ofUnit: unit, at: .province) else { return (nil, .outside) }
            return (table.region(region).code, .inside)
        }
        var lines = [
            "Reference: GEOS \(GEOSContext().version) PreparedContains on the admin-1 units as the subdivision build reads them (\(SubdivisionSource.orangeRelease) "
                + "geometry, \(SubdivisionSource.supersetRelease) ISO codes, MakeValid where invalid, overlaps to the smallest claimant). The table answers by one unit "
                + "lookup (inside or none). Tolerances: land borders (between subdivisions too) the stated maximum deviation \(fixed(landDeviation, 2)) m + 1 m; "
                + "coasts \(fixed(coast + 1, 0)) m for an `inside` answer at sea, \(fixed(coast + table.buffer, 0)) m otherwise.",
        ]
        let sets: [(String, [Coordinate])] = [
            ("(a) \(sphere) points uniform on the sphere (sea included)", AgreementPoints.uniformOnSphere(count: sphere, seed: 41)),
            ("(b) points within 5 km either side of every land border (one per 250 m of the table's land-border arcs)",
             AgreementPoints.nearWorldArcs(table, coasts: false, spacing: 250, width: 5_000, seed: 42)),
            ("(c) points within 5 km of every coast (one per 1 km of the table's coast arcs and around every speck)",
             AgreementPoints.nearWorldArcs(table, coasts: true, spacing: 1_000, width: 5_000, seed: 43)),
        ]
        var failures = 0
        for (name, points) in sets {
            let start = Stopwatch.now()
            let report = try CountryAgreementReport(points, answer: answer, reference: reference, outlines: outlines, limits: limits, coastTolerance: coast)
            lines += ["", "**\(name)**: \(points.count) points (\(fixed(Stopwatch.now() - start, 0)) s).", ""]
            lines += report.markdownTable().map { $0.replacingOccurrences(of: "China's datum seam", with: "(none: one source)").replacingOccurrences(of: "no country", with: "no subdivision") }
            failures += report.failures.count
            if !report.failures.isEmpty { lines += ["", "Beyond tolerance (first 20): " + report.failures.prefix(20).map(\.description).joined(separator: "; ")] }
        }
        let start = Stopwatch.now()
        let scan = try CountryGridScan(latitudes: -60...84, longitudes: -180...180, latitudeStep: gridLatitudeStep, longitudeStep: gridLongitudeStep,
                                       outlines: { outlines }, limits: limits, coastTolerance: coast,
                                       answer: { lat, lon in answer(Coordinate(latitude: lat, longitude: lon)).code },
                                       source: { lat, lon in try reference.region(at: .country, longitude: lon, latitude: lat) },
                                       claims: { code, lat, lon in try reference.countryClaimants(longitude: lon, latitude: lat).contains(code) })
        lines += ["", "**(d) grid scan** (\(gridLatitudeStep)° × \(gridLongitudeStep)°, 60 S–84 N): \(scan.points) points, \(scan.insidePoints) answered `inside` a subdivision "
                  + "(\(fixed(Stopwatch.now() - start, 0)) s). Area answered `inside` a subdivision where the source puts the point elsewhere beyond tolerance: "
                  + "**\(fixed(scan.misassignedKm2, 1)) km²** in \(scan.clusters.count) clusters" + (scan.clusters.isEmpty ? "." : ": " + scan.clusters.prefix(30).map(\.description).joined(separator: "; ") + ".")]
        // Each view: the locator's subdivision against the source unit, where the view's country is that unit's.
        let countryOfUnit = Dictionary(uniqueKeysWithValues: source.units.map { ($0.code, $0.parentCode) })
        for worldview in Worldview.allCases {
            let locator = try RegionLocator(directory: tables, worldview: worldview, marginRadius: 0)
            let subdivisions = locator.tables.subdivisions!
            var compared = 0, agree = 0, within = 0, beyond: [String] = [], followsView = 0, chinaTable = 0
            for p in sets[0].1 + sets[1].1 {
                let placement = try locator.locate(latitude: p.latitude, longitude: p.longitude)
                guard let country = placement.country.region.map({ locator.world.region($0).code }), placement.country.status == .inside else { continue }
                if worldview == .china && country == "CHN" { chinaTable += 1; continue }
                let theirs = try reference.region(at: .country, longitude: p.longitude, latitude: p.latitude)
                guard let theirs, countryOfUnit[theirs] == country else { followsView += 1; continue }
                compared += 1
                let mine = placement.subdivision.region.map { subdivisions.region($0).code }
                if mine == theirs { agree += 1; continue }
                let involved = Set([mine, theirs].compactMap { $0 }.compactMap { outlines.codes.firstIndex(of: $0).map(Int32.init) })
                let distance = outlines.distance(longitude: p.longitude, latitude: p.latitude, to: involved, within: 20_000)
                if distance <= limits[.coast]! { within += 1 } else if beyond.count < 20 { beyond.append("\(p.latitude),\(p.longitude): \(mine ?? "none") against \(theirs), \(fixed(distance, 0)) m") }
                if distance > limits[.coast]! { failures += 1 }
            }
            lines += ["", "**The locator, `--worldview \(worldview.rawValue)`**, on sets (a) and (b), points `inside` a country: \(compared) where the view's country is the source unit's, "
                      + "\(agree) agree (\(fixed(100 * Double(agree) / Double(max(compared, 1)), 4))%), \(within) disagree within \(fixed(limits[.coast]!, 0)) m of the source border "
                      + "(the border tolerance plus the edge zone: a point near a subdivision border whose country the tables draw differently takes the nearest unit), "
                      + "\(beyond.count) beyond" + (beyond.isEmpty ? "" : " (" + beyond.joined(separator: "; ") + ")")
                      + "; \(followsView) where the view's country is another than the source unit's (answered by the view's country: docs/boundaries.md)"
                      + (worldview == .china ? "; \(chinaTable) in China, answered by the China table's provinces." : ".")]
        }
        lines += ["", failures == 0 && scan.clusters.isEmpty ? "**100% agreement beyond tolerance on all point sets in both views, and 0 km² misassigned in the grid scan.**"
                  : "**\(failures) disagreements beyond tolerance, \(fixed(scan.misassignedKm2, 1)) km² misassigned in the grid scan.**"]
        lines += ["", "Whole run: \(fixed(Stopwatch.now() - started, 0)) s."]
        return lines
    }
}
