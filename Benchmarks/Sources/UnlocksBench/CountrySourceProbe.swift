import BoundaryBuild
import RegionTables

/// How long the country level of the source reference takes to load: the wheel, then a catalog
/// and a ``SourceReference`` of a few countries (what the audit asks for) and of all of them, and
/// the time per query (for choosing how the audit checks countries).
enum CountrySourceProbe {
    static func run(_ path: String, subset: Set<String>) throws -> [String] {
        var start = Stopwatch.now()
        func lap() -> String {
            defer { start = Stopwatch.now() }
            return "\(fixed(Stopwatch.now() - start, 2)) s"
        }
        let archive = try SourceArchive(location: path)
        var lines = ["wheel read and unzipped: \(lap())"]
        for (name, wanted) in [(subset.sorted().joined(separator: "+"), Optional(subset)), ("all countries", nil)] {
            let catalog = try SourceCatalog(archive, levels: [.country], includeWorld: true, countries: wanted)
            let parsed = lap()
            let reference = try SourceReference(catalog)
            let prepared = lap()
            let count = catalog.countries.count + (catalog.chinaOutline == nil ? 0 : 1)
            // Points on a 0.5° lattice over the subset's area (or the world's land latitudes).
            var queries = 0, found = 0
            for i in 0..<200 {
                for j in 0..<100 {
                    let lon = wanted == nil ? -180 + 1.8 * Double(i) + 0.3 : 20 + 0.8 * Double(i) + 0.3
                    let lat = wanted == nil ? -60 + 1.4 * Double(j) + 0.1 : 15 + 0.6 * Double(j) + 0.1
                    queries += 1
                    if try reference.region(at: .country, longitude: lon, latitude: lat) != nil { found += 1 }
                }
            }
            let queried = Stopwatch.now() - start
            start = Stopwatch.now()
            lines.append("\(name): \(count) countries; catalog \(parsed), reference \(prepared); \(queries) queries in \(fixed(queried, 2)) s "
                         + "(\(fixed(queried / Double(queries) * 1e6, 0)) µs each, first-touch preparation included; \(found) in a country); "
                         + "repaired: \(reference.repairedCountries.keys.sorted().joined(separator: ", "))")
        }
        return lines
    }
}
