import Foundation
import XCTest
import TrackArchives
import Tracks
import UnlocksTestSupport

/// Real .gz and .zip files made at test time by the system `gzip` and Python's `zipfile`.
final class TrackArchivesTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: try temporaryDirectory())
    }

    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func run(_ arguments: [String], input: String? = nil) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Writes `files` (name → bytes) into `name` with Python's zipfile, deflated.
    func makeZip(_ name: String, _ files: [(String, [UInt8])]) throws {
        for (index, entry) in files.enumerated() {
            try Data(entry.1).write(to: directory.appendingPathComponent("member\(index)"))
        }
        let pairs = files.enumerated().map { "(\"\($0.element.0)\", \"member\($0.offset)\")" }.joined(separator: ", ")
        let script = """
        import zipfile
        with zipfile.ZipFile("\(name)", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(zipfile.ZipInfo("folder/"), b"")
            for arcname, member in [\(pairs)]:
                z.write(member, arcname)
        """
        XCTAssertEqual(try run(["python3", "-c", script]), 0)
    }

    func readAll(_ source: some ByteSource) throws -> [UInt8] {
        var source = source
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return result }
            result += chunk[..<n]
        }
    }

    static let track = """
    <?xml version="1.0"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
    \((0..<2000).map { "<trkpt lat=\"39.\($0)\" lon=\"116.4\"><time>2024-03-01T08:\(String(format: "%02d", $0 / 60 % 60)):\(String(format: "%02d", $0 % 60))Z</time></trkpt>" }.joined(separator: "\n"))
    </trkseg></trk></gpx>
    """

    // MARK: gzip

    func testGzipStreamsTheDecompressedBytes() throws {
        try Data(Self.track.utf8).write(to: URL(fileURLWithPath: file("t.gpx")))
        XCTAssertEqual(try run(["gzip", "-k", "t.gpx"]), 0)
        XCTAssertEqual(try readAll(try GzipSource(path: file("t.gpx.gz"))), Array(Self.track.utf8))
        var counter = TrackEventRecorder()
        try GPXReader.read(try GzipSource(path: file("t.gpx.gz")), path: file("t.gpx.gz"), into: &counter)
        XCTAssertEqual(counter.points.count, 2000)
        // Concatenated members read as one stream.
        let gz = try Data(contentsOf: URL(fileURLWithPath: file("t.gpx.gz")))
        try (gz + gz).write(to: URL(fileURLWithPath: file("twice.gz")))
        XCTAssertEqual(try readAll(try GzipSource(path: file("twice.gz"))), Array(Self.track.utf8) + Array(Self.track.utf8))
    }

    func testTruncatedGzipIsAnErrorAfterTheGoodPart() throws {
        try Data(Self.track.utf8).write(to: URL(fileURLWithPath: file("t.gpx")))
        XCTAssertEqual(try run(["gzip", "-k", "t.gpx"]), 0)
        let gz = try Data(contentsOf: URL(fileURLWithPath: file("t.gpx.gz")))
        try gz.prefix(gz.count / 2).write(to: URL(fileURLWithPath: file("cut.gz")))
        let source = try GzipSource(path: file("cut.gz"))
        var delivered: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1000)
        XCTAssertThrowsError(try {
            while true {
                let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { break }
                delivered += chunk[..<n]
            }
        }()) { error in
            let error = error as? InputError
            XCTAssertEqual(error?.path, self.file("cut.gz"))
            XCTAssertTrue(error?.reason.contains("gzip data unreadable after \(delivered.count) decompressed bytes") == true, "\(String(describing: error))")
        }
        // What came out is the start of the original.
        XCTAssertEqual(delivered, Array(Array(Self.track.utf8).prefix(delivered.count)))
        XCTAssertGreaterThan(delivered.count, 0)
    }

    func testCorruptAndNonGzipDataAreErrors() throws {
        try Data(Self.track.utf8).write(to: URL(fileURLWithPath: file("t.gpx")))
        XCTAssertThrowsError(try GzipSource(path: file("t.gpx"))) { error in
            XCTAssertEqual((error as? InputError)?.reason, "not gzip data (no gzip header)")
        }
        XCTAssertThrowsError(try GzipSource(path: file("missing.gz"))) { error in
            XCTAssertEqual((error as? InputError)?.path, self.file("missing.gz"))
        }
        XCTAssertEqual(try run(["gzip", "-k", "t.gpx"]), 0)
        var gz = try Data(contentsOf: URL(fileURLWithPath: file("t.gpx.gz")))
        for i in stride(from: 40, to: gz.count - 20, by: 50) { gz[i] ^= 0x5A }
        try gz.write(to: URL(fileURLWithPath: file("corrupt.gz")))
        XCTAssertThrowsError(try readAll(try GzipSource(path: file("corrupt.gz")))) { error in
            XCTAssertEqual((error as? InputError)?.path, self.file("corrupt.gz"))
        }
    }

    func testEmptyInputs() throws {
        try Data().write(to: URL(fileURLWithPath: file("empty")))
        XCTAssertEqual(try run(["gzip", "-k", "empty"]), 0)
        XCTAssertEqual(try readAll(try GzipSource(path: file("empty.gz"))), [])
        XCTAssertThrowsError(try GzipSource(path: file("empty"))) { error in
            XCTAssertEqual((error as? InputError)?.path, self.file("empty"))
        }
        try makeZip("nothing.zip", [])
        var entries = 0
        try ZipArchive(path: file("nothing.zip")).forEachEntry { _ in entries += 1 }
        XCTAssertEqual(entries, 0)  // only a directory, which is passed over
    }

    func testGzipBombIsRefused() throws {
        // 100 MiB of zeros gzip to about 100 KB (1000:1).
        XCTAssertEqual(try run(["sh", "-c", "head -c 104857600 /dev/zero | gzip -1 > bomb.gz"]), 0)
        XCTAssertThrowsError(try readAll(try GzipSource(path: file("bomb.gz")))) { error in
            let error = error as? InputError
            XCTAssertTrue(error?.reason.contains("decompression bomb") == true, "\(String(describing: error))")
        }
    }

    // MARK: zip

    func testZipEntriesStreamInOrderWithSkipsAndGzipInside() throws {
        try Data(Self.track.utf8).write(to: URL(fileURLWithPath: file("t.gpx")))
        XCTAssertEqual(try run(["gzip", "-k", "t.gpx"]), 0)
        let gz = Array(try Data(contentsOf: URL(fileURLWithPath: file("t.gpx.gz"))))
        try makeZip("inner.zip", [("x.csv", Array("1,2\n".utf8))])
        let inner = Array(try Data(contentsOf: URL(fileURLWithPath: file("inner.zip"))))
        try makeZip("export.zip", [("tracks/a.gpx", Array(Self.track.utf8)), ("points.csv", Array("1,2\n3,4\n".utf8)),
                                   ("old/inner.zip", inner), ("tracks/b.gpx.gz", gz)])
        var seen: [String] = []
        var skipped: [String: String] = [:]
        var points = 0
        try ZipArchive(path: file("export.zip")).forEachEntry { entry in
            seen.append(entry.name)
            XCTAssertEqual(entry.path, "\(file("export.zip")):\(entry.name)")
            if let reason = entry.skipReason {
                skipped[entry.name] = reason
                return
            }
            var counter = TrackEventRecorder()
            switch entry.name {
            case "tracks/a.gpx":
                try GPXReader.read(entry, path: entry.path, into: &counter)
            case "tracks/b.gpx.gz":
                try GPXReader.read(try GzipSource(wrapping: entry, path: entry.path), path: entry.path, into: &counter)
            case "points.csv":
                try TrackCSVReader.read(entry, path: entry.path, into: &counter)
            case "old/inner.zip":
                // A zip inside the zip, read as a stream through the outer entry.
                XCTAssertTrue(entry.isZip)
                var inner: [String] = []
                try ZipArchive(streaming: entry, path: entry.path).forEachEntry { member in
                    inner.append(member.path)
                    try TrackCSVReader.read(member, path: member.path, into: &counter)
                }
                XCTAssertEqual(inner, ["\(file("export.zip")):old/inner.zip:x.csv"])
            default:
                XCTFail("unexpected entry \(entry.name)")
            }
            points += counter.points.count
        }
        XCTAssertEqual(seen, ["tracks/a.gpx", "points.csv", "old/inner.zip", "tracks/b.gpx.gz"])
        XCTAssertEqual(skipped.keys.sorted(), [])
        XCTAssertEqual(points, 2000 + 2 + 2000 + 1)
    }

    /// A name with the UTF-8 flag (Python's zipfile sets it for non-ASCII names) is read as
    /// UTF-8 (libarchive in the C locale made it `?`); a GBK name without the flag keeps its
    /// bytes, escaped where they are not UTF-8. The process's locale is left as it was.
    func testEntryNamesInUTF8AndWithoutTheFlag() throws {
        let script = """
        import zipfile
        with zipfile.ZipFile("names.zip", "w") as z:
            z.writestr("轨迹/上海外滩.csv", "1,2\\n")
            z.writestr("gbk_.csv", "3,4\\n")
        data = open("names.zip", "rb").read().replace(b"gbk_.csv", "外外.csv".encode("gbk"))
        open("names.zip", "wb").write(data)
        """
        XCTAssertEqual(try run(["python3", "-c", script]), 0)
        let before = String(cString: setlocale(LC_CTYPE, nil))
        var names: [String] = []
        try ZipArchive(path: file("names.zip")).forEachEntry { names.append($0.name) }
        XCTAssertEqual(names, ["轨迹/上海外滩.csv", "\\xCD\\xE2\\xCD\\xE2.csv"])
        XCTAssertEqual(String(cString: setlocale(LC_CTYPE, nil)), before)
    }

    func testEncryptedEntriesAreSkippedWithAReason() throws {
        try Data("1,2\n".utf8).write(to: URL(fileURLWithPath: file("secret.csv")))
        try Data("3,4\n".utf8).write(to: URL(fileURLWithPath: file("open.csv")))
        XCTAssertEqual(try run(["zip", "-q", "-P", "password", "locked.zip", "secret.csv"]), 0)
        XCTAssertEqual(try run(["zip", "-q", "locked.zip", "open.csv"]), 0)
        var outcomes: [String: String] = [:]
        try ZipArchive(path: file("locked.zip")).forEachEntry { entry in
            if let reason = entry.skipReason {
                outcomes[entry.name] = reason
                XCTAssertThrowsError(try readAll(entry))
            } else {
                outcomes[entry.name] = String(decoding: try readAll(entry), as: UTF8.self)
            }
        }
        XCTAssertEqual(outcomes, ["secret.csv": "encrypted entry; not read", "open.csv": "3,4\n"])
    }

    func testCorruptEntryIsAnErrorNamingItAndTheWalkGoesOn() throws {
        let payload = Array(Self.track.utf8)
        try makeZip("c.zip", [("first.gpx", payload), ("second.gpx", payload), ("third.csv", Array("1,2\n".utf8))])
        var zip = Array(try Data(contentsOf: URL(fileURLWithPath: file("c.zip"))))
        // Damage the compressed data of second.gpx (after its local header).
        let marker = Array("second.gpx".utf8)
        let header = try XCTUnwrap((0..<zip.count - marker.count).first { Array(zip[$0..<$0 + marker.count]) == marker })
        for i in stride(from: header + marker.count + 30, to: header + marker.count + 400, by: 7) { zip[i] ^= 0xFF }
        try Data(zip).write(to: URL(fileURLWithPath: file("c.zip")))

        var outcomes: [String: String] = [:]
        try ZipArchive(path: file("c.zip")).forEachEntry { entry in
            do {
                outcomes[entry.name] = "\(try readAll(entry).count)"
            } catch let error as InputError {
                XCTAssertEqual(error.path, "\(file("c.zip")):second.gpx")
                outcomes[entry.name] = "error"
            }
        }
        XCTAssertEqual(outcomes, ["first.gpx": "\(payload.count)", "second.gpx": "error", "third.csv": "4"])
    }

    func testNotAZipAndTruncatedZipAreErrorsNamingTheArchive() throws {
        try Data(Self.track.utf8).write(to: URL(fileURLWithPath: file("plain.zip")))
        XCTAssertThrowsError(try ZipArchive(path: file("plain.zip")).forEachEntry { _ in }) { error in
            XCTAssertEqual((error as? InputError)?.path, self.file("plain.zip"))
        }
        try makeZip("t.zip", [("a.gpx", Array(Self.track.utf8)), ("b.gpx", Array(Self.track.utf8))])
        let zip = try Data(contentsOf: URL(fileURLWithPath: file("t.zip")))
        try zip.prefix(zip.count * 3 / 4).write(to: URL(fileURLWithPath: file("cut.zip")))
        var failures: [String] = []
        do {
            try ZipArchive(path: file("cut.zip")).forEachEntry { entry in
                do { _ = try readAll(entry) } catch let error as InputError { failures.append(error.path) }
            }
        } catch let error as InputError {
            failures.append(error.path)
        }
        XCTAssertFalse(failures.isEmpty)
        XCTAssertTrue(failures.allSatisfy { $0.hasPrefix(file("cut.zip")) }, "\(failures)")
    }

    func testHighRatioEntryIsRefusedAndOtherEntriesStillRead() throws {
        XCTAssertEqual(try run(["sh", "-c", "head -c 104857600 /dev/zero > zeros.bin"]), 0)
        let script = """
        import zipfile
        with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.write("zeros.bin", "huge.gpx")
            z.writestr("small.csv", "1,2\\n")
        """
        XCTAssertEqual(try run(["python3", "-c", script]), 0)
        try FileManager.default.removeItem(atPath: file("zeros.bin"))
        var outcomes: [String: String] = [:]
        try ZipArchive(path: file("bomb.zip")).forEachEntry { entry in
            do {
                outcomes[entry.name] = "\(try readAll(entry).count)"
            } catch let error as InputError {
                XCTAssertEqual(error.path, "\(file("bomb.zip")):huge.gpx")
                outcomes[entry.name] = error.reason.hasPrefix("decompresses to more than 200 times") ? "bomb" : error.reason
            }
        }
        XCTAssertEqual(outcomes, ["huge.gpx": "bomb", "small.csv": "4"])
    }

    func testManyModestEntriesAreRefusedOnTheArchiveTotal() throws {
        XCTAssertEqual(try run(["sh", "-c", "head -c 31457280 /dev/zero > zeros.bin"]), 0)
        let script = """
        import zipfile
        with zipfile.ZipFile("many.zip", "w", zipfile.ZIP_DEFLATED) as z:
            for k in range(3):
                z.write("zeros.bin", f"part{k}.gpx")
        """
        XCTAssertEqual(try run(["python3", "-c", script]), 0)
        try FileManager.default.removeItem(atPath: file("zeros.bin"))
        var outcomes: [String] = []
        try ZipArchive(path: file("many.zip")).forEachEntry { entry in
            do {
                outcomes.append("\(try readAll(entry).count)")
            } catch let error as InputError {
                outcomes.append(error.reason.hasPrefix("the archive's entries so far decompress to more than 200 times") ? "bomb" : error.reason)
            }
        }
        // Each 30 MiB entry is under the 64 MiB free allowance; the third takes the archive past it.
        XCTAssertEqual(outcomes, ["31457280", "31457280", "bomb"])
    }
}
