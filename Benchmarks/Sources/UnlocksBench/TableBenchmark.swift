import RegionTables

/// Size of the shipped tables, how long loading them takes (mmap + full validation + decoding),
/// and point location through the index, against brute-force ray casting over every arc.
enum TableBenchmark {
    static func run(directory: String) throws -> [String] {
        var lines = ["| table | bytes | regions | vertices | load (best of 20) |", "|---|---|---|---|---|"]
        var totalLoad = 0.0
        var tables: [RegionTable] = []
        for name in ["china.bin", "world.bin"] {
            let path = directory + "/" + name
            var table: RegionTable?
            let seconds = try Stopwatch.best(of: 20) { table = try RegionTable(contentsOf: path) }
            totalLoad += seconds
            tables.append(table!)
            lines.append("| \(name) | \(table!.byteCount) | \(table!.regionCount) | \(table!.vertexCount) | \(fixed(seconds * 1000, 2)) ms |")
        }
        lines.append("| all | \(tables.reduce(0) { $0 + $1.byteCount }) | | | \(fixed(totalLoad * 1000, 2)) ms |")
        return lines
    }
}
