import Foundation
import XCTest
@testable import Intake
import SeededRandom
import Tracks

/// Seeded mutants of every archive fixture (bit flips, truncation, inserted and removed bytes,
/// repeated slices) through the containers in-process: every walk ends, by its end or an
/// `InputError`, never a trap; bytes out stay within the bomb limits. The CLI-level campaign
/// (UnlocksCommandTests/FuzzTests, Sources/TrackFuzzing) mutates the same archives as seeds.
final class ContainerFuzzTests: XCTestCase {
    static func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        for _ in 0...random.below(3) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] ^= UInt8(1 << random.below(8))
            case 1: bytes.removeSubrange(at...)
            case 2: bytes.insert(contentsOf: (0..<random.below(16)).map { _ in UInt8(random.below(256)) }, at: at)
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + random.below(64)))
            case 4: bytes.replaceSubrange(at..<min(bytes.count, at + 4), with: [[0x50, 0x4B, 0x03, 0x04], [0x1F, 0x8B, 8, 0], [0xFF, 0xFF, 0xFF, 0xFF]][random.below(3)])
            default:
                let slice = bytes[at..<min(bytes.count, at + random.below(512))]
                bytes.insert(contentsOf: Array(repeating: slice, count: random.below(8)).joined(), at: at)
            }
        }
        return bytes
    }

    /// Reads every member of a walk; the error that ends it, if any, is an InputError.
    static func drain(_ open: () throws -> ArchiveWalk) {
        do {
            let walk = try open()
            try walk.forEachEntry { entry in
                do { _ = try ContainerTests.readAll(entry, chunk: 1 << 16) } catch is InputError {}
            }
        } catch is InputError {
        } catch {
            XCTFail("not an InputError: \(error)")
        }
    }

    func testMutantArchivesEndWithoutATrap() throws {
        let folder = ContainerTests.fixtures
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".json") }.sorted()
        var random = SplitMix64(seed: 20_261_202)
        var mutants = 0
        for round in 0..<24 {
            for name in names {
                let original = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                let bytes = Self.mutate(original, &random)
                mutants += 1
                let label = "\(name) round \(round)"
                if name.hasSuffix(".tar") {
                    Self.drain { .tar(TarArchive(streaming: MemorySource(bytes), path: label)) }
                } else if name.hasSuffix(".tgz") || name.hasSuffix(".gz") {
                    Self.drain { .tar(TarArchive(streaming: try GzipStream(wrapping: MemorySource(bytes), path: label), path: label)) }
                    do { _ = try ContainerTests.readAll(try GzipStream(wrapping: MemorySource(bytes), path: label)) } catch is InputError {}
                } else {
                    Self.drain { .zip(ZipArchive(random: RandomAccessMemory(bytes), path: label)) }
                    Self.drain { .zip(ZipArchive(streaming: MemorySource(bytes), path: label)) }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(mutants, 24 * 12)
    }
}
