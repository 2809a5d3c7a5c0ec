import Foundation
import XCTest
@testable import TextFormats

final class JSONParserTests: XCTestCase {
    // MARK: Value kinds and structure

    func testEveryValueKind() throws {
        XCTAssertEqual(try parse("null"), .null)
        XCTAssertEqual(try parse("true"), .bool(true))
        XCTAssertEqual(try parse("false"), .bool(false))
        XCTAssertEqual(try parse("42"), .number(42))
        XCTAssertEqual(try parse("\"hi\""), .string("hi"))
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertEqual(try parse("{}"), .object([]))
        XCTAssertEqual(try parse(" \t\r\n [ 1 , \"a\" , null , true , false , { } , [ ] ] \n"),
                       .array([.number(1), .string("a"), .null, .bool(true), .bool(false), .object([]), .array([])]))
        // Accessors answer only for their own kind.
        XCTAssertEqual(try parse("\"s\"").stringValue, "s")
        XCTAssertNil(try parse("1").stringValue)
        XCTAssertEqual(try parse("2.5").numberValue, 2.5)
        XCTAssertNil(try parse("\"2.5\"").numberValue)
        XCTAssertEqual(try parse("[1]").arrayValue, [.number(1)])
        XCTAssertNil(try parse("{}").arrayValue)
        XCTAssertNil(try parse("[1]")["a"])
    }

