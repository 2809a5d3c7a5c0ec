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

    /// `TimestampStream` remembers the date and hour of the last time: over runs of times 37 s
    /// apart across a year's end and a leap day, each answer is the instant Foundation's calendar
    /// gives, and broken or offset times in between (in the remembered hour too) read as
    /// `Timestamp.parse` reads them.
    func testTheStreamAgreesWithTheCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: "UTC"))
        var stream = TimestampStream()
        func read(_ text: String) -> Int64? {
            var text = text
            return text.withUTF8 { stream.parse(UnsafeRawBufferPointer($0)) }
        }
        var checked = 0
        for start in [DateComponents(year: 2023, month: 12, day: 31, hour: 22), DateComponents(year: 2024, month: 2, day: 28, hour: 22)] {
            let first = Int64(try XCTUnwrap(calendar.date(from: start)).timeIntervalSince1970)
            for i in Int64(0)..<3_000 {
                let seconds = first + i * 37, milliseconds = (i * 389) % 1000
                let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
                let hour = String(format: "%04ld-%02ld-%02ldT%02ld", c.year!, c.month!, c.day!, c.hour!)
                let text = hour + String(format: ":%02ld:%02ld", c.minute!, c.second!)
                XCTAssertEqual(read(text + "Z"), seconds * 1000, text)
                XCTAssertEqual(read(text + String(format: ".%03ldZ", milliseconds)), seconds * 1000 + milliseconds, text)
                if i % 50 == 0 {
                    XCTAssertNil(read(hour + ":60:00Z"))
                    XCTAssertNil(read(hour + ":00:61Z"))
                    XCTAssertNil(read(hour + ":0x:00Z"))
                    XCTAssertEqual(read(text + ",5Z"), seconds * 1000 + 500)  // a comma: the general form
                    XCTAssertEqual(read(text + "+01:00"), seconds * 1000 - 3_600_000)
                    XCTAssertNil(read(String(format: "%04ld-%02ld-32T%02ld", c.year!, c.month!, c.hour!) + ":00:00Z"))
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 6_000)
        XCTAssertNil(read("2023-02-29T10:00:00Z"))
        XCTAssertEqual(read("2024-02-29T10:00:00Z"), Timestamp.parse("2024-02-29T10:00:00Z"))
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
