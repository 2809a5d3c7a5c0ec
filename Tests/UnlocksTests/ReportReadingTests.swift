import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Issue 32, build items 2, 4 and 5, against the report's typed figures: distance by movement,
/// the text a person reads, and stays. Expected values are computed here from the generated
/// points (haversine distances, local dates through Foundation's calendar), never from the
/// program's output.
final class ReportReadingTests: XCTestCase {
    static var locator: RegionLocator { TrackClassifierTests.locator }
    static var tables: TableSet { locator.tables }
    static let shanghai = LocalTimeZone.fixed(minutesEast: 480)

    static func options(_ zone: LocalTimeZone = shanghai) -> ClassifyOptions {
        var options = ClassifyOptions()
        options.timeZone = zone
        return options
    }

    /// Inputs of points (nil: a segment break), each classified as its own input.
    static func ledger(_ inputs: [(String, [TrackPoint?])], options: ClassifyOptions = options(), after earlier: UnlockLedger = UnlockLedger()) -> UnlockLedger {
        var classifier = TrackClassifier(locator: locator, options: options, ledger: earlier)
        for (path, points) in inputs {
            classifier.begin(InputRecord(path: path, fingerprint: "fp-" + path, format: "test"))
            for p in points { if let p { classifier.point(p) } else { classifier.segmentBreak() } }
            classifier.finish()
        }
        return classifier.takeLedger()
    }

    static func report(_ ledger: UnlockLedger, options: ClassifyOptions = options()) throws -> ClassifyReport {
        try ClassifyReport(ledger: ledger, tables: tables, options: options, lenient: false)
    }

    /// Eastward along latitude 39.915 (Beijing) at `speed` m/s, a fix every `step` s.
    static func east(from longitude: Double, start: Int64, seconds: Int, speed: Double, step: Int = 5) -> [TrackPoint] {
        stride(from: 0, through: seconds, by: step).map { s in
            TrackPoint(latitude: 39.915, longitude: longitude + speed * Double(s) / (111_320 * cos(39.915 * .pi / 180)),
                       time: start + Int64(s) * 1000, accuracy: 5)
        }
    }

    /// Great-circle metres on a sphere of the mean radius (independent of the classifier's scale).
    static func haversine(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let r = 6_371_008.8, p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180
        let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }

    static func length(_ points: [TrackPoint]) -> Double { zip(points, points.dropFirst()).reduce(0) { $0 + haversine($1.0, $1.1) } }

    /// 2024-05-01T00:00:00+08:00, ms.
    static let may1: Int64 = 1_714_492_800_000

    // MARK: Distance by movement

    func testDistanceIsSplitIntoOnFootByVehicleAndFlown() throws {
        // A walk, then (after a gap) a drive at 60 km/h, then a flight at 800 km/h with a walk on either side.
        let walk = Self.east(from: 116.40, start: Self.may1 + 9 * 3_600_000, seconds: 1800, speed: 1.4)
        let drive = Self.east(from: 116.30, start: Self.may1 + 11 * 3_600_000, seconds: 900, speed: 16.7, step: 10)
        let before = Self.east(from: 116.20, start: Self.may1 + 13 * 3_600_000, seconds: 300, speed: 1.4)
        let flight = Self.east(from: before.last!.longitude, start: before.last!.time! + 10_000, seconds: 1200, speed: 222, step: 20)
        let after = Self.east(from: flight.last!.longitude, start: flight.last!.time! + 10_000, seconds: 300, speed: 1.4)
        let report = try Self.report(Self.ledger([("walk", walk), ("drive", drive), ("flight", before + flight + after)]))
        let m = report.metrics
        let onFoot = Self.length(walk) + Self.length(before) + Self.length(after)
        // The drive's legs, and the two legs joining the walks to the flight (a walker's 10 s
        // across hundreds of metres: vehicle speed) are on the ground at vehicle speed.
        let byVehicle = Self.length(drive) + Self.haversine(before.last!, flight.first!) + Self.haversine(flight.last!, after.first!)
        XCTAssertEqual(m.totalDistanceKilometers, onFoot / 1000, accuracy: onFoot / 1000 * 0.003)
        XCTAssertEqual(m.vehicleDistanceKilometers, byVehicle / 1000, accuracy: 0.05)
        XCTAssertEqual(m.flightDistanceKilometers, Self.length(flight) / 1000, accuracy: Self.length(flight) / 1000 * 0.003)
        // The days and years count the distance on foot, as the total does.
        XCTAssertEqual(Double(report.days.reduce(0) { $0 + $1.distanceMillimetres }) / 1e6, m.totalDistanceKilometers, accuracy: 0.002)
        XCTAssertEqual(report.years.map(\.distanceMillimetres).reduce(0, +), report.days.map(\.distanceMillimetres).reduce(0, +))
        // The text says which is which.
        let text = report.text()
        XCTAssertTrue(text.contains("Distance: \(fixed(m.totalDistanceKilometers, 1)) km on foot or by bike"), text)
        XCTAssertTrue(text.contains("\(fixed(m.vehicleDistanceKilometers, 1)) km by car, train or boat; \(fixed(m.flightDistanceKilometers, 1)) km flown"), text)
        // A badge of distance follows what a person walked or rode.
        XCTAssertEqual(BadgeMetric("totalDistanceKilometers")!.value(in: report), m.totalDistanceKilometers)
        XCTAssertEqual(BadgeMetric("metrics.vehicleDistanceKilometers")!.value(in: report), m.vehicleDistanceKilometers)
    }

