#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest
@testable import TextFormats
import UnlocksTestSupport

final class DecimalNumberTests: XCTestCase {
    private func decimal(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { DecimalNumber.parse($0) }
    }

    /// strtod over the whole text; nil when it stops early or the result is not finite.
    private func reference(_ text: String) -> Double? {
        let length = text.utf8.count
        return text.withCString { (start: UnsafePointer<CChar>) -> Double? in
            var end: UnsafeMutablePointer<CChar>? = nil
            let value: Double = strtod(start, &end)
            guard let end else { return nil }
            let consumed: Int = UnsafePointer(end) - start
            return consumed == length && value.isFinite ? value : nil
        }
    }

    private func assertAgrees(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let expected = reference(text)
        let actual = decimal(text)
        XCTAssertEqual(actual?.bitPattern, expected?.bitPattern,
                       "\(text): got \(actual.map { "\($0)" } ?? "nil"), strtod \(expected.map { "\($0)" } ?? "nil")", file: file, line: line)
    }

    func testAgreesWithStrtodOnRandomDecimals() {
        var random = SplitMix64(seed: 20_240_601)
        var fastPathShaped = 0, withExponent = 0, finite = 0
        for _ in 0..<50_000 {
            var text = ""
            if random.chance(35) { text += "-" } else if random.chance(3) { text += "+" }
            // Integer part: none, short (GPS-like), or long; sometimes leading zeros.
            let integerLength: Int
            switch random.below(10) {
            case 0: integerLength = 0
            case 1, 2, 3, 4: integerLength = 1 + random.below(3)
            case 5, 6: integerLength = 4 + random.below(12)
            default: integerLength = 1 + random.below(25)
            }
            if random.chance(10) { text += String(repeating: "0", count: 1 + random.below(4)) }
            for i in 0..<integerLength { text += String(i == 0 ? 1 + random.below(9) : random.below(10)) }
            // Fraction: often GPS-like 5–8 digits, sometimes long, sometimes just "." with none.
            var fractionLength = 0
            if random.chance(80) || integerLength == 0 {
                text += "."
                switch random.below(10) {
                case 0: fractionLength = integerLength == 0 ? 1 : 0
                case 1, 2, 3, 4, 5: fractionLength = 5 + random.below(4)
                case 6: fractionLength = 15 + random.below(10)   // around the 15-digit / 10^22 limits
                default: fractionLength = 1 + random.below(30)
                }
                if random.chance(5) { text += String(repeating: "0", count: random.below(25)) }
                for _ in 0..<fractionLength { text += String(random.below(10)) }
                if random.chance(5) { text += String(repeating: "0", count: 1 + random.below(10)) }
            }
            if text.allSatisfy({ !$0.isNumber }) { text += "7" }
            var exponent = false
            if random.chance(30) {
                exponent = true
                text += random.chance(50) ? "e" : "E"
                if random.chance(50) { text += random.chance(50) ? "-" : "+" }
                switch random.below(10) {
                case 0: text += String(300 + random.below(30))     // near overflow / underflow
                case 1: text += String(random.below(1000))
                case 2: text += "0" + String(random.below(30))
                default: text += String(random.below(30))
                }
            }
            if text.utf8.count >= 64 { text = String(text.prefix(63)); if text.last == "e" || text.last == "E" || text.last == "-" || text.last == "+" { text.removeLast() } }
            if !exponent, !text.contains("e"), !text.contains("E") { fastPathShaped += 1 } else { withExponent += 1 }
            if reference(text) != nil { finite += 1 }
            assertAgrees(text)
        }
        // The generator really exercised both paths and both outcomes.
        XCTAssertGreaterThan(fastPathShaped, 20_000)
        XCTAssertGreaterThan(withExponent, 10_000)
        XCTAssertGreaterThan(finite, 45_000)
        XCTAssertLessThan(finite, 50_000)
    }

    func testAgreesWithStrtodOnRandomDoublesShortestForm() {
        // Every finite double printed in shortest form must come back bit-exact.
        var random = SplitMix64(seed: 77)
        var checked = 0
        while checked < 20_000 {
            let d = Double(bitPattern: random.next())
            guard d.isFinite else { continue }
            let text = "\(d)"
            XCTAssertEqual(decimal(text)?.bitPattern, d.bitPattern, text)
            assertAgrees(text)
            checked += 1
        }
    }

    func testHardCases() {
        let cases = [
            "0", "-0", "0.0", "-0.0", "+0", "00", "1", "-1", "+7", "007.50", ".5", "5.", "-.5", "-5.",
            "0.1", "0.2", "0.3", "116.397128", "-39.916527", "179.9999999", "-89.99999999",
            "123456789012345", "999999999999999", "1234567890123456", "9007199254740992", "9007199254740993",
            "9007199254740995", "18014398509481985", "0.000000000000000000001", "0.0000000000000000000001",
            "0.00000000000000000000001", "0.1234567890123456789012", "1.00000000000000000000000",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "1e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308",
            "89255.0e-22", "7.038531e-26", "9214843084008499", "30078505129381147446200",
            "1e22", "1e23", "8.98846567431158e307", "5e-324", "0.30000000000000004", "1E+2", "1e-0", "1e+00000000000000000002",
        ]
        for text in cases { assertAgrees(text) }
        XCTAssertEqual(decimal("-0")?.sign, .minus)
        XCTAssertEqual(decimal("-0.000")?.sign, .minus)
        XCTAssertEqual(decimal("0.1"), 0.1)
        XCTAssertEqual(decimal("9007199254740993"), 9007199254740992)
        XCTAssertEqual(decimal("2.4703282292062328e-324"), .leastNonzeroMagnitude)
    }

    func testJunkIsNil() {
        let junk = [
            "", "-", "+", ".", "-.", "+.", "e", "e5", "E5", ".e1", "1e", "1e+", "1e-", "1E", "--1", "+-1", "-+1", "1-2", "1+2",
            "1..2", "1.2.3", "1e5e5", "1e5.5", "1ee5", " 1", "1 ", "1\n", "1,5", "0x10", "0X1p3", "inf", "-inf", "Infinity",
            "nan", "NaN", "abc", "1a", "a1", "١", "½", "1e400", "-1e400", "1.7976931348623159e308", "1e99999",
            "\u{0}", "1\u{0}",
        ]
        for text in junk {
            XCTAssertNil(decimal(text), "\(text.debugDescription) should be nil")
        }
    }

    func testSlicesAreIndependentOfTheSurroundingBuffer() {
        // A slice of a larger buffer: nothing before or after may be read.
        let whole = Array("9912.5e3xx".utf8)
        let value = whole.withUnsafeBytes { DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: $0[2..<6])) }
        XCTAssertEqual(value, 12.5)
        let value2 = whole.withUnsafeBytes { DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: $0[0..<8])) }
        XCTAssertEqual(value2, 9912.5e3)
    }
}
