import Foundation
import XCTest
@testable import RegionTables

/// Checks XXH64 against vectors from the reference C xxHash, via PyPI `xxhash`
/// (see Fixtures/README.md and Scripts/fixtures/make-xxh64-vectors).
final class XXH64Tests: XCTestCase {
    struct Vector {
        let length: Int
        let seed: UInt64
        let digest: UInt64
    }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/xxh64-vectors.csv")
        let text = try! String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n")
        precondition(lines.first == "length,seed,hex_digest", "unexpected header in \(url.path)")
        return lines.dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            precondition(f.count == 3 && f[2].count == 16, "bad row: \(line)")
            return Vector(length: Int(f[0])!, seed: UInt64(f[1])!, digest: UInt64(f[2], radix: 16)!)
        }
    }()

    /// The fixture's input of a given length: byte i is (i * 31 + 7) & 0xFF.
    static func input(length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    func testFixtureHasTheAdvertisedCoverage() {
        let vectors = Self.vectors
        XCTAssertEqual(vectors.count, 75 * 2)
        XCTAssertEqual(Set(vectors.map(\.length)), Set(Array(0...70) + [100, 1000, 4096, 65537]))
        XCTAssertEqual(Set(vectors.map(\.seed)), [0, 0x9E37_79B9_7F4A_7C15])
    }

    func testEmptyInputWithSeedZero() {
        XCTAssertEqual(XXH64.hash([UInt8]()), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(XXH64.hash(UnsafeRawBufferPointer(start: nil, count: 0)), 0xEF46_DB37_51D8_E999)
        XCTAssertTrue(Self.vectors.contains { $0.length == 0 && $0.seed == 0 && $0.digest == 0xEF46_DB37_51D8_E999 })
    }

    func testEveryVector() {
        for v in Self.vectors {
            let got = XXH64.hash(Self.input(length: v.length), seed: v.seed)
            XCTAssertEqual(got, v.digest, "length \(v.length), seed \(v.seed): got \(String(got, radix: 16))")
        }
    }

    /// The [UInt8] and raw-buffer entry points agree, including on raw buffers that start at
    /// every alignment (the hash reads 8- and 4-byte words with unaligned loads).
    func testArrayAndRawBufferAPIsAgree() {
        let lengths = Array(0...70) + [100, 1000, 4096, 65537]
        for seed: UInt64 in [0, 1, 0x9E37_79B9_7F4A_7C15, .max] {
            for length in lengths {
                let bytes = Self.input(length: length)
                let viaArray = XXH64.hash(bytes, seed: seed)
                XCTAssertEqual(bytes.withUnsafeBytes { XXH64.hash($0, seed: seed) }, viaArray)
                for shift in 0..<8 {
                    let padded = [UInt8](repeating: 0xA5, count: shift) + bytes + [UInt8](repeating: 0x5A, count: 8)
                    padded.withUnsafeBytes { whole in
                        let slice = UnsafeRawBufferPointer(rebasing: whole[shift..<(shift + length)])
                        XCTAssertEqual(XXH64.hash(slice, seed: seed), viaArray,
                                       "length \(length), seed \(seed), offset \(shift)")
                    }
                }
            }
        }
    }

    func testDefaultSeedIsZero() {
        let bytes = Self.input(length: 77)
        XCTAssertEqual(XXH64.hash(bytes), XXH64.hash(bytes, seed: 0))
        XCTAssertNotEqual(XXH64.hash(bytes), XXH64.hash(bytes, seed: 1))
    }
}
