import ChinaDatum
import RegionTables
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// The locator on a file of points (`lat,lon` per line, WGS-84): all four levels (and the
/// subdivision, when the folder has subdivisions.bin) without and with margins, the four levels
/// alone (the same tables without subdivisions.bin), and the world table's country alone, without the leaves' grids (`leafGrids: .none`),
/// then the same with them (the default, `.lazy`: the first pass builds the leaves it reaches,
/// reported on its own; the best of 5 passes after it), in this thread's CPU time, plus the
/// tables' load time and the locator's creation time (wall-clock) with lazy and eager grids. `Scripts/bench locate` runs it on four point
/// sets (`make-points`) beside the Python peers (Benchmarks/peer_locate.py) on the same files.
enum LocatePointsBenchmark {
    static func run(file: String, tables: String, repeats: Int) throws -> [String] {
        let points = try readPoints(file)
        var set = try TableSet(directory: tables)
        let load = try Stopwatch.best(of: repeats * 4) { set = try TableSet(directory: tables) }
        let margins = try RegionLocator(tables: set, marginRadius: 300, leafGrids: .none)
        let plain = try RegionLocator(tables: set, marginRadius: 0, leafGrids: .none)
        var gridMargins = try RegionLocator(tables: set, marginRadius: 300)
        let gridReady = try Stopwatch.best(of: repeats) { gridMargins = try RegionLocator(tables: set, marginRadius: 300) }
        let gridPlain = try RegionLocator(tables: set, marginRadius: 0)
        // Today's four levels: the same tables without subdivisions.bin (issue 33's budget: the
        // subdivision costs at most a fifth of the four levels' rate).
        let fourAlone = try RegionLocator(tables: TableSet(world: set.world, china: set.china, worldview: set.worldview), marginRadius: 0)
        var eager = gridPlain
        let eagerReady = try Stopwatch.best(of: 2) { eager = try RegionLocator(tables: set, marginRadius: 0, leafGrids: .eager) }
        var sink = Int(eager.marginRadius)
        // The first pass of each lazy locator over the points, building the leaves it reaches.
        let firstPlain = try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try gridPlain.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        let firstMargins = try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try gridMargins.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        let plainSeconds = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try plain.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        let marginSeconds = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try margins.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        for p in points { sink &+= Int(try fourAlone.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }  // its first pass
        // With and without the subdivision, passes alternating (A B A B …), the best of each.
        var gridPlainSeconds = Double.infinity, fourAloneSeconds = Double.infinity
        for _ in 0..<repeats {
            gridPlainSeconds = min(gridPlainSeconds, try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) {
                for p in points { sink &+= Int(try gridPlain.locate(latitude: p.latitude, longitude: p.longitude).subdivision.region ?? -1) }
            })
            fourAloneSeconds = min(fourAloneSeconds, try Stopwatch.best(of: 1, clock: CLOCK_THREAD_CPUTIME_ID) {
                for p in points { sink &+= Int(try fourAlone.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
            })
        }
        let gridMarginSeconds = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try gridMargins.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        let countrySeconds = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(plain.worldCountry(latitude: p.latitude, longitude: p.longitude) ?? -1) }
        }
        let gridCountrySeconds = Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(gridPlain.worldCountry(latitude: p.latitude, longitude: p.longitude) ?? -1) }
        }
        if sink == 42 { print("") }
        let n = Double(points.count)
        return [
            "points: \(points.count) (\(file))",
            "tables loaded in \(fixed(load * 1000, 2)) ms (both, best of \(repeats * 4)); locator ready in \(fixed(gridReady * 1000, 2)) ms over loaded tables (lazy leaf grids, the default; best of \(repeats))",
            "all four levels (no margins): \(millions(n / plainSeconds)) M points/s",
            "with margins (300 m): \(millions(n / marginSeconds)) M points/s",
            "country only (world table): \(millions(n / countrySeconds)) M points/s",
            "leaf grids: all four levels (no margins): \(millions(n / gridPlainSeconds)) M points/s" + (set.subdivisions == nil ? "" : " (and the subdivision)"),
            "leaf grids: four levels alone (no subdivision table): \(millions(n / fourAloneSeconds)) M points/s; with the subdivision \(fixed(fourAloneSeconds / gridPlainSeconds, 3))× its rate",
            "leaf grids: with margins (300 m): \(millions(n / gridMarginSeconds)) M points/s",
            "leaf grids: country only (world table): \(millions(n / gridCountrySeconds)) M points/s",
            "leaf grids: first pass, building the leaves it reaches: all four levels \(millions(n / firstPlain)) M points/s, with margins \(millions(n / firstMargins)) M points/s",
            "leaf grids: eager build (`.eager`), locator ready in \(fixed(eagerReady * 1000, 1)) ms; run-time index \(fixed(Double(gridMargins.indexByteCount) / 1_048_576, 1)) MiB at most (lines reserved, touched as built; without grids: \(fixed(Double(plain.indexByteCount) / 1_048_576, 1)) MiB)",
        ]
    }

    /// The default locator alone on the file's points, `passes` times (a profile's subject: perf
    /// sees only the lookups the bench's figures with leaf grids measure): its best pass.
    static func profile(file: String, tables: String, marginRadius: Double, passes: Int) throws -> String {
        let points = try readPoints(file)
        let locator = try RegionLocator(tables: try TableSet(directory: tables), marginRadius: marginRadius)
        var sink = 0
        let seconds = try Stopwatch.best(of: passes, clock: CLOCK_THREAD_CPUTIME_ID) {
            for p in points { sink &+= Int(try locator.locate(latitude: p.latitude, longitude: p.longitude).county.region ?? -1) }
        }
        return "default locator, margins \(fixed(marginRadius, 0)) m: \(millions(Double(points.count) / seconds)) M points/s (best of \(passes))" + (sink == 42 ? " " : "")
    }

    /// `lat,lon` lines (a first line that is not numbers is a header); a bad line is an error naming it.
    static func readPoints(_ file: String) throws -> [Coordinate] {
        guard let handle = fopen(file, "r") else { throw BenchError("\(file): cannot open") }
        defer { fclose(handle) }
        var points: [Coordinate] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        var number = 0
        while getline(&line, &capacity, handle) > 0 {
            number += 1
            let text = String(cString: line!).trimmingWhitespace
            if text.isEmpty { continue }
            let fields = text.split(separator: ",")
            guard fields.count >= 2, let lat = Double(fields[0]), let lon = Double(fields[1]) else {
                if number == 1 { continue }
                throw BenchError("\(file): line \(number): expected lat,lon")
            }
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        free(line)
        return points
    }

    /// Writes `count` seeded points of one kind as `lat,lon` lines (WGS-84, 7 decimals):
    /// `china-box` uniform in lon 73–136, lat 18–54; `world` uniform in lon −180…180, lat −60…75;
    /// `china` uniform (in degrees) inside China by the locator's country; `counties` around the
    /// centre of every county's bounding box (±0.02°, GCJ-02 shifted back to WGS-84).
    static func makePoints(kind: String, count: Int, seed: UInt64, out: String, tables: String) throws {
        var generator = SplitMix64(seed: seed)
        var points: [Coordinate] = []
        points.reserveCapacity(count)
        switch kind {
        case "china-box":
            while points.count < count { points.append(Coordinate(latitude: generator.uniform(18, 54), longitude: generator.uniform(73, 136))) }
        case "world":
            while points.count < count { points.append(Coordinate(latitude: generator.uniform(-60, 75), longitude: generator.uniform(-180, 180))) }
        case "china":
            let locator = try RegionLocator(directory: tables, marginRadius: 0)
            let china = locator.world.regions.first { $0.code == "CHN" }!.index
            while points.count < count {
                let p = Coordinate(latitude: generator.uniform(18, 54), longitude: generator.uniform(73, 136))
                if try locator.locate(latitude: p.latitude, longitude: p.longitude).country.region == china { points.append(p) }
            }
        case "counties":
            let china = try TableSet(directory: tables).china
            let counties = china.regions.filter { $0.level == .county }
            var k = 0
            while points.count < count {
                let b = counties[k % counties.count].boundingBox
                k += 1
                let cx = (Double(b.minX) + Double(b.maxX)) / 2 * 1e-5, cy = (Double(b.minY) + Double(b.maxY)) / 2 * 1e-5
                points.append(GCJ02.toWGS84(Coordinate(latitude: cy + generator.uniform(-0.02, 0.02), longitude: cx + generator.uniform(-0.02, 0.02))))
            }
        default:
            throw BenchError("make-points: unknown kind \(kind) (expected china-box, world, china or counties)")
        }
        var text = "lat,lon\n"
        text.reserveCapacity(points.count * 24)
        for p in points { text += "\(fixed(p.latitude, 7)),\(fixed(p.longitude, 7))\n" }
        let temporary = out + ".tmp"
        guard let handle = fopen(temporary, "w") else { throw BenchError("\(temporary): cannot create") }
        let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, handle) }
        fclose(handle)
        guard written == text.utf8.count, rename(temporary, out) == 0 else { throw BenchError("\(out): write failed") }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
