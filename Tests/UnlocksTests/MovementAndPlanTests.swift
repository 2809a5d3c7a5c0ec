import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks

/// Issue 13's movement and plan rules: untimed legs are short or not drawn, plans count nothing
/// by default, vehicles explore nothing and only pass through.
extension TrackClassifierTests {
    /// Great-circle metres (a sphere of the mean radius: independent of the classifier's scale).
    func haversine(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let r = 6_371_008.8, p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180
        let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }

    /// The county (or finest China region) a point is in, straight from the locator.
    func county(_ p: (Double, Double)) -> String? {
        let placement = try! Self.locator.locate(latitude: p.0, longitude: p.1)
        return placement.county.region.map { Self.locator.china.region($0).code }
    }

    /// 40 untimed points scattered over eastern China (a CSV with no time column): with plans
    /// counted, no leg between them is drawn (all are far longer than 200 m), so the run is quick and
    /// explores only the first point's cell; nothing is confirmed, no time or day is added.
    /// Without `includePlans` the input is planned and contributes nothing at all.
    func testFortyUntimedRandomPointsCostLittleAndCountOnlyTentatively() {
        var state: UInt64 = 13
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let points = (0..<40).map { _ in TrackPoint(latitude: 25 + next() * 15, longitude: 105 + next() * 15) }
        let shortLegs = zip(points, points.dropFirst()).filter { haversine($0, $1) <= 200 }.count
        XCTAssertEqual(shortLegs, 0, "the scatter has no short leg")
        var options = ClassifyOptions()
        options.includePlans = true
        let clock = Date()
        let c = classify(points, options: options)
        XCTAssertLessThan(Date().timeIntervalSince(clock), 3)
        XCTAssertEqual(c.ledger.view.cells.count, 1)
        XCTAssertEqual(c.ledger.view.distanceMillimetres, 0)
        XCTAssertEqual(c.ledger.view.durationMilliseconds, 0)
        XCTAssertTrue(c.ledger.view.days.isEmpty)
        XCTAssertTrue(c.ledger.view.regions.values.allSatisfy { !$0.isConfirmed }, "untimed evidence is tentative")
        XCTAssertFalse(c.ledger.view.regions.isEmpty)
        XCTAssertEqual(c.record.status, .planned)

        let plan = classify(points)
        XCTAssertEqual(plan.record.status, .planned)
        XCTAssertEqual(plan.record.pointsKept, 40)
        XCTAssertEqual(plan.record.pointsPlanned, 40)
        XCTAssertTrue(plan.ledger.view.regions.isEmpty)
        XCTAssertEqual(plan.ledger.view.cells.count, 0)
    }

    /// An untimed walk sampled every ~11 m is drawn (its legs are under 200 m) once plans count;
    /// a timed point after untimed ones makes the input a recording, and the held points count.
    func testDenseUntimedPointsAreDrawnAndATimedPointMakesARecording() {
        let walkPoints = walk(from: (39.9030, 116.3975), to: (39.9120, 116.3975), count: 90).map {
            TrackPoint(latitude: $0.latitude, longitude: $0.longitude)
        }
        var options = ClassifyOptions()
        options.includePlans = true
        let drawn = classify(walkPoints, options: options)
        let length = haversine(walkPoints.first!, walkPoints.last!)
        XCTAssertEqual(Double(drawn.ledger.view.cells.count), length / 25, accuracy: 3)
        XCTAssertEqual(Double(drawn.ledger.view.distanceMillimetres) / 1000, length, accuracy: length * 0.005)

        let timed = TrackPoint(latitude: 39.9121, longitude: 116.3975, time: Self.start, accuracy: 5)
        let recording = classify(walkPoints + [timed])
        XCTAssertEqual(recording.record.status, .read)
        XCTAssertEqual(recording.record.pointsPlanned, 0)
        XCTAssertEqual(Double(recording.ledger.view.cells.count), length / 25, accuracy: 3)
        XCTAssertEqual(recording.ledger.view.durationMilliseconds, 0, "untimed legs add no duration")
        XCTAssertEqual(recording.ledger.view.days.count, 1)
        XCTAssertEqual(codes(recording.ledger, .county), [county((39.9121, 116.3975))!], "only the timed point confirms")
    }

