import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// `MemorySource`, the way an app hands a reader bytes it decompressed itself: every fixture of
/// the GPX, CSV and NMEA suites gives the same events from memory as from its file.
final class MemorySourceTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func testReadersGiveTheSameEventsFromMemoryAsFromTheFile() throws {
        var compared = 0
        for (folder, suffix) in [("gpx", ".gpx"), ("csv", ".csv"), ("nmea", ".nmea")] {
            let directory = Self.fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(suffix) {
                let path = directory.appendingPathComponent(name).path
                var fromFile = TrackEventRecorder(), fromMemory = TrackEventRecorder()
                let fileError = Result { try read(folder, try FileSource(path: path), path: path, into: &fromFile) }
                let memoryError = Result { try read(folder, MemorySource(Array(try Data(contentsOf: URL(fileURLWithPath: path)))), path: path, into: &fromMemory) }
                XCTAssertEqual(fromMemory.events, fromFile.events, name)
                XCTAssertEqual(String(describing: memoryError), String(describing: fileError), name)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 5)
    }

    func read<Source: ByteSource>(_ format: String, _ source: Source, path: String, into sink: inout TrackEventRecorder) throws {
        switch format {
        case "gpx": _ = try GPXReader.read(source, path: path, into: &sink)
        case "csv": _ = try TrackCSVReader.read(source, path: path, timeZone: .china, into: &sink)
        default: _ = try NMEAReader.read(source, path: path, into: &sink)
        }
    }

    func testReadsInChunksOfAnySizeToTheEnd() throws {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var source = MemorySource(bytes)
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 333)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            collected += buffer[0..<n]
        }
        XCTAssertEqual(collected, bytes)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try source.read(into: $0) }, 0)
        var empty = MemorySource([])
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try empty.read(into: $0) }, 0)
    }
}
