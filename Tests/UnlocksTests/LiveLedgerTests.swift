import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// The live API against the batch classifier: the same points fed one at a time give the same
/// ledger, and the changes it reports add up to the report's unlocks and cells.
final class LiveLedgerTests: XCTestCase {
    static var locator: RegionLocator { TrackClassifierTests.locator }

    /// One input as its reader delivers it: points, and nil for a segment break; its file name
    /// is the recording's name.
    struct Recording {
        var id: String
        var path: String
        var events: [TrackPoint?]
        var datum: Datum? = nil
    }

    /// The samples the real readers read: a walk in Beijing (GPX), Hong Kong to Shenzhen (the app
    /// backup), the Qingdao coast (GeoJSON).
    static let samples: [Recording] = {
        let directory = URL(fileURLWithPath: Repository.samples)
        func read(_ name: String, gpx: Bool) -> Recording {
            let bytes = [UInt8](try! Data(contentsOf: directory.appendingPathComponent(name)))
            var collector = TrackEventRecorder()
            if gpx {
                _ = try! GPXReader.read(MemorySource(bytes), path: name, into: &collector)
            } else {
                _ = try! JSONTrackReader.read(MemorySource(bytes), path: name, into: &collector)
            }
            // Annotations and unreadable records are left out of both runs compared.
            return Recording(id: "id-" + name, path: name, events: collector.pointsAndBreaks)
        }
        return [read("2024-05-01-beijing-walk.gpx", gpx: true), read("2024-05-03-hongkong-shenzhen.backup.json", gpx: false),
                read("2024-05-04-qingdao-coast.geojson", gpx: false)]
    }()

    /// The batch run: one classifier over the recordings, input after input.
    func batch(_ recordings: [Recording], options: ClassifyOptions = ClassifyOptions()) -> UnlockLedger {
        var classifier = TrackClassifier(locator: Self.locator, options: options)
        for recording in recordings {
            var record = InputRecord(path: recording.id, fingerprint: recording.id, format: LiveLedger.format)
            record.activityName = recording.path
            record.datum = recording.datum
            classifier.begin(record)
            for event in recording.events {
                if let point = event { classifier.point(point) } else { classifier.segmentBreak() }
            }
            classifier.finish()
        }
        return classifier.ledger
    }

    /// Feeds a recording point by point; the changes of every call, the last one's included.
    @discardableResult
    func feed(_ recording: Recording, into live: inout LiveLedger) throws -> [LiveChanges] {
        try live.beginRecording(id: recording.id, name: recording.path, datum: recording.datum)
        var changes: [LiveChanges] = []
        for event in recording.events {
            if let point = event { changes.append(try live.feed(point)) } else { try live.breakSegment() }
        }
        changes.append(try live.endRecording())
        return changes
    }

    func state(_ ledger: UnlockLedger) -> [UInt8] {
        LedgerState.encode(ledger, options: ClassifyOptions(), tables: Self.locator.tables)
    }

    func reportJSON(_ ledger: UnlockLedger) throws -> String {
        try ClassifyReport(ledger: ledger, tables: Self.locator.tables, options: ClassifyOptions(), lenient: false)
            .json().rendered()
    }

    func testFeedingPointByPointGivesTheBatchLedger() throws {
        // The samples, and the Beijing walk once more as a map SDK's GCJ-02 coordinates.
        var shifted = Self.samples[0]
        shifted.id = "gcj02"
        shifted.datum = .gcj02
        let recordings = Self.samples + [shifted]
        let expected = batch(recordings)
        XCTAssertEqual(expected.contributions.count, 4)
        XCTAssertNotEqual(expected.contributions["gcj02"]?.cells, expected.contributions[Self.samples[0].id]?.cells)
        var live = try LiveLedger(locator: Self.locator)
        for recording in recordings { try feed(recording, into: &live) }
        XCTAssertEqual(live.ledger, expected)
        XCTAssertEqual(live.encodedState(), state(expected))
        XCTAssertEqual(try live.report().json().rendered(), try reportJSON(expected))
    }

