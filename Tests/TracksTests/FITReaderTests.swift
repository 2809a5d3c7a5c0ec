import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Builds FIT files message by message, with correct header and file CRCs unless told otherwise.
struct FITBuilder {
    /// A field definition: number, size, base type.
    typealias Field = (number: UInt8, size: UInt8, baseType: UInt8)

    var data: [UInt8] = []

    mutating func define(local: UInt8, global: UInt16, bigEndian: Bool = false, fields: [Field], developerFields: [Field] = []) {
        data.append(0x40 | (developerFields.isEmpty ? 0 : 0x20) | local)
        data += [0, bigEndian ? 1 : 0]
        data += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        data.append(UInt8(fields.count))
        for field in fields { data += [field.number, field.size, field.baseType] }
        if !developerFields.isEmpty {
            data.append(UInt8(developerFields.count))
            for field in developerFields { data += [field.number, field.size, field.baseType] }
        }
    }

    /// A data message with a normal header; `bytes` already in the definition's byte order.
    mutating func message(local: UInt8, _ bytes: [UInt8]) {
        data.append(local)
        data += bytes
    }

    /// A data message with a compressed-timestamp header (local type 0–3, offset 0–31 s).
    mutating func compressed(local: UInt8, timeOffset: UInt8, _ bytes: [UInt8]) {
        data.append(0x80 | local << 5 | timeOffset)
        data += bytes
    }

    /// The whole file: a 14-byte header with its CRC, the data, the file CRC.
    func file(headerSize: UInt8 = 14) -> [UInt8] {
        var bytes: [UInt8] = [headerSize, 0x20, 0x54, 0x08] + FITBuilder.le32(UInt32(data.count)) + Array(".FIT".utf8)
        if headerSize == 14 {
            var crc = FITCRC()
            crc.update(bytes)
            bytes += FITBuilder.le16(crc.value)
        }
        bytes += data
        var crc = FITCRC()
        crc.update(bytes)
        return bytes + FITBuilder.le16(crc.value)
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    static func be32(_ v: UInt32) -> [UInt8] { le32(v).reversed() }
    static func semicircles(_ degrees: Double) -> UInt32 { UInt32(bitPattern: Int32((degrees * 2_147_483_648 / 180).rounded())) }
}

final class FITReaderTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fit")

    func read(_ bytes: [UInt8], trickle: Bool = false) throws -> (TrackEventRecorder, FITReader.Summary) {
        var sink = TrackEventRecorder()
        let summary = trickle ? try FITReader.read(FedSource(bytes, feeding: .trickle), path: "t.fit", into: &sink)
                              : try FITReader.read(MemorySource(bytes), path: "t.fit", into: &sink)
        XCTAssertEqual(sink.problems, [], "the FIT reader reports no unreadable points")
        return (sink, summary)
    }

    /// The error a read throws (nil if none), and what was delivered before it.
    func failure(_ bytes: [UInt8]) -> (InputError?, TrackEventRecorder) {
        var sink = TrackEventRecorder()
        do {
            try FITReader.read(MemorySource(bytes), path: "bad.fit", into: &sink)
            return (nil, sink)
        } catch {
            return (error as? InputError, sink)
        }
    }

