import ChinaDatum
import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// The classifier over the committed tables, with tracks whose answers follow from geography.
final class TrackClassifierTests: XCTestCase {
    static var locator: RegionLocator { BundledTables.locator(marginRadius: 60) }

    static let start = Timestamp.parse("2024-05-01T01:00:00Z")!

    func classify(_ points: [TrackPoint?], options: ClassifyOptions = ClassifyOptions()) -> TrackClassifier {
        var classifier = TrackClassifier(locator: Self.locator, options: options)
        classifier.begin(InputRecord(path: "test", fingerprint: "f", format: "test"))
        for point in points {
            if let point { classifier.point(point) } else { classifier.segmentBreak() }
        }
        classifier.finish()
        return classifier
    }

    /// A straight walk: `count` points `step` seconds apart from `a` to `b`.
    func walk(from a: (Double, Double), to b: (Double, Double), count: Int, step: Int64 = 1, start: Int64 = start, accuracy: Double? = 5) -> [TrackPoint] {
        (0..<count).map { i in
            let t = Double(i) / Double(max(1, count - 1))
            return TrackPoint(latitude: a.0 + (b.0 - a.0) * t, longitude: a.1 + (b.1 - a.1) * t, time: start + Int64(i) * step * 1000, accuracy: accuracy)
        }
    }

    func codes(_ ledger: UnlockLedger, _ level: RegionLevel, confirmed: Bool = true) -> Set<String> {
        let table = level == .country ? Self.locator.world : Self.locator.china
        return Set(ledger.view.regions.filter { $0.key.level == level && $0.value.isConfirmed == confirmed }.map { table.region($0.key.index).code })
    }

    /// Regions only passed at vehicle speed (no confirmed or tentative evidence).
    func passed(_ ledger: UnlockLedger, _ level: RegionLevel) -> Set<String> {
        let table = level == .country ? Self.locator.world : Self.locator.china
        return Set(ledger.view.regions.filter { $0.key.level == level && $0.value.isPassedThroughOnly }.map { table.region($0.key.index).code })
    }

    func testAWalkInCentralBeijingUnlocksChinaBeijingAndDongcheng() {
        // Tiananmen Square northwards along the axis, 1.4 m/s.
        let c = classify(walk(from: (39.9030, 116.3975), to: (39.9150, 116.3975), count: 900))
        XCTAssertEqual(codes(c.ledger, .country), ["CHN"])
        XCTAssertEqual(codes(c.ledger, .province), ["110000"])
        XCTAssertEqual(codes(c.ledger, .county), ["110101"])
        XCTAssertEqual(c.record.pointsKept, 900)
        XCTAssertEqual(c.ledger.view.days, [Timestamp.daysSinceEpoch(year: 2024, month: 5, day: 1)])
        // 1.33 km north: a swath of ~53 cells.
        XCTAssertEqual(Double(c.ledger.view.cells.count), 1332 / 25, accuracy: 2)
        // Along a meridian the distance is the meridian arc (Helmert's series, not the legs' local radii).
        let arc = ExploredGrid.meridianDistance(latitude: 39.9150) - ExploredGrid.meridianDistance(latitude: 39.9030)
        XCTAssertEqual(Double(c.ledger.view.distanceMillimetres) / 1000, arc, accuracy: 0.5)
        XCTAssertEqual(c.ledger.view.durationMilliseconds, 899_000)
    }

