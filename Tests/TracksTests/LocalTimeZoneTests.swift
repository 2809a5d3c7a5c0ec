import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Local times in IANA zones: offsets through daylight saving, wall-clock times read back to UTC
/// (the repeated and the skipped hour), and CSV times without an offset read in the zone.
final class LocalTimeZoneTests: XCTestCase {
    /// 2024-03-31T00:00Z and friends, computed by hand: 19813 days after 1970-01-01.
    static let march31: Int64 = 19_813 * 86_400_000
    static let hour: Int64 = 3_600_000
    let berlin = LocalTimeZone(identifier: "Europe/Berlin")!

    func testBerlinOffsetsAcrossTheSpringTransition() {
        // Clocks go from 02:00 CET (+01:00) to 03:00 CEST (+02:00) at 01:00Z on 31 March 2024.
        XCTAssertEqual(berlin.offsetMinutes(at: Self.march31 + Self.hour - 1), 60)
        XCTAssertEqual(berlin.offsetMinutes(at: Self.march31 + Self.hour), 120)
        var next: Int64 = 0
        XCTAssertEqual(berlin.offsetMinutes(at: Self.march31, until: &next), 60)
        XCTAssertEqual(next, Self.march31 + Self.hour)
    }

    func testTheDayClockFollowsTheTransitionInEitherDirection() {
        var clock = LocalDayClock(zone: berlin)
        // 22:30Z on 31 March is 00:30 CEST on 1 April; 22:30Z on 30 March is 23:30 CET on 30 March.
        XCTAssertEqual(clock.day(of: Self.march31 + 22 * Self.hour + Self.hour / 2), 19_814)
        XCTAssertEqual(clock.day(of: Self.march31 - Self.hour - Self.hour / 2), 19_812)
        XCTAssertEqual(clock.day(of: Self.march31 + 22 * Self.hour + Self.hour / 2), 19_814)
        var fixed = LocalDayClock(zone: .fixed(minutesEast: 60))
        XCTAssertEqual(fixed.day(of: Self.march31 + 22 * Self.hour + Self.hour / 2), 19_813)
    }

    /// The clock remembers the instants of the last day it found; every answer must still be the
    /// day of the instant's own offset, asked of the zone directly: points every 7 minutes over
    /// the spring transition (forwards, backwards, and hopping), and each local midnight's edges.
    func testTheDayClockAgreesWithTheZoneAtEveryInstant() {
        func expected(_ t: Int64) -> Int64 {
            let local = t + Int64(berlin.offsetMinutes(at: t)) * 60_000
            return Int64((Double(local) / 86_400_000).rounded(.down))
        }
        let start = Self.march31 - 2 * 86_400_000, end = Self.march31 + 3 * 86_400_000
        var instants = Array(stride(from: start, to: end, by: 7 * 60_000))
        // Local midnights (CET before the transition, CEST after) and the millisecond before each.
        for day in Int64(19_811)...19_816 {
            let midnight = day * 86_400_000 - (day <= 19_813 ? 1 : 2) * Self.hour
            instants += [midnight - 1, midnight, midnight + 1]
        }
        for order in [instants, instants.reversed(), instants.enumerated().map { instants[($0.offset * 37) % instants.count] }] {
            var clock = LocalDayClock(zone: berlin)
            for t in order { XCTAssertEqual(clock.day(of: t), expected(t), "\(t)") }
        }
    }

    func testWallClockTimesAtTransitions() {
        // 02:30 on 31 March does not exist: read at the offset before (+01:00), i.e. 01:30Z.
        XCTAssertEqual(berlin.utc(fromLocal: Self.march31 + 2 * Self.hour + Self.hour / 2), Self.march31 + Self.hour + Self.hour / 2)
        // 02:30 on 27 October 2024 (210 days later) happens twice: the first, at +02:00, is 00:30Z.
        let october27 = Self.march31 + 210 * 86_400_000
        XCTAssertEqual(berlin.utc(fromLocal: october27 + 2 * Self.hour + Self.hour / 2), october27 + Self.hour / 2)
        // An ordinary summer time: 12:00 CEST is 10:00Z.
        XCTAssertEqual(berlin.utc(fromLocal: Self.march31 + 86_400_000 + 12 * Self.hour), Self.march31 + 86_400_000 + 10 * Self.hour)
    }

    func testUnknownNamesAreRefused() {
        XCTAssertNil(LocalTimeZone(identifier: "Mars/Olympus_Mons"))
        XCTAssertNil(LocalTimeZone(identifier: "Nowhere"))
        XCTAssertEqual(LocalTimeZone(identifier: "America/New_York")?.description, "America/New_York")
        XCTAssertEqual(LocalTimeZone.fixed(minutesEast: -330).description, "-05:30")
    }

    /// The default clock is the person's: `TZ` in any of the forms C libraries accept for a tz
    /// name, else the system's setting (Foundation's current zone), never China's by assumption.
    func testTheSystemZoneFollowsTZ() {
        XCTAssertEqual(LocalTimeZone.system(environment: ["TZ": "America/New_York"]).description, "America/New_York")
        XCTAssertEqual(LocalTimeZone.system(environment: ["TZ": ":Europe/Paris"]).description, "Europe/Paris")
        XCTAssertEqual(LocalTimeZone.system(environment: ["TZ": "/usr/share/zoneinfo/Asia/Tokyo"]).description, "Asia/Tokyo")
        // Foundation names UTC "GMT": no offset, ever.
        XCTAssertEqual(LocalTimeZone.system(environment: ["TZ": "UTC"]).offsetMinutes(at: Self.march31 + 120 * 86_400_000), 0)
        // 23:00 EDT on 30 June 2024 (03:00Z on 1 July, day 19905) is on 30 June (day 19904) there.
        let newYork = LocalTimeZone.system(environment: ["TZ": "America/New_York"])
        var clock = LocalDayClock(zone: newYork)
        XCTAssertEqual(clock.day(of: 19_905 * 86_400_000 + 3 * Self.hour), 19_904)
        // No TZ, or one naming no zone: the system's setting, as Foundation reads it.
        let current = TimeZone.current
        for environment in [[:], ["TZ": ""]] {
            let zone = LocalTimeZone.system(environment: environment)
            XCTAssertEqual(zone.offsetMinutes(at: Self.march31), current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(Self.march31) / 1000)) / 60)
        }
    }

    func testCSVLocalTimesAreReadInTheZone() throws {
        let newYork = try XCTUnwrap(LocalTimeZone(identifier: "America/New_York"))
        var sink = TrackEventRecorder()
        let text = "lat,lon,time\n40.75,-73.99,2024-06-30 23:00:00\n40.75,-73.99,2024-06-30T23:00:00Z\n40.75,-73.99,2024-01-15 23:00:00\n"
        try TrackCSVReader.read(FedSource(Array(text.utf8), feeding: .trickle), path: "t.csv", timeZone: newYork, into: &sink)
        // 30 June 2024 is day 19904; 23:00 EDT (-04:00) is 03:00Z on 1 July; a Z time stays UTC;
        // 15 January (day 19737) is at EST (-05:00).
        XCTAssertEqual(sink.points.map(\.time), [19_905 * 86_400_000 + 3 * Self.hour, 19_904 * 86_400_000 + 23 * Self.hour,
                                                  19_738 * 86_400_000 + 4 * Self.hour])
    }
}
