import Foundation
import Intake
import LogbookStore
import RegionTables
import SeededRandom
import Tracks
import Unlocks
#if canImport(Glibc)
import Glibc
#endif

/// `UnlocksBench store [CELLS [DIR]]`: a logbook of a heavy walker (walks in 40 Chinese cities
/// until the logbook holds at least CELLS explored cells, default 1,000,000), then
/// - the viewport query a native map makes: every cell in a city-sized box (10 km square) around
///   a city's centre, from the store's R-tree, median of 200 queries;
/// - recording: 100,000 points fed in batches of 100, each batch saved (one transaction);
/// - the store's size against the `--state` file (AUSTATE4) of the same ledger.
enum StoreBenchmark {
    static let cities: [(name: String, latitude: Double, longitude: Double)] = [
        ("Beijing", 39.91, 116.40), ("Shanghai", 31.23, 121.47), ("Guangzhou", 23.13, 113.26), ("Shenzhen", 22.54, 114.06),
        ("Chengdu", 30.66, 104.07), ("Chongqing", 29.56, 106.55), ("Wuhan", 30.59, 114.30), ("Xi'an", 34.26, 108.94),
        ("Hangzhou", 30.27, 120.16), ("Nanjing", 32.06, 118.80), ("Tianjin", 39.13, 117.20), ("Shenyang", 41.80, 123.43),
        ("Harbin", 45.80, 126.53), ("Changsha", 28.23, 112.94), ("Zhengzhou", 34.75, 113.63), ("Jinan", 36.65, 117.12),
        ("Qingdao", 36.07, 120.38), ("Dalian", 38.91, 121.61), ("Xiamen", 24.48, 118.09), ("Fuzhou", 26.07, 119.30),
        ("Kunming", 25.04, 102.71), ("Guiyang", 26.65, 106.63), ("Nanning", 22.82, 108.32), ("Lanzhou", 36.06, 103.83),
        ("Urumqi", 43.83, 87.62), ("Lhasa", 29.65, 91.13), ("Hohhot", 40.84, 111.75), ("Taiyuan", 37.87, 112.55),
        ("Shijiazhuang", 38.04, 114.51), ("Hefei", 31.82, 117.23), ("Nanchang", 28.68, 115.86), ("Changchun", 43.82, 125.32),
        ("Yinchuan", 38.49, 106.23), ("Xining", 36.62, 101.78), ("Haikou", 20.04, 110.34), ("Suzhou", 31.30, 120.62),
        ("Wuxi", 31.49, 120.31), ("Ningbo", 29.87, 121.54), ("Foshan", 23.02, 113.12), ("Dongguan", 23.02, 113.75),
    ]

    static func run(_ arguments: [String]) throws {
        let target = arguments.first.flatMap(Int.init) ?? 1_000_000
        let directory = arguments.count > 1 ? arguments[1] : "Data/regions"
        let locator = try RegionLocator(tables: try TableSet(directory: directory), marginRadius: 120)
        var rules = ClassifyOptions()
        rules.timeZone = LocalTimeZone(identifier: "Asia/Shanghai")!
        let folder = NSTemporaryDirectory() + "unlocks-store-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/walker.logbook"
        let stateSize = try measure(store: store, locator: locator, rules: rules, target: target)
        // Closed: SQLite has moved the write-ahead log into the file and removed it.
        let storeSize = (try FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0
        print("size: logbook \(storeSize) bytes once closed, state file of the same ledger \(stateSize) bytes: \(fixed(Double(storeSize) / Double(stateSize), 2))×")
    }

    /// Builds and measures the logbook at `store`; returns the size of the state file of its ledger.
    static func measure(store: String, locator: RegionLocator, rules: ClassifyOptions, target: Int) throws -> Int {
        let logbook = try Logbook(at: URL(fileURLWithPath: store), locator: locator, configuration: .init(rules: rules))

        // Straight walks of 2 km at 1.4 m/s, a fix every 5 s, in random directions across a city,
        // one a day, until the logbook holds the cells asked for: ten days of all the cities per
        // import (each import recomputes the report, as a run through a logbook does).
        var random = SplitMix64(seed: 2026)
        var day = 0, cells = 0
        let built = Stopwatch.now()
        while cells < target {
            var csv = "latitude,longitude,time\n"
            for city in (0..<10).flatMap({ _ in cities }) {
                let start = 1_600_000_000 + day * 86_400
                var latitude = city.latitude + random.uniform(-0.09, 0.09), longitude = city.longitude + random.uniform(-0.11, 0.11)
                let heading = random.uniform(0, 2 * .pi)
                for step in 0..<286 {
                    csv += "\(latitude),\(longitude),\(start + step * 5)\n"
                    latitude += 7 * cos(heading) / 111_000
                    longitude += 7 * sin(heading) / (111_000 * cos(latitude * .pi / 180))
                }
                day += 1
            }
            let name = "walks-\(day).csv", bytes = Array(csv.utf8)
            let result = try blocking { try await logbook.importSources([.memory(name: name, bytes: bytes)]) }
            cells = result.report.metrics.exploredCellCount
            print("  \(day) walks, \(cells) cells, \(fixed(Stopwatch.now() - built, 0)) s")
        }
        print("Logbook of \(cells) cells from \(day) walks, built in \(fixed(Stopwatch.now() - built, 0)) s")

        // The viewport: a 10 km box around each city's centre in turn.
        var times: [Double] = [], returned: [Int] = []
        for query in 0..<200 {
            let city = cities[query % cities.count]
            let box = GeoBox(south: city.latitude - 0.045, west: city.longitude - 0.058, north: city.latitude + 0.045, east: city.longitude + 0.058)
            let started = Stopwatch.now()
            let found = try blocking { try await logbook.cells(in: box) }
            times.append(Stopwatch.now() - started)
            returned.append(found.count)
        }
        times.sort()
        returned.sort()
        print("viewport query: \(fixed(times[times.count / 2] * 1000, 2)) ms at \(cells) cells (median of 200 city boxes of 10 km, \(returned[returned.count / 2]) cells returned at the median; slowest \(fixed(times.last! * 1000, 2)) ms)")

        // Recording: 100,000 points in batches of 100, each saved.
        try blocking { try await logbook.beginRecording(id: "live/bench", name: "bench") }
        var points: [TrackPoint] = []
        var latitude = 39.95, longitude = 116.30
        for i in 0..<100_000 {
            points.append(TrackPoint(latitude: latitude, longitude: longitude, time: Int64(1_700_000_000 + i) * 1000, accuracy: 8))
            latitude += 1.4 * random.uniform(-1, 1) / 111_000
            longitude += 1.4 / 85_000
        }
        let recordStart = Stopwatch.now()
        var batch = 0
        while batch < points.count {
            let slice = Array(points[batch..<min(batch + 100, points.count)])
            _ = try blocking { try await logbook.record(slice) }
            batch += 100
        }
        let recordSeconds = Stopwatch.now() - recordStart
        print("record and save: \(fixed(Double(points.count) / recordSeconds, 0)) points/s (batches of 100, each one transaction)")
        _ = try blocking { try await logbook.endRecording() }

        let ledger = try blocking { await logbook.ledger }
        return LedgerState.encode(ledger, options: rules, tables: locator.tables).count
    }

    /// Waits for `work` on the logbook from this synchronous program.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    final class Box<T>: @unchecked Sendable { var result: Result<T, Error>? }
}