    /// Reusing a lookup for nearby points changes nothing: per region, the inside and edge points
    /// are those a fresh lookup of every point finds. The walks are where reuse could go wrong:
    /// ashore from the sea off Qingdao (in China by the world table's outline, in no province
    /// until the coast), across the Beijing–Hebei border, and over China's border with Mongolia
    /// at Erenhot, where the datum gate lets the China table take over from the world table.
    func testReusingALookupGivesWhatLookingUpEveryPointGives() throws {
        let walks = [
            walk(from: (36.0560, 120.4285), to: (36.0640, 120.4285), count: 900),
            walk(from: (39.94, 116.765), to: (39.94, 116.790), count: 1500),
            walk(from: (43.69, 111.95), to: (43.62, 111.95), count: 6000),
        ]
        for points in walks {
            let c = classify(points)
            var expected: [RegionKey: (inside: Int, edge: Int)] = [:]
            for point in points {
                let placement = try Self.locator.locate(latitude: point.latitude, longitude: point.longitude)
                for level in RegionLevel.allCases {
                    let found = placement.level(level)
                    guard let region = found.region else { continue }
                    var counts = expected[RegionKey(level: level, index: region)] ?? (0, 0)
                    if found.status == .inside { counts.inside += 1 } else { counts.edge += 1 }
                    expected[RegionKey(level: level, index: region)] = counts
                }
            }
            XCTAssertEqual(Set(c.ledger.view.regions.keys), Set(expected.keys), "\(points[0])")
            for (key, evidence) in c.ledger.view.regions {
                XCTAssertEqual(evidence.insidePoints, expected[key].map { Int64($0.inside) }, "\(key) from \(points[0])")
                XCTAssertEqual(evidence.edgePoints, expected[key].map { Int64($0.edge) }, "\(key) from \(points[0])")
            }
        }
    }

    func testFilterDropsAndCountsEveryReason() {
        let t = Self.start
        let c = classify([
            TrackPoint(latitude: 39.91, longitude: 116.39, time: t, accuracy: 5),
            TrackPoint(latitude: 39.91, longitude: 116.39, time: t, accuracy: 5),          // duplicate time
            TrackPoint(latitude: 39.9101, longitude: 116.39, time: t + 1000, accuracy: 80), // accuracy
            TrackPoint(latitude: 0, longitude: 0, time: t + 2000),                          // null island
            TrackPoint(latitude: .nan, longitude: 116.39, time: t + 3000),                  // invalid
            TrackPoint(latitude: 91, longitude: 116.39, time: t + 4000),                    // invalid
            TrackPoint(latitude: 39.9102, longitude: 116.39, time: t + 5000, accuracy: nil),
        ])
        var c2 = c
        c2.unreadablePoint(InputError(path: "x", line: 3, reason: "bad"))
        XCTAssertEqual(c2.record.pointsRead, 8)
        XCTAssertEqual(c2.record.pointsKept, 2)
        XCTAssertEqual(c2.record.dropped, [.duplicateTime: 1, .accuracy: 1, .nullIsland: 1, .invalidCoordinate: 2, .unreadable: 1])
    }

    /// Near the Beijing–Hebei border a single point closer to the border than its accuracy is only
    /// tentative; three such points in one segment confirm; a point deep inside confirms alone.
    func testEvidenceNearABorderNeedsAccuracyOrThreePoints() throws {
        // Find points just inside Hebei near Yanjiao by walking east along 39.91° N from Beijing.
        let l = Self.locator
        var lon = 116.70
        var nearBorder: (Double, Double)?
        while lon < 117.0 {
            let p = try l.locate(latitude: 39.91, longitude: lon)
            if p.province.region.map({ l.china.region($0).code }) == "130000", p.province.status == .inside,
               let margin = p.province.marginMetres, margin > 5, margin < 20 {
                nearBorder = (39.91, lon)
                break
            }
            lon += 0.00002
        }
        let (lat, lonB) = try XCTUnwrap(nearBorder, "no point within 5–20 m inside Hebei on 39.91° N")
        let one = classify([TrackPoint(latitude: lat, longitude: lonB, time: Self.start, accuracy: 25)])
        XCTAssertFalse(codes(one.ledger, .province).contains("130000"))
        XCTAssertTrue(codes(one.ledger, .province, confirmed: false).contains("130000"))
        // The same spot with a 3 m accuracy: its margin exceeds it.
        let precise = classify([TrackPoint(latitude: lat, longitude: lonB, time: Self.start, accuracy: 3)])
        XCTAssertTrue(codes(precise.ledger, .province).contains("130000"))
        // Three imprecise points in one segment (2 s apart, same spot ± 1 m).
        let three = classify((0..<3).map { i in TrackPoint(latitude: lat + Double(i) * 1e-5, longitude: lonB, time: Self.start + Int64(i) * 2000, accuracy: 25) })
        XCTAssertTrue(codes(three.ledger, .province).contains("130000"))
        // The same three points split by segment breaks stay tentative.
        let split = classify([TrackPoint(latitude: lat, longitude: lonB, time: Self.start, accuracy: 25), nil,
                              TrackPoint(latitude: lat + 1e-5, longitude: lonB, time: Self.start + 2000, accuracy: 25), nil,
                              TrackPoint(latitude: lat + 2e-5, longitude: lonB, time: Self.start + 4000, accuracy: 25)])
        XCTAssertFalse(codes(split.ledger, .province).contains("130000"))
    }

