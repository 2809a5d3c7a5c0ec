import XCTest
import TextFormats

/// The checked reader of a file's integers (issue 35, item 1): every value at the boundaries the
/// fuzzer writes (0, 1, 2^31, 2^32, 2^63−1, 2^64−1) is either taken or an error naming the file,
/// the field and its byte; no sum or rounding of taken values can trap.
final class FileIntegersTests: XCTestCase {
    let integers = FileIntegers(path: "a.zip", format: "zip archive")

    func reason(_ body: () throws -> Int64) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as InputError {
            XCTAssertEqual(error.path, "a.zip")
            XCTAssertEqual(error.kind, .damaged)
            return error.reason
        } catch {
            XCTFail("not an InputError: \(error)")
            return nil
        }
    }

    func testFieldsAreTakenWithinTheirRangeOnly() throws {
        for raw: UInt64 in [0, 1, 1 << 31, 1 << 32, UInt64(Int64.max)] {
            XCTAssertEqual(try integers.value(raw, "zip64 size", at: 40), Int64(raw))
        }
        XCTAssertEqual(reason { try integers.value(.max, "zip64 size", at: 40) },
                       "damaged zip archive: the zip64 size at byte 40 is 18446744073709551615, more than 9223372036854775807")
        XCTAssertEqual(reason { try integers.value(1 << 32, "zip64 compressed size", at: 7, limit: 4425, bound: "the archive's size") },
                       "damaged zip archive: the zip64 compressed size at byte 7 is 4294967296, more than 4425 (the archive's size)")
        XCTAssertEqual(reason { try integers.value(5, "count", at: nil, limit: 4) }, "damaged zip archive: the count is 5, more than 4")
    }

    func testDecimalDigitsAreCheckedAsTheyAreRead() throws {
        XCTAssertEqual(try integers.decimal(Array("9223372036854775807".utf8), "pax size", at: 1), Int64.max)
        XCTAssertEqual(reason { try integers.decimal(Array("9223372036854775808".utf8), "pax size", at: 1) },
                       "damaged zip archive: the pax size at byte 1 is 9223372036854775808, more than 9223372036854775807")
        XCTAssertEqual(reason { try integers.decimal(Array(String(repeating: "9", count: 40).utf8), "pax size", at: 1) },
                       "damaged zip archive: the pax size at byte 1 is a 40-digit number, more than 9223372036854775807")
        XCTAssertEqual(reason { try integers.decimal(Array("12x".utf8), "pax size", at: 1) }, "damaged zip archive: the pax size at byte 1 is '12x', not a decimal number")
        XCTAssertEqual(reason { try integers.decimal([UInt8](), "pax size", at: 1) }, "damaged zip archive: the pax size at byte 1 is '', not a decimal number")
        XCTAssertEqual(reason { try integers.decimal(Array("-5".utf8), "pax size", at: 1) }, "damaged zip archive: the pax size at byte 1 is '-5', not a decimal number")
        XCTAssertEqual(reason { try integers.decimal(Array("30".utf8), "length", at: 9, limit: 27, bound: "the bytes left") },
                       "damaged zip archive: the length at byte 9 is 30, more than 27 (the bytes left)")
    }

    func testSumsAndRoundingNeverTrap() throws {
        XCTAssertEqual(try integers.sum(Int64.max - 1, 1, "end", at: 3), Int64.max)
        XCTAssertNotNil(reason { try integers.sum(Int64.max, 1, "end", at: 3) })
        XCTAssertEqual(reason { try integers.sum(-5, 1, "end", at: 3) }, "damaged zip archive: the end at byte 3 is -5 + 1, negative")
        XCTAssertEqual(reason { try integers.sum(100, 1, "end", at: 3, limit: 100) }, "damaged zip archive: the end at byte 3 is 100 + 1, more than 100")
        XCTAssertEqual(try integers.roundedUp(513, toMultipleOf: 512, "size", at: 0), 1024)
        XCTAssertEqual(try integers.roundedUp(0, toMultipleOf: 512, "size", at: 0), 0)
        XCTAssertEqual(reason { try integers.roundedUp(Int64.max - 300, toMultipleOf: 512, "size", at: 0) },
                       "damaged zip archive: the size at byte 0 is 9223372036854775507, beyond any size once padded to 512-byte blocks")
    }
}
