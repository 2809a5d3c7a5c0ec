import Foundation
import Intake
import Tracks

/// Throughput of the intake's containers (Swift over zlib) against the libarchive path they
/// replace, on the same files in the same process, alternating A B A B: every decompressed
/// byte of a gzip stream, a zip (deflated members) and a tgz of a synthetic GPX archive.
enum ArchiveBenchmark {
    /// `folder`: where the archives are written (by the system's `gzip`, `zip` and `tar`).
    static func run(folder: String, megabytes: Int, repeats: Int) throws -> [String] {
        let tracks = folder + "/tracks"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
        // GPX days of 20,000 points (about 2 MB each) up to the size asked for.
        let days = max(1, megabytes / 2)
        _ = try TrackArchiveGenerator.write(directory: tracks, days: days, pointsPerDay: 20_000, csv: false, fit: false)
        try shell("cd '\(tracks)' && tar -cf ../day.tar gpx && gzip -c -6 ../day.tar > ../archive.tgz && zip -qr -6 ../archive.zip gpx && cat gpx/* | gzip -c -6 > ../all.gpx.gz")
        var rows = ["| archive | decompressed | libarchive | Swift over zlib | ratio (Swift / libarchive time) |", "|---|---|---|---|---|"]
        for (name, gzipOnly) in [("all.gpx.gz", true), ("archive.zip", false), ("archive.tgz", false)] {
            let path = folder + "/" + name
            var bytes: Int64 = 0
            var reference: [Double] = [], swift: [Double] = []
            for _ in 0..<repeats {
                var start = Stopwatch.now(CLOCK_THREAD_CPUTIME_ID)
                bytes = try LibarchiveReference.readAll(path: path, gzipOnly: gzipOnly)
                reference.append(Stopwatch.now(CLOCK_THREAD_CPUTIME_ID) - start)
                start = Stopwatch.now(CLOCK_THREAD_CPUTIME_ID)
                let ours = try readAll(path: path)
                swift.append(Stopwatch.now(CLOCK_THREAD_CPUTIME_ID) - start)
                guard ours == bytes else { throw LibarchiveReference.Failure(description: "\(name): \(ours) bytes against libarchive's \(bytes)") }
            }
            let a = reference.min()!, b = swift.min()!
            let mb = Double(bytes) / 1e6
            rows.append("| `\(name)` | \(fixed(mb, 1)) MB | \(fixed(mb / a, 0)) MB/s | \(fixed(mb / b, 0)) MB/s | \(ratio(b / a)) |")
        }
        return rows + ["", "Best of \(repeats) alternating runs each, in this thread's CPU time (other load does not inflate it); every byte decompressed and counted, nothing parsed."]
    }

    /// Every decompressed byte through the intake's containers.
    static func readAll(path: String) throws -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        func drain(_ source: inout some ByteSource) throws {
            while true {
                let n = try source.read(into: buffer)
                if n == 0 { return }
                total += Int64(n)
            }
        }
        if path.hasSuffix(".gpx.gz") {
            var stream = try GzipStream(wrapping: try FileSource(path: path), path: path)
            try drain(&stream)
        } else {
            let walk: (_ body: (ArchiveEntry) throws -> Void) throws -> Void
            if path.hasSuffix(".zip") {
                let archive = try ZipArchive(path: path)
                walk = archive.forEachEntry
            } else {
                let archive = TarArchive(streaming: try GzipStream(wrapping: try FileSource(path: path), path: path), path: path)
                walk = archive.forEachEntry
            }
            try walk { entry in
                var member = entry
                try drain(&member)
            }
        }
        return total
    }

    static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw LibarchiveReference.Failure(description: "failed: \(command)") }
    }
}
