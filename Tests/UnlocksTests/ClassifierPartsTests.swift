import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks
import UnlocksTestSupport

/// Each part of ``TrackClassifier`` alone, on hand-made points, against expectations worked out
/// here (by hand, by Foundation's calendar, or by sampling a leg densely on the grid).
final class ClassifierPartsTests: XCTestCase {
    static let start: Int64 = 1_714_521_600_000  // 2024-05-01T00:00:00Z

    func point(_ latitude: Double, _ longitude: Double, at seconds: Int64? = 0, accuracy: Double? = 5) -> TrackPoint {
        TrackPoint(latitude: latitude, longitude: longitude, time: seconds.map { Self.start + $0 * 1000 }, accuracy: accuracy)
    }

    // MARK: PointFilter

    func testFilterSaysWhyEachPointIsDropped() {
        var options = ClassifyOptions()
        options.timeZone = .utc
        options.since = Self.start / 86_400_000  // 2024-05-01 only
        options.until = Self.start / 86_400_000
        options.exclusions = [.area(latitude: 48.8584, longitude: 2.2945, radiusMetres: 100)]
        var filter = PointFilter(options: options)
        filter.begin(datum: .wgs84)
        func reason(_ p: TrackPoint) -> DropReason? {
            var p = p
            return filter.reject(&p)
        }
        XCTAssertEqual(reason(point(91, 0)), .invalidCoordinate)
        XCTAssertEqual(reason(point(.nan, 10)), .invalidCoordinate)
        XCTAssertEqual(reason(point(10, 180.5)), .invalidCoordinate)
        XCTAssertEqual(reason(point(0, 0)), .nullIsland)
        XCTAssertEqual(reason(point(10, 10, at: nil)), .outsideDates, "untimed while days are selected")
        XCTAssertEqual(reason(point(10, 10, at: 86_400)), .outsideDates, "the day after")
        XCTAssertEqual(reason(point(10, 10, at: -1)), .outsideDates, "the second before")
        XCTAssertEqual(reason(point(10, 10, at: 86_399, accuracy: 50)), nil, "the last second, at the accuracy limit")
        XCTAssertEqual(reason(point(10, 10, accuracy: 50.5)), .accuracy)
        XCTAssertEqual(reason(point(10, 10, accuracy: .nan)), .accuracy)
        // 0.0005° of latitude is 55 m: inside the 100 m forgotten around the tower; 0.002° (222 m) is not.
        XCTAssertEqual(reason(point(48.8589, 2.2945)), .forgotten)
        XCTAssertEqual(reason(point(48.8604, 2.2945)), nil)
    }

    func testFilterConvertsTheInputsDatumAndDropsDuplicateTimes() {
        var filter = PointFilter(options: ClassifyOptions())
        filter.begin(datum: .gcj02)
        var p = point(39.9087, 116.3975)
        XCTAssertNil(filter.reject(&p))
        // GCJ-02 shifts Beijing by a few hundred metres: the WGS-84 point is south-west of it.
        XCTAssertLessThan(p.latitude, 39.9087)
        XCTAssertLessThan(p.longitude, 116.3975)
        XCTAssertGreaterThan(p.latitude, 39.9087 - 0.01)
        // Duplicates are per input and compare with the last kept time only.
        XCTAssertFalse(filter.repeatsTime(1))
        XCTAssertTrue(filter.repeatsTime(1))
        XCTAssertFalse(filter.repeatsTime(nil))
        XCTAssertFalse(filter.repeatsTime(1), "an untimed point in between")
        filter.begin(datum: .wgs84)
        XCTAssertFalse(filter.repeatsTime(1), "a new input")
    }

    // MARK: Segmenter