    /// Issue 35: an input's untimed points wait uncommitted until its first timed point (a plan
    /// of 160,000 points held its legs' cells, hundreds of MB, only to let them go). Replayed, they
    /// give the very ledger the classifier gives when it places them on arrival (as it does for an
    /// observer, the border audit): untimed stretches with breaks and a route between them, then
    /// timed points; a plan alone; and a map of explored ground after untimed points.
    func testUntimedPointsWaitingForATimedOneGiveTheSameLedger() {
        let untimed = walk(from: (39.9030, 116.3975), to: (39.9080, 116.3975), count: 40).map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude) }
        let more = walk(from: (39.9085, 116.3980), to: (39.9100, 116.4010), count: 30).map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude, accuracy: 8, elevation: 44) }
        let timed = walk(from: (39.9101, 116.4011), to: (39.9150, 116.4011), count: 60, step: 5)
        enum Event { case point(TrackPoint), segmentBreak, route, exploredArea }
        func run(_ events: [Event], observed: Bool) -> TrackClassifier {
            var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
            if observed { classifier.observer = { _ in } }
            classifier.begin(InputRecord(path: "test", fingerprint: "f", format: "test"))
            for event in events {
                switch event {
                case let .point(point): classifier.point(point)
                case .segmentBreak: classifier.segmentBreak()
                case .route: classifier.annotate(.route)
                case .exploredArea: classifier.annotate(.exploredArea)
                }
            }
            classifier.finish()
            return classifier
        }
        let route = [Event.route] + walk(from: (39.95, 116.30), to: (39.96, 116.30), count: 3).map { Event.point(TrackPoint(latitude: $0.latitude, longitude: $0.longitude)) }
        let recording = untimed.map(Event.point) + [.segmentBreak] + route + [.segmentBreak] + more.map(Event.point) + timed.map(Event.point)
        let plan = untimed.map(Event.point) + [.segmentBreak] + more.map(Event.point)
        let footprint = untimed.map(Event.point) + [.exploredArea] + more.map(Event.point)
        for (name, events) in [("recording", recording), ("plan", plan), ("footprint", footprint)] {
            let waited = run(events, observed: false), placed = run(events, observed: true)
            XCTAssertEqual(waited.ledger, placed.ledger, name)
            XCTAssertEqual(waited.record, placed.record, name)
            XCTAssertTrue(waited.plan.waiting.isEmpty, name)
        }
        XCTAssertEqual(run(plan, observed: false).record.status, .planned)
        XCTAssertEqual(run(plan, observed: false).record.pointsPlanned, 70)
        XCTAssertEqual(run(recording, observed: false).record.status, .read)
        XCTAssertGreaterThan(run(recording, observed: false).ledger.view.cells.count, 20, "the untimed stretches are drawn once a timed point came")
    }

    /// A 3-point GPX route through the reader: planned, counted, nothing unlocked or explored.
    func testAGPXRouteIsAPlan() throws {
        let gpx = """
        <?xml version="1.0"?><gpx version="1.1" creator="planner"><rte><name>plan</name>
        <rtept lat="39.9030" lon="116.3975"/><rtept lat="39.9500" lon="116.4500"/><rtept lat="40.0000" lon="116.5000"/>
        </rte></gpx>
        """
        func run(_ options: ClassifyOptions) throws -> TrackClassifier {
            var classifier = TrackClassifier(locator: Self.locator, options: options)
            classifier.begin(InputRecord(path: "route.gpx", fingerprint: "r", format: "gpx"))
            _ = try GPXReader.read(MemorySource(Array(gpx.utf8)), path: "route.gpx", into: &classifier)
            classifier.finish()
            return classifier
        }
        let plan = try run(ClassifyOptions())
        XCTAssertEqual(plan.record.status, .planned)
        XCTAssertEqual(plan.record.pointsRead, 3)
        XCTAssertEqual(plan.record.pointsPlanned, 3)
        XCTAssertTrue(plan.ledger.view.regions.isEmpty)
        XCTAssertEqual(plan.ledger.view.cells.count, 0)
        XCTAssertEqual(plan.ledger.view.distanceMillimetres, 0)

        var include = ClassifyOptions()
        include.includePlans = true
        let counted = try run(include)
        XCTAssertEqual(codes(counted.ledger, .province, confirmed: false), ["110000"], "a plan counted is tentative")
        XCTAssertEqual(counted.ledger.view.distanceMillimetres, 0, "its legs are kilometres long")
    }

    /// A walk before and after a 300 km/h train ride: the walks' counties are unlocked, the train
    /// explores nothing, and a county only the train crossed is passed through.
    func testAWalkAtEachEndOfATrainRideUnlocksThoseCountiesOnly() throws {
        let beijing = (39.8650, 116.3790), tianjin = (39.1350, 117.2100)
        let before = walk(from: (39.8690, 116.3790), to: beijing, count: 120)
        let railStart = Self.start + 119_000
        let rail = walk(from: beijing, to: tianjin, count: 145, step: 9, start: railStart).dropFirst()
        let arrival = railStart + 144 * 9000
        let after = walk(from: tianjin, to: (39.1390, 117.2100), count: 120, start: arrival + 1000)
        // The ride's points really go at about 300 km/h.
        let speed = haversine(rail.first!, rail.last!) / (Double(rail.last!.time! - rail.first!.time!) / 1000) * 3.6
        XCTAssertEqual(speed, 300, accuracy: 10)
        let c = classify(before + rail + after)
        let ends: Set<String> = [county(before[0].coordinate)!, county(before.last!.coordinate)!,
                                 county(after[0].coordinate)!, county(after.last!.coordinate)!]
        XCTAssertEqual(codes(c.ledger, .county), ends)
        // Langfang's Anci district lies on the straight line between the two.
        let middle = county((39.52, 116.78))!
        XCTAssertFalse(ends.contains(middle))
        XCTAssertTrue(passed(c.ledger, .county).contains(middle))
        // Cells: the two walks' swaths only (each ~440 m), nothing along the 100 km in between.
        let walked = haversine(before[0], before.last!) + haversine(after[0], after.last!)
        XCTAssertEqual(Double(c.ledger.view.cells.count), walked / 25, accuracy: 6)

        let report = try ClassifyReport(ledger: c.ledger, tables: Self.locator.tables, options: ClassifyOptions(), lenient: false)
        XCTAssertEqual(report.metrics.countyUnlockCount, ends.count)
        XCTAssertEqual(report.unlocks[.county]?.first { $0.code == middle }?.evidence, .passedThrough)
        let including = try ClassifyReport(ledger: c.ledger, tables: Self.locator.tables, options: ClassifyOptions(),
                                       lenient: false, includePassedThrough: true)
        XCTAssertEqual(including.metrics.countyUnlockCount, ends.count + passed(c.ledger, .county).count)
    }

    /// A bike ride at 20 km/h explores its whole line; at 40 km/h (a car) it explores nothing but
    /// its start, unless `--explore-max-speed 50`.
    func testABikeRideAt20KmhExplores() {
        // 2.2 km north in 400 s: 19.8 km/h.
        let ride = walk(from: (39.9030, 116.3975), to: (39.9228, 116.3975), count: 401)
        let length = haversine(ride[0], ride.last!)
        XCTAssertEqual(length / 400 * 3.6, 20, accuracy: 0.5)
        XCTAssertEqual(Double(classify(ride).ledger.view.cells.count), length / 25, accuracy: 3)
        let car = walk(from: (39.9030, 116.3975), to: (39.9228, 116.3975), count: 201, step: 1)
        XCTAssertEqual(classify(car).ledger.view.cells.count, 1)
        var options = ClassifyOptions()
        options.exploreMaxSpeed = 50 / 3.6
        XCTAssertEqual(Double(classify(car, options: options).ledger.view.cells.count), length / 25, accuracy: 3)
    }
}

private extension TrackPoint {
    var coordinate: (Double, Double) { (latitude, longitude) }
}
