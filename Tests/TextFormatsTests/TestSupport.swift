import Foundation
import XCTest
@testable import TextFormats

/// Parses UTF-8 text.
func parse(_ text: String) throws -> JSONValue {
    try JSONParser.parse(Array(text.utf8))
}

/// Asserts that parsing `bytes` fails with a `JSONError` at exactly `offset` (when given) whose
/// reason contains `reason` (when given).
func assertJSONError(_ bytes: [UInt8], offset: Int? = nil, reason: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) {
    do {
        let value = try JSONParser.parse(bytes)
        XCTFail("parsed \(String(decoding: bytes.prefix(80), as: UTF8.self)) as \(value), expected an error", file: file, line: line)
    } catch let error as JSONError {
        if let offset { XCTAssertEqual(error.offset, offset, "offset of \(error)", file: file, line: line) }
        if let reason { XCTAssertTrue(error.reason.contains(reason), "'\(error.reason)' should mention '\(reason)'", file: file, line: line) }
        XCTAssertTrue(error.description.hasPrefix("byte \(error.offset): "), file: file, line: line)
    } catch {
        XCTFail("unexpected error type \(type(of: error)): \(error)", file: file, line: line)
    }
}

func assertJSONError(_ text: String, offset: Int? = nil, reason: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) {
    assertJSONError(Array(text.utf8), offset: offset, reason: reason, file: file, line: line)
}

/// A deterministic pseudo-random generator (PCG-style LCG), so failures reproduce.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        var x = state
        x ^= x >> 33
        x = x &* 0xff51afd7ed558ccd
        x ^= x >> 33
        return x
    }
    /// Uniform in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Wall-clock seconds taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
