import Foundation
import XCTest
import TextFormats
@testable import Tracks
import UnlocksTestSupport

/// Issue 35 in the readers: file integers near ±2^63 (OwnTracks `tst`, a Photos sidecar's
/// `timestamp`), EXIF GPS values past the EXIF, Fog of World tiles naming a block twice or
/// denser than their bytes, overlong lines passed over, UTF-16 JSON, and the one time-zone
/// resolver. Crafted bytes are built here from the attack's description.
final class ReaderHardeningTests: XCTestCase {
    /// `"tst": "-9223372036854775808"` trapped in `abs(Int64.min)`; the same value in a sidecar's
    /// `timestamp` killed a run over a photo folder. Each is an unreadable point naming the file
    /// and line; the points beside it are read, and every value at the edges of the 64-bit range.
    func testSecondsNearTheEdgesOfInt64AreUnreadablePointsNotTraps() throws {
        for value in ["-9223372036854775808", "9223372036854775807", "-9223372036854775807", "9223372036854776", "-62167219201", "253402300800"] {
            let text = """
            2024-05-01T01:00:00Z\towntracks/u/d\t{"_type":"location","lat":39.9,"lon":116.4,"tst":"\(value)"}
            2024-05-01T01:00:01Z\towntracks/u/d\t{"_type":"location","lat":39.9,"lon":116.4,"tst":\(value)}
            2024-05-01T01:00:02Z\towntracks/u/d\t{"_type":"location","lat":39.9,"lon":116.4,"tst":1714525202}

            """
            var sink = TrackEventRecorder()
            try OwnTracksReader.read(MemorySource(Array(text.utf8)), path: "t.rec", into: &sink)
            XCTAssertEqual(sink.points.map(\.time), [1_714_525_202_000], value)
            XCTAssertEqual(sink.problems.map(\.line), [1, 2], value)
            XCTAssertTrue(sink.problems.allSatisfy { $0.path == "t.rec" && $0.reason.contains("tst") }, "\(sink.problems)")

            let sidecar = #"{"title":"IMG_1.jpg","photoTakenTime":{"timestamp":"\#(value)"},"geoData":{"latitude":39.9,"longitude":116.4,"altitude":0}}"#
            var photo = TrackEventRecorder()
            XCTAssertEqual(try JSONTrackReader.read(MemorySource(Array(sidecar.utf8)), path: "IMG_1.jpg.json", into: &photo), .photoSidecar)
            XCTAssertEqual(photo.points.count, 0, value)
            XCTAssertEqual(photo.problems.first?.reason, "photoTakenTime without a timestamp in seconds", value)
        }
        XCTAssertEqual(Timestamp.milliseconds(fromSeconds: 1_714_525_200), 1_714_525_200_000)
        XCTAssertNil(Timestamp.milliseconds(fromSeconds: .min))
        XCTAssertNil(Timestamp.milliseconds(fromSeconds: .max))
    }

    /// A little-endian TIFF whose GPS IFD holds latitude (tag 2) and longitude (tag 4) as three
    /// RATIONALs each, with their references; `gpsValueOffset` places the longitude's values.
    static func exif(longitudeAt gpsValueOffset: UInt32?) -> [UInt8] {
        var tiff: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        // IFD0 at 8: one entry, the GPS IFD pointer (0x8825, LONG) to 26.
        tiff += u16(1) + u16(0x8825) + u16(4) + u32(1) + u32(26) + u32(0)
        // GPS IFD at 26: four entries, then the values at 26 + 2 + 48 + 4 = 80.
        let values: UInt32 = 80
        tiff += u16(4)
        tiff += u16(1) + u16(2) + u32(2) + Array("N\0".utf8) + [0, 0]
        tiff += u16(2) + u16(5) + u32(3) + u32(values)
        tiff += u16(3) + u16(2) + u32(2) + Array("E\0".utf8) + [0, 0]
        tiff += u16(4) + u16(5) + u32(3) + u32(gpsValueOffset ?? values + 24)
        tiff += u32(0)
        XCTAssertEqual(tiff.count, Int(values))
        for (whole, rest) in [(39, 54), (116, 24)] { tiff += u32(UInt32(whole)) + u32(1) + u32(UInt32(rest)) + u32(1) + u32(0) + u32(1) }
        return tiff
    }

