import Foundation
import RegionTables
import TextFormats
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Issue 32, build item 1: evidence follows the movement across sources. A Google Takeout holds
/// a train ride twice — every fix in `Records.json`, a few of them minutes apart in the Semantic
/// Location History, labelled `IN_TRAIN` — and whichever of them is given, in whatever order,
/// run, state or merge, the counties between the stations are passed through, never confirmed.
/// The expected counties are found here by placing the generated fixes with the locator (the
/// rule under test is the classifier's and the combined view's, not where a point lies).
final class MovementEvidenceTests: XCTestCase {
    static var locator: RegionLocator { TrackClassifierTests.locator }
    static let qingpu = "310118", nanhu = "330402", haining = "330481"
    /// 2023-05-01T01:00:00Z, 09:00 in Shanghai.
    static let departure: Int64 = 1_682_902_800_000

    // MARK: The ride

    /// A fix: time (ms), latitude, longitude.
    typealias Fix = (time: Int64, latitude: Double, longitude: Double)

    /// Shanghai Hongqiao to Hangzhou East at 250 km/h, a fix a minute, after ten minutes on the
    /// platform and before ten at the arrival (a few metres of jitter each minute).
    static let ride: (before: [Fix], train: [Fix], after: [Fix]) = {
        let way: [(Double, Double)] = [(31.1941, 121.3203), (31.12, 121.16), (30.98, 121.02), (30.76, 120.80), (30.52, 120.60), (30.40, 120.45), (30.2913, 120.2130)]
        func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            let dy = (b.0 - a.0) * 111_195, dx = (b.1 - a.1) * 111_195 * cos((a.0 + b.0) / 2 * .pi / 180)
            return (dx * dx + dy * dy).squareRoot()
        }
        let legs = zip(way, way.dropFirst()).map { metres($0, $1) }
        let perMinute = 250_000.0 / 60
        var before: [Fix] = [], train: [Fix] = [], after: [Fix] = []
        for minute in 0..<10 {
            before.append((departure + Int64(minute) * 60_000, way[0].0 + Double(minute % 3) * 0.00002, way[0].1))
        }
        var along = perMinute, minute: Int64 = 10
        while along < legs.reduce(0, +) {
            var rest = along, leg = 0
            while rest > legs[leg] { rest -= legs[leg]; leg += 1 }
            let t = rest / legs[leg]
            train.append((departure + minute * 60_000, way[leg].0 + (way[leg + 1].0 - way[leg].0) * t, way[leg].1 + (way[leg + 1].1 - way[leg].1) * t))
            along += perMinute
            minute += 1
        }
        for k in 0..<10 {
            after.append((departure + (minute + Int64(k)) * 60_000, way.last!.0 + Double(k % 3) * 0.00002, way.last!.1))
        }
        return (before, train, after)
    }()

    /// The fixes of the train that the semantic file keeps: every fourth, minutes apart.
    static var semanticTrain: [Fix] { ride.train.enumerated().filter { $0.offset % 4 == 2 }.map(\.element) }

    static func iso(_ time: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time) / 1000))
    }

    /// `Records.json`: every fix.
    static var records: [UInt8] {
        let fixes = ride.before + ride.train + ride.after
        let items = fixes.map { f in
            "{\"latitudeE7\":\(Int((f.latitude * 1e7).rounded())),\"longitudeE7\":\(Int((f.longitude * 1e7).rounded())),\"accuracy\":10,\"timestamp\":\"\(iso(f.time))\"}"
        }
        return Array("{\"locations\":[\(items.joined(separator: ","))]}".utf8)
    }

    /// The month's Semantic Location History: a visit at each station and the ride between, its
    /// type `activityType` (nil: none written).
    static func semantic(activityType: String? = "IN_TRAIN") -> [UInt8] {
        func path(_ fixes: [Fix]) -> String {
            "\"simplifiedRawPath\":{\"points\":[" + fixes.map { f in
                "{\"latE7\":\(Int((f.latitude * 1e7).rounded())),\"lngE7\":\(Int((f.longitude * 1e7).rounded())),\"accuracyMeters\":20,\"timestamp\":\"\(iso(f.time))\"}"
            }.joined(separator: ",") + "]}"
        }
        let type = activityType.map { "\"activityType\":\"\($0)\"," } ?? ""
        let objects = [
            "{\"placeVisit\":{\(path([ride.before[0], ride.before[5]]))}}",
            "{\"activitySegment\":{\(type)\(path(semanticTrain))}}",
            "{\"placeVisit\":{\(path([ride.after[2], ride.after[7]]))}}",
        ]
        return Array("{\"timelineObjects\":[\(objects.joined(separator: ","))]}".utf8)
    }

    /// Reads `bytes` as a JSON input into `classifier`.
    static func read(_ bytes: [UInt8], path: String, into classifier: inout TrackClassifier) throws {
        classifier.begin(InputRecord(path: path, fingerprint: "fp-" + path, format: "json"))
        try JSONTrackReader.read(MemorySource(bytes), path: path, into: &classifier)
        classifier.finish()
    }

    static func ledger(_ inputs: [(String, [UInt8])], after earlier: UnlockLedger = UnlockLedger()) throws -> UnlockLedger {
        var classifier = TrackClassifier(locator: locator, options: ClassifyOptions(), ledger: earlier)
        for (path, bytes) in inputs { try read(bytes, path: path, into: &classifier) }
        return classifier.takeLedger()
    }

    /// The county code of a fix, from the locator.
    static func county(_ f: Fix) -> String? {
        (try? locator.locate(latitude: f.latitude, longitude: f.longitude))?.county.region.map { locator.china.region($0).code }
    }

    /// Counties by evidence in the combined view.
    static func counties(_ ledger: UnlockLedger) throws -> (confirmed: Set<String>, passed: Set<String>, tentative: Set<String>) {
        var result: (confirmed: Set<String>, passed: Set<String>, tentative: Set<String>) = ([], [], [])
        for (key, e) in try ledger.combined().regions where key.level == .county {
            let code = locator.china.region(key.index).code
            if e.isConfirmed { result.confirmed.insert(code) } else if e.isPassedThroughOnly { result.passed.insert(code) } else { result.tentative.insert(code) }
        }
        return result
    }

    /// Every confirmed region has counted points in it; every passed-through one has passed points.
    func assertEvidenceRestsOnCountedPoints(_ ledger: UnlockLedger, file: StaticString = #filePath, line: UInt = #line) throws {
        for (key, e) in try ledger.combined().regions {
            if e.isConfirmed { XCTAssertGreaterThan(e.insidePoints + e.edgePoints, 0, "\(key) confirmed without a point in it", file: file, line: line) }
            if e.isPassedThroughOnly { XCTAssertGreaterThan(e.passedPoints, 0, "\(key) passed through without a passed point", file: file, line: line) }
        }
    }

    func testTheShanghaiHangzhouTrainIsPassedThroughWhicheverInputsAndOrder() throws {
        let ride = Self.ride
        let stations = Set((ride.before + ride.after).compactMap(Self.county))
        let rideCounties = Set(ride.train.compactMap(Self.county)).subtracting(stations)
        let semanticCounties = Set(Self.semanticTrain.compactMap(Self.county)).subtracting(stations)
        XCTAssertTrue(rideCounties.isSuperset(of: [Self.qingpu, Self.nanhu, Self.haining]), "the ride passes the issue's counties: \(rideCounties)")
        XCTAssertTrue(semanticCounties.isSuperset(of: [Self.qingpu, Self.nanhu, Self.haining]), "the semantic file keeps a fix in each: \(semanticCounties)")
        XCTAssertEqual(stations, ["310112", "330102"], "Minhang (Hongqiao) and Shangcheng (Hangzhou East)")

        let records = ("Takeout/Location History/Records.json", Self.records)
        let semantic = ("Takeout/Location History/Semantic Location History/2023/2023_MAY.json", Self.semantic())
        // Alone, each input gives the counties of its own train fixes as passed through.
        let alone = try Self.counties(try Self.ledger([records]))
        XCTAssertEqual(alone.passed, rideCounties)
        XCTAssertEqual(alone.confirmed, stations)
        let semanticAlone = try Self.counties(try Self.ledger([semantic]))
        XCTAssertEqual(semanticAlone.passed, semanticCounties)
        XCTAssertEqual(semanticAlone.confirmed, stations)

        // Together: one run (either order), a state then the other, shards merged (either order).
        let oneRun = try Self.ledger([records, semantic])
        let expected = try Self.counties(oneRun)
        XCTAssertEqual(expected.passed, rideCounties)
        XCTAssertEqual(expected.confirmed, stations)
        XCTAssertTrue(expected.tentative.isEmpty)
        let view = try oneRun.combined()
        for code in [Self.qingpu, Self.nanhu, Self.haining] {
            let e = view.regions.first { $0.key.level == .county && Self.locator.china.region($0.key.index).code == code }!.value
            XCTAssertNil(e.confirmedBy, code)
            XCTAssertEqual(e.insidePoints + e.edgePoints, 0, code)
            XCTAssertEqual(e.passedPoints, Int64(ride.train.filter { Self.county($0) == code }.count), "\(code): each moment once, Records' fixes")
        }
        try assertEvidenceRestsOnCountedPoints(oneRun)

        let tables = Self.locator.tables, options = ClassifyOptions()
        func throughState(_ first: (String, [UInt8]), _ second: (String, [UInt8])) throws -> UnlockLedger {
            let state = LedgerState.encode(try Self.ledger([first]), options: options, tables: tables)
            return try Self.ledger([second], after: try LedgerState.decode(state, path: "s", options: options, tables: tables))
        }
        func merged(_ a: (String, [UInt8]), _ b: (String, [UInt8])) throws -> UnlockLedger {
            var ledger = try Self.ledger([a])
            ledger.merge(try Self.ledger([b]))
            return ledger
        }
        for ledger in [try Self.ledger([semantic, records]), try throughState(records, semantic), try throughState(semantic, records),
                       try merged(records, semantic), try merged(semantic, records)] {
            let got = try Self.counties(ledger)
            XCTAssertEqual(got.passed, expected.passed)
            XCTAssertEqual(got.confirmed, expected.confirmed)
            XCTAssertEqual(try ledger.combined().regions, view.regions, "the same evidence, first visits and counts")
        }

        // Without Google's label the semantic fixes are lone points minutes apart: where Records
        // holds their minutes they count as Records' (passed), and elsewhere the vehicle passing
        // the county nearby keeps them from confirming it.
        let unlabelled = ("Semantic Location History/2023/2023_MAY.json", Self.semantic(activityType: nil))
        XCTAssertEqual(try Self.counties(try Self.ledger([records, unlabelled])).passed, rideCounties)
        // And with the ride's Records thinned to every tenth minute (gaps over 5 minutes: the
        // semantic fixes' minutes are their own), the lone fixes still confirm nothing.
        let sparse = Array("{\"locations\":[".utf8) + Array((ride.before + ride.train.enumerated().filter { $0.offset % 10 == 0 }.map(\.element) + ride.after).map { f in
            "{\"latitudeE7\":\(Int((f.latitude * 1e7).rounded())),\"longitudeE7\":\(Int((f.longitude * 1e7).rounded())),\"accuracy\":10,\"timestamp\":\"\(Self.iso(f.time))\"}"
        }.joined(separator: ",").utf8) + Array("]}".utf8)
        let thinned = try Self.ledger([("Records.json", sparse), unlabelled])
        let thinnedCounties = try Self.counties(thinned)
        XCTAssertTrue(thinnedCounties.confirmed.isDisjoint(with: [Self.qingpu, Self.nanhu, Self.haining]), "\(thinnedCounties)")
        try assertEvidenceRestsOnCountedPoints(thinned)
    }

    /// A lone fix (a gap of more than 5 minutes on each side) confirms its county when no vehicle
    /// passed the county within 30 minutes of it, and counts as passed when one did.
    func testALoneFixConfirmsUnlessAVehiclePassedNearby() throws {
        // A drive at 90 km/h east along latitude 39.915 across Dongcheng (116.385–116.445),
        // a fix every 10 s, from 08:00 UTC.
        let start = Self.departure
        let drive = (0...60).map { k in TrackPoint(latitude: 39.915, longitude: 116.36 + Double(k) * 0.00293, time: start + Int64(k) * 10_000, accuracy: 5) }
        XCTAssertEqual(Self.county((time: 0, latitude: 39.915, longitude: 116.415)), "110101", "Dongcheng")
        func lone(at time: Int64) -> [TrackPoint?] { [TrackPoint(latitude: 39.9150, longitude: 116.4150, time: time, accuracy: 5)] }
        func classify(_ inputs: [[TrackPoint?]]) -> UnlockLedger {
            var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
            for (k, points) in inputs.enumerated() {
                classifier.begin(InputRecord(path: "in\(k)", fingerprint: "f\(k)", format: "test"))
                for p in points { if let p { classifier.point(p) } else { classifier.segmentBreak() } }
                classifier.finish()
            }
            return classifier.takeLedger()
        }
        // 20 minutes after the drive: passed; two hours after: confirmed (a stop of its own).
        let near = classify([drive, lone(at: start + 20 * 60_000)])
        XCTAssertTrue(try Self.counties(near).passed.contains("110101"))
        XCTAssertEqual(try near.combined().regions.first { $0.key.level == .county && Self.locator.china.region($0.key.index).code == "110101" }?.value.passedPoints,
                       Int64(drive.filter { Self.county((0, $0.latitude, $0.longitude)) == "110101" }.count) + 1, "the lone fix counts as passed")
        let later = classify([drive, lone(at: start + 120 * 60_000)])
        XCTAssertTrue(try Self.counties(later).confirmed.contains("110101"))
        try assertEvidenceRestsOnCountedPoints(near)
        try assertEvidenceRestsOnCountedPoints(later)
        // The same fix in the drive's own input, between gaps: the same answers.
        XCTAssertTrue(try Self.counties(classify([drive + [nil] + lone(at: start + 20 * 60_000)])).passed.contains("110101"))
        XCTAssertTrue(try Self.counties(classify([drive + [nil] + lone(at: start + 120 * 60_000)])).confirmed.contains("110101"))
        // Alone it confirms: nothing says it was on a road.
        XCTAssertTrue(try Self.counties(classify([lone(at: start)])).confirmed.contains("110101"))
    }

    /// Labels decide what speeds would: a fix of a `WALKING` stretch was a place been, however
    /// fast the legs; of an `IN_PASSENGER_VEHICLE` one only passed, however slow; `FLYING` is in
    /// the air, with no place at all.
    func testGoogleLabelsDecideHowThePersonMoved() throws {
        // Three fixes 2 minutes apart east across Dongcheng, 40 km/h: a bus and a bicycle race.
        func stretch(_ type: String) throws -> UnlockLedger {
            var points: [String] = []
            for k in 0..<3 {
                let time: Int64 = Self.departure + Int64(k) * 120_000
                let longitudeE7 = Int(((116.395 + Double(k) * 0.0156) * 1e7).rounded())
                points.append("{\"latE7\":399150000,\"lngE7\":\(longitudeE7),\"timestamp\":\"\(Self.iso(time))\"}")
            }
            let json = "{\"timelineObjects\":[{\"activitySegment\":{\"activityType\":\"\(type)\",\"simplifiedRawPath\":{\"points\":[\(points.joined(separator: ","))]}}}]}"
            return try Self.ledger([("s.json", Array(json.utf8))])
        }
        XCTAssertTrue(try Self.counties(try stretch("CYCLING")).confirmed.contains("110101"))
        XCTAssertTrue(try Self.counties(try stretch("IN_PASSENGER_VEHICLE")).passed.contains("110101"))
        let flight = try stretch("FLYING")
        XCTAssertTrue(try flight.combined().regions.isEmpty, "no place in the air")
        XCTAssertEqual(flight.inputs["fp-s.json"]?.pointsInFlight, 3)
        let cycling = try stretch("CYCLING").combined(), bus = try stretch("IN_PASSENGER_VEHICLE").combined(), air = try flight.combined()
        XCTAssertGreaterThan(cycling.humanDistanceMillimetres, 2_500_000)
        XCTAssertEqual(cycling.vehicleDistanceMillimetres, 0)
        XCTAssertEqual(bus.vehicleDistanceMillimetres, bus.distanceMillimetres)
        XCTAssertEqual(air.flightDistanceMillimetres, air.distanceMillimetres)
        XCTAssertEqual(air.distanceMillimetres, cycling.distanceMillimetres, "the same legs, in the air")
        // An unknown type leaves the speeds to decide (as no label): the stretch's ends are places been.
        XCTAssertTrue(try Self.counties(try stretch("UNKNOWN_ACTIVITY_TYPE")).confirmed.contains("110101"))
        XCTAssertEqual(Movement.google("in passenger vehicle"), .vehicle, "iOS spells them lower case with spaces")
        XCTAssertNil(Movement.google("STILL"))
    }
}