    /// Beijing to Shanghai by air (points every minute at ~850 km/h) unlocks nothing on the way and
    /// explores only the two ends; the same line by high-speed train (300 km/h) explores nothing
    /// but its first point's cell, unlocks its ends, and only passes through the provinces between.
    func testAFlightUnlocksNothingOnTheWayAndAHighSpeedTrainOnlyPassesThrough() {
        let beijing = (39.87, 116.38), shanghai = (31.20, 121.33)
        let ground = walk(from: (39.8690, 116.3790), to: beijing, count: 60)
        let arrival = Self.start + 59_000 + 75 * 60_000
        let landed = walk(from: shanghai, to: (31.2010, 121.3310), count: 60, start: arrival + 60_000)
        let air = walk(from: beijing, to: shanghai, count: 76, step: 60, start: Self.start + 59_000).dropFirst()
        let flight = classify(ground + air + landed)
        XCTAssertEqual(codes(flight.ledger, .province), ["110000", "310000"])
        XCTAssertEqual(flight.record.pointsInFlight, 74)
        XCTAssertGreaterThan(Double(flight.ledger.view.flightDistanceMillimetres) / 1e6, 1000)
        XCTAssertLessThan(flight.ledger.view.cells.count, 40)

        let train = walk(from: beijing, to: shanghai, count: 1076, step: 12)
        let rail = classify(train)
        XCTAssertEqual(codes(rail.ledger, .province), ["110000", "310000"])
        XCTAssertTrue(passed(rail.ledger, .province).isSuperset(of: ["130000", "370000", "320000"]))
        XCTAssertEqual(rail.record.pointsInFlight, 0)
        XCTAssertEqual(rail.ledger.view.cells.count, 1)
    }

    /// One glitch 30 km away inside a walk is dropped as implausible, and unlocks nothing there.
    func testAPositionGlitchIsDropped() {
        var points = walk(from: (39.9030, 116.3975), to: (39.9050, 116.3975), count: 20)
        points[10].latitude = 40.2
        let c = classify(points)
        XCTAssertEqual(c.record.dropped[.implausibleSpeed], 1)
        XCTAssertEqual(codes(c.ledger, .province), ["110000"])
        XCTAssertFalse(codes(c.ledger, .county).contains("110116"), "the glitch in Huairou must not unlock it")
    }

    /// Days are local days at the UTC offset: 16:30Z is 00:30 the next day at +08:00.
    func testDaysAndStreaksUseTheLocalDay() throws {
        var options = ClassifyOptions()
        options.timeZone = .china
        let t = Timestamp.parse("2024-05-01T16:30:00Z")!
        let day = 86_400_000 as Int64
        let points = [t, t + day, t + 3 * day].map { TrackPoint(latitude: 39.91, longitude: 116.39, time: $0, accuracy: 5) }
        let c = classify(points, options: options)
        let may2 = Timestamp.daysSinceEpoch(year: 2024, month: 5, day: 2)
        XCTAssertEqual(c.ledger.view.days, [may2, may2 + 1, may2 + 3])
        var utc = options
        utc.timeZone = .utc
        XCTAssertEqual(classify(points, options: utc).ledger.view.days, [may2 - 1, may2, may2 + 2])
        let report = try ClassifyReport(ledger: c.ledger, tables: Self.locator.tables, options: options, lenient: false)
        XCTAssertEqual(report.metrics.recordedDays, 3)
        XCTAssertEqual(report.metrics.longestStreakDays, 2)
        XCTAssertEqual(report.metrics.currentStreakDays, 1)
    }

