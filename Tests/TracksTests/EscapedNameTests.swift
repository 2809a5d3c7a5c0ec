import Tracks
import XCTest

/// File names that are not UTF-8 are shown escaped, byte for byte, and never dropped.
final class EscapedNameTests: XCTestCase {
    func escaped(_ bytes: [UInt8]) -> String { EscapedName.string(from: bytes) }

    func testValidUTF8IsKept() {
        XCTAssertEqual(escaped(Array("轨迹/上海外滩.csv".utf8)), "轨迹/上海外滩.csv")
        XCTAssertEqual(escaped(Array("café 😀.gpx".utf8)), "café 😀.gpx")
        XCTAssertEqual(escaped([]), "")
    }

    func testInvalidBytesAreEscapedOneByOne() {
        XCTAssertEqual(escaped(Array("caf".utf8) + [0xE9] + Array(".csv".utf8)), "caf\\xE9.csv")  // Latin-1 é
        XCTAssertEqual(escaped([0xC0, 0x80]), "\\xC0\\x80")                // overlong NUL
        XCTAssertEqual(escaped([0xED, 0xA0, 0x80]), "\\xED\\xA0\\x80")     // a surrogate
        XCTAssertEqual(escaped([0xF4, 0x90, 0x80, 0x80]), "\\xF4\\x90\\x80\\x80")  // above U+10FFFF
        XCTAssertEqual(escaped([0xE4, 0xB8]), "\\xE4\\xB8")                // cut short
        XCTAssertEqual(escaped([0xCD, 0xE2, 0xCD, 0xE2]), "\\xCD\\xE2\\xCD\\xE2")  // GBK 外外
        XCTAssertEqual(escaped([0xE4, 0xB8, 0xAD, 0xFF]), "中\\xFF")
    }

    func testControlBytesAreEscaped() {
        XCTAssertEqual(escaped(Array("a\nb\u{7F}\t".utf8)), "a\\x0Ab\\x7F\\x09")
    }
}
