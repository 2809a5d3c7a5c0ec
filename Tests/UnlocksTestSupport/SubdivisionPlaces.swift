import Foundation

/// Well-known places and the ISO 3166-2 codes of the apache-superset 6.1.0 features that hold
/// them (Tests/RegionTablesTests/Fixtures/subdivision-places.csv, written by
/// Scripts/fixtures/make-subdivision-places with shapely, independently of the build): the
/// expected subdivision of a place, for tests of the locator and of `unlocks locate`.
public enum SubdivisionPlaces {
    /// Codes by place name; several where Superset's files overlap (Crimea, France's regions and departments).
    public static let codes: [String: [String]] = {
        let path = Repository.fixtures("RegionTablesTests") + "/subdivision-places.csv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        var codes: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("name,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            codes[String(fields[0])] = fields[3].split(separator: "|").map(String.init)
        }
        return codes
    }()

    /// The one code of a place that Superset holds in one feature only (fails otherwise).
    public static func code(of place: String) -> String {
        guard let found = codes[place], found.count == 1 else { fatalError("subdivision-places.csv: \(place) has \(codes[place] ?? [])") }
        return found[0]
    }
}