    /// GCJ-02 input (from a Chinese map app) is converted back before locating: the same place
    /// given in either datum lands in the same cells and regions.
    func testGCJ02InputIsConvertedToWGS84() {
        let wgs = walk(from: (39.9030, 116.3975), to: (39.9150, 116.3975), count: 300)
        let gcj = wgs.map { p -> TrackPoint in
            var q = p
            let c = GCJ02.fromWGS84(Coordinate(latitude: p.latitude, longitude: p.longitude))
            q.latitude = c.latitude
            q.longitude = c.longitude
            return q
        }
        var options = ClassifyOptions()
        options.inputDatum = .gcj02
        let a = classify(wgs), b = classify(gcj, options: options)
        XCTAssertEqual(a.ledger.view.regions.keys.sorted(), b.ledger.view.regions.keys.sorted())
        XCTAssertEqual(a.ledger.view.cells.filter { b.ledger.view.cells[$0.key] != nil }.count, a.ledger.view.cells.count)
    }

    /// Splitting an archive and merging the ledgers gives the same ledger as one pass, and the state
    /// file round-trips it exactly.
    func testMergingAndStateRoundTripAreExact() throws {
        let day = 86_400_000 as Int64
        let inputs = [
            walk(from: (39.9030, 116.3975), to: (39.9150, 116.3975), count: 300),
            walk(from: (31.2304, 121.4737), to: (31.2404, 121.4837), count: 300, start: Self.start + day),
            walk(from: (22.2800, 114.1580), to: (22.2900, 114.1700), count: 300, start: Self.start + 5 * day),
        ]
        func ledger(_ parts: [[TrackPoint]]) -> UnlockLedger {
            var c = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
            for (i, part) in parts.enumerated() {
                c.begin(InputRecord(path: "in\(i)", fingerprint: "\(part.first!.time!)", format: "test"))
                for p in part { c.point(p) }
                c.finish()
            }
            return c.takeLedger()
        }
        let whole = ledger(inputs)
        var merged = ledger([inputs[2]])
        merged.merge(ledger([inputs[0], inputs[1]]))
        XCTAssertEqual(merged.view.regions, whole.view.regions)
        XCTAssertEqual(merged.view.cells, whole.view.cells)
        XCTAssertEqual(merged.view.days, whole.view.days)
        XCTAssertEqual(merged.view.distanceMillimetres, whole.view.distanceMillimetres)

        let tables = Self.locator.tables
        let bytes = LedgerState.encode(whole, options: ClassifyOptions(), tables: tables)
        let decoded = try LedgerState.decode(bytes, path: "s", options: ClassifyOptions(), tables: tables)
        XCTAssertEqual(decoded, whole)
        XCTAssertEqual(LedgerState.encode(decoded, options: ClassifyOptions(), tables: tables), bytes)

        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x10
        XCTAssertThrowsError(try LedgerState.decode(flipped, path: "s", options: ClassifyOptions(), tables: tables)) {
            XCTAssertTrue("\($0)".contains("checksum"), "\($0)")
        }
        var other = ClassifyOptions()
        other.timeZone = .utc
        XCTAssertThrowsError(try LedgerState.decode(bytes, path: "s", options: other, tables: tables)) {
            XCTAssertTrue("\($0)".contains("other classify options"), "\($0)")
        }
    }

