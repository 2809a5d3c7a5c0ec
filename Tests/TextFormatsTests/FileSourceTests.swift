import Foundation
import TextFormats
import UnlocksTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `FileSource.regularFileSize`: a regular file's size known before reading it, none for a pipe
/// (`unlocks locate` sized its input by it until every locator got lazy leaf grids).
final class FileSourceTests: XCTestCase {
    func testARegularFileHasItsSizeAndAPipeHasNone() throws {
        let path = try temporaryDirectory() + "/points.csv"
        let text = String(repeating: "39.9000000,116.4000000\n", count: 1_000)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try FileSource(path: path).regularFileSize, 23_000)

        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[1]) }
        let fromPipe = FileSource(descriptor: ends[0], path: "<pipe>")
        XCTAssertNil(fromPipe.regularFileSize)
    }
}
