import Foundation
import XCTest
@testable import Intake
import Tracks
import Unlocks
import UnlocksTestSupport

/// Issue 35, items 4, 6 and 9 in the intake: work bounded by an input's bytes (long member
/// names, the `--datum-for` glob), a stream path never read as a file, and the layers around a
/// stream's text (gzip twice, two byte order marks, UTF-16) said the same way for every format.
final class CostBoundTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws { folder = try temporaryDirectory() }

    func path(_ name: String) -> String { folder + "/" + name }

    /// GNU `L` and pax `path` names of 1 MiB (a 240 KB .tgz of them cost 14–19 s, 283 MB and a
    /// report of hundreds of MB, each name copied about 5.5 times): each such member is listed by
    /// its first and last bytes, its header's byte offset and the name's length, not read; the
    /// members around them are read; the record paths stay short.
    func testMegabyteMemberNamesAreListedShortNotCopied() throws {
        let printed = try IntakeHarness.python(IntegerFieldTests.tarHelpers + """
        import random
        body = member(b"a.csv", walk(100))
        headers = []
        for i in range(6):
            rnd = random.Random(i)
            unit = bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(1500))
            name = (b"n%d/" % i) + (unit * 700)[:(1 << 20) - 64] + b".csv"
            if i % 2 == 0:
                headers.append(len(body) + 512 + len(name) + 1 + (512 - (len(name) + 1) % 512) % 512)
                body += member(b"././@LongLink", name + b"\\0", b"L") + member(b"short.csv", walk(3))
            else:
                record = b" path=" + name + b"\\n"
                length = len(record) + 7
                record = str(length).encode() + record
                assert len(record) == length
                headers.append(len(body) + 512 + len(record) + (512 - len(record) % 512) % 512)
                body += member(b"pax", record, b"x") + member(b"short.csv", walk(3))
        body += member(b"b.csv", walk(50)) + b"\\0" * 1024
        open("long.tgz", "wb").write(gzip.compress(body, 9, mtime=0))
        print(" ".join(map(str, headers)), len((unit * 700)[:(1 << 20) - 64]) + 7)
        """, in: folder).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let length = printed.last!
        var messages: [String] = []
        let outcome = try IntakeHarness.run([.path(path("long.tgz"))], messages: &messages)
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[path("long.tgz:a.csv")]?.pointsRead, 100)
        XCTAssertEqual(records[path("long.tgz:b.csv")]?.pointsRead, 50)
        let long = records.values.filter { $0.path.hasPrefix(path("long.tgz:n")) }.sorted { $0.path < $1.path }
        XCTAssertEqual(long.count, 6, "\(records.keys.sorted())")
        for (index, record) in long.enumerated() {
            XCTAssertEqual(record.status, .rejected)
            XCTAssertLessThan(record.path.utf8.count, path("long.tgz:").utf8.count + 4 * 250, "the listed name is short")
            XCTAssertTrue(record.path.hasSuffix(".csv"), "the name's end (its extension) is kept: \(record.path)")
            let error = record.error ?? ""
            XCTAssertTrue(error.contains("a member name of \(length) bytes (header at byte \(printed[index]))"), error)
            XCTAssertTrue(error.contains("longer than any path a file system holds (4096 bytes): not read"), error)
        }
        // The whole report's paths: bounded, not 6 MiB of names.
        XCTAssertLessThan(records.keys.reduce(0) { $0 + $1.utf8.count }, 20_000)
    }

    /// `--datum-for '**/**/amap/*.gpx'` against a 40 KB member path took 19.6 s (the backtracking
    /// matcher is quadratic, exponential in stars); the automaton's time is the pattern's length
    /// times the path's. A path of 400 KB would take half an hour quadratically: it takes well under
    /// a second, and the matches are those of the rule (checked here by hand on short paths).
    func testTheGlobMatcherIsLinearInThePath() throws {
        let rules = try DatumRules(["**/**/amap/*.gpx=gcj02", "**/*/*/*x*x*x*x*y=bd09"], fallback: .wgs84)
        XCTAssertEqual(rules.datum(for: "a/b/amap/day1.gpx"), .gcj02)
        XCTAssertEqual(rules.datum(for: "exports/amap/day1.gpx"), .wgs84)  // each `/` of the pattern is one of the path
        XCTAssertEqual(rules.datum(for: "a/b/amap/c/day1.gpx"), .wgs84)  // `*` stops at `/`
        XCTAssertEqual(rules.datum(for: "tracks.zip:x/y/z/amap/d.gpx"), .gcj02)
        XCTAssertEqual(rules.datum(for: "p/q/r/axbxcxdxey"), .bd09)
        XCTAssertEqual(rules.datum(for: "p/q/r/axbxcxdxe"), .wgs84)
        XCTAssertTrue(DatumRules.matches(Array("a?c")[...], Array("abc")[...]))
        XCTAssertFalse(DatumRules.matches(Array("a?c")[...], Array("a/c")[...]))
        XCTAssertTrue(DatumRules.matches(Array("**")[...], Array("")[...]))
        XCTAssertTrue(DatumRules.matches(Array("a**")[...], Array("a/b/c")[...]))
        let long = String(repeating: "a/", count: 100_000) + String(repeating: "x", count: 200_000) + ".gp"
        let started = Date()
        XCTAssertEqual(rules.datum(for: long), .wgs84)
        XCTAssertEqual(rules.datum(for: long + "x"), .wgs84)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "the match of a 400 KB path is bounded (a hang before)")
    }

    /// A pipe or FIFO named to the library is listed as not a regular file, never fingerprinted
    /// with O_NONBLOCK and read as an empty file (or EAGAIN); the run goes on (the commands copy
    /// such a path first: UnlocksCommandTests.StreamPathTests).
    func testAFIFONamedToTheLibraryIsListedNotReadAsAFile() throws {
        _ = try IntakeHarness.python(IntakeHarness.csvWalk + "open('walk.csv', 'wb').write(walk(20))", in: folder)
        XCTAssertEqual(mkfifo(path("pipe.csv"), 0o644), 0)
        let outcome = try IntakeHarness.run([.path(path("pipe.csv")), .path(path("walk.csv"))])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[path("pipe.csv")]?.skipReason?.description, "not a regular file")
        XCTAssertEqual(records[path("walk.csv")]?.pointsRead, 20)
    }

    /// The layers around the text, one rule for every format: gzip inside gzip (which read as a
    /// CSV "naming no latitude and longitude columns"), two UTF-8 byte order marks ("unexpected
    /// character '\u{ef}'"), UTF-16 JSON ("unexpected character '\u{ff}'", read now as CSV is) and
    /// UTF-16 GPX (told to re-save), gzip under a name without `.gz` (read).
    func testTheLayersAroundTheTextAreSaidAlikeForEveryFormat() throws {
        _ = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import gzip, json
        open("twice.csv.gz", "wb").write(gzip.compress(gzip.compress(walk(30), mtime=0), mtime=0))
        open("once.csv.gz", "wb").write(gzip.compress(walk(30), mtime=0))
        open("plain-gzip.csv", "wb").write(gzip.compress(walk(25), mtime=0))
        open("bom2.csv", "wb").write(b"\\xef\\xbb\\xbf\\xef\\xbb\\xbf" + walk(10))
        feature = {"type": "Feature", "properties": {"time": "2024-05-01T01:00:00Z"},
                   "geometry": {"type": "LineString", "coordinates": [[116.40, 39.90], [116.401, 39.901], [116.402, 39.902]]}}
        text = json.dumps({"type": "FeatureCollection", "features": [feature]})
        open("utf16.geojson", "wb").write(text.encode("utf-16"))
        open("utf8.geojson", "wb").write(text.encode("utf-8"))
        open("bom2.geojson", "wb").write(b"\\xef\\xbb\\xbf\\xef\\xbb\\xbf" + text.encode())
        gpx = '<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="39.9" lon="116.4"><time>2024-05-01T01:00:00Z</time></trkpt></trkseg></trk></gpx>'
        open("utf16.gpx", "wb").write(gpx.encode("utf-16"))
        """, in: folder)
        let names = ["twice.csv.gz", "once.csv.gz", "plain-gzip.csv", "bom2.csv", "utf16.geojson", "utf8.geojson", "bom2.geojson", "utf16.gpx"]
        var options = IntakeOptions()
        options.classify.includePlans = true
        let outcome = try IntakeHarness.run(names.map { .path(path($0)) }, options: options)
        let records = IntakeHarness.records(outcome.ledger)
        func error(_ name: String) -> String { records[path(name)]?.error ?? "(none)" }
        XCTAssertTrue(error("twice.csv.gz").contains("gzip data inside gzip data (compressed twice): decompress it once (gunzip)"), error("twice.csv.gz"))
        XCTAssertEqual(records[path("once.csv.gz")]?.pointsRead, 30)
        XCTAssertEqual(records[path("plain-gzip.csv")]?.pointsRead, 25)
        for name in ["bom2.csv", "bom2.geojson"] {
            XCTAssertTrue(error(name).contains("two UTF-8 byte order marks (EF BB BF EF BB BF at byte 0)"), error(name))
        }
        XCTAssertEqual(records[path("utf16.geojson")]?.pointsRead, 3)
        XCTAssertEqual(records[path("utf16.geojson")]?.pointsRead, records[path("utf8.geojson")]?.pointsRead)
        XCTAssertNil(records[path("utf16.geojson")]?.error)
        XCTAssertTrue(error("utf16.gpx").contains("the text is UTF-16 (its byte order mark at byte 0); gpx is read as UTF-8: re-save it as UTF-8"), error("utf16.gpx"))
    }
}
