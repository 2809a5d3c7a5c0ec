import CZlib
import Foundation

/// A sample input the fuzzer mutates.
public struct FuzzSeed: Sendable {
    /// Path relative to the repository root, for failure reports.
    public let path: String
    /// The name's extension chain as it must stay on a mutant (`.gpx`, `.csv.gz`, `.fit`).
    public let suffix: String
    /// The file's bytes; for a `.gz` seed, decompressed.
    public let bytes: [UInt8]
    /// Whether the seed was gzip-compressed (its mutants are compressed again).
    public let gzipped: Bool
    /// A Fog of World tile (a file without extension in a `Sync` folder): its bytes are the
    /// inflated tile, its mutants deflated again (zlib) and written under the seed's own name,
    /// which holds the tile's position, in a folder of their own.
    public var fogOfWorld = false
}

/// Finds the seed files: every track file under `Data/samples/` and `Tests/*/Fixtures/`, by
/// extension, so formats added later (FIT, TCX, KML, NMEA…) join without a change here.
public enum FuzzSeeds {
    /// Extensions of track files and archives `unlocks classify` reads or may read.
    public static let trackExtensions: Set<String> = ["gpx", "csv", "txt", "json", "geojson", "fit", "tcx", "kml", "kmz", "nmea", "nma", "log", "zip", "tar", "tgz",
                                                      "igc", "plt", "rec", "jpg", "jpeg", "heic", "heif"]
    /// Seeds known by their name's start, having no extension: Huawei's `HiTrack_…` records
    /// (their mutants have none either, so the tool recognises them by content).
    public static let namePrefixes = ["hitrack_"]
    /// Largest seed taken, in bytes (larger ones make slow mutants without finding more).
    public static let maximumSeedBytes = 1 << 20

    /// Test targets whose fixtures are reference tables for other modules (datum vectors, hash
    /// vectors, a list of places), not tracks. (`real-places.csv`, 3,219 untimed points all over
    /// China, takes 90 s and 1.2 GB in a debug build: reported, see the harness's docs.)
    public static let referenceTables: Set<String> = ["ChinaDatumTests", "RegionTablesTests"]

    public static func find(root: String) throws -> [FuzzSeed] {
        let manager = FileManager.default
        var folders = [root + "/Data/samples"]
        for target in (try? manager.contentsOfDirectory(atPath: root + "/Tests")) ?? [] where !referenceTables.contains(target) {
            folders.append(root + "/Tests/" + target + "/Fixtures")
        }
        var seeds: [FuzzSeed] = []
        for folder in folders {
            guard let walker = manager.enumerator(atPath: folder) else { continue }
            var names: [String] = []
            while let name = walker.nextObject() as? String { names.append(name) }
            for name in names.sorted() {
                let lower = name.lowercased()
                let gzipped = lower.hasSuffix(".gz")
                let base = gzipped ? String(lower.dropLast(3)) : lower
                let leaf = base.split(separator: "/").last.map(String.init) ?? base
                let byName = !leaf.contains(".") && namePrefixes.contains { leaf.hasPrefix($0) }
                if !leaf.contains("."), base.hasSuffix("sync/" + leaf) {
                    let path = folder + "/" + name
                    guard let data = manager.contents(atPath: path), data.count <= maximumSeedBytes,
                          let inflated = Zlib.inflate([UInt8](data)) else { continue }
                    let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
                    var seed = FuzzSeed(path: relative, suffix: "", bytes: inflated, gzipped: false)
                    seed.fogOfWorld = true
                    seeds.append(seed)
                    continue
                }
                guard let ext = base.split(separator: ".").last.map(String.init), byName || (base.contains(".") && trackExtensions.contains(ext)),
                      !lower.hasSuffix("expected.json") else { continue }
                let path = folder + "/" + name
                guard let data = manager.contents(atPath: path), data.count <= maximumSeedBytes else { continue }
                let bytes = gzipped ? try Gzip.decompress([UInt8](data)) : [UInt8](data)
                let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
                let suffix = byName ? "" : "." + ext
                seeds.append(FuzzSeed(path: relative, suffix: suffix + (gzipped ? ".gz" : ""), bytes: bytes, gzipped: gzipped))
            }
        }
        return seeds
    }
}

/// gzip through the system's `gzip` (a test and benchmark tool, not run-time code).
enum Gzip {
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] { try filter(bytes, ["-c", "-n", "-1"]) }
    static func decompress(_ bytes: [UInt8]) throws -> [UInt8] { try filter(bytes, ["-d", "-c"]) }

    private static func filter(_ bytes: [UInt8], _ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(Data(bytes))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }
}

/// zlib (RFC 1950) through the system's library, for Fog of World seeds and their mutants.
enum Zlib {
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        let status = CZlib.compress(&output, &size, bytes, uLong(bytes.count))
        precondition(status == Z_OK, "zlib compress failed: \(status)")
        return Array(output[0..<Int(size)])
    }

    /// Nil when the data is no whole zlib stream of at most 16 MiB.
    static func inflate(_ bytes: [UInt8]) -> [UInt8]? {
        var size = uLong(16 << 20)
        var output = [UInt8](repeating: 0, count: Int(size))
        guard uncompress(&output, &size, bytes, uLong(bytes.count)) == Z_OK else { return nil }
        return Array(output[0..<Int(size)])
    }
}