    /// GPS latitude and longitude whose value offsets run past the EXIF were dropped silently,
    /// and the photo listed as one taken with location off: the position is unusable, naming the
    /// tag and the byte, and the photo is an unreadable point, not "no location".
    func testGPSValuesPastTheEXIFAreAnUnusablePositionNamingTheByte() throws {
        let good = try ExifGPS.parse(Self.exif(longitudeAt: nil)[...])
        XCTAssertEqual(good.latitude ?? 0, 39.9, accuracy: 1e-9)
        XCTAssertEqual(good.longitude ?? 0, 116.4, accuracy: 1e-9)
        XCTAssertNil(good.unusablePosition)
        for offset: UInt32 in [4000, 0xFFFF_FFF0, 0x8000_0000, 110] {
            let facts = try ExifGPS.parse(Self.exif(longitudeAt: offset)[...])
            XCTAssertTrue(facts.hasPosition, "\(offset)")
            XCTAssertNil(facts.longitude)
            XCTAssertEqual(facts.unusablePosition, "GPS tag 4 (longitude) has its value at EXIF byte \(offset), past the 128 bytes of EXIF", "\(offset)")
        }
        // Through the reader: an unreadable point (the intake lists it as read with no readable point).
        let tiff = Self.exif(longitudeAt: 4000)
        let app1 = [0xFF, 0xE1, UInt8((tiff.count + 8) >> 8), UInt8((tiff.count + 8) & 0xFF)] + Array("Exif\0\0".utf8) + tiff
        let jpeg: [UInt8] = [0xFF, 0xD8] + app1 + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
        var sink = TrackEventRecorder()
        XCTAssertEqual(try PhotoReader.read(MemorySource(jpeg), path: "p.jpg", timeZone: .utc, into: &sink), .located(.jpeg))
        XCTAssertEqual(sink.problems.first?.reason, "byte 12: GPS tag 4 (longitude) has its value at EXIF byte 4000, past the 128 bytes of EXIF")
    }

