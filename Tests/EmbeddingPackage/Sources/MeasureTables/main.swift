// What the bundled tables cost an app (docs/embedding.md, "Memory and load time"): the time to
// open them (map, checksum, validate, build the lookup tables), the resident memory they add,
// and the time to locate a point. Run in a release build:
//   swift run -c release --package-path Tests/EmbeddingPackage --scratch-path .build/embedding-release MeasureTables
import AdminUnlocks
import Foundation

/// Resident set size in bytes (Linux: /proc/self/statm; elsewhere the measurement is skipped).
func residentBytes() -> Int? {
    #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return nil
    #endif
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let directory = try BundledTables.directory()
let before = residentBytes()
var tables: TableSet? = nil
let tablesFirst = try seconds {
    tables = try TableSet(directory: directory)
}
let afterTables = residentBytes()
var locator: RegionLocator? = nil
let lookups = try seconds { locator = try RegionLocator(tables: tables!) }
let after = residentBytes()
let first = tablesFirst + lookups
var tableLoads: [Double] = []
for _ in 0..<10 {
    tableLoads.append(try seconds {
        _ = try RegionTable(contentsOf: directory + "/world.bin")
        _ = try RegionTable(contentsOf: directory + "/china.bin")
    })
}
tableLoads.sort()
tables = nil
var loads: [Double] = []
for _ in 0..<10 {
    locator = nil
    loads.append(try seconds { locator = try RegionLocator.bundled() })
}
loads.sort()
// 200,000 points on a grid over eastern China and its neighbours, WGS-84.
var found = 0
let count = 200_000
let locate = try seconds {
    for i in 0..<count {
        let latitude = 20.0 + Double(i % 400) * 0.05, longitude = 100.0 + Double(i / 400) * 0.05
        if try locator!.locate(latitude: latitude, longitude: longitude).county.region != nil { found += 1 }
    }
}
print(String(format: "both tables (map, checksum, validate): first %.1f ms; best of 10 %.1f ms, median %.1f ms",
             tablesFirst * 1e3, tableLoads[0] * 1e3, tableLoads[5] * 1e3))
print(String(format: "RegionLocator.bundled() (tables + lookups): first %.1f ms (lookups %.1f ms); best of 10 %.1f ms, median %.1f ms",
             first * 1e3, lookups * 1e3, loads[0] * 1e3, loads[5] * 1e3))
if let before, let afterTables, let after {
    print(String(format: "resident memory: %.1f MB before; +%.1f MB with both tables open; +%.1f MB with the locator",
                 Double(before) / 1e6, Double(afterTables - before) / 1e6, Double(after - before) / 1e6))
}
print(String(format: "locate: %.2f µs a point (%d points, %d in a county)", locate / Double(count) * 1e6, count, found))
