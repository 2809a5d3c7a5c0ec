import XCTest
@testable import Tracks
import TextFormats
import UnlocksTestSupport

/// `prefix`, then `filler` repeated for `count` bytes, generated as it is read (never held whole);
/// `delivered` counts the bytes handed out so far.
final class LazyFillSource: ByteSource {
    let prefix: [UInt8]
    let filler: UInt8
    let count: Int
    private(set) var delivered = 0

    init(prefix: String, filler: Character, count: Int) {
        self.prefix = Array(prefix.utf8)
        self.filler = filler.asciiValue!
        self.count = count
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let total = prefix.count + count
        let n = min(buffer.count, total - delivered)
        for i in 0..<n {
            let at = delivered + i
            buffer[i] = at < prefix.count ? prefix[at] : filler
        }
        delivered += n
        return n
    }
}

/// Every event of `text` with its token (keys, strings, numbers) and offset.
private func events(_ text: String, chunk: Int = 1 << 16, readerChunk: Int = 1 << 16) throws -> [String] {
    var reader = JSONStreamReader(FedSource(text, feeding: .fixed(chunk)), chunkSize: readerChunk)
    var result: [String] = []
    while true {
        let event = try reader.next()
        switch event {
        case .key: result.append("key:\(reader.tokenString)@\(reader.tokenOffset)")
        case .string: result.append("string:\(reader.tokenString)@\(reader.tokenOffset)")
        case .number: result.append("number:\(reader.tokenNumber)@\(reader.tokenOffset)")
        case .end: return result
        default: result.append("\(event)@\(reader.tokenOffset)")
        }
    }
}

/// Reads all of `bytes` as events; returns the error, or nil when it reads through.
private func streamError(_ bytes: [UInt8], limits: JSONStreamLimits = JSONStreamLimits()) -> JSONStreamError? {
    var reader = JSONStreamReader(FedSource(bytes, feeding: .fixed(7)), limits: limits, chunkSize: 16)
    do {
        while try reader.next() != .end {}
        return nil
    } catch let error as JSONStreamError {
        return error
    } catch {
        XCTFail("unexpected error \(error)")
        return nil
    }
}

private func streamError(_ text: String) -> JSONStreamError? {
    streamError(Array(text.utf8))
}

final class JSONStreamReaderTests: XCTestCase {
    func testEventsWithTokensAndOffsets() throws {
        let text = #"{"a": [1, -2.5e1, true, null], "b\n": "x\u00e9\ud83d\ude00", "c": {}}"#
        let expected = [
            "objectStart@0", "key:a@1", "arrayStart@6", "number:1.0@7", "number:-25.0@10", "bool(true)@18", "null@24", "arrayEnd@28",
            "key:b\n@31", "string:xé😀@38", "key:c@61", "objectStart@66", "objectEnd@67", "objectEnd@68",
        ]
        XCTAssertEqual(try events(text), expected)
        // Tokens straddling every chunk boundary, with the smallest buffer, read the same.
        for chunk in [1, 2, 3, 5, 16] {
            XCTAssertEqual(try events(text, chunk: chunk, readerChunk: 16), expected, "chunk \(chunk)")
        }
    }

