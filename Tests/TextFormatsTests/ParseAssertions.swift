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

/// Wall-clock seconds taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
