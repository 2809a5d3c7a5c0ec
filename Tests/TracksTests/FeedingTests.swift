import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Every reader gives the same events and ends the same way however its bytes arrive: all at
/// once, one byte per read, or in random chunks (the shared `ReaderVerifier`), on every fixture of
/// every format. And the verifier itself catches the mistakes it exists for.
final class FeedingTests: XCTestCase {
    static let fixtures = Repository.fixtures("TracksTests")

    /// (fixture folder, file suffix, the reader).
    static let readers: [(folder: String, suffix: String, read: @Sendable (FedSource, String, inout TrackEventRecorder) throws -> Void)] = [
        ("gpx", ".gpx", { _ = try GPXReader.read($0, path: $1, into: &$2) }),
        ("csv", ".csv", { _ = try TrackCSVReader.read($0, path: $1, timeZone: .china, into: &$2) }),
        ("csv-apps", ".csv", { _ = try TrackCSVReader.read($0, path: $1, timeZone: .china, into: &$2) }),
        ("nmea", ".nmea", { _ = try NMEAReader.read($0, path: $1, into: &$2) }),
        ("nmea/gpsd", ".log", { _ = try NMEAReader.read($0, path: $1, into: &$2) }),
        ("kml", ".kml", { _ = try KMLReader.read($0, path: $1, into: &$2) }),
        ("kml/gpsbabel", ".kml", { _ = try KMLReader.read($0, path: $1, into: &$2) }),
        ("kml/opentracks", ".kml", { _ = try KMLReader.read($0, path: $1, into: &$2) }),
        ("igc", ".igc", { _ = try IGCReader.read($0, path: $1, into: &$2) }),
        ("plt", ".plt", { _ = try OziPLTReader.read($0, path: $1, into: &$2) }),
        ("tcx", ".tcx", { _ = try TCXReader.read($0, path: $1, into: &$2) }),
        ("fit", ".fit", { _ = try FITReader.read($0, path: $1, into: &$2) }),
        ("google", ".json", { _ = try JSONTrackReader.read($0, path: $1, into: &$2) }),
    ]

    func testEveryFixtureReadsTheSameHoweverItsBytesArrive() throws {
        var checked = 0
        for (folder, suffix, read) in Self.readers {
            let directory = Self.fixtures + "/" + folder
            var points = 0
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where name.hasSuffix(suffix) && name != "expected.json" {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                let (events, _) = ReaderVerifier.verifyEvents(bytes, feedings: ReaderVerifier.feedings(randomRuns: 2)) { source, sink in
                    try read(source, folder + "/" + name, &sink)
                }
                points += events.points.count
                checked += 1
            }
            XCTAssertGreaterThan(points, 0, "\(folder): the fixtures gave no points")
        }
        XCTAssertGreaterThan(checked, 50)
    }

    // MARK: The verifier

    /// Reads to the end in 16-byte reads and sums the bytes.
    func sum(_ source: FedSource) throws -> Int {
        var source = source, total = 0
        var buffer = [UInt8](repeating: 0, count: 16)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return total }
            total += buffer[..<n].reduce(0) { $0 + Int($1) }
        }
    }

    func testEveryFeedingDeliversTheSameBytes() throws {
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (whole, found) = ReaderVerifier.disagreements(bytes, expected: bytes.reduce(0) { $0 + Int($1) }, read: sum)
        XCTAssertEqual(whole, .value(bytes.reduce(0) { $0 + Int($1) }))
        XCTAssertTrue(found.isEmpty, "\(found)")
    }

    /// A reader whose answer depends on where reads end (here: how many it needed) disagrees.
    func testCatchesAReaderThatDependsOnWhereReadsEnd() {
        let (_, found) = ReaderVerifier.disagreements(Array(repeating: 1, count: 100)) { source -> Int in
            var source = source, reads = 0
            var buffer = [UInt8](repeating: 0, count: 64)
            while try buffer.withUnsafeMutableBytes({ try source.read(into: $0) }) > 0 { reads += 1 }
            return reads
        }
        XCTAssertEqual(found.map(\.feeding), ReaderVerifier.feedings().filter { $0 != .whole })
    }

    /// A reader that looks one byte past what a read returned sees the poison and disagrees.
    func testCatchesAReaderThatReadsPastWhatItWasGiven() {
        let (_, found) = ReaderVerifier.disagreements(Array("abcdefghij".utf8)) { source -> [UInt8] in
            var source = source, peeked: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { return peeked }
                peeked.append(buffer[n])
            }
        }
        XCTAssertFalse(found.isEmpty)
    }

    /// An error is an outcome too: a reader that fails only when a read is short disagrees, and
    /// the disagreement names the feeding.
    func testCatchesAnErrorUnderOneFeeding() {
        struct ShortRead: Error {}
        let (whole, found) = ReaderVerifier.disagreements(Array(repeating: 0, count: 40)) { source -> Int in
            var source = source
            var buffer = [UInt8](repeating: 0, count: 40)
            guard try buffer.withUnsafeMutableBytes({ try source.read(into: $0) }) == 40 else { throw ShortRead() }
            return 40
        }
        XCTAssertEqual(whole, .value(40))
        XCTAssertEqual(found.first?.feeding, .fixed(1))
        XCTAssertTrue(found.first?.description.contains("one byte at a time") == true, found.first?.description ?? "")
        XCTAssertTrue(found.allSatisfy { if case .error = $0.outcome { return true } else { return false } })
    }
}
