import BoundaryBuild
import ChinaDatum
import RegionTables
import SeededRandom

/// The locator alone (no GEOS, no source), for profiling it with `perf`: real-place-like points,
/// 300 around each seat of `real-places.csv` (±0.02°, ~2 km), located from WGS-84 at all four
/// levels, without and with margins.
enum LocatorProfile {
    static func run(tables: String, repeats: Int) throws -> [String] {
        let plain = try RegionLocator(directory: tables, marginRadius: 0)
        var margins = plain
        // Creating a locator over loaded tables builds its per-table lookups (jump tables, chunk boxes).
        let creation = try Stopwatch.best(of: repeats) {
            margins = try RegionLocator(tables: plain.tables, marginRadius: 300)
        }
        let places = try AgreementPoints.places(csv: try SourceArchive.readFile(AgreementBenchmark.placesPath), path: AgreementBenchmark.placesPath)
        var generator = SplitMix64(seed: 5)
        var points: [Coordinate] = []
        for place in places {
            for _ in 0..<300 {
                points.append(GCJ02.toWGS84(Coordinate(latitude: place.latitude + generator.uniform(-0.02, 0.02),
                                                       longitude: place.longitude + generator.uniform(-0.02, 0.02))))
            }
        }
        var sink = 0
        var lines = ["locator created over loaded tables in \(fixed(creation * 1000, 1)) ms, holding \(fixed(Double(margins.indexByteCount) / 1_048_576, 1)) MiB of run-time index",
                     "\(points.count) points around \(places.count) real places"]
        for (name, locator) in [("no margins", plain), ("margins within 300 m", margins)] {
            let seconds = try Stopwatch.best(of: repeats) {
                for p in points { sink &+= Int(try locator.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
            }
            lines.append("\(name): \(millions(Double(points.count) / seconds)) M points/s")
        }
        if sink == 42 { print("") }
        return lines
    }
}