    /// Skipped files, labels and pins survive the state; a state written before them (status
    /// `ok`, no such members) still reads, as `read`; the all-unreadable and partial rules.
    func testStateKeepsSkippedFilesAndReadsOlderStates() throws {
        var c = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
        var labelled = InputRecord(path: "export.zip:activities/1.gpx", fingerprint: "f1", format: "gpx")
        labelled.activityType = "Ride"
        labelled.activityName = "Morning Ride"
        c.begin(labelled)
        c.annotate(.pin)
        c.annotate(.activityType("cycling"))  // the bundle's label wins
        for p in walk(from: (39.9030, 116.3975), to: (39.9150, 116.3975), count: 20) { c.point(p) }
        c.finish()
        c.recordSkipped(.skipped(path: "export.zip:profile.csv", format: "csv", reason: .metadata(.strava)))
        c.recordSkipped(.skipped(path: "copy.gpx", format: "gpx", reason: .duplicate, duplicateOf: "export.zip:activities/1.gpx"))
        c.begin(InputRecord(path: "bad.csv", fingerprint: "f2", format: "csv"))
        c.unreadablePoint(InputError(path: "bad.csv", line: 2, reason: "x"))
        c.fail("line 3: stopped")
        c.finish()
        let ledger = c.takeLedger()
        XCTAssertEqual(ledger.inputs["f1"]?.pins, 1)
        XCTAssertEqual(ledger.inputs["f1"]?.activityType, "Ride")
        XCTAssertEqual(ledger.inputs["f2"]?.status, .rejected, "an error after only unreadable points leaves nothing used")
        XCTAssertEqual(ledger.inputs[InputRecord.pathKey(path: "copy.gpx")]?.duplicateOf, "export.zip:activities/1.gpx")

        let tables = Self.locator.tables
        let bytes = LedgerState.encode(ledger, options: ClassifyOptions(), tables: tables)
        XCTAssertEqual(try LedgerState.decode(bytes, path: "s", options: ClassifyOptions(), tables: tables), ledger)

        // A shard that skipped a file another shard read: merged, the file is read (either order).
        var skipping = UnlockLedger()
        skipping.inputs[InputRecord.pathKey(path: "bad.csv")] = .skipped(path: "bad.csv", format: "csv", reason: .notATrackFormat)
        var merged = skipping
        merged.merge(ledger)
        var reversed = ledger
        reversed.merge(skipping)
        XCTAssertEqual(merged.inputs, ledger.inputs)
        XCTAssertEqual(reversed.inputs, ledger.inputs)

        // The same state as the format before skipped files: statuses "ok", no new members.
        var older = ledger
        older.inputs = older.inputs.filter { $0.value.status != .skipped }
        older.inputs["f1"]?.pins = 0
        older.inputs["f1"]?.activityType = nil
        older.inputs["f1"]?.activityName = nil
        let current = LedgerState.encode(older, options: ClassifyOptions(), tables: tables)
        let length = Int(current.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
        let json = String(decoding: current[16..<(16 + length)], as: UTF8.self).replacingOccurrences(of: "\"status\":\"read\"", with: "\"status\":\"ok\"")
        XCTAssertTrue(json.contains("\"status\":\"ok\""))
        var old = Array("AUSTATE1".utf8)
        withUnsafeBytes(of: UInt64(json.utf8.count).littleEndian) { old += $0 }
        old += Array(json.utf8) + current[(16 + length)..<(current.count - 8)]
        withUnsafeBytes(of: old.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { old += $0 }
        // Version 1 knew inputs by size, head and tail: refused (their records cannot be matched to content hashes).
        XCTAssertThrowsError(try LedgerState.decode(old, path: "old", options: ClassifyOptions(), tables: tables)) {
            XCTAssertTrue("\($0)".contains("version 1"), "\($0)")
        }
    }
}

extension UnlockLedger {
    /// The combined view, for assertions (an overflow fails the test and gives an empty view).
    var view: CombinedLedger {
        do { return try combined() } catch {
            XCTFail("\(error)")
            return CombinedLedger()
        }
    }
}