    /// A version 4 state recorded no split: a minute whose average ground speed exceeds
    /// `--explore-max-speed` is taken as by vehicle, the rest as on foot (hand-made minutes).
    func testVersionFourMinutesAreSplitByTheirAverageSpeed() {
        var part = InputContribution()
        func minute(_ metres: Int64, flight: Int64 = 0, seconds: Int64) -> MomentTally {
            var t = MomentTally()
            t.points = 2
            t.distanceMillimetres = metres * 1000
            t.flightDistanceMillimetres = flight * 1000
            t.durationMilliseconds = seconds * 1000
            return t
        }
        part.moments = [100: minute(500, seconds: 60),        // 30 km/h exactly: on foot (not faster)
                        101: minute(501, seconds: 60),        // just faster: by vehicle
                        102: minute(1000, flight: 300, seconds: 60), // 700 m on the ground in a minute: vehicle
                        103: minute(120, seconds: 10),        // 43 km/h over the 10 s recorded: vehicle
                        MomentTally.untimedMinute: minute(150, seconds: 0)]  // untimed legs: on foot
        let upgraded = part.upgradedFromVersion4(exploreMaxSpeed: 30 / 3.6)
        XCTAssertEqual(upgraded.moments[100]!.vehicleDistanceMillimetres, 0)
        XCTAssertEqual(upgraded.moments[101]!.vehicleDistanceMillimetres, 501_000)
        XCTAssertEqual(upgraded.moments[102]!.vehicleDistanceMillimetres, 700_000)
        XCTAssertEqual(upgraded.moments[103]!.vehicleDistanceMillimetres, 120_000)
        XCTAssertEqual(upgraded.moments[MomentTally.untimedMinute]!.vehicleDistanceMillimetres, 0)
    }