    func testChangesAddUpToTheReportsUnlocksAndCells() throws {
        var live = try LiveLedger(locator: Self.locator)
        var changes: [LiveChanges] = []
        for recording in Self.samples { changes += try feed(recording, into: &live) }
        let report = try live.report()
        let events = changes.flatMap(\.regions)
        // Unlock events: the confirmed regions of the report, each once.
        let confirmed = events.filter { $0.standing == .confirmed }
        let expected = RegionLevel.allCases.flatMap { level in (report.unlocks[level] ?? []).filter(\.confirmed).map { "\(level.name):\($0.code)" } }
        XCTAssertGreaterThan(expected.count, 8)
        XCTAssertEqual(confirmed.map { "\($0.level.name):\($0.code)" }.sorted(), expected.sorted())
        XCTAssertEqual(changes.flatMap { $0.unlocks() }.count, expected.count)
        // Every region with evidence reached some standing once, rising only.
        for level in RegionLevel.allCases {
            for unlock in report.unlocks[level] ?? [] {
                let mine = events.filter { $0.level == level && $0.code == unlock.code }
                XCTAssertFalse(mine.isEmpty, unlock.code)
                XCTAssertEqual(mine.map(\.standing), mine.map(\.standing).sorted(), unlock.code)
                XCTAssertEqual(mine.last?.standing.rawValue, (unlock.confirmed ? RegionStanding.confirmed : unlock.passedThrough ? .passedThrough : .tentative).rawValue)
                XCTAssertEqual(mine.last?.firstVisit, unlock.firstVisit, unlock.code)
            }
        }
        // In first-visit order, level by level: the order the report lists them in.
        for level in RegionLevel.allCases {
            let order = confirmed.filter { $0.level == level }.map(\.firstVisit)
            XCTAssertEqual(order, order.sorted(), level.name)
        }
        // Decided promptly: each confirmation arrives within a few points of the point it rests on
        // (the next point decides a point; the third inside point of a segment near a border).
        let points = Self.samples.flatMap { $0.events.compactMap { $0 } }
        var call = 0, fed = 0, delays: [Int] = []
        for recording in Self.samples {
            let count = recording.events.compactMap { $0 }.count
            for k in 0...count {  // a call per point, then endRecording
                let fedSoFar = fed + min(k + 1, count)
                for change in changes[call].regions where change.standing == .confirmed {
                    let position = try XCTUnwrap(points[..<fedSoFar].lastIndex { $0.time == change.firstVisit.time })
                    delays.append(fedSoFar - 1 - position)
                }
                call += 1
            }
            fed += count
        }
        XCTAssertEqual(delays.count, confirmed.count)
        XCTAssertLessThanOrEqual(delays.max() ?? 0, ClassifyOptions().minimumPointsPerSegment, "\(delays)")

        // New cells add up to the explored cells.
        XCTAssertEqual(changes.reduce(0) { $0 + $1.newCells }, report.metrics.exploredCellCount)
        XCTAssertGreaterThan(report.metrics.exploredCellCount, 100)

        // The same walk again, as another recording of the same name: nothing new, and neither
        // recording supersedes the other (a name is not a path).
        var again = Self.samples[0]
        again.id = "again"
        let repeated = try feed(again, into: &live)
        XCTAssertTrue(repeated.allSatisfy(\.isEmpty), "\(repeated.filter { !$0.isEmpty })")
        XCTAssertEqual(try live.report().supersededCount, 0)
        XCTAssertEqual(live.ledger.inputs["again"]?.activityName, Self.samples[0].path)
    }

