import BoundaryBuild
import RegionTables
import Tracks
import Unlocks
#if canImport(Glibc)
import Glibc
#endif

/// "A short walk in any town unlocks its country": for every populated place the source puts in a
/// country, a 10-minute walk there (a point every 10 s, 400 m west to east and back through the
/// place at 1.33 m/s, 10 m accuracy) must give a confirmed unlock of that country, without
/// `--lenient`. The places are GeoNames' cities15000 (`Scripts/fixtures/make-populated-places`).
public enum PlaceVisits {
    public struct Place: Sendable {
        public var id: String
        public var latitude: Double
        public var longitude: Double
        public var name: String

        public init(id: String, latitude: Double, longitude: Double, name: String) {
            self.id = id
            self.latitude = latitude
            self.longitude = longitude
            self.name = name
        }
    }

    public struct Failure: CustomStringConvertible {
        public var place: Place
        public var sourceCountry: String
        /// The country's evidence from the walk: nil when it was not even tentative.
        public var status: String
        public var description: String { "\(place.name) (\(place.latitude), \(place.longitude)), \(sourceCountry): \(status)" }
    }

    public struct Result {
        public var places = 0
        /// Places the source puts in a country (the others are at sea by the source: no target).
        public var inACountry = 0
        public var confirmed = 0
        public var failures: [Failure] = []
    }

    public static let fixture = "Tests/WorldAgreementTests/Fixtures/populated-places.csv"

    /// Reads `populated-places.csv` (`geonameid,latitude,longitude,country,name`).
    public static func places(csv bytes: [UInt8], path: String) throws -> [Place] {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.first == "geonameid,latitude,longitude,country,name" else {
            throw SourceError(path: path, reason: "expected the header geonameid,latitude,longitude,country,name")
        }
        return try lines.dropFirst().enumerated().map { number, line in
            let f = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false)
            guard f.count == 5, let lat = Double(f[1]), let lon = Double(f[2]) else {
                throw SourceError(path: path, reason: "line \(number + 2): expected geonameid,latitude,longitude,country,name")
            }
            return Place(id: String(f[0]), latitude: lat, longitude: lon, name: String(f[4]))
        }
    }

    /// The walk at a place: 61 fixes, west to east through the place and back.
    public static func walk(_ place: Place, start: Int64 = 1_717_200_000_000) -> [TrackPoint] {
        let metresPerDegree = 111_320.0, cosine = max(cos(place.latitude * Double.pi / 180), 0.01)
        return (0...60).map { k in
            // 0 … 30: from 200 m west to 200 m east; 31 … 60: back.
            let along = k <= 30 ? -200 + 400 * Double(k) / 30 : 200 - 400 * Double(k - 30) / 30
            return TrackPoint(latitude: place.latitude, longitude: place.longitude + along / (metresPerDegree * cosine),
                              time: start + Int64(k) * 10_000, accuracy: 10)
        }
    }

    /// Walks at every place, each classified on its own (a fresh ledger), against the source country.
    public static func check(_ places: [Place], locator: RegionLocator, reference: SourceReference) throws -> Result {
        var result = Result()
        for place in places {
            result.places += 1
            guard let country = try reference.region(at: .country, longitude: place.longitude, latitude: place.latitude) else { continue }
            result.inACountry += 1
            var classifier = TrackClassifier(locator: locator, options: ClassifyOptions())
            classifier.begin(InputRecord(path: place.name, fingerprint: place.id, format: "walk"))
            for point in walk(place) { classifier.point(point) }
            classifier.finish()
            let ledger = try classifier.takeLedger().combined()
            let evidence = ledger.regions.first { $0.key.level == .country && locator.world.region($0.key.index).code == country }?.value
            if evidence?.isConfirmed == true {
                result.confirmed += 1
            } else {
                let found = ledger.regions.filter { $0.key.level == .country }.map { key, value in
                    "\(locator.world.region(key.index).code) \(value.isConfirmed ? "confirmed" : "tentative")"
                }.sorted()
                result.failures.append(Failure(place: place, sourceCountry: country,
                                               status: evidence == nil ? "not unlocked (walk gave \(found.isEmpty ? "no country" : found.joined(separator: ", ")))" : "tentative only"))
            }
        }
        return result
    }
}
