import Foundation
import XCTest
import UnlocksTestSupport

/// `Scripts/check-portability` on planted files: each Linux-only use outside a Linux branch is
/// named by file and line, and the same uses inside `#if canImport(Glibc)` / `#if os(Linux)`
/// pass. (Scripts/test runs the checker on the repository's run-time modules itself: it asks
/// SwiftPM for them, which a test cannot while `swift test` holds the build folder.)
final class PortabilityCheckTests: XCTestCase {
    static let root = Repository.root
    static let script = root + "/Scripts/check-portability"

    /// Runs the checker over `files` (name → source) planted in a temporary module `Planted`.
    func check(_ files: [String: String]) throws -> (status: Int32, stderr: String) {
        let folder = URL(fileURLWithPath: try temporaryDirectory())
        let module = folder.appendingPathComponent("Sources/Planted")
        try FileManager.default.createDirectory(at: module, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: module.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try run([Self.script, "--root", folder.path, "Planted"])
    }

    func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testEachLinuxOnlyUseOutsideABranchIsNamedByLine() throws {
        let planted = """
        import Glibc
        func f(_ fd: Int32, _ p: UnsafeMutableRawPointer) -> Int {
            let flags = MAP_PRIVATE | MAP_POPULATE
            let status = "/proc/self/status"
            _ = (flags, status)
            return Glibc.read(fd, p, 1)
        }
        """
        let result = try check(["Bad.swift": planted])
        XCTAssertEqual(result.status, 1)
        for line in [1, 3, 4, 6] {
            XCTAssertTrue(result.stderr.contains("Sources/Planted/Bad.swift:\(line): "), "line \(line) not reported: \(result.stderr)")
        }
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 4, result.stderr)
    }

    func testUsesInsideLinuxBranchesAndCommentsPass() throws {
        let guarded = """
        #if canImport(Glibc)
        import Glibc
        #elseif canImport(Darwin)
        import Darwin
        #endif

        // Glibc.read would hide FileSource.read; MAP_POPULATE is only on Linux.
        /* "/proc/self/status" in a comment is no use */
        func flags() -> Int32 {
            #if os(Linux)
            return MAP_PRIVATE | MAP_POPULATE
            #else
            return MAP_PRIVATE
            #endif
        }
        #if !os(Linux)
        let x = 1
        #else
        let y = Glibc.getpid()
        #endif
        """
        let result = try check(["Good.swift": guarded])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testTheElseOfALinuxBranchIsChecked() throws {
        let planted = """
        #if os(Linux)
        let a = MAP_POPULATE
        #else
        let b = MAP_POPULATE
        #endif
        """
        let result = try check(["Else.swift": planted])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("Else.swift:4: "), result.stderr)
        XCTAssertFalse(result.stderr.contains("Else.swift:2: "), result.stderr)
    }
}