    /// Across the Beijing–Hebei border (Tongzhou to Yanjiao): Hebei is first tentative (the first
    /// points past the border are closer to it than their accuracy), then confirmed, by a point
    /// inside it farther from the border than its accuracy or by the third inside point of the
    /// segment, whichever comes first.
    func testATentativeRegionIsUpgradedWhenConfirmed() throws {
        let start = TrackClassifierTests.start
        let points = (0..<1500).map { i in
            TrackPoint(latitude: 39.94, longitude: 116.765 + 0.025 * Double(i) / 1499, time: start + Int64(i) * 1000, accuracy: 5)
        }
        let provinces = try points.map { try Self.locator.locate(latitude: $0.latitude, longitude: $0.longitude).province }
        let hebei = try XCTUnwrap(provinces.last?.region)
        XCTAssertNotEqual(provinces[0].region, hebei)
        XCTAssertEqual(Self.locator.china.region(hebei).code, "130000")
        // Independently, from the locator: the first point placed in Hebei, the first inside it
        // by more than its accuracy, and its third inside point.
        let firstInHebei = try XCTUnwrap(provinces.firstIndex { $0.region == hebei })
        let insideHebei = provinces.indices.filter { provinces[$0].region == hebei && provinces[$0].status == .inside }
        let sure = try XCTUnwrap(insideHebei.first { (provinces[$0].marginMetres ?? .infinity) >= 5 })
        let confirming = min(sure, insideHebei[ClassifyOptions().minimumPointsPerSegment - 1])
        XCTAssertLessThan(firstInHebei, confirming)

        var live = try LiveLedger(locator: Self.locator)
        try live.beginRecording(id: "border")
        var seen: [(index: Int, change: RegionChange)] = []
        for (i, point) in points.enumerated() {
            for change in try live.feed(point).regions where change.level == .province && change.key.index == hebei { seen.append((i, change)) }
        }
        for change in try live.endRecording().regions where change.level == .province && change.key.index == hebei { seen.append((points.count, change)) }
        XCTAssertEqual(seen.map(\.change.standing), [.tentative, .confirmed])
        XCTAssertEqual(seen.map(\.change.previous), [nil, .tentative])
        XCTAssertTrue(seen[1].change.isUpgrade)
        XCTAssertEqual(seen[1].change.code, "130000")
        // Each is decided by the point after the one that gives it (its outgoing leg).
        XCTAssertEqual(seen[0].index, firstInHebei + 1)
        XCTAssertEqual(seen[1].index, confirming + 1)
        XCTAssertEqual(seen[1].change.unlocksCount, 1)
    }

    /// Driven into Hebei at 50 km/h (passed through: faster than a walk), then walking there: the
    /// point where the car stopped confirms it, and the change comes with the next point, though
    /// the walk's points reuse the last lookup (their evidence is folded in when it changes).
    func testAPassedRegionIsConfirmedWhereTheWalkBegins() throws {
        let start = TrackClassifierTests.start
        let drive = (0..<215).map { i in
            TrackPoint(latitude: 39.94, longitude: 116.765 + 0.035 * Double(i) / 214, time: start + Int64(i) * 1000, accuracy: 5)
        }
        let walk = (1...300).map { i in
            TrackPoint(latitude: 39.94, longitude: 116.800 + 0.0000164 * Double(i), time: start + Int64(214 + i) * 1000, accuracy: 5)
        }
        let points = drive + walk
        let hebei = try XCTUnwrap(try Self.locator.locate(latitude: 39.94, longitude: 116.800).province.region)
        XCTAssertEqual(Self.locator.china.region(hebei).code, "130000")
        var live = try LiveLedger(locator: Self.locator)
        try live.beginRecording(id: "drive")
        var seen: [(index: Int, change: RegionChange)] = []
        for (i, point) in points.enumerated() {
            for change in try live.feed(point).regions where change.key == RegionKey(level: .province, index: hebei) { seen.append((i, change)) }
        }
        for change in try live.endRecording().regions where change.key == RegionKey(level: .province, index: hebei) { seen.append((points.count, change)) }
        XCTAssertEqual(seen.map(\.change.standing), [.passedThrough, .confirmed])
        XCTAssertEqual(seen.last?.change.firstVisit.time, drive.last?.time)
        XCTAssertEqual(seen.last?.index, drive.count)
    }