    /// An inflated tile: the header (block numbers by slot) and `blocks` blocks, each with its
    /// bitmap's pixels and a count that agrees.
    static func tile(slots: [Int: Int], blocks: [[UInt8]]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 32768)
        for (slot, number) in slots {
            header[2 * slot] = UInt8(number & 0xFF)
            header[2 * slot + 1] = UInt8(number >> 8)
        }
        return header + blocks.flatMap { bitmap -> [UInt8] in
            let count = 2 * bitmap.reduce(0) { $0 + $1.nonzeroBitCount } + 1
            return bitmap + [0, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
    }

    /// A tile whose slots all name one block (61 bytes compressed: 67 M points, 3,631 km²), and
    /// one naming a block twice among others, are refused before any pixel is delivered, naming
    /// the two header bytes; a tile of distinct whole blocks past its file's size is refused as
    /// too dense; a real-looking tile reads every pixel.
    func testFogOfWorldBlocksAreEachNamedOnceAndBoundedByTheFile() throws {
        let full = [UInt8](repeating: 0xFF, count: 512)
        var line = [UInt8](repeating: 0, count: 512)
        for row in 0..<64 { line[row * 8 + row / 8] = 0x80 >> (row % 8) }  // a diagonal: 64 pixels
        func read(_ data: [UInt8], fileBytes: Int) -> (points: Int, error: InputError?) {
            var sink = TrackEventRecorder()
            do {
                try FogOfWorldTile.read(data, fileBytes: fileBytes, tileX: 421, tileY: 193, path: "Sync/0921iihwtxn", into: &sink)
                return (sink.points.count, nil)
            } catch let error as InputError {
                XCTAssertEqual(sink.points.count, 0, "nothing is delivered before the check")
                return (sink.points.count, error)
            } catch {
                XCTFail("\(error)")
                return (0, nil)
            }
        }
        let all = read(Self.tile(slots: Dictionary(uniqueKeysWithValues: (0..<16384).map { ($0, 1) }), blocks: [full]), fileBytes: 61)
        XCTAssertEqual(all.error?.reason, "Fog of World tile: block 1 is named at header bytes 0 and 2; Fog of World writes each block once")
        let twice = read(Self.tile(slots: [5: 1, 900: 2, 12000: 1], blocks: [line, line]), fileBytes: 200)
        XCTAssertEqual(twice.error?.reason, "Fog of World tile: block 1 is named at header bytes 10 and 24000; Fog of World writes each block once")
        let dense = read(Self.tile(slots: Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, $0 + 1) }), blocks: Array(repeating: full, count: 100)), fileBytes: 400)
        XCTAssertEqual(dense.error?.kind, .decompressionBomb)
        XCTAssertTrue(dense.error?.reason.contains("409600 pixels from a 400-byte file, more than 145536") == true, "\(String(describing: dense.error))")
        let real = read(Self.tile(slots: [5: 1, 900: 2, 12000: 3], blocks: [line, line, full]), fileBytes: 200)
        XCTAssertNil(real.error)
        XCTAssertEqual(real.points, 64 + 64 + 4096)
    }

    /// `forEachLine(overlong:)` (convert, locate): a line over the limit is passed over in
    /// constant memory and named; the lines after it are read, in every line ending and however
    /// the bytes arrive. Without a handler the line is still an error.
    func testAnOverlongLineIsPassedOverWhenAsked() throws {
        let limit = LineReader<FedSource>.maximumLineLength
        for ending in ["\n", "\r\n", "\r", "\u{2028}"] {
            let text = ["a", String(repeating: "x", count: limit + 1), "b", String(repeating: "y", count: 3 * limit), "c"].joined(separator: ending)
            for feeding in [FedSource.Feeding.whole, .fixed(4093)] {
                var reader = LineReader(FedSource(Array(text.utf8), feeding: feeding), path: "t.csv")
                defer { reader.close() }
                var lines: [String] = [], skipped: [Int] = []
                try reader.forEachLine(overlong: { skipped.append($0) }) { line, number in
                    lines.append("\(number):" + String(decoding: line, as: UTF8.self))
                }
                XCTAssertEqual(lines, ["1:a", "3:b", "5:c"], "\(ending.unicodeScalars.map(\.value))")
                XCTAssertEqual(skipped, [2, 4])
            }
        }
        var strict = LineReader(MemorySource(Array(("a\n" + String(repeating: "x", count: limit + 1) + "\nb\n").utf8)), path: "t.csv")
        defer { strict.close() }
        XCTAssertThrowsError(try strict.forEachLine { _, _ in }) { XCTAssertEqual(($0 as? InputError)?.line, 2) }
    }

    /// UTF-16 JSON (Notepad's "Unicode") said "unexpected character '\u{ff}'": it is read as the
    /// same text in UTF-8, as CSV is, in either byte order.
    func testUTF16JSONIsReadAsItsText() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[116.4,39.9],[116.401,39.901]]}}]}"#
        var utf8 = TrackEventRecorder()
        _ = try JSONTrackReader.read(MemorySource(Array(text.utf8)), path: "a.geojson", into: &utf8)
        for bigEndian in [false, true] {
            var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
            for unit in text.utf16 { bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            var sink = TrackEventRecorder()
            _ = try JSONTrackReader.read(FedSource(bytes, feeding: .trickle), path: "a.geojson", into: &sink)
            XCTAssertEqual(sink.points, utf8.points)
            XCTAssertEqual(sink.points.count, 2)
        }
    }

    /// One resolver for every zone name of the tz database: names without a slash (GB, NZ, Japan,
    /// PRC, CET, EST5EDT, Israel) are zones with their rules, for `--time-zone` and `TZ` alike;
    /// abbreviations and offsets, which Foundation also takes, are not. Every name of the list
    /// (generated from tzdata.zi) resolves here, checked against the system's zoneinfo files.
    func testEveryTzDatabaseNameResolvesAndNothingElse() throws {
        // 00:30 BST on 2 July 2024 is 23:30Z on 1 July; 00:30 GMT on 2 January is 00:30Z.
        let july = Int64(19_905) * 86_400_000 + Int64(23.5 * 3_600_000), january = Int64(19_724) * 86_400_000 + 1_800_000
        for environment in [["TZ": "GB"], ["TZ": ":GB"], ["TZ": "/usr/share/zoneinfo/GB"]] {
            var clock = LocalDayClock(zone: LocalTimeZone.system(environment: environment))
            XCTAssertEqual(clock.day(of: july), 19_906, "\(environment)")
            XCTAssertEqual(clock.day(of: january), 19_724, "\(environment)")
            XCTAssertNil(LocalTimeZone.systemProblem(environment: environment))
        }
        for (name, julyOffset) in [("GB", 60), ("NZ", 720), ("Japan", 540), ("PRC", 480), ("CET", 120), ("EST5EDT", -240), ("Israel", 180), ("UTC", 0), ("Etc/GMT-8", 480)] {
            let zone = try XCTUnwrap(LocalTimeZone(identifier: name), name)
            XCTAssertEqual(zone.offsetMinutes(at: july), julyOffset, name)
            XCTAssertNil(zone.fixedMinutes, name)
        }
        for name in ["PST", "CEST", "GMT+8", "GMT+0800", "europe/london", "Factory", "posixrules", "../etc/passwd", ""] {
            XCTAssertNil(LocalTimeZone(identifier: name), name)
        }
        XCTAssertEqual(LocalTimeZone.systemProblem(environment: ["TZ": "CET-1CEST"])?.hasPrefix("TZ='CET-1CEST' names no time zone of the tz database"), true)
        XCTAssertNil(LocalTimeZone.systemProblem(environment: [:]))
        // The list against the system's tz database: each name has its zoneinfo file, and resolves.
        XCTAssertGreaterThan(TimeZoneNames.all.count, 590)
        var missing: [String] = []
        for name in TimeZoneNames.all.sorted() {
            if LocalTimeZone(identifier: name) == nil { missing.append(name) }
            XCTAssertTrue(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + name), "\(name) has no zoneinfo file (install tzdata)")
        }
        XCTAssertEqual(missing, [], "names of the tz database Foundation does not resolve")
    }
}