    func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
    }

    // MARK: Real files, against fitdecode

    func testFixturesMatchFitdecode() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        XCTAssertEqual(expected.count, 6)
        for (name, facts) in expected.sorted(by: { $0.key < $1.key }) {
            let path = Self.fixtures.appendingPathComponent(name).path
            var sink = TrackEventRecorder()
            let summary = try FITReader.read(try FileSource(path: path), path: path, into: &sink)
            XCTAssertEqual(summary.files, facts["files"] as? Int, name)
            XCTAssertEqual(summary.records, facts["records"] as? Int, name)
            XCTAssertEqual(summary.points, facts["points"] as? Int, name)
            XCTAssertEqual(sink.points.count, facts["points"] as? Int, name)
            XCTAssertEqual(sink.points.filter { $0.time != nil }.count, facts["timedPoints"] as? Int, name)
            for (which, point) in [("first", sink.points.first), ("last", sink.points.last)] {
                guard let want = facts[which] as? [String: Any] else {
                    XCTAssertNil(point, "\(name) \(which)")
                    continue
                }
                let got = try XCTUnwrap(point, "\(name) \(which)")
                XCTAssertEqual(got.latitude, try XCTUnwrap(want["lat"] as? Double), accuracy: 1e-12, "\(name) \(which)")
                XCTAssertEqual(got.longitude, try XCTUnwrap(want["lon"] as? Double), accuracy: 1e-12, "\(name) \(which)")
                XCTAssertEqual(got.time, (want["time"] as? NSNumber)?.int64Value, "\(name) \(which)")
                if let ele = want["ele"] as? Double {
                    XCTAssertEqual(try XCTUnwrap(got.elevation, "\(name) \(which)"), ele, accuracy: 1e-9, "\(name) \(which)")
                } else {
                    XCTAssertNil(got.elevation, "\(name) \(which)")
                }
                XCTAssertEqual(got.accuracy, want["accuracy"] as? Double, "\(name) \(which)")
            }
            // Activity types: each sport/session message's sport, repeats folded.
            var sports: [String] = []
            for sport in facts["sports"] as? [[String: String]] ?? [] {
                let readable = (sport["sport"] ?? "").replacingOccurrences(of: "_", with: " ")
                let typed = sport["subSport"] == "virtual_activity" ? "virtual " + readable : readable
                if sports.last != typed { sports.append(typed) }
            }
            let activities = sink.annotations.compactMap { if case let .activityType(a) = $0 { return a } else { return nil } }
            XCTAssertEqual(activities, sports, name)
            let creators = sink.annotations.compactMap { if case let .creator(c) = $0 { return c } else { return nil } }
            let creator = try XCTUnwrap(facts["creator"] as? [String: Any], name)
            let maker = (creator["manufacturer"] as? String ?? "").replacingOccurrences(of: "_", with: " ")
            XCTAssertEqual(creators.first?.lowercased(), maker + ((creator["product"] as? Int).map { " product \($0)" } ?? ""), name)
            // A segment break opens each FIT file of the input.
            XCTAssertEqual(sink.events.first, .segmentBreak, name)
            XCTAssertGreaterThanOrEqual(sink.breaks, summary.files, name)
        }
    }

    func testChainedFilesBreakSegmentsAndReadBothCreators() throws {
        let (sink, summary) = try read(try fixture("chained-fenix-5-run-edge-820-bike.fit"))
        XCTAssertEqual(summary.files, 2)
        XCTAssertEqual(sink.annotations, [.creator("Garmin product 2697"), .activityType("running"),
                                          .creator("Garmin product 2530"), .activityType("cycling")])
        // The second file's points start a segment of their own.
        let run = try read(try fixture("garmin-fenix-5-run.fit")).0.points
        guard let firstOfSecond = sink.events.firstIndex(of: .point(try read(try fixture("garmin-edge-820-bike.fit")).0.points[0])) else {
            return XCTFail("the second file's first point is missing")
        }
        XCTAssertTrue(sink.events[..<firstOfSecond].contains(.point(run.last!)))
        XCTAssertTrue(sink.events[sink.events.lastIndex(of: .point(run.last!))!..<firstOfSecond].contains(.segmentBreak))
    }

    func testRecordsWithoutPositionsAreNotPoints() throws {
        // A Polar treadmill run: 4838 records of heart rate and speed, no position; a 12-byte
        // header; the timer stopped and started again with no points between, so no break.
        let (sink, summary) = try read(try fixture("treadmill_15km.FIT"))
        XCTAssertEqual(summary.records, 4838)
        XCTAssertEqual(summary.points, 0)
        XCTAssertEqual(sink.events, [.segmentBreak, .annotation(.creator("Polar Electro product 0")), .annotation(.activityType("running"))])
    }

    func testFixturesReadTheSameInTinyChunks() throws {
        for name in ["garmin-fenix-5-run.fit", "DeveloperData.fit", "chained-fenix-5-run-edge-820-bike.fit"] {
            let bytes = try fixture(name)
            let whole = try read(bytes), trickled = try read(bytes, trickle: true)
            XCTAssertEqual(whole.0.events, trickled.0.events, name)
            XCTAssertEqual(whole.1, trickled.1, name)
        }
    }

    // MARK: Damage

    func testTruncatedFileNamesTheOffsetAndKeepsThePointsBefore() throws {
        let bytes = try fixture("garmin-fenix-5-run.fit")
        let all = try read(bytes).0.points
        XCTAssertEqual(all.count, 21)
        // Without its CRC: every point read, then the error at the CRC's offset.
        let (error, sink) = failure(Array(bytes.dropLast(2)))
        XCTAssertEqual(error?.reason, "byte \(bytes.count - 2): the file ends before its CRC (truncated?)")
        XCTAssertEqual(sink.points, all)
        // Cut anywhere: an error naming a byte offset inside the file, and a prefix of the points.
        var lastCount = 0
        for cut in 0..<(bytes.count - 2) {
            let (error, sink) = failure(Array(bytes[..<cut]))
            let reason = try XCTUnwrap(error?.reason, "cut at \(cut)")
            let offset = try XCTUnwrap(Int(reason.dropFirst(5).prefix { $0 != ":" }), reason)
            XCTAssertTrue(reason.hasPrefix("byte "), reason)
            XCTAssertLessThanOrEqual(offset, cut, reason)
            XCTAssertEqual(sink.points, Array(all.prefix(sink.points.count)), "cut at \(cut)")
            XCTAssertGreaterThanOrEqual(sink.points.count, lastCount, "cut at \(cut)")
            lastCount = sink.points.count
        }
        XCTAssertEqual(lastCount, 21)
    }

    func testBadCRCsNameTheirOffsetAndKeepThePoints() throws {
        let bytes = try fixture("garmin-fenix-5-run.fit")
        let all = try read(bytes).0.points
        var flipped = bytes
        flipped[flipped.count - 1] ^= 0x01
        let (error, sink) = failure(flipped)
        XCTAssertEqual(error?.path, "bad.fit")
        let reason = try XCTUnwrap(error?.reason)
        XCTAssertTrue(reason.hasPrefix("byte \(bytes.count - 2): the file's CRC is "), reason)
        XCTAssertEqual(sink.points, all)

        // A changed data byte (inside a record's field values): the structure holds, the CRC does not.
        var damaged = bytes
        damaged[bytes.count - 40] ^= 0x10
        let (dataError, _) = failure(damaged)
        XCTAssertNotNil(dataError)

        var header = bytes
        header[12] ^= 0xFF
        let (headerError, headerSink) = failure(header)
        XCTAssertTrue(headerError?.reason.hasPrefix("byte 12: the header's CRC is ") == true, "\(String(describing: headerError))")
        XCTAssertTrue(headerSink.events.isEmpty)

        // A zero header CRC means "not computed" and is accepted.
        var unchecked = bytes
        unchecked[12] = 0
        unchecked[13] = 0
        var crc = FITCRC()
        crc.update(Array(unchecked.dropLast(2)))
        unchecked[unchecked.count - 2] = UInt8(crc.value & 0xFF)
        unchecked[unchecked.count - 1] = UInt8(crc.value >> 8)
        XCTAssertEqual(try read(unchecked).0.points, all)
    }

    func testEveryDamagedByteAndCutGivesAnErrorOrPointsNeverATrap() throws {
        for name in ["garmin-edge-820-bike.fit", "DeveloperData.fit"] {
            let bytes = try fixture(name)
            for i in 0..<bytes.count {
                for pattern: UInt8 in [0xFF, UInt8(1) << (i % 8)] {
                    var damaged = bytes
                    damaged[i] ^= pattern
                    let (error, _) = failure(damaged)
                    // Every byte is covered by the file CRC, so no damage goes unnoticed.
                    XCTAssertNotNil(error, "\(name): byte \(i) ^ \(pattern)")
                    XCTAssertTrue(error?.reason.hasPrefix("byte ") == true, "\(name): \(String(describing: error))")
                }
            }
        }
    }

    /// `bytes` with its header CRC (when 14 bytes) and file CRC made right again, so damage
    /// reaches the structure checks instead of stopping at a CRC.
    func withCRCsFixed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        guard bytes.count >= 16 else { return bytes }
        if bytes[0] == 14 {
            var crc = FITCRC()
            crc.update(Array(bytes[0..<12]))
            bytes[12] = UInt8(crc.value & 0xFF)
            bytes[13] = UInt8(crc.value >> 8)
        }
        var crc = FITCRC()
        crc.update(Array(bytes.dropLast(2)))
        bytes[bytes.count - 2] = UInt8(crc.value & 0xFF)
        bytes[bytes.count - 1] = UInt8(crc.value >> 8)
        return bytes
    }

    func testDamageBehindValidCRCsGivesErrorsOrPointsNeverATrap() throws {
        var state: UInt64 = 12345
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var outcomes = (read: 0, failed: 0)
        for name in ["DeveloperData.fit", "garmin-edge-820-bike.fit"] {
            let original = try fixture(name)
            var mutants: [[UInt8]] = []
            for i in 0..<(original.count - 2) {
                for value: UInt8 in [i % 2 == 0 ? 0x00 : 0xFF, UInt8(random(256))] {
                    var mutant = original
                    mutant[i] = value
                    mutants.append(mutant)
                }
            }
            for _ in 0..<300 {
                var mutant = original
                let at = random(mutant.count - 2)
                if random(2) == 0 {
                    mutant.insert(contentsOf: (0..<random(300)).map { _ in UInt8(random(256)) }, at: at)
                } else {
                    mutant.removeSubrange(at..<min(mutant.count - 2, at + random(64)))
                }
                mutants.append(mutant)
            }
            for mutant in mutants {
                let (error, sink) = failure(withCRCsFixed(mutant))
                if let error {
                    XCTAssertTrue(error.reason.hasPrefix("byte "), error.reason)
                    outcomes.failed += 1
                } else {
                    XCTAssertLessThanOrEqual(sink.points.count, mutant.count / 9)
                    outcomes.read += 1
                }
            }
        }
        // Both outcomes occur: the mutants reach past the CRC checks into the structure.
        XCTAssertGreaterThan(outcomes.read, 1000)
        XCTAssertGreaterThan(outcomes.failed, 1000)
    }

    func testCRCMatchesTheReferenceAndBytewiseComputation() {
        var check = FITCRC()
        check.update(Array("123456789".utf8))
        XCTAssertEqual(check.value, 0xBB3D)  // CRC-16/ARC check value
        var bytes: [UInt8] = []
        var state: UInt32 = 1
        for _ in 0..<1000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(state >> 24))
        }
        for length in [0, 1, 2, 3, 4, 5, 7, 8, 999, 1000] {
            var crc: UInt16 = 0
            for byte in bytes[..<length] {
                crc ^= UInt16(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
            }
            var fast = FITCRC()
            fast.update(Array(bytes[..<length]))
            XCTAssertEqual(fast.value, crc, "\(length) bytes")
        }
    }

    // MARK: Hand-built files

    /// 2024-03-01T00:00:00Z in FIT seconds.
    static let march2024 = UInt32(1_709_251_200 - 631_065_600)

    func testBigEndianCompressedTimestampsDeveloperFieldsAndRedefinitions() throws {
        var fit = FITBuilder()
        // file_id, big-endian: manufacturer 1 (Garmin), product 3121, product_name "Edge 530".
        fit.define(local: 0, global: 0, bigEndian: true, fields: [(1, 2, 0x84), (2, 2, 0x84), (8, 10, 0x07)])
        fit.message(local: 0, [0, 1, 0x0C, 0x31] + Array("Edge 530".utf8) + [0, 0])
        // sport, big-endian: cycling (2), virtual_activity (58).
        fit.define(local: 1, global: 12, bigEndian: true, fields: [(0, 1, 0x00), (1, 1, 0x00)])
        fit.message(local: 1, [2, 58])
        // record, big-endian: timestamp, lat, long, enhanced_altitude, gps_accuracy; two developer fields.
        fit.define(local: 2, global: 20, bigEndian: true, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (78, 4, 0x86), (31, 1, 0x02)],
                   developerFields: [(0, 3, 0), (1, 2, 0)])
        let start = Self.march2024
        fit.message(local: 2, FITBuilder.be32(start) + FITBuilder.be32(FITBuilder.semicircles(39.9)) + FITBuilder.be32(FITBuilder.semicircles(116.4))
                    + FITBuilder.be32(2725) + [7] + [9, 9, 9, 9, 9])  // 2725 / 5 - 500 = 45 m
        // Invalid latitude: not a point. Invalid altitude and accuracy: absent.
        fit.message(local: 2, FITBuilder.be32(start + 1) + [0x7F, 0xFF, 0xFF, 0xFF] + FITBuilder.be32(FITBuilder.semicircles(116.4)) + FITBuilder.be32(2725) + [7, 0, 0, 0, 0, 0])
        fit.message(local: 2, FITBuilder.be32(start + 2) + FITBuilder.be32(FITBuilder.semicircles(-33.5)) + FITBuilder.be32(FITBuilder.semicircles(-70.25))
                    + [0xFF, 0xFF, 0xFF, 0xFF] + [0xFF] + [0, 0, 0, 0, 0])
        // Local type 3, little-endian, lat and long only, under compressed-timestamp headers:
        // offsets 5 then 1 (rolling over 32 s).
        fit.define(local: 3, global: 20, fields: [(0, 4, 0x85), (1, 4, 0x85)])
        fit.compressed(local: 3, timeOffset: UInt8((start + 5) & 0x1F), FITBuilder.le32(FITBuilder.semicircles(40)) + FITBuilder.le32(FITBuilder.semicircles(117)))
        fit.compressed(local: 3, timeOffset: UInt8((start + 33) & 0x1F), FITBuilder.le32(FITBuilder.semicircles(40.5)) + FITBuilder.le32(FITBuilder.semicircles(117.5)))
        // Timer stop (event 0, type 4 stop_all) then start: one segment break.
        fit.define(local: 4, global: 21, fields: [(253, 4, 0x86), (0, 1, 0x00), (1, 1, 0x00)])
        fit.message(local: 4, FITBuilder.le32(start + 40) + [0, 4])
        fit.message(local: 4, FITBuilder.le32(start + 100) + [0, 0])
        // Local type 2 redefined mid-file: little-endian, altitude (not enhanced) and a relative timestamp.
        fit.define(local: 2, global: 20, fields: [(1, 4, 0x85), (0, 4, 0x85), (2, 2, 0x84), (253, 4, 0x86)])
        fit.message(local: 2, FITBuilder.le32(FITBuilder.semicircles(10)) + FITBuilder.le32(FITBuilder.semicircles(20)) + FITBuilder.le16(3000) + FITBuilder.le32(1000))
        // session: running (1).
        fit.define(local: 5, global: 18, fields: [(5, 1, 0x00), (6, 1, 0x00)])
        fit.message(local: 5, [1, 0])

        let (sink, summary) = try read(fit.file())
        let base = Int64(1_709_251_200) * 1000
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-7 }
        XCTAssertEqual(summary.records, 6)
        XCTAssertEqual(summary.points, 5)
        let points = sink.points
        XCTAssertEqual(points.count, 5)
        XCTAssertTrue(near(points[0].latitude, 39.9) && near(points[0].longitude, 116.4))
        XCTAssertEqual(points[0].time, base)
        XCTAssertEqual(points[0].elevation, 45)
        XCTAssertEqual(points[0].accuracy, 7)
        XCTAssertTrue(near(points[1].latitude, -33.5) && near(points[1].longitude, -70.25))
        XCTAssertEqual(points[1].time, base + 2000)
        XCTAssertNil(points[1].elevation)
        XCTAssertNil(points[1].accuracy)
        XCTAssertEqual(points[2].time, base + 5000)
        XCTAssertEqual(points[3].time, base + 33000)
        XCTAssertTrue(near(points[3].latitude, 40.5))
        XCTAssertTrue(near(points[4].latitude, 20) && near(points[4].longitude, 10))
        XCTAssertNil(points[4].time, "seconds since power-on are not a date")
        XCTAssertEqual(points[4].elevation, 100)
        XCTAssertEqual(sink.annotations, [.creator("Garmin Edge 530"), .activityType("virtual cycling"), .activityType("running")])
        XCTAssertEqual(sink.breaks, 2)
        XCTAssertEqual(sink.events.firstIndex(of: .segmentBreak), 0)
        XCTAssertEqual(sink.events.lastIndex(of: .segmentBreak), sink.events.firstIndex(of: .point(points[4]))! - 1)
        // Byte by byte, the same.
        XCTAssertEqual(try read(fit.file(), trickle: true).0.events, sink.events)
        // A 12-byte header (no header CRC) reads the same.
        XCTAssertEqual(try read(fit.file(headerSize: 12)).0.events, sink.events)
    }

    func testMaliciousHeadersAndDefinitionsAreErrorsNotTraps() throws {
        func reason(_ bytes: [UInt8]) -> String? { failure(bytes).0?.reason }
        XCTAssertEqual(reason([]), "byte 0: the file is empty")
        XCTAssertEqual(reason(Array("lat,lon\n1,2\n".utf8)), "byte 0: not a FIT file (no \".FIT\" header of 12 or 14 bytes)")
        XCTAssertEqual(reason(Array("<gpx></gpx>".utf8)), "byte 0: too short for a FIT file header (11 bytes)")
        var header = FITBuilder().file()
        header[0] = 200
        XCTAssertEqual(reason(header), "byte 0: not a FIT file (no \".FIT\" header of 12 or 14 bytes)")

        // A header declaring 4 GiB of data over a short file: truncated, not a huge allocation.
        var huge = FITBuilder()
        huge.define(local: 0, global: 20, fields: [(0, 4, 0x85)])
        var bytes = Array(huge.file().dropLast(2))
        bytes[4...7] = [0xFF, 0xFF, 0xFF, 0xFF]
        bytes[12...13] = [0, 0]
        XCTAssertEqual(reason(bytes), "byte \(bytes.count): the file ends before the data the header declares (up to byte \(14 + 0xFFFF_FFFF)) (truncated?)")

        var zero = FITBuilder()
        zero.define(local: 0, global: 20, fields: [(0, 4, 0x85), (1, 0, 0x85)])
        XCTAssertEqual(reason(zero.file()), "byte 14: a definition message declares field 1 with size 0; the file is damaged")

        var architecture = FITBuilder()
        architecture.define(local: 0, global: 20, fields: [(0, 4, 0x85)])
        var architectureBytes = architecture.file()
        architectureBytes[16] = 7
        XCTAssertEqual(reason(architectureBytes), "byte 14: a definition message with architecture 7 (expected 0, little-endian, or 1, big-endian); the file is damaged")

        var undefined = FITBuilder()
        undefined.message(local: 5, [1, 2, 3])
        XCTAssertEqual(reason(undefined.file()), "byte 14: a data message of local type 5 before any definition of it; the file is damaged")

        // The largest message FIT can express (255 fields and 255 developer fields of 255 bytes),
        // cut short, and whole but beyond the declared data.
        var largest = FITBuilder()
        let fields = (0..<255).map { (number: UInt8($0), size: UInt8(255), baseType: UInt8(0x0D)) }
        largest.define(local: 0, global: 20, fields: fields, developerFields: fields)
        largest.message(local: 0, [UInt8](repeating: 0xFF, count: 1000))
        let largestBytes = largest.file()
        let definitionLength = 6 + 255 * 3 + 1 + 255 * 3
        XCTAssertEqual(reason(largestBytes), "byte \(14 + definitionLength): a data message runs past the end of the data the header declares (byte \(largestBytes.count - 2)); the file is damaged")
        var whole = FITBuilder()
        whole.define(local: 0, global: 20, fields: fields, developerFields: fields)
        whole.message(local: 0, [UInt8](repeating: 0xFF, count: 2 * 255 * 255))
        let (wholeSink, wholeSummary) = try read(whole.file())
        XCTAssertEqual(wholeSummary.records, 1)
        XCTAssertTrue(wholeSink.points.isEmpty, "a byte-array position is not read")

        // A definition whose field list runs past the declared data.
        var cut = FITBuilder()
        cut.define(local: 0, global: 20, fields: [(0, 4, 0x85), (1, 4, 0x85)])
        var cutBytes = cut.file()
        cutBytes[4] = 8
        var crc = FITCRC()
        crc.update(Array(cutBytes[0..<12]))
        cutBytes[12] = UInt8(crc.value & 0xFF)
        cutBytes[13] = UInt8(crc.value >> 8)
        XCTAssertEqual(reason(cutBytes), "byte 14: a definition message runs past the end of the data the header declares (byte 22); the file is damaged")

        // Bytes after the file that are not another FIT file.
        let trailing = FITBuilder().file() + Array("garbage at the end".utf8)
        XCTAssertEqual(reason(trailing), "byte 16: bytes after the end of the FIT file are not another FIT file's header")
        XCTAssertEqual(reason(FITBuilder().file() + [0, 0]), "byte 16: 2 bytes after the end of the FIT file, too few for another file's header")
    }

    func testHeaderSniffing() throws {
        XCTAssertTrue(FITReader.hasHeader(try fixture("garmin-fenix-5-run.fit")[...]))
        XCTAssertTrue(FITReader.hasHeader(FITBuilder().file(headerSize: 12)[...]))
        XCTAssertFalse(FITReader.hasHeader(Array("lat,lon,time\n39.9,116.4,x\n".utf8)[...]))
        XCTAssertFalse(FITReader.hasHeader(Array(FITBuilder().file().prefix(11))[...]))
        var odd = FITBuilder().file()
        odd[0] = 13
        XCTAssertFalse(FITReader.hasHeader(odd[...]))
        XCTAssertTrue(FITReader.hasHeader(Array([0, 0] + FITBuilder().file())[2...]))
    }
}