    /// The committed version 4 state of `Data/samples` (made by the unlocks before this version,
    /// with its report beside it) opens: every unlock and cell as that version reported them, the
    /// ground distance split by the rule, and it is written back as version 5.
    func testTheSamplesVersionFourStateOpens() throws {
        let folder = Repository.root + "/Tests/UnlocksTests/Fixtures/"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "samples-v4.state")))
        XCTAssertEqual(Array(bytes.prefix(8)), Array("AUSTATE4".utf8))
        let old = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "samples-v4.json"))) as? [String: Any])
        let options = Self.options()
        let ledger = try LedgerState.decode(bytes, path: "samples-v4.state", options: options, tables: Self.tables)
        let report = try Self.report(ledger)
        let oldMetrics = try XCTUnwrap(old["metrics"] as? [String: Any])
        let ground = (oldMetrics["totalDistanceKilometers"] as! Double) - (oldMetrics["flightDistanceKilometers"] as! Double)
        XCTAssertEqual(report.metrics.totalDistanceKilometers + report.metrics.vehicleDistanceKilometers, ground, accuracy: 0.002)
        XCTAssertEqual(report.metrics.flightDistanceKilometers, oldMetrics["flightDistanceKilometers"] as! Double)
        XCTAssertEqual(report.metrics.exploredCellCount, oldMetrics["exploredCellCount"] as! Int)
        let oldUnlocks = try XCTUnwrap(old["unlocks"] as? [String: [[String: Any]]])
        for (name, level) in [("countries", RegionLevel.country), ("provinces", .province), ("cities", .city), ("counties", .county)] {
            let was = oldUnlocks[name]!.map { "\($0["code"]!) \($0["evidence"]!) \($0["insidePoints"]!) \($0["visitDays"]!)" }
            let now = (report.unlocks[level] ?? []).map { "\($0.code) \($0.evidence.name) \($0.insidePoints) \($0.visitDays)" }
            XCTAssertEqual(now, was, name)
        }
        // A version 4 state cut short (its checksum made right again) is refused, as before.
        var cut = Array(bytes.dropLast(8 + 20))
        withUnsafeBytes(of: cut.withUnsafeBytes { XXH64.hash($0) }.littleEndian) { cut += $0 }
        XCTAssertThrowsError(try LedgerState.decode(cut, path: "samples-v4.state", options: options, tables: Self.tables)) {
            XCTAssertTrue("\($0)".hasPrefix("samples-v4.state: "), "\($0)")
        }
        let written = LedgerState.encode(ledger, options: options, tables: Self.tables)
        XCTAssertEqual(Array(written.prefix(8)), Array("AUSTATE5".utf8))
        XCTAssertEqual(try LedgerState.decode(written, path: "v5", options: options, tables: Self.tables), ledger)
    }

    // MARK: What a person reads

    func testPercentagesKeepThreeSignificantDigits() {
        XCTAssertEqual(percentText(0.000007172), "0.00000717%")
        XCTAssertEqual(percentText(0.3409), "0.341%")
        XCTAssertEqual(percentText(0.3), "0.3%")
        XCTAssertEqual(percentText(12.345), "12.3%")
        XCTAssertEqual(percentText(99.96), "99.9%")
        XCTAssertEqual(percentText(100), "100%")
        XCTAssertEqual(percentText(0), "0%")
    }

    /// A walk in Beijing on two days apart, then three days in a row: the streak is the run
    /// ending on the last recorded day, said so, and China's share is not printed as 0.0000%.
    func testTheTextSaysWhatItsWordsMean() throws {
        let days: [Int64] = [0, 5, 6, 7]
        let walks = days.map { ("walk\($0)", Self.east(from: 116.40, start: Self.may1 + $0 * 86_400_000 + 9 * 3_600_000, seconds: 600, speed: 1.4).map { Optional($0) }) }
        let report = try Self.report(Self.ledger(walks))
        let text = report.text()
        XCTAssertTrue(text.contains("Streak: 3 days in a row up to the last recorded day, 2024-05-08; longest 3 days"), text)
        XCTAssertFalse(text.contains("0.0000%"), text)
        let china = try XCTUnwrap(report.unlocks[.country]?.first { $0.code == "CHN" })
        XCTAssertTrue(text.contains(percentText(try XCTUnwrap(china.exploredPercent))), text)
        for word in ["confirmed", "tentative", "passed through", "cell", "explorer tile", "cluster tile", "max square", "lit", "bright", "gold"] {
            XCTAssertEqual(text.components(separatedBy: "\n").filter { $0.hasPrefix("  \(word): ") }.count, 1, "one line explains '\(word)'")
        }
    }

    /// A run that reads two tracks and passes over a README adds 2 inputs, and says the skipped
    /// file apart; a region tentative before and confirmed now is "Unlocked" (it counts now), and
    /// only a region counted before (with --lenient) is "Now confirmed": never both.
    func testChangesCountInputsReadAndListARegionOnce() throws {
        // Dongcheng's western border along latitude 39.915, found with the locator (Xicheng west
        // of it): two fixes 10 m inside it, each less than its accuracy from the border, are tentative.
        func county(_ longitude: Double) -> String? {
            (try? Self.locator.locate(latitude: 39.915, longitude: longitude))?.county.region.map { Self.locator.china.region($0).code }
        }
        var west = 116.37, east = 116.40
        XCTAssertEqual(county(west), "110102")
        XCTAssertEqual(county(east), "110101")
        for _ in 0..<40 { let middle = (west + east) / 2; if county(middle) == "110101" { east = middle } else { west = middle } }
        let edge = (0..<2).map { k in TrackPoint(latitude: 39.915, longitude: east + 0.00012 + Double(k) * 0.00001, time: Self.may1 + Int64(k) * 10_000, accuracy: 40) }
        var before = Self.ledger([("edge", edge.map { Optional($0) })])
        before.inputs[InputRecord.pathKey(path: "old-readme.txt")] = .skipped(path: "old-readme.txt", format: "unknown", reason: .notATrackFormat)
        let dongcheng = try XCTUnwrap(Self.locator.china.regions.first { $0.code == "110101" }).index
        XCTAssertEqual(try before.combined().regions[RegionKey(level: .county, index: dongcheng)].map { $0.isConfirmed }, false, "tentative before")
        for lenient in [false, true] {
            let baseline = ClassifyReport.Baseline(try ClassifyReport(ledger: before, tables: Self.tables, options: Self.options(), lenient: lenient))
            var after = Self.ledger([("walk", Self.east(from: 116.40, start: Self.may1 + 86_400_000, seconds: 600, speed: 1.4).map { Optional($0) })], after: before)
            after.inputs[InputRecord.pathKey(path: "README.txt")] = .skipped(path: "README.txt", format: "unknown", reason: .notATrackFormat)
            let changes = ClassifyReport.Changes(from: baseline, to: try ClassifyReport(ledger: after, tables: Self.tables, options: Self.options(), lenient: lenient))
            XCTAssertEqual(changes.inputs, 1)
            XCTAssertEqual(changes.skipped, 1)
            let unlocked = Set(changes.unlocked[.county]?.map(\.code) ?? []), confirmed = Set(changes.confirmed[.county]?.map(\.code) ?? [])
            XCTAssertTrue(unlocked.isDisjoint(with: confirmed))
            XCTAssertEqual(lenient ? confirmed : unlocked, ["110101"])
            XCTAssertTrue(changes.text().hasPrefix("This run added: 1 input read (and 1 file skipped)"), changes.text())
        }
    }

    // MARK: Stays

    /// Walks on chosen local days (New York, across the spring change of clock): stays are the
    /// runs of consecutive local days, counted by Foundation's calendar here; 183 days in a
    /// year are marked, 182 are not; the same after a state, a merge and a forget.
    func testStaysAreRunsOfConsecutiveLocalDays() throws {
        let zone = LocalTimeZone(identifier: "America/New_York")!
        let options = Self.options(zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        // A walk in Dongcheng at 23:30 New York time (the next day in Beijing) on each chosen day.
        func walk(year: Int, month: Int, day: Int) -> [TrackPoint?] {
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 23, minute: 30))!
            return Self.east(from: 116.40, start: Int64(date.timeIntervalSince1970 * 1000), seconds: 600, speed: 1.4).map { Optional($0) }
        }
        let first: [(Int, Int, Int)] = [(2024, 3, 8), (2024, 3, 9), (2024, 3, 10), (2024, 3, 11), (2024, 3, 20), (2025, 1, 1)]
        let ledger = Self.ledger(first.enumerated().map { ("walk\($0.offset)", walk(year: $0.element.0, month: $0.element.1, day: $0.element.2)) }, options: options)
        let report = try Self.report(ledger, options: options)
        let dongcheng = try XCTUnwrap(report.unlocks[.county]?.first { $0.code == "110101" })
        func text(_ day: Int64) -> String { ClassifyReport.dateText(day) }
        XCTAssertEqual(dongcheng.stays.map { "\(text($0.from))/\(text($0.to))/\($0.days)" },
                       ["2024-03-08/2024-03-11/4", "2024-03-20/2024-03-20/1", "2025-01-01/2025-01-01/1"])
        XCTAssertEqual(dongcheng.daysPerYear.map { "\($0.year):\($0.days)" }, ["2024:5", "2025:1"])
        XCTAssertEqual(dongcheng.visitDays, 6)

        // Forget the walk of 2024-03-10: the stay splits in two.
        var forgot = ledger
        forgot.forget(["fp-walk2"])
        let split = try XCTUnwrap(try Self.report(forgot, options: options).unlocks[.county]?.first { $0.code == "110101" })
        XCTAssertEqual(split.stays.map(\.days), [2, 1, 1, 1])
        // Merged shards and a state give the same stays.
        var a = Self.ledger([("walk0", walk(year: 2024, month: 3, day: 8)), ("walk1", walk(year: 2024, month: 3, day: 9))], options: options)
        let b = Self.ledger(first.enumerated().dropFirst(2).map { ("walk\($0.offset)", walk(year: $0.element.0, month: $0.element.1, day: $0.element.2)) }, options: options)
        a.merge(b)
        let merged = try LedgerState.decode(LedgerState.encode(a, options: options, tables: Self.tables), path: "s", options: options, tables: Self.tables)
        XCTAssertEqual(try Self.report(merged, options: options).unlocks[.county]?.first { $0.code == "110101" }?.stays, dongcheng.stays)

        // Recorded live, point by point, the same stays.
        var live = try LiveLedger(locator: Self.locator, options: options)
        for (k, day) in first.enumerated() {
            try live.beginRecording(id: "live-\(k)")
            for point in walk(year: day.0, month: day.1, day: day.2) { _ = try live.feed(point!) }
            try live.endRecording()
        }
        XCTAssertEqual(try live.report().unlocks[.county]?.first { $0.code == "110101" }?.stays, dongcheng.stays)

        // 183 local days of 2023 (from January 1, every day) are marked; 182 are not.
        let year = (0..<183).map { k -> (String, [TrackPoint?]) in
            let date = calendar.date(byAdding: .day, value: k, to: calendar.date(from: DateComponents(year: 2023, month: 1, day: 1, hour: 12))!)!
            return ("d\(k)", [TrackPoint(latitude: 39.915, longitude: 116.40, time: Int64(date.timeIntervalSince1970 * 1000), accuracy: 5)])
        }
        let full = try XCTUnwrap(try Self.report(Self.ledger(year, options: options), options: options).unlocks[.county]?.first { $0.code == "110101" })
        XCTAssertEqual(full.daysPerYear.map(\.days), [183])
        XCTAssertEqual(full.daysPerYear.map(\.reachesResidence), [true])
        XCTAssertEqual(full.stays.map(\.days), [183])
        let short = try XCTUnwrap(try Self.report(Self.ledger(Array(year.dropLast()), options: options), options: options).unlocks[.county]?.first { $0.code == "110101" })
        XCTAssertEqual(short.daysPerYear.map(\.reachesResidence), [false])
    }

    // MARK: Nearest not unlocked

    /// From a walk in Taipei the nearest county not unlocked lies across the Taiwan Strait (or
    /// across the island's own bays): the report says "across the sea" only when the straight way
    /// crosses more than 3 km of water; from Beijing it never does.
    func testTheNearestRegionSaysWhenTheWayCrossesTheSea() throws {
        let taipei = (0..<200).map { k in TrackPoint(latitude: 25.0330, longitude: 121.5654 + Double(k) * 0.00002, time: Self.may1 + Int64(k) * 5000, accuracy: 5) }
        let fromTaipei = try Self.report(Self.ledger([("taipei", taipei.map { Optional($0) })])).progress
        let beijing = try Self.report(Self.ledger([("beijing", Self.east(from: 116.40, start: Self.may1, seconds: 600, speed: 1.4).map { Optional($0) })])).progress
        for level in [RegionLevel.city, .county] {
            let near = try XCTUnwrap(beijing.nearest[level])
            XCTAssertFalse(near.acrossSea, "\(near.code) from Beijing")
            XCTAssertEqual(near.through, [])
        }
        // The China table holds Taiwan as one province without cities or counties (cnmaps):
        // whatever is nearest from Taipei is on the mainland, across the strait.
        if let near = fromTaipei.nearest[.county] {
            XCTAssertGreaterThan(near.distanceMetres, 100_000, near.code)
            XCTAssertTrue(near.acrossSea, "\(near.code) at \(near.distanceMetres) m")
        }
    }
}
