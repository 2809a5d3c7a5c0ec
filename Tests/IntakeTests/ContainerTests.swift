import Foundation
import XCTest
@testable import Intake
import Tracks
import UnlocksTestSupport

/// The Swift containers (zip, gzip, tar over zlib) against Python's zipfile, tarfile and gzip on
/// archives written by the real tools (Scripts/fixtures/make-archive-fixtures: Info-ZIP zip, GNU tar,
/// Python): every member, its name, size and CRC-32 of its bytes, in archive order.
final class ContainerTests: XCTestCase {
    static let fixtures = Repository.fixtures("IntakeTests") + "/archives"

    struct Member: Equatable, CustomStringConvertible {
        var name: String
        var size: Int
        var crc32: UInt32
        var description: String { "\(name) \(size) \(crc32)" }
    }

    static func expected() throws -> [String: [Member]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/expected.json"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]])
        return json.mapValues { $0.map { Member(name: $0["name"] as! String, size: $0["size"] as! Int, crc32: UInt32($0["crc32"] as! Int)) } }
    }

    static func readAll(_ source: some ByteSource, chunk: Int = 4096) throws -> [UInt8] {
        var source = source
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return result }
            result += buffer[..<n]
        }
    }

    static func member(_ name: String, _ bytes: [UInt8]) -> Member {
        Member(name: name, size: bytes.count, crc32: bytes.withUnsafeBytes { crc32Update(0, $0) })
    }

    /// Every file member, a zip inside read as a stream in turn (`inner.zip:name`).
    static func members(_ walk: ArchiveWalk) throws -> [Member] {
        var found: [Member] = []
        try walk.forEachEntry { entry in
            guard entry.kind == .file else { return }
            let bytes = try readAll(entry)
            found.append(member(entry.name, bytes))
            if entry.name.hasSuffix(".zip") {
                try ArchiveWalk.zip(ZipArchive(streaming: MemorySource(bytes), path: entry.path)).forEachEntry { inner in
                    guard inner.kind == .file else { return }
                    found.append(member(entry.name + ":" + inner.name, try readAll(inner)))
                }
            }
        }
        return found
    }

    static func open(_ file: String) throws -> ArchiveWalk {
        let path = fixtures + "/" + file
        if file.hasSuffix(".tar") { return .tar(TarArchive(streaming: try FileSource(path: path), path: file)) }
        if file.hasSuffix(".tgz") { return .tar(TarArchive(streaming: try GzipStream(wrapping: try FileSource(path: path), path: file), path: file)) }
        return .zip(ZipArchive(random: RandomAccessMemory(Array(try Data(contentsOf: URL(fileURLWithPath: path)))), path: file))
    }

    func testEveryArchiveReadsAsPythonReadsIt() throws {
        let expected = try Self.expected()
        XCTAssertEqual(expected.count, 12)
        for (file, members) in expected.sorted(by: { $0.key < $1.key }) {
            if file.hasSuffix(".gz") && !file.hasSuffix(".tgz") {
                let bytes = try Self.readAll(try GzipStream(wrapping: try FileSource(path: Self.fixtures + "/" + file), path: file))
                XCTAssertEqual([Self.member("", bytes)], members, file)
                continue
            }
            XCTAssertEqual(try Self.members(try Self.open(file)), members, file)
        }
    }

    /// A zip read forward through its local headers (as a zip inside an archive is) gives the
    /// members its central directory gives, data descriptors and zip64 fields included.
    func testZipsReadAsStreamsAsThroughTheirDirectory() throws {
        let expected = try Self.expected()
        for (file, members) in expected where file.hasSuffix(".zip") || file.hasSuffix(".kmz") {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/" + file)))
            let streamed = try Self.members(.zip(ZipArchive(streaming: MemorySource(bytes), path: file)))
            XCTAssertEqual(streamed, members, file)
        }
    }

    /// Read one byte at a time, in odd chunks, and whole: the same bytes (the containers keep no
    /// state in the size of the caller's buffer).
    func testChunkSizesDoNotMatter() throws {
        for chunk in [1, 7, 4096, 1 << 20] {
            let walk = try Self.open("gnu.tgz")
            var sizes: [Int] = []
            try walk.forEachEntry { entry in sizes.append(try Self.readAll(entry, chunk: chunk).count) }
            XCTAssertEqual(sizes, try Self.expected()["gnu.tgz"]!.map(\.size), "chunk \(chunk)")
        }
    }
}