    func testSegmenterFindsGapsAndJudgesRunsOfFastLegs() {
        var segments = Segmenter(options: ClassifyOptions())
        segments.previous = point(10, 10, at: 0)
        segments.hasPrevious = true
        XCTAssertFalse(segments.isGap(before: point(10, 10, at: 300)), "five minutes is no gap")
        XCTAssertTrue(segments.isGap(before: point(10, 10, at: 301)))
        XCTAssertTrue(segments.isGap(before: point(10, 10, at: -1)), "time running back")
        XCTAssertFalse(segments.isGap(before: point(10, 10, at: nil)))
        // 100 m in a second is 360 km/h: fast; 50 m is 180 km/h: not.
        XCTAssertFalse(segments.holdIfFast(point(10, 10, at: 1), legMetres: 50))
        XCTAssertTrue(segments.holdIfFast(point(10, 10, at: 1), legMetres: 100))
        segments.previous = point(10, 10, at: 1)
        XCTAssertTrue(segments.holdIfFast(point(10, 10, at: 2), legMetres: 100))
        // The run's speed from the anchor: 200 m over 2 s (360 km/h) is a train; over 1 s from an
        // anchor a second later (720 km/h) a flight; 200 m over 0.5 s (1,440 km/h) a glitch.
        XCTAssertEqual(segments.verdict(anchorTime: Self.start), .ground)
        XCTAssertEqual(segments.verdict(anchorTime: Self.start + 1000), .flight(t0: Self.start + 1000, t1: Self.start + 2000, metres: 200))
        XCTAssertEqual(segments.verdict(anchorTime: Self.start + 1500), .glitch)
        XCTAssertEqual(segments.verdict(anchorTime: nil), .ground, "no anchor")
        segments.clearRun()
        XCTAssertTrue(segments.run.isEmpty)
    }

    func testSegmenterJudgesLegsBySpeedUnlessLabelled() {
        var segments = Segmenter(options: ClassifyOptions())
        let t0 = Self.start, t1 = Self.start + 10_000
        // 30 km/h is 83.3 m in 10 s.
        XCTAssertTrue(segments.leg(metres: 83, from: t0, to: t1) == (true, false))
        XCTAssertTrue(segments.leg(metres: 84, from: t0, to: t1) == (false, false))
        XCTAssertTrue(segments.leg(metres: 10, from: t0, to: t0) == (false, false), "no time passed")
        XCTAssertTrue(segments.leg(metres: 10, from: nil, to: t1) == (true, true), "untimed")
        segments.movement = .vehicle
        XCTAssertTrue(segments.leg(metres: 10, from: t0, to: t1) == (false, false))
        XCTAssertTrue(segments.leg(metres: 10, from: nil, to: t1) == (false, true))
        segments.movement = .humanPowered
        // Labelled on foot: up to 200 km/h (555 m in 10 s) still human-powered.
        XCTAssertTrue(segments.leg(metres: 555, from: t0, to: t1) == (true, false))
        XCTAssertTrue(segments.leg(metres: 556, from: t0, to: t1) == (false, false))
    }

    // MARK: PendingPoint

    func ground(_ p: TrackPoint) -> GroundPoint {
        GroundPoint(point: p, cell: CellVisit(time: .max, country: -1, chinaRegion: -1), row: 0, tile: (0, 0))
    }

