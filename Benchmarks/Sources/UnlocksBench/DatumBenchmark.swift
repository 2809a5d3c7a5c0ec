import BoundaryBuild
import ChinaDatum
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// Throughput of the datum conversions, against the textbook implementation (twelve libm sines
/// per point) measured in the same process.
enum DatumBenchmark {
    /// The published algorithm written the obvious way, with libm: the baseline.
    static func textbookOffset(latitude: Double, longitude: Double) -> (Double, Double) {
        let x = longitude - 105, y = latitude - 35
        var dLat = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        dLat += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        dLat += (20 * sin(y * .pi) + 40 * sin(y / 3 * .pi)) * 2 / 3
        dLat += (160 * sin(y / 12 * .pi) + 320 * sin(y * .pi / 30)) * 2 / 3
        var dLon = 300 + x + 2 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        dLon += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        dLon += (20 * sin(x * .pi) + 40 * sin(x / 3 * .pi)) * 2 / 3
        dLon += (150 * sin(x / 12 * .pi) + 300 * sin(x / 30 * .pi)) * 2 / 3
        let a = GCJ02.semiMajorAxis, ee = GCJ02.eccentricitySquared
        let radLat = latitude / 180 * .pi
        let magic = 1 - ee * sin(radLat) * sin(radLat)
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180) / ((a * (1 - ee)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180) / (a / sqrtMagic * cos(radLat) * .pi)
        return (dLat, dLon)
    }

    static func run(points count: Int, repeats: Int) -> [String] {
        // The first offset builds the polynomial grid (the process's first use of the datum).
        let gridStart = Stopwatch.now(CLOCK_THREAD_CPUTIME_ID)
        let first = GCJ02.offset(latitude: 39.9, longitude: 116.4)
        let gridSeconds = Stopwatch.now(CLOCK_THREAD_CPUTIME_ID) - gridStart
        var generator = SplitMix64(seed: 42)
        let points = (0..<count).map { _ in
            Coordinate(latitude: generator.uniform(18, 53), longitude: generator.uniform(74, 134))
        }
        var sink = first.latitude
        let textbook = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { let d = textbookOffset(latitude: p.latitude, longitude: p.longitude); sink += d.0 + d.1 }
        }
        let formula = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { let d = GCJ02.formulaOffset(latitude: p.latitude, longitude: p.longitude); sink += d.latitude + d.longitude }
        }
        let forward = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { let g = GCJ02.fromWGS84(p); sink += g.latitude + g.longitude }
        }
        let shifted = points.map(GCJ02.fromWGS84)
        let inverse = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for g in shifted { let w = GCJ02.toWGS84(g); sink += w.latitude + w.longitude }
        }
        var batchOut = [Coordinate](repeating: Coordinate(latitude: 0, longitude: 0), count: count)
        let forwardBatch = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            points.withUnsafeBufferPointer { p in batchOut.withUnsafeMutableBufferPointer { GCJ02.fromWGS84(p, into: $0) } }
            sink += batchOut[count / 2].latitude
        }
        let forwardDiffering = zip(batchOut, shifted).filter { $0.0.latitude.bitPattern != $0.1.latitude.bitPattern || $0.0.longitude.bitPattern != $0.1.longitude.bitPattern }.count
        let inverseBatch = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            shifted.withUnsafeBufferPointer { p in batchOut.withUnsafeMutableBufferPointer { GCJ02.toWGS84(p, into: $0) } }
            sink += batchOut[count / 2].latitude
        }
        let inverseDiffering = zip(batchOut, shifted.map(GCJ02.toWGS84)).filter { $0.0.latitude.bitPattern != $0.1.latitude.bitPattern || $0.0.longitude.bitPattern != $0.1.longitude.bitPattern }.count
        var evaluations = 0, worstRoundTrip = 0.0, worstVersusTextbook = 0.0
        for (p, g) in zip(points, shifted) {
            let (w, n) = GCJ02.toWGS84Counting(g)
            evaluations += n
            let again = GCJ02.fromWGS84(w)
            worstRoundTrip = max(worstRoundTrip, abs(again.latitude - g.latitude), abs(again.longitude - g.longitude))
            let t = textbookOffset(latitude: p.latitude, longitude: p.longitude)
            worstVersusTextbook = max(worstVersusTextbook, abs(p.latitude + t.0 - g.latitude), abs(p.longitude + t.1 - g.longitude))
        }
        if sink == 42 { print("") }  // keeps the loops from being optimised away
        let perSecond = { (seconds: Double) in Double(count) / seconds }
        return [
            "| measure | value |",
            "|---|---|",
            "| points (uniform in lon 74–134, lat 18–53) | \(count) |",
            "| textbook forward (libm, baseline) | \(millions(perSecond(textbook))) M points/s |",
            "| the formula term by term (`GCJ02.formulaOffset`: polynomial sine, multiple angles) | \(millions(perSecond(formula))) M points/s (\(ratio(textbook / formula))× baseline) |",
            "| forward WGS-84 → GCJ-02 (`GCJ02.fromWGS84`: the offset's polynomials) | \(millions(perSecond(forward))) M points/s (**\(ratio(textbook / forward))× baseline**, \(ratio(formula / forward))× the formula) |",
            "| inverse GCJ-02 → WGS-84 (`GCJ02.toWGS84`: one Newton step) | \(millions(perSecond(inverse))) M points/s (\(ratio(inverse / forward))× the forward time) |",
            "| forward, batch (`GCJ02.fromWGS84(_:into:)`) | \(millions(perSecond(forwardBatch))) M points/s (\(ratio(textbook / forwardBatch))× baseline) |",
            "| inverse, batch (`GCJ02.toWGS84(_:into:)`) | \(millions(perSecond(inverseBatch))) M points/s |",
            "| batch results not bit-identical to the scalar ones (forward, inverse) | \(forwardDiffering), \(inverseDiffering) of \(count) |",
            "| the offset's polynomial grid, built at first use | \(fixed(gridSeconds * 1000, 2)) ms |",
            "| inverse: offset evaluations per point | \(ratio(Double(evaluations) / Double(count))) |",
            "| inverse: worst round-trip error | \(scientific(worstRoundTrip))° |",
            "| forward: worst difference from the textbook formula | \(scientific(worstVersusTextbook))° |",
        ]
    }
}
