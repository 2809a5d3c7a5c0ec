import Foundation

/// Well-known places and the ISO 3166-2 codes of the apache-superset 6.1.0 features that hold
/// them (Tests/RegionTablesTests/Fixtures/subdivision-places.csv, written by
/// Scripts/fixtures/make-subdivision-places with shapely, independently of the build): the
/// expected subdivision of a place, for tests of the locator and of `unlocks locate`.
public enum SubdivisionPlaces {
    /// By place name: every code of a Superset feature holding it (several where Superset's files
    /// overlap: Crimea, France's regions and departments, Taipei in China's file and Taiwan's), and
    /// the place's country's, from the file with the most features: the one a unit there takes.
    public static let places: [String: (latitude: Double, longitude: Double, codes: [String], code: String)] = {
        let path = Repository.fixtures("RegionTablesTests") + "/subdivision-places.csv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        var places: [String: (latitude: Double, longitude: Double, codes: [String], code: String)] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("name,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            places[fields[0]] = (Double(fields[1])!, Double(fields[2])!, fields[3].split(separator: "|").map(String.init), fields[4])
        }
        return places
    }()

    /// The code of the unit that holds `place` (a name of the fixture).
    public static func code(of place: String) -> String {
        guard let found = places[place] else { fatalError("subdivision-places.csv has no \(place)") }
        return found.code
    }
}