    func testPendingPointDecidesBeenPassedAndLone() {
        var scale = LocalScale()
        var pending = PendingPoint(options: ClassifyOptions())
        XCTAssertNil(pending.resolve(outgoingAtHumanSpeed: true, successor: nil, afterGap: nil, scale: &scale), "nothing waits")
        // Alone in its segment, no label, no neighbour across a gap: been there, lone.
        pending.hold(ground(point(10, 10, at: 0)), reused: false, incomingLeg: false, humanSpeed: false, movement: nil, beforeGap: nil)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: true, successor: nil, afterGap: nil, scale: &scale)! == (true, true))
        // Between two vehicle legs: only passed.
        let a = point(10, 10, at: 0), b = point(10, 10.01, at: 60), c = point(10, 10.02, at: 120)
        pending.hold(ground(a), reused: false, incomingLeg: false, humanSpeed: false, movement: nil, beforeGap: nil)
        pending.hold(ground(b), reused: false, incomingLeg: true, humanSpeed: false, movement: nil, beforeGap: nil)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: false, successor: c, afterGap: nil, scale: &scale)! == (false, false))
        // A spike in a walk: both legs fast, but the chord from its predecessor to its successor
        // (11 m in 20 s) is at walking speed.
        let spike = point(10.01, 10, at: 10), back = point(10, 10.0001, at: 20)
        pending.hold(ground(a), reused: false, incomingLeg: false, humanSpeed: false, movement: nil, beforeGap: nil)
        pending.hold(ground(spike), reused: true, incomingLeg: true, humanSpeed: false, movement: nil, beforeGap: nil)
        XCTAssertTrue(pending.reused)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: false, successor: back, afterGap: nil, scale: &scale)! == (true, false))
        // A labelled vehicle stretch is passed even at walking speed.
        pending.hold(ground(a), reused: false, incomingLeg: false, humanSpeed: true, movement: .vehicle, beforeGap: nil)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: true, successor: back, afterGap: nil, scale: &scale)! == (false, false))
    }

    func testPendingPointAtAGapWithNoTimeToStopWasCarriedOn() {
        var scale = LocalScale()
        var pending = PendingPoint(options: ClassifyOptions())
        // 10 km either side of the point, 6 minutes apart in all: at 200 km/h the 20 km take 6 minutes,
        // leaving no 5 minutes for a stop.
        let before = point(10, 9.9087, at: 0), p = point(10, 10, at: 180), after = point(10, 10.0913, at: 360)
        pending.hold(ground(p), reused: false, incomingLeg: false, humanSpeed: false, movement: nil, beforeGap: before)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: true, successor: nil, afterGap: after, scale: &scale)! == (false, false))
        // An hour apart: time enough to stop.
        let later = point(10, 10.0913, at: 3600)
        pending.hold(ground(p), reused: false, incomingLeg: false, humanSpeed: false, movement: nil, beforeGap: before)
        XCTAssertTrue(pending.resolve(outgoingAtHumanSpeed: true, successor: nil, afterGap: later, scale: &scale)! == (true, true))
    }

    // MARK: LookupCache

    func testLookupIsReusedWithinTheClearanceOfEveryLevel() throws {
        let locator = TrackClassifierTests.locator
        var lookup = LookupCache()
        var scale = LocalScale()
        // Central Paris: France and Île-de-France, far from any border.
        let paris = point(48.8566, 2.3522)
        XCTAssertFalse(lookup.reuses(paris, accuracy: 5, scale: &scale), "nothing located yet")
        XCTAssertTrue(lookup.locate(paris, with: locator))
        XCTAssertTrue(lookup.isValid)
        let placement = try locator.locate(latitude: paris.latitude, longitude: paris.longitude)
        XCTAssertNotNil(placement.subdivision.region, "Paris has a subdivision")
        let margins = [placement.country, placement.province, placement.city, placement.county, placement.subdivision]
            .filter { $0.region != nil }.map { $0.marginMetres ?? locator.marginRadius }
        XCTAssertEqual(lookup.clearance, margins.min()!, "the smallest margin, the subdivision's included")
        XCTAssertEqual(lookup.placement.subdivision.region, placement.subdivision.region)
        XCTAssertNil(lookup.placement.country.marginMetres, "margins dropped")
        // 0.0001° of latitude is 11.1 m: reused when 11.1 × 1.01 + 1 + accuracy fits the clearance.
        let near = point(48.8567, 2.3522)
        let moved = 11.12 * 1.01 + 1
        XCTAssertTrue(lookup.reuses(near, accuracy: lookup.clearance - moved - 0.5, scale: &scale))
        XCTAssertFalse(lookup.reuses(near, accuracy: lookup.clearance - moved + 0.5, scale: &scale))
        lookup.begin()
        XCTAssertFalse(lookup.reuses(near, accuracy: 0, scale: &scale), "a new input")
    }

    // MARK: EvidenceWeigher

    func level(_ region: Int32, _ status: PlacementStatus, _ margin: Double?) -> LevelPlacement {
        var level = LevelPlacement.outside
        level.region = region
        level.status = status
        level.marginMetres = margin
        return level
    }

    func testEvidenceRuleConfirmsInsideOrAfterEnoughPointsInASegment() {
        let key = RegionKey(level: .country, index: 7)
        var tallies: [RegionKey: (count: Int, first: Visit)] = [:]
        var evidence = RegionEvidence()
        let deep = level(7, .inside, 100)
        let near = level(7, .inside, 20)
        func visit(_ s: Int64?) -> Visit { Visit(time: s.map { Self.start + $0 * 1000 }, latitude: 10, longitude: 10) }
        func weigh(_ p: LevelPlacement, _ v: Visit, accuracy: Double = 30, been: Bool = true, lone: Bool = false) -> Bool {
            EvidenceWeigher.weigh(p, visit: v, accuracy: accuracy, been: been, lone: lone, minimum: 3, key: key, segmentInside: &tallies, evidence: &evidence)
        }
        XCTAssertFalse(weigh(deep, visit(0), been: false))
        XCTAssertEqual(evidence.passedBy, visit(0))
        XCTAssertFalse(weigh(deep, visit(nil)), "untimed: tentative")
        XCTAssertEqual(evidence.tentativeBy, visit(nil))
        XCTAssertNil(evidence.confirmedBy)
        // Margin 20 m under a 30 m accuracy: tentative, until the third point of the segment,
        // which confirms from the first.
        XCTAssertFalse(weigh(near, visit(10)))
        XCTAssertFalse(weigh(near, visit(11)))
        XCTAssertTrue(weigh(near, visit(12)))
        XCTAssertEqual(evidence.confirmedBy, visit(10))
        XCTAssertTrue(weigh(deep, visit(5), lone: true))
        XCTAssertEqual(evidence.loneBy, visit(5))
    }

    func testWeigherAddsReusedPointsWhenTheLookupChanges() {
        var weigher = EvidenceWeigher(options: ClassifyOptions())
        var placement = Placement()
        placement.country = level(3, .inside, nil)
        placement.subdivision = level(9, .inside, nil)
        let first = Visit(time: Self.start, latitude: 1, longitude: 1), later = Visit(time: Self.start + 5000, latitude: 1, longitude: 1)
        weigher.countReused(later, been: true, lone: false)
        weigher.countReused(first, been: true, lone: false)
        weigher.countReused(later, been: false, lone: false)
        XCTAssertTrue(weigher.hasReused)
        var seen: [RegionKey: RegionEvidence] = [:]
        weigher.forEachRegion(reusing: placement) { seen[$0] = $1 }
        XCTAssertEqual(Set(seen.keys), [RegionKey(level: .country, index: 3), RegionKey(level: .subdivision, index: 9)])
        XCTAssertTrue(weigher.regions.isEmpty, "not added yet")
        weigher.flushReused(at: placement)
        XCTAssertFalse(weigher.hasReused)
        for key in [RegionKey(level: .country, index: 3), RegionKey(level: .subdivision, index: 9)] {
            XCTAssertEqual(weigher.regions[key]?.confirmedBy, first, "the earliest reused point")
            XCTAssertEqual(weigher.regions[key]?.passedBy, later)
            XCTAssertEqual(seen[key]?.confirmedBy, first)
        }
        let signature = EvidenceWeigher.reusedSignature(of: placement, been: true, lone: true)
        XCTAssertEqual(signature.flags, PlaceSignature.loneFlag | 1 | 1 << 4, "confirming at the country and the subdivision, lone")
    }

    // MARK: Rasteriser

    func testRasteriserExploresTheCellsALegCrosses() {
        var raster = Rasteriser()
        let visit = CellVisit(time: 0, country: 1, chinaRegion: -1)
        // 330 m east along a row near the equator (11 m north of it: inside the row).
        let a = point(0.0001, 10, at: 0), b = point(0.0001, 10.003, at: 100)
        let start = raster.locate(a, cell: visit), end = raster.locate(b, cell: visit)
        raster.startSegment(at: start)
        raster.draw(from: start, to: end, passesFrom: (a.time!, b.time!))
        // Sampled every 10 cm along the leg, the exact grid gives the same cells.
        let sampled = Set((0...3000).map { ExploredGrid.key(latitude: 0.0001, longitude: 10 + 0.000001 * Double($0)) })
        XCTAssertEqual(Set(raster.cells.arrivals), sampled)
        XCTAssertGreaterThanOrEqual(sampled.count, 13)
        let taken = raster.take()
        XCTAssertEqual(taken.cells.count, sampled.count)
        XCTAssertEqual(taken.passes.count, sampled.count, "a moving leg with good fixes: a candidate per cell, its start cell included")
        XCTAssertGreaterThanOrEqual(taken.tiles.count, 1)
        XCTAssertEqual(raster.cells.count, 0, "handed over")
    }

    // MARK: Minute tallies, palette, days

    func testMinuteTalliesSplitLegsByTimeAndCapAMinute() {
        var minutes = MinuteTallies()
        let minute0 = Self.start / 60_000
        // 30 s in each of two minutes: 1,001 mm split 501 (500.5 rounded away from zero) and 500.
        minutes.addLeg(from: Self.start + 30_000, to: Self.start + 90_000, millimetres: 1001, kind: .vehicle)
        minutes.countPoint(at: Self.start + 90_000)
        minutes.countPoint(at: Self.start + 95_000, inFlight: true)
        minutes.addLeg(from: nil, to: Self.start, millimetres: 7, kind: .humanPowered)
        // The same minute recorded twice in one file: capped at 60 s.
        minutes.addLeg(from: Self.start, to: Self.start + 50_000, millimetres: 10, kind: .flight)
        minutes.addLeg(from: Self.start + 10_000, to: Self.start + 40_000, millimetres: 10, kind: .flight)
        let moments = minutes.take()
        XCTAssertEqual(moments[minute0]?.distanceMillimetres, 501 + 20)
        XCTAssertEqual(moments[minute0]?.vehicleDistanceMillimetres, 501)
        XCTAssertEqual(moments[minute0]?.flightDistanceMillimetres, 20)
        XCTAssertEqual(moments[minute0]?.durationMilliseconds, 60_000, "30 + 50 + 30 s capped")
        XCTAssertEqual(moments[minute0 + 1]?.vehicleDistanceMillimetres, 500)
        XCTAssertEqual(moments[minute0 + 1]?.durationMilliseconds, 30_000)
        XCTAssertEqual(moments[minute0 + 1]?.points, 2)
        XCTAssertEqual(moments[minute0 + 1]?.inFlight, 1)
        XCTAssertEqual(moments[MomentTally.untimedMinute]?.distanceMillimetres, 7)
        XCTAssertEqual(moments[MomentTally.untimedMinute]?.durationMilliseconds, 0)
        XCTAssertTrue(minutes.take().isEmpty)
    }

    func testPaletteNumbersPlacesInOrderOfFirstUse() {
        var palette = PlacePalette()
        let a = PlaceSignature(regions: (1, -1, -1, -1, -1), kinds: 1), b = PlaceSignature(regions: (2, -1, -1, -1, -1), kinds: 1)
        XCTAssertEqual([a, a, b, a, b].map { palette.position(of: $0) }, [0, 0, 1, 0, 1])
        XCTAssertEqual(palette.take(), [a, b])
        XCTAssertEqual(palette.position(of: b), 0, "a new input's palette")
    }

    func testDayTallyCountsLocalDays() throws {
        let zone = try XCTUnwrap(LocalTimeZone(identifier: "Asia/Shanghai"))
        var days = DayTally(zone: zone)
        // 15:59:59Z and 16:00:00Z on 2024-05-01 are the 1st and the 2nd in Shanghai (UTC+8).
        days.count(Self.start + (16 * 3600 - 1) * 1000)
        days.count(Self.start + 16 * 3600 * 1000)
        days.count(Self.start + 20 * 3600 * 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let epoch = Date(timeIntervalSince1970: 0)
        let first = Int64(calendar.dateComponents([.day], from: epoch, to: calendar.date(from: DateComponents(year: 2024, month: 5, day: 1))!).day!)
        XCTAssertEqual(days.take(), [first, first + 1])
        days.begin()
        days.count(Self.start)
        XCTAssertEqual(days.days, [first])
    }
}