    /// A walk in Beijing, a flight to Shanghai (a point a minute at 900 km/h), a walk in
    /// Shanghai: nothing is reported while the plane is up (the run of fast legs waits for its
    /// end), the regions flown over never change, and Shanghai comes with the first point after
    /// the landing.
    func testAFlightReportsNothingUntilTheLanding() throws {
        let start = TrackClassifierTests.start
        func walk(from a: (Double, Double), count: Int, at t0: Int64) -> [TrackPoint] {
            (0..<count).map { TrackPoint(latitude: a.0 + 0.0000126 * Double($0), longitude: a.1, time: t0 + Int64($0) * 1000, accuracy: 5) }
        }
        let beijing = walk(from: (39.9030, 116.3975), count: 100, at: start)
        let shanghai = (31.2304, 121.4737)
        let takeoff = beijing.last!
        let flight = (1...72).map { i in
            let f = Double(i) / 72
            return TrackPoint(latitude: takeoff.latitude + (shanghai.0 - takeoff.latitude) * f, longitude: takeoff.longitude + (shanghai.1 - takeoff.longitude) * f,
                              time: takeoff.time! + Int64(i) * 60_000, accuracy: 5)
        }
        let arrival = walk(from: shanghai, count: 100, at: flight.last!.time! + 1000)
        let points = beijing + flight + arrival
        // Independently: the regions of the ground points.
        var ground = Set<RegionKey>()
        for point in beijing + arrival {
            let placement = try Self.locator.locate(latitude: point.latitude, longitude: point.longitude)
            for level in RegionLevel.allCases where placement.level(level).status != .outside {
                if let region = placement.level(level).region { ground.insert(RegionKey(level: level, index: region)) }
            }
        }
        let shanghaiKey = try XCTUnwrap(ground.first { $0.level == .province && Self.locator.china.region($0.index).code == "310000" })

        var live = try LiveLedger(locator: Self.locator)
        try live.beginRecording(id: "flight")
        var changes = try points.map { try live.feed($0) }
        changes.append(try live.endRecording())
        for (i, change) in changes.enumerated() {
            XCTAssertTrue(Set(change.regions.map(\.key)).isSubset(of: ground), "\(i): \(change.regions.map(\.code))")
        }
        let landing = beijing.count + flight.count - 1
        XCTAssertTrue(changes[beijing.count...landing].allSatisfy(\.isEmpty))
        let arrivedAt = changes.firstIndex { $0.regions.contains { $0.key == shanghaiKey && $0.standing == .confirmed } }
        XCTAssertEqual(arrivedAt, landing + 1)
    }

