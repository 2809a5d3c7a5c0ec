import Foundation
import XCTest
import UnlocksTestSupport

/// Issue 35 through the command, as a user meets it: a path that is a pipe, lines over 1 MiB in
/// `convert` and `locate`, BD-09 conversions that leave the globe, and the memory of inputs whose
/// cost was unbounded (a KML plan, megabyte member names, a dense Fog of World tile), each
/// against a clear error naming the file and the other inputs read.
final class HardeningCommandTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    static let walk = Repository.samples + "/2024-05-01-beijing-walk.gpx"

    /// Python that writes tar members (`member(name, data, type)`) and CSV walks (`walk(n)`).
    static let tarHelpers = """
    import datetime, gzip
    def walk(n, lat=39.90, start=1714525200):
        rows = ["lat,lon,time"]
        for i in range(n):
            t = datetime.datetime.fromtimestamp(start + i, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            rows.append("%.6f,%.6f,%s" % (lat + i * 0.00001, 116.40, t))
        return ("\\n".join(rows) + "\\n").encode()
    def member(name, data, typ=b"0"):
        h = bytearray(512)
        h[0:len(name)] = name
        h[100:108] = b"0000644\\0"; h[108:116] = b"0000000\\0"; h[116:124] = b"0000000\\0"
        h[124:136] = ("%011o\\0" % len(data)).encode(); h[136:148] = b"00000000000\\0"; h[156:157] = typ
        h[257:263] = b"ustar\\0"; h[263:265] = b"00"; h[148:156] = b" " * 8
        h[148:156] = ("%06o\\0 " % sum(h)).encode()
        return bytes(h) + data + b"\\0" * ((512 - len(data) % 512) % 512)

    """

    func report(_ result: CommandRunner.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func files(_ report: [String: Any]) -> [String: [String: Any]] {
        let list = (report["inputs"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["path"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// A FIFO given as a path (as `classify <(zcat t.gpx.gz)` gives `/dev/fd/63`) is read like
    /// `-`: opened blocking and copied, every point read (it was opened non-blocking and read as
    /// "empty file", 0 of its points, or EAGAIN, by timing). The writer starts late on purpose.
    func testAFIFOIsReadLikeStandardInput() throws {
        let dir = try temporaryDirectory()
        let fifo = dir + "/walk.gpx"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.walk))
        let writer = Thread {
            usleep(300_000)
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            bytes.withUnsafeBytes { raw in
                var written = 0
                while written < raw.count {
                    let n = write(fd, raw.baseAddress! + written, raw.count - written)
                    if n <= 0 { break }
                    written += n
                    usleep(1000)  // in pieces, as zcat writes
                }
            }
            close(fd)
        }
        writer.start()
        let piped = try CommandRunner.run(["classify", "--tables", Self.tables, fifo], timeout: 120)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let plain = try CommandRunner.run(["classify", "--tables", Self.tables, Self.walk])
        let read = try XCTUnwrap(files(try report(piped))[fifo], piped.stdout)
        XCTAssertEqual(read["pointsRead"] as? Int, try XCTUnwrap(files(try report(plain))[Self.walk])["pointsRead"] as? Int)
        XCTAssertGreaterThan(read["pointsRead"] as? Int ?? 0, 1000)
        // Standard input named as a path (a pipe here) is copied the same way.
        let stdin = try CommandRunner.run(["classify", "--tables", Self.tables, "/dev/stdin"], input: bytes)
        XCTAssertEqual(files(try report(stdin))["/dev/stdin"]?["pointsRead"] as? Int, read["pointsRead"] as? Int)
    }

    /// A line over 1 MiB stopped `convert` and `locate` (exit 1, every later line lost); the
    /// README says a bad line is reported, skipped, exit 3: the line's number is named and the
    /// lines after it (in any line ending) are converted and located.
    func testALineOverOneMebibyteIsReportedAndSkipped() throws {
        for ending in ["\n", "\r\n", "\r"] {
            let long = String(repeating: "9", count: (1 << 20) + 10)
            let input = ["lat,lon", "39.9,116.4", long, "39.91,116.41", long + "," + long, "31.23,121.47"].joined(separator: ending) + ending
            let convert = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data(input.utf8))
            XCTAssertEqual(convert.status, 3, convert.stderr)
            XCTAssertTrue(convert.stderr.contains("<stdin>:3: line longer than 1048576 bytes (skipped)"), convert.stderr)
            XCTAssertTrue(convert.stderr.contains("<stdin>:5: line longer than 1048576 bytes (skipped)"), convert.stderr)
            XCTAssertEqual(convert.stdout.split(whereSeparator: \.isNewline).count, 4, "header and three lines: \(convert.stdout.prefix(300))")
            let locate = try CommandRunner.run(["locate", "--tables", Self.tables], input: Data(input.utf8))
            XCTAssertEqual(locate.status, 3, locate.stderr)
            XCTAssertTrue(locate.stderr.contains("<stdin>:3: line longer than 1048576 bytes (skipped)"), locate.stderr)
            let rows = locate.stdout.split(whereSeparator: \.isNewline).map(String.init)
            XCTAssertEqual(rows.count, 4, "\(rows)")
            XCTAssertTrue(rows.last?.hasPrefix("31.23,121.47,CHN,310000") == true, "\(rows)")
        }
    }

    /// `convert --from bd09 --to gcj02` of -90,-180 wrote -90.0055,-180.0068 with exit 0 (BD-09's
    /// shift applies everywhere): a converted point outside ±90/±180 is a bad line, named.
    func testAConversionThatLeavesTheGlobeIsABadLine() throws {
        let result = try CommandRunner.run(["convert", "--from", "bd09", "--to", "gcj02"], input: Data("lat,lon\n-90,-180\n39.9,116.4\n90,180\n".utf8))
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("<stdin>:2: -90.0,-180.0 converts from bd09 to gcj02 to -90.00"), result.stderr)
        XCTAssertTrue(result.stderr.contains("outside ±90° latitude and ±180° longitude (skipped)"), result.stderr)
        let rows = result.stdout.split(whereSeparator: \.isNewline).map(String.init)
        XCTAssertEqual(rows.count, 3, "the header and the two points that stay on the globe: \(rows)")
        for row in rows.dropFirst() {
            let parts = row.split(separator: ",").compactMap { Double($0) }
            XCTAssertTrue(abs(parts[0]) <= 90 && abs(parts[1]) <= 180, row)
        }
    }

    /// A KML plan (no times, 180 m legs: a plan counts nothing) held every leg's cells until the
    /// end let them go: 774 MB for 19 MB. Its points now wait uncommitted (32 bytes each): the
    /// peak grows by a few MB, whatever the plan's size, and the report is the plan's as before.
    func testALargeKMLPlanStaysSmall() throws {
        let dir = try temporaryDirectory()
        func plan(_ count: Int, _ name: String) throws {
            var text = "<?xml version=\"1.0\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document><Placemark><LineString><coordinates>\n"
            let step = 180 / 111_320.0
            for i in 0..<count {
                let row = i / 2000, column = i % 2000
                let longitude = 115.0 + Double(row % 2 == 0 ? column : 1999 - column) * step / cos(39.2 * .pi / 180)
                text += String(format: "%.6f,%.6f,0\n", longitude, 39.0 + Double(row) * step)
            }
            text += "</coordinates></LineString></Placemark></Document></kml>\n"
            try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8)
        }
        try plan(2_000, "small.kml")
        try plan(160_000, "large.kml")
        let small = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/small.kml"])
        let large = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/large.kml"])
        XCTAssertEqual(large.status, 0, large.stderr)
        let record = try XCTUnwrap(files(try report(large))[dir + "/large.kml"])
        XCTAssertEqual(record["status"] as? String, "planned")
        XCTAssertEqual(record["pointsPlanned"] as? Int, 160_000)
        // 160,000 legs of about 8 cells each held 150 MB before; 32 bytes a point is 5 MB.
        XCTAssertLessThan(large.peakResidentBytes, small.peakResidentBytes + (40 << 20),
                          "peak \(large.peakResidentBytes >> 20) MB against \(small.peakResidentBytes >> 20) MB for the small plan")
    }

    /// A .tgz of GNU long names of 1 MiB each (17 of them, about 110 KB compressed, under the
    /// 200:1 rule) cost seconds per name, hundreds of MB and a report of hundreds of MB: the
    /// names are listed short, the report stays small, the peak near a small archive's.
    func testMegabyteNamesCostTheirBytesNotCopies() throws {
        let dir = try temporaryDirectory()
        let script = "import random\n" + Self.tarHelpers + """
        body = member(b"a.csv", walk(100))
        for i in range(17):
            rnd = random.Random(i)
            unit = bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(1500))
            name = (b"n%02d/" % i) + (unit * 700)[:(1 << 20) - 10] + b".csv"
            body += member(b"././@LongLink", name + b"\\0", b"L") + member(b"short.csv", walk(3))
        body += b"\\0" * 1024
        open("long.tgz", "wb").write(gzip.compress(body, 9, mtime=0))
        open("plain.tgz", "wb").write(gzip.compress(member(b"a.csv", walk(100)) + b"\\0" * 1024, 9, mtime=0))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let plain = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/plain.tgz"])
        let long = try CommandRunner.run(["classify", "--tables", Self.tables, dir + "/long.tgz"], timeout: 300)
        XCTAssertEqual(long.status, 3, long.stderr)
        let listed = files(try report(long))
        XCTAssertEqual(listed[dir + "/long.tgz:a.csv"]?["pointsRead"] as? Int, 100)
        XCTAssertEqual(listed.keys.filter { $0.contains("long.tgz:n") }.count, 17)
        XCTAssertLessThan(long.stdout.utf8.count, 200_000, "the report holds no megabyte names")
        XCTAssertTrue(long.stderr.contains("longer than any path a file system holds"), long.stderr)
        XCTAssertLessThan(long.peakResidentBytes, plain.peakResidentBytes + (40 << 20),
                          "peak \(long.peakResidentBytes >> 20) MB against \(plain.peakResidentBytes >> 20) MB for a small archive")
    }

    /// A 61-byte Fog of World tile whose 16,384 slots all name one block explored 3,631 km² (67 M
    /// points, 127 s, 814 MB): refused, naming the two header bytes; a tile of distinct whole blocks
    /// past what its file's size allows is refused as too dense; the real tiles beside them read.
    func testFogOfWorldTilesCannotRepeatABlockOrOutgrowTheirBytes() throws {
        let dir = try temporaryDirectory()
        let sync = dir + "/Sync"
        try FileManager.default.createDirectory(atPath: sync, withIntermediateDirectories: true)
        let real = Repository.fixtures("IntakeTests") + "/fog-of-world/sync/Sync/3551iitsowe"
        try FileManager.default.copyItem(atPath: real, toPath: sync + "/3551iitsowe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
        import struct, zlib
        block = b"\\xff" * 512 + bytes([0, (2 * 4096 + 1) >> 8, (2 * 4096 + 1) & 0xff])
        open("Sync/0921iihwtxn", "wb").write(zlib.compress(struct.pack("<H", 1) * 16384 + block, 9))
        open("Sync/d391iitjido", "wb").write(zlib.compress(b"".join(struct.pack("<H", i + 1) for i in range(16384)) + block * 16384, 9))
        """]
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        try process.run()
        process.waitUntilExit()
        let result = try CommandRunner.run(["classify", "--tables", Self.tables, dir], timeout: 300)
        XCTAssertEqual(result.status, 3, result.stderr)
        let listed = files(try report(result))
        XCTAssertTrue((listed[sync + "/0921iihwtxn"]?["error"] as? String ?? "").contains("block 1 is named at header bytes 0 and 2; Fog of World writes each block once"),
                      "\(listed[sync + "/0921iihwtxn"] ?? [:])")
        XCTAssertTrue((listed[sync + "/d391iitjido"]?["error"] as? String ?? "").contains("67108864 pixels from a"), "\(listed[sync + "/d391iitjido"] ?? [:])")
        // The real tile's pixels, as the independent decoder counted them (the fixture's expected.json).
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Repository.fixtures("IntakeTests") + "/fog-of-world/expected.json"))) as? [String: Any])
        let pixels = ((expected["files"] as? [String: Any])?["3551iitsowe"] as? [String: Any])?["pixels"] as? Int
        XCTAssertEqual(listed[sync + "/3551iitsowe"]?["pointsRead"] as? Int, try XCTUnwrap(pixels))
        XCTAssertLessThan(result.peakResidentBytes, 400 << 20)
    }
}
