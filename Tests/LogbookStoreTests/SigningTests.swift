@testable import LogbookStore
import XCTest

/// SHA-256 against FIPS 180-4's examples and HMAC-SHA256 against RFC 4231's test vectors
/// (section 4), copied from the standards' text.
final class SigningTests: XCTestCase {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testSHA256MatchesTheStandardsExamples() {
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.hash([UInt8]())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testSHA256IsTheSameHoweverTheBytesArrive() {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let whole = SHA256.hash(bytes)
        for chunk in [1, 3, 63, 64, 65, 1000] {
            var hasher = SHA256()
            var start = 0
            while start < bytes.count {
                hasher.update(bytes[start..<min(start + chunk, bytes.count)])
                start += chunk
            }
            XCTAssertEqual(hasher.finish(), whole, "chunks of \(chunk)")
        }
        XCTAssertEqual(SHA256.hash(AnySequence(bytes)), whole, "a sequence without contiguous storage")
    }

    func testHMACMatchesRFC4231() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Array(1...25), [UInt8](repeating: 0xcd, count: 50), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, c) in cases.enumerated() {
            XCTAssertEqual(hex(HMACSHA256.authenticationCode(for: c.data, key: c.key)), c.mac, "RFC 4231 test case \(index < 4 ? index + 1 : index + 2)")
        }
        // Test case 5: the output truncated to 128 bits.
        let truncated = HMACSHA256.authenticationCode(for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0c, count: 20)).prefix(16)
        XCTAssertEqual(hex(Array(truncated)), "a3b6167473100ee06e0c796c2955552b")
    }
}