    func testStateRoundTripAndForget() throws {
        let (a, b, c) = (Self.samples[0], Self.samples[1], Self.samples[2])
        var uninterrupted = try LiveLedger(locator: Self.locator)
        for recording in [a, b, c] { try feed(recording, into: &uninterrupted) }

        // Saved after one recording, restored, continued.
        var first = try LiveLedger(locator: Self.locator)
        try feed(a, into: &first)
        var restored = try LiveLedger(locator: Self.locator, state: first.encodedState())
        XCTAssertEqual(restored.ledger, first.ledger)
        let changes = try feed(b, into: &restored) + feed(c, into: &restored)
        XCTAssertEqual(restored.encodedState(), uninterrupted.encodedState())
        // The restored ledger knows a's cells and regions: only b's and c's count as new.
        let cellsOfA = try first.report().metrics.exploredCellCount
        XCTAssertEqual(changes.reduce(0) { $0 + $1.newCells }, try uninterrupted.report().metrics.exploredCellCount - cellsOfA)

        // Mergeable: a phone's state and another's, joined as `unlocks merge` joins shards.
        var other = try LiveLedger(locator: Self.locator)
        try feed(b, into: &other)
        try feed(c, into: &other)
        func decoded(_ bytes: [UInt8]) throws -> UnlockLedger {
            try LedgerState.decode(bytes, path: "shard", options: ClassifyOptions(), tables: Self.locator.tables)
        }
        var merged = try decoded(first.encodedState())
        merged.merge(try decoded(other.encodedState()))
        XCTAssertEqual(state(merged), uninterrupted.encodedState())

        // Saved in the middle of a recording: the recording as if it ended there.
        var middle = try LiveLedger(locator: Self.locator)
        try middle.beginRecording(id: b.id, name: b.path)
        let half = b.events.count / 2
        for event in b.events[..<half] {
            if let point = event { _ = try middle.feed(point) } else { try middle.breakSegment() }
        }
        let cut = Recording(id: b.id, path: b.path, events: Array(b.events[..<half]))
        XCTAssertEqual(middle.encodedState(), state(batch([cut])))
        XCTAssertEqual(middle.recordingID, b.id)

        // Forgetting a recording: the ledger that never had it, whichever it was.
        for (forgotten, kept) in [(a, [b, c]), (b, [a, c])] {
            var live = uninterrupted
            XCTAssertEqual(try live.forget(ids: [forgotten.id]), [forgotten.id])
            XCTAssertEqual(live.encodedState(), state(batch(kept)))
        }
        // Forgetting the recording in progress discards it; forgetting another while recording
        // re-measures what is new against the rest.
        var live = try LiveLedger(locator: Self.locator)
        try feed(a, into: &live)
        try live.beginRecording(id: b.id)
        _ = try live.feed(try XCTUnwrap(b.events.compactMap { $0 }.first))
        try live.forget(ids: [b.id])
        XCTAssertNil(live.recordingID)
        XCTAssertEqual(live.encodedState(), state(batch([a])))
        var again = a
        again.id = "again"
        try live.beginRecording(id: again.id)
        try live.forget(ids: [a.id])
        var newCells = 0
        for event in again.events {
            if let point = event { newCells += try live.feed(point).newCells } else { try live.breakSegment() }
        }
        newCells += try live.endRecording().newCells
        XCTAssertEqual(newCells, try first.report().metrics.exploredCellCount)
    }

    func testTodayIsTheReportsDayOfTheRecording() throws {
        var live = try LiveLedger(locator: Self.locator)
        let changes = try feed(Self.samples[0], into: &live) // 2024-05-01, all in one day at +08:00
        let day = try live.today(now: Date(timeIntervalSince1970: 1_714_521_600 + 4 * 3600)) // 2024-05-01T04:00Z, noon at +08:00
        XCTAssertEqual(day.day, Timestamp.daysSinceEpoch(year: 2024, month: 5, day: 1))
        XCTAssertEqual(day.newCells, changes.reduce(0) { $0 + $1.newCells })
        XCTAssertEqual(day.newUnlocks.values.reduce(0, +), changes.flatMap { $0.unlocks() }.count)
        XCTAssertEqual(try live.today(now: Date(timeIntervalSince1970: 1_714_521_600 + 4 * 3600 - 86_400)).newCells, 0)
    }

    func testMisuseIsAnErrorNotATrap() throws {
        var live = try LiveLedger(locator: Self.locator)
        XCTAssertThrowsError(try live.feed(TrackPoint(latitude: 39.9, longitude: 116.4, time: 0))) { XCTAssertEqual($0 as? LiveLedgerError, .noRecording) }
        XCTAssertThrowsError(try live.endRecording()) { XCTAssertEqual($0 as? LiveLedgerError, .noRecording) }
        try live.beginRecording(id: "one")
        XCTAssertThrowsError(try live.beginRecording(id: "two")) { XCTAssertEqual($0 as? LiveLedgerError, .recordingInProgress(id: "one")) }
        try live.endRecording()
        XCTAssertThrowsError(try live.beginRecording(id: "one")) { XCTAssertEqual($0 as? LiveLedgerError, .duplicateID("one")) }
        XCTAssertThrowsError(try LiveLedger(locator: Self.locator, state: Array("AUSTATE4 but broken".utf8), statePath: "phone.state")) {
            XCTAssertTrue("\($0)".hasPrefix("phone.state: "), "\($0)")
        }
    }
}

extension RegionChange {
    /// 1 when it is an unlock by default (``LiveChanges/unlocks(lenient:includePassedThrough:)``).
    var unlocksCount: Int {
        var changes = LiveChanges()
        changes.regions = [self]
        return changes.unlocks().count
    }
}