    func testMaterialisedValuesMatchTheDOMParser() throws {
        let text = #"""
        {"type": "Feature", "geometry": {"type": "MultiLineString", "coordinates": [[[116.4, 39.9, 44.5], [116.41, 39.91]], [], [[1e2, -0.5]]]},
         "properties": {"name": "Hello \"world\"\t\u4e2d", "coordTimes": [["2024-01-01T00:00:00Z", null], [], ["x"]], "n": [0, -0, 12345678901234567890, 1.5e-300]},
         "list": [[[]], [[[1]]], {"coordinates": [[], [1, 2]]}]}
        """#
        let dom = try JSONParser.parse(Array(text.utf8))
        for chunk in [1, 3, 64, 1 << 16] {
            var reader = JSONStreamReader(FedSource(text, feeding: .fixed(chunk)), chunkSize: 16)
            let value = try reader.value(from: try reader.next(), maximumBytes: 1 << 20)
            XCTAssertEqual(value, dom, "chunk \(chunk)")
            XCTAssertEqual(try reader.next(), .end)
            XCTAssertEqual(reader.materialisedValues, 1)
            XCTAssertEqual(reader.largestMaterialisedBytes, text.utf8.count)
        }
    }

    /// The streaming reader accepts exactly what the strict DOM parser accepts (apart from numbers
    /// beyond `Double`'s range, which are valid JSON it reads as ±infinity: see below).
    func testAgreesWithTheDOMParserOnValidityOfEdgeCases() {
        let documents = [
            "0", "-0", "1.5", "-1e-5", "1E+2", "\"\"", "[]", "{}", " [ 1 , [ ] , { } ] ", "\u{FEFF}[1]", "null", "true", "false",
            "01", "1.", ".5", "-", "+1", "1e", "1e+", "0x1", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "{'a':1}",
            "[1 2]", "[1] [2]", "tru", "nul", "True", "NaN", "Infinity", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
            "\"\\ud800\\u0041\"", "\"a\tb\"", "\"a\nb\"", "", "   ", "[", "{\"a\":", "\"abc", "[\"\\u0000\"]",
        ]
        for text in documents {
            let domAccepts = (try? JSONParser.parse(Array(text.utf8))) != nil
            XCTAssertEqual(streamError(text) == nil, domAccepts, "'\(text)'")
        }
        // Invalid UTF-8: a lone continuation byte, an overlong '/', a surrogate, past U+10FFFF, a truncated sequence.
        for bad: [UInt8] in [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE4, 0xB8]] {
            let bytes = Array("[\"ok".utf8) + bad + Array("\"]".utf8)
            XCTAssertEqual(streamError(bytes)?.reason, "string is not valid UTF-8")
            XCTAssertEqual(streamError(bytes)?.offset, 1)
        }
        XCTAssertNil(streamError(Array("[\"\u{4e2d}\u{1F600}\"]".utf8)))
    }

    /// Mutated documents (flipped, inserted, deleted bytes; truncations) never crash or hang the
    /// readers, and the streaming reader accepts exactly those the DOM parser accepts.
    func testMutatedDocumentsAgreeWithTheDOMParser() {
        let seeds = [
            #"{"locations": [{"latitudeE7": 399042000, "longitudeE7": 1164074000, "timestamp": "2022-01-12T17:18:24.190Z"}]}"#,
            #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[116.4, 39.9], [116.5, 40.0]]}, "properties": {"a": [true, false, null, "\u00e9\n"]}}"#,
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        let alphabet = Array(#"{}[]:,"\ -+.eE0123456789tfnul"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xFF]
        var compared = 0
        for seed in seeds {
            for _ in 0..<1500 {
                var bytes = Array(seed.utf8)
                for _ in 0..<(1 + random(3)) {
                    let at = random(bytes.count)
                    switch random(4) {
                    case 0: bytes[at] = alphabet[random(alphabet.count)]
                    case 1: bytes.insert(alphabet[random(alphabet.count)], at: at)
                    case 2: bytes.remove(at: at)
                    default: bytes.removeSubrange(at...)
                    }
                    if bytes.isEmpty { bytes = [UInt8(ascii: "[")] }
                }
                // The track reader on the same bytes: a result or an InputError, never a crash.
                var sink = TrackEventRecorder()
                do {
                    try JSONTrackReader.read(FedSource(bytes, feeding: .fixed(5)), path: "mutated.json", into: &sink)
                } catch {
                    XCTAssertTrue(error is InputError, "\(error)")
                }
                let dom: Bool
                do {
                    _ = try JSONParser.parse(bytes)
                    dom = true
                } catch let error as JSONError where error.reason == "number out of range" {
                    continue  // valid JSON that the DOM parser declines; the stream reads it as ±infinity
                } catch {
                    dom = false
                }
                XCTAssertEqual(streamError(bytes) == nil, dom, String(decoding: bytes, as: UTF8.self))
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 2500)
    }

    func testErrorsNameTheByteAndLine() {
        let truncated = streamError("{\"a\": [1, 2")
        XCTAssertEqual(truncated?.offset, 11)
        XCTAssertEqual(truncated?.reason, "unexpected end of input, expected ',' or ']'")
        XCTAssertEqual(streamError("{\"a\" 1}")?.offset, 5)
        XCTAssertEqual(streamError("{\"a\" 1}")?.reason, "expected ':' after a member name")
        let third = streamError("{\n  \"a\": 1,\n  \"b\": tru\n}")
        XCTAssertEqual(third?.line, 3)
        XCTAssertEqual(third?.offset, 19)
        XCTAssertEqual(streamError("[1] x")?.reason, "unexpected data after the JSON value")
        XCTAssertEqual(streamError("[1] x")?.offset, 4)
        XCTAssertEqual(streamError("[\"abc")?.offset, 1)
        XCTAssertEqual(streamError("[\"abc")?.reason, "unterminated string")
        XCTAssertEqual(streamError("[01]")?.offset, 2)
        XCTAssertEqual(streamError(Array("[1, \u{1}]".utf8))?.reason, "unexpected character '\\u{1}', expected a value")
    }

    func testDeepNestingStopsAtTheLimit() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = streamError(deep)
        XCTAssertEqual(error?.offset, 512)
        XCTAssertEqual(error?.reason, "nesting deeper than 512")
        // 512 levels are fine.
        XCTAssertNil(streamError(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)))
        XCTAssertEqual(streamError(String(repeating: "{\"a\":", count: 600))?.offset, 5 * 512)
    }

    /// A 100 MB string is refused at the token limit after reading about that much, with the
    /// buffer bounded by it, not by the string.
    func testHugeStringTokenIsRefusedWithoutReadingIt() {
        let source = LazyFillSource(prefix: "{\"locations\": [\"", filler: "a", count: 100_000_000)
        var reader = JSONStreamReader(source)
        XCTAssertThrowsError(try { while try reader.next() != .end {} }()) { error in
            let error = error as? JSONStreamError
            XCTAssertEqual(error?.offset, 15)
            XCTAssertEqual(error?.reason, "string longer than 1048576 bytes")
        }
        XCTAssertLessThanOrEqual(reader.peakBufferBytes, 4 << 20)
        XCTAssertLessThan(source.delivered, 3 << 20)
    }

    func testHugeNumberTokenIsRefused() {
        let source = LazyFillSource(prefix: "[1", filler: "0", count: 5_000_000)
        var reader = JSONStreamReader(source, limits: JSONStreamLimits(maximumTokenBytes: 1000))
        XCTAssertThrowsError(try { while try reader.next() != .end {} }()) { error in
            XCTAssertEqual((error as? JSONStreamError)?.offset, 1)
            XCTAssertEqual((error as? JSONStreamError)?.reason, "token longer than 1000 bytes")
        }
        XCTAssertLessThan(source.delivered, 200_000)
    }

    func testSizeCapOnMaterialisedValues() throws {
        let text = "[{\"a\": [1, 2, 3]}, {\"b\": \"" + String(repeating: "x", count: 5000) + "\"}]"
        var reader = JSONStreamReader(FedSource(text, feeding: .fixed(100)), chunkSize: 256)
        XCTAssertEqual(try reader.next(), .arrayStart)
        XCTAssertEqual(try reader.value(from: try reader.next(), maximumBytes: 1000), try JSONParser.parse(Array(#"{"a": [1, 2, 3]}"#.utf8)))
        XCTAssertThrowsError(try reader.value(from: try reader.next(), maximumBytes: 1000)) { error in
            XCTAssertEqual((error as? JSONStreamError)?.offset, 19)
            XCTAssertEqual((error as? JSONStreamError)?.reason, "value larger than 1000 bytes")
        }
    }

    func testSkipAndNumbersBeyondDouble() throws {
        var reader = JSONStreamReader(FedSource(#"{"skip": [1, {"x": [[]]}, "s"], "n": 1e999, "m": -1e999, "u": 1e-999, "long": 0.1000000000000000000000000000000000000000000000000000000000000000000000000001}"#))
        XCTAssertEqual(try reader.next(), .objectStart)
        XCTAssertEqual(try reader.next(), .key)
        try reader.skip(from: try reader.next())
        XCTAssertEqual(reader.depth, 1)
        var numbers: [Double] = []
        while try reader.next() == .key {
            XCTAssertEqual(try reader.next(), .number)
            numbers.append(reader.tokenNumber)
        }
        XCTAssertEqual(numbers, [.infinity, -.infinity, 0, 0.1])
    }
}
