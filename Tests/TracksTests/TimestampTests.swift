import XCTest
@testable import Tracks

final class TimestampTests: XCTestCase {
    func testForms() {
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(Timestamp.parse("2024-03-01T08:30:15Z"), 1_709_281_815_000)
        XCTAssertEqual(Timestamp.parse("2024-03-01T16:30:15+08:00"), 1_709_281_815_000)
        XCTAssertEqual(Timestamp.parse("2024-03-01T16:30:15+0800"), 1_709_281_815_000)
        XCTAssertEqual(Timestamp.parse("2024-03-01T16:30:15+08"), 1_709_281_815_000)
        XCTAssertEqual(Timestamp.parse("2024-03-01 08:30:15"), 1_709_281_815_000)
        XCTAssertEqual(Timestamp.parse("2024-03-01T08:30:15.123456Z"), 1_709_281_815_123)
        XCTAssertEqual(Timestamp.parse("2024-03-01T08:30Z"), 1_709_281_800_000)
        XCTAssertEqual(Timestamp.parse("1969-12-31T23:59:59Z"), -1000)
        XCTAssertEqual(Timestamp.parse("2016-12-31T23:59:60Z"), Timestamp.parse("2016-12-31T23:59:59.999Z"))
    }

    func testRejects() {
        for bad in ["", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z",
                    "2024-03-01T08:30:15.Z", "2024-03-01T08:30:15Zjunk", "2024-3-01T08:30:15Z", "yesterday", "2024-03-01T08:30:15+25:00"] {
            XCTAssertNil(Timestamp.parse(bad), bad)
        }
    }

    /// Day numbers agree with Foundation's Gregorian calendar from 1614 to 2380 (Foundation turns Julian before 1582).
    func testCivilDatesRoundTrip() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for days in stride(from: Int64(-130_000), through: 150_000, by: 97) {
            let date = Timestamp.civilDate(daysSinceEpoch: days)
            XCTAssertEqual(Timestamp.daysSinceEpoch(year: date.year, month: date.month, day: date.day), days)
            let reference = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86400))
            XCTAssertEqual([date.year, date.month, date.day], [Int64(reference.year!), Int64(reference.month!), Int64(reference.day!)])
        }
    }

    func testFormat() {
        XCTAssertEqual(Timestamp.format(1_709_281_815_123), "2024-03-01T08:30:15.123Z")
        XCTAssertEqual(Timestamp.format(1_709_281_815_123, offsetMinutes: 480), "2024-03-01T16:30:15.123+08:00")
        XCTAssertEqual(Timestamp.format(-1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.format(1_709_281_815_007, offsetMinutes: -330), "2024-03-01T03:00:15.007-05:30")
        // Years of fewer and more than four digits.
        let early = Timestamp.daysSinceEpoch(year: 99, month: 1, day: 2) * 86_400_000 + 3_723_004
        XCTAssertEqual(Timestamp.format(early), "0099-01-02T01:02:03.004Z")
        XCTAssertEqual(Timestamp.format(Timestamp.daysSinceEpoch(year: 12345, month: 6, day: 7) * 86_400_000), "12345-06-07T00:00:00.000Z")
        XCTAssertEqual(Timestamp.parse(Timestamp.format(early)), early)
    }
}