    func testNestedObjectsAndArrays() throws {
        let value = try parse(#"{"a": {"b": [1, {"c": [[], [true, {"d": null}]]}]}, "e": []}"#)
        let b = try XCTUnwrap(value["a"]?["b"]?.arrayValue)
        XCTAssertEqual(b.count, 2)
        XCTAssertEqual(b[0], .number(1))
        let c = try XCTUnwrap(b[1]["c"]?.arrayValue)
        XCTAssertEqual(c[0], .array([]))
        XCTAssertEqual(c[1], .array([.bool(true), .object([(key: "d", value: .null)])]))
        XCTAssertEqual(value["e"], .array([]))
        XCTAssertNil(value["missing"])
        // Equality is structural and kind-sensitive.
        XCTAssertNotEqual(try parse("[1]"), try parse("[[1]]"))
        XCTAssertNotEqual(try parse("[1, 2]"), try parse("[2, 1]"))
        XCTAssertNotEqual(try parse("{\"a\":1}"), try parse("{\"a\":\"1\"}"))
        XCTAssertNotEqual(try parse("null"), try parse("false"))
    }

    func testMemberOrderAndDuplicates() throws {
        let value = try parse(#"{"z": 1, "a": 2, "m": 3, "a": 4}"#)
        guard case let .object(members) = value else { return XCTFail("not an object: \(value)") }
        XCTAssertEqual(members.map(\.key), ["z", "a", "m", "a"])
        XCTAssertEqual(members.map(\.value), [.number(1), .number(2), .number(3), .number(4)])
        XCTAssertEqual(value["a"], .number(4), "subscript returns the last duplicate")
        XCTAssertEqual(value["z"], .number(1))
        // Order matters for equality.
        XCTAssertNotEqual(try parse(#"{"a":1,"b":2}"#), try parse(#"{"b":2,"a":1}"#))
        XCTAssertEqual(try parse(#"{"a":1,"b":2}"#), try parse(#"{ "a" : 1 , "b" : 2 }"#))
        // Empty key and keys with escapes.
        let odd = try parse(#"{"": 1, "a\"b": 2, "\u00e9": 3}"#)
        XCTAssertEqual(odd[""], .number(1))
        XCTAssertEqual(odd["a\"b"], .number(2))
        XCTAssertEqual(odd["é"], .number(3))
    }

    // MARK: Strings

    func testEveryEscape() throws {
        XCTAssertEqual(try parse(#""\"\\\/\b\f\n\r\t""#), .string("\"\\/\u{08}\u{0C}\n\r\t"))
        XCTAssertEqual(try parse(#""a\nb""#), .string("a\nb"))
        XCTAssertEqual(try parse(#""plain text, no escapes é 漢字 😀""#), .string("plain text, no escapes é 漢字 😀"))
        // Escapes after a raw multi-byte prefix (slow path keeps the prefix).
        XCTAssertEqual(try parse(#""漢字\t😀\u0041""#), .string("漢字\t😀A"))
        XCTAssertEqual(try parse(#""""#), .string(""))
    }

    func testUnicodeEscapes() throws {
        XCTAssertEqual(try parse(#""\u0041\u00e9\u00E9\u6F22\uFFFF""#), .string("Aéé漢\u{FFFF}"))
        XCTAssertEqual(try parse(#""\u0000""#), .string("\u{0}"))
        XCTAssertEqual(try parse(#""\u001f""#), .string("\u{1F}"))
        // Surrogate pairs.
        XCTAssertEqual(try parse(#""\uD83D\uDE00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\uD800\uDC00""#), .string("\u{10000}"))
        XCTAssertEqual(try parse(#""\uDBFF\uDFFF""#), .string("\u{10FFFF}"))
        XCTAssertEqual(try parse(#""x\uD834\uDD1Ey""#), .string("x𝄞y"))
    }

    func testUnpairedSurrogatesAreErrors() {
        assertJSONError(#""\uD800""#, offset: 7, reason: "unpaired surrogate")
        assertJSONError(#""\uD800x""#, offset: 7, reason: "unpaired surrogate")
        assertJSONError(#""\uDC00""#, offset: 7, reason: "unpaired surrogate")
        assertJSONError(#""\uDFFF\uD800""#, offset: 7, reason: "unpaired surrogate")
        assertJSONError(#""\uD800\u0041""#, offset: 13, reason: "low surrogate")
        assertJSONError(#""\uD800\uD800""#, offset: 13, reason: "low surrogate")
        assertJSONError(#""\uD800\n""#, reason: "unpaired surrogate")
        assertJSONError(#""\uD800\"#, reason: nil)
        assertJSONError(#""\uD800\u12""#, reason: nil)
    }

    func testBadEscapes() {
        assertJSONError(#""\x""#, reason: "invalid escape")
        assertJSONError(#""\'""#, reason: "invalid escape")
        assertJSONError(#""\U0041""#, reason: "invalid escape")
        assertJSONError(#""\u12G4""#, offset: 5, reason: "hex digit")
        assertJSONError(#""\u12""#, reason: nil)
        assertJSONError(#""\u"#, reason: "truncated")
        assertJSONError(#""\"#, reason: nil)
        assertJSONError(Array(#""\"#.utf8) + [0x0A, 0x22], reason: "invalid escape")
    }

    func testRawControlCharactersRejected() {
        for byte in [UInt8](0x00..<0x20) {
            assertJSONError([0x22, 0x61, byte, 0x62, 0x22], offset: 2, reason: "control character")
            // Also after an escape (slow path).
            assertJSONError([0x22, 0x5C, 0x6E, byte, 0x22], offset: 3, reason: "control character")
        }
        // DEL and everything above are not control characters for JSON.
        XCTAssertEqual(try JSONParser.parse([0x22, 0x7F, 0x22]), .string("\u{7F}"))
    }

    func testInvalidUTF8Rejected() {
        let bad: [[UInt8]] = [
            [0xFF], [0xFE], [0x80], [0xBF],      // never valid / lone continuation
            [0xC0, 0xAF], [0xC1, 0xBF],          // overlong two-byte
            [0xE0, 0x80, 0xAF],                  // overlong three-byte
            [0xED, 0xA0, 0x80],                  // UTF-8-encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],            // beyond U+10FFFF
            [0xE2, 0x82],                        // truncated
            [0xF0, 0x9F, 0x98],                  // truncated four-byte
            [0x61, 0xC3],                        // truncated at end
        ]
        for seq in bad {
            // ["ok", "<seq>"]: the string's content starts at byte 8.
            assertJSONError(Array(#"["ok", ""#.utf8) + seq + Array(#""]"#.utf8), offset: 8, reason: "UTF-8")
            // Same after an escape (slow path).
            assertJSONError([0x22, 0x5C, 0x74] + seq + [0x22], offset: 1, reason: "UTF-8")
            // In a member name.
            assertJSONError([0x7B, 0x22] + seq + Array(#"":1}"#.utf8), offset: 2, reason: "UTF-8")
        }
        XCTAssertEqual(try JSONParser.parse([0x22, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x22]), .string("é😀"))
        // Invalid bytes outside strings are unexpected characters.
        assertJSONError([0xFF], offset: 0, reason: "unexpected character")
        assertJSONError([0x5B, 0x31, 0x2C, 0xC3, 0xA9, 0x5D], offset: 3, reason: "unexpected character")
    }

    func testUnterminatedStrings() {
        assertJSONError(#""abc"#, offset: 0, reason: "unterminated string")
        assertJSONError(#"["x", "abc\n"#, offset: 6, reason: "unterminated string")
        assertJSONError(#"{"a"#, offset: 1, reason: "unterminated string")
    }

    // MARK: Numbers

    func testNumbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("1", 1), ("-1", -1), ("123456789", 123456789), ("-987.125", -987.125),
            ("3.141592653589793", 3.141592653589793), ("1e3", 1000), ("1E3", 1000), ("1e+3", 1000),
            ("1e-3", 0.001), ("-2.5E-2", -0.025), ("0.5", 0.5), ("0e0", 0), ("0.0", 0),
            ("1e308", 1e308), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("5e-324", .leastNonzeroMagnitude), ("116.397128", 116.397128), ("-39.916527", -39.916527),
            ("12345678901234567890", 1.2345678901234567890e19), ("1e007", 1e7),
        ]
        for (text, expected) in cases {
            let value = try parse(text)
            guard case let .number(n) = value else { XCTFail("\(text) → \(value)"); continue }
            XCTAssertEqual(n.bitPattern, expected.bitPattern, text)
        }
        // -0 keeps its sign.
        guard case let .number(negativeZero) = try parse("-0") else { return XCTFail() }
        XCTAssertEqual(negativeZero, 0)
        XCTAssertEqual(negativeZero.sign, .minus)
        guard case let .number(negativeZero2) = try parse("-0.0e5") else { return XCTFail() }
        XCTAssertEqual(negativeZero2.sign, .minus)
    }

    func testMalformedNumbers() {
        assertJSONError("01", offset: 1, reason: "after the JSON value")
        assertJSONError("-01", offset: 2, reason: "after the JSON value")
        assertJSONError("[01]", offset: 2, reason: "expected ',' or ']'")
        assertJSONError("00", offset: 1)
        assertJSONError("1.", offset: 2, reason: "no digits after '.'")
        assertJSONError("[1.]", offset: 3, reason: "no digits after '.'")
        assertJSONError("1.e5", offset: 2, reason: "no digits after '.'")
        assertJSONError(".5", offset: 0, reason: "unexpected character '.'")
        assertJSONError("[.5]", offset: 1, reason: "unexpected character")
        assertJSONError("1e", offset: 2, reason: "exponent")
        assertJSONError("1e+", offset: 3, reason: "exponent")
        assertJSONError("1E-]", offset: 3, reason: "exponent")
        assertJSONError("-", offset: 1, reason: "invalid number")
        assertJSONError("-a", offset: 1, reason: "invalid number")
        assertJSONError("[-]", offset: 2, reason: "invalid number")
        assertJSONError("+1", offset: 0, reason: "unexpected character '+'")
        assertJSONError("1e1.5", offset: 3, reason: "after the JSON value")
        assertJSONError("0x10", offset: 1)
        assertJSONError("1 2", offset: 2, reason: "after the JSON value")
        assertJSONError("NaN", offset: 0)
        assertJSONError("Infinity", offset: 0)
        assertJSONError("-Infinity", offset: 1)
        // Out of range: the offset is the number's first byte.
        assertJSONError("1e400", offset: 0, reason: "out of range")
        assertJSONError("[0, -1e309]", offset: 4, reason: "out of range")
        assertJSONError("1e99999999999999999999", offset: 0, reason: "out of range")
        assertJSONError(#"{"coordinates": [1, 2e400]}"#, offset: 20, reason: "out of range")
    }

    func testUnderflowIsZeroNotError() throws {
        XCTAssertEqual(try parse("1e-400"), .number(0))
        XCTAssertEqual(try parse("[-1e-99999]"), .array([.number(0)]))
    }

    // MARK: Literals, trailing data, empty input, BOM

    func testLiterals() throws {
        XCTAssertEqual(try parse("[true,false,null]"), .array([.bool(true), .bool(false), .null]))
        assertJSONError("tru", offset: 0, reason: "expected 'true'")
        assertJSONError("[fals]", offset: 1, reason: "expected 'false'")
        assertJSONError("nul", offset: 0, reason: "expected 'null'")
        assertJSONError("True", offset: 0, reason: "unexpected character 'T'")
        assertJSONError("NULL", offset: 0)
        assertJSONError("nill", offset: 0)
        assertJSONError("truex", offset: 4, reason: "after the JSON value")
        assertJSONError("[true false]", offset: 6, reason: "expected ',' or ']'")
        assertJSONError("undefined", offset: 0)
    }

    func testTrailingGarbage() {
        assertJSONError("{} x", offset: 3, reason: "after the JSON value")
        assertJSONError("[1]]", offset: 3, reason: "after the JSON value")
        assertJSONError("\"a\"\"b\"", offset: 3)
        assertJSONError("{}{}", offset: 2)
        assertJSONError("1 // comment", offset: 2)
        assertJSONError([0x31, 0x00], offset: 1)
        XCTAssertEqual(try parse("  1  \n\t\r "), .number(1))
    }

    func testEmptyInput() {
        assertJSONError([], offset: 0, reason: "unexpected end of input")
        assertJSONError("   \n\t", offset: 5, reason: "unexpected end of input")
        assertJSONError("[", offset: 1, reason: "unexpected end of input")
        assertJSONError("[1,", offset: 3, reason: "unexpected end of input")
        assertJSONError("[1", offset: 2, reason: "expected ',' or ']'")
        assertJSONError("{", offset: 1, reason: "member name")
        assertJSONError(#"{"a":"#, offset: 5, reason: "unexpected end of input")
        assertJSONError(#"{"a":1"#, offset: 6, reason: "expected ',' or '}'")
    }

    func testByteOrderMark() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        XCTAssertEqual(try JSONParser.parse(bom + Array(#"{"a": [1]}"#.utf8)), .object([(key: "a", value: .array([.number(1)]))]))
        XCTAssertEqual(try JSONParser.parse(bom + Array(" \n 7 ".utf8)), .number(7))
        // Offsets still count the BOM's bytes.
        assertJSONError(bom + Array("[1,]".utf8), offset: 6, reason: "unexpected character ']'")
        assertJSONError(bom, offset: 3, reason: "unexpected end of input")
        // Only at the very start.
        assertJSONError(Array("[".utf8) + bom + Array("]".utf8), offset: 1)
        assertJSONError(Array("1".utf8) + bom, offset: 1)
        assertJSONError(bom + bom + Array("1".utf8), offset: 3)
        // A BOM inside a string is content.
        XCTAssertEqual(try JSONParser.parse([0x22] + bom + [0x22]), .string("\u{FEFF}"))
    }

    // MARK: Structure errors with exact offsets

    func testStructureErrorOffsets() {
        assertJSONError("[1,]", offset: 3, reason: "unexpected character ']'")
        assertJSONError("[1 2]", offset: 3, reason: "expected ',' or ']'")
        assertJSONError("[,1]", offset: 1, reason: "unexpected character ','")
        assertJSONError(#"{"a" 1}"#, offset: 5, reason: "expected ':'")
        assertJSONError(#"{"a":1,}"#, offset: 7, reason: "member name")
        assertJSONError(#"{"a":1 "b":2}"#, offset: 7, reason: "expected ',' or '}'")
        assertJSONError("{a:1}", offset: 1, reason: "member name")
        assertJSONError("{1:2}", offset: 1, reason: "member name")
        assertJSONError("{'a':1}", offset: 1, reason: "member name")
        assertJSONError(#"{"a":}"#, offset: 5, reason: "unexpected character '}'")
        assertJSONError("[1}", offset: 2)
        assertJSONError(#"{"a":1]"#, offset: 6)
        assertJSONError("]", offset: 0)
        assertJSONError("\n\n  x", offset: 4, reason: "unexpected character 'x'")
        assertJSONError(#"{"a":[1,2,{"b":[true,]}]}"#, offset: 21)
    }

    // MARK: Limits and size

    func testNestingLimitBoundary() throws {
        let limit = JSONParser.maximumDepth
        XCTAssertEqual(limit, 512)
        // 512 nested arrays, the innermost empty: the deepest value is at depth 511.
        let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        var value = try parse(ok)
        var depth = 1
        while case let .array(items) = value, let first = items.first { value = first; depth += 1 }
        XCTAssertEqual(depth, limit)
        // One level more is refused, at the byte where the too-deep value starts.
        assertJSONError(String(repeating: "[", count: limit) + "1" + String(repeating: "]", count: limit), offset: limit, reason: "nesting deeper than 512")
        assertJSONError(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1), offset: limit, reason: "nesting deeper than 512")
        // Objects count too.
        let objects = String(repeating: #"{"a":"#, count: limit) + "1" + String(repeating: "}", count: limit)
        assertJSONError(objects, offset: 5 * limit, reason: "nesting")
        let objectsOK = String(repeating: #"{"a":"#, count: limit - 1) + "1" + String(repeating: "}", count: limit - 1)
        XCTAssertNoThrow(try parse(objectsOK))
    }

    func testHostileDeepNestingFailsCleanlyAndFast() {
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let elapsed = seconds {
            assertJSONError(hostile, offset: JSONParser.maximumDepth, reason: "nesting deeper than 512")
        }
        XCTAssertLessThan(elapsed, 1.0)
        let mixed = Array(String(repeating: #"[{"k":"#, count: 50_000).utf8)
        let elapsed2 = seconds { assertJSONError(mixed, reason: "nesting") }
        XCTAssertLessThan(elapsed2, 1.0)
        // Deeply nested coordinates are bounded separately.
        let coords = Array((#"{"coordinates": "# + String(repeating: "[", count: 100_000)).utf8)
        let elapsed3 = seconds { assertJSONError(coords, offset: 16, reason: "coordinates nested") }
        XCTAssertLessThan(elapsed3, 1.0)
    }

    func testTenMegabyteArray() throws {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(10_500_000)
        var count = 0
        var expectedSum = 0.0
        while bytes.count < 10_000_000 {
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            let n = Double(count % 100_000) + 0.25
            expectedSum += n
            bytes.append(contentsOf: "\(count % 100_000).25".utf8)
            count += 1
        }
        bytes.append(contentsOf: #", "end", {"k": [null]}]"#.utf8)
        XCTAssertGreaterThanOrEqual(bytes.count, 10_000_000)
        let value = try JSONParser.parse(bytes)
        let items = try XCTUnwrap(value.arrayValue)
        XCTAssertEqual(items.count, count + 2)
        XCTAssertEqual(items[0], .number(0.25))
        XCTAssertEqual(items[count - 1], .number(Double((count - 1) % 100_000) + 0.25))
        XCTAssertEqual(items[count], .string("end"))
        XCTAssertEqual(items[count + 1]["k"], .array([.null]))
        var sum = 0.0
        for item in items.prefix(count) { sum += item.numberValue ?? .nan }
        XCTAssertEqual(sum, expectedSum)
    }

    func testUnsafeBufferEntryPoint() throws {
        let bytes = Array(#"  {"a": [1, "b"]}  "#.utf8)
        let value = try bytes.withUnsafeBytes { try JSONParser.parse($0) }
        XCTAssertEqual(value["a"], .array([.number(1), .string("b")]))
        // A slice of a larger buffer: offsets are relative to the slice.
        let whole = Array("xx[1,]yy".utf8)
        do {
            _ = try whole.withUnsafeBytes { try JSONParser.parse(UnsafeRawBufferPointer(rebasing: $0[2..<6])) }
            XCTFail("expected an error")
        } catch let error as JSONError {
            XCTAssertEqual(error.offset, 3)
        }
    }
}
