import Foundation
import XCTest

/// Headless Chromium for the tests that open the tool's self-contained HTML pages (the audit, the
/// footprint map): the DOM as the browser built it, its console messages, and a screenshot.
/// Scripts/test installs Chromium (Scripts/bootstrap --audit) and sets
/// ADMINUNLOCKS_REQUIRE_CHROMIUM, so CI cannot skip these tests.
public struct HeadlessChromium {
    public let executable: String
    /// The browser profile folder (one per test, inside its temporary folder).
    public let profile: String

    /// The installed browser; a failure when CI requires it, a skip elsewhere.
    public init(profile: String) throws {
        guard let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            if ProcessInfo.processInfo.environment["ADMINUNLOCKS_REQUIRE_CHROMIUM"] == "1" {
                XCTFail("chromium is not installed (Scripts/bootstrap --audit)")
                throw CocoaError(.fileNoSuchFile)
            }
            throw XCTSkip("chromium is not installed (Scripts/bootstrap --audit)")
        }
        executable = found
        self.profile = profile
    }

    private var flags: [String] { ["--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + profile] }

    /// The page's DOM after its scripts ran, and the console messages it logged.
    public func dom(of page: String) throws -> (dom: String, console: [String]) {
        let result = try Self.run(executable, flags + ["--dump-dom", page])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (result.stdout, result.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init))
    }

    /// Screenshots the page at `width` × `height` into `path`; returns the PNG's bytes.
    public func screenshot(of page: String, width: Int, height: Int, to path: String) throws -> Data {
        let result = try Self.run(executable, flags + ["--hide-scrollbars", "--window-size=\(width),\(height)", "--screenshot=" + path, page])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Runs a program to completion, its output captured in files (no pipe to drain concurrently).
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = NSTemporaryDirectory() + "unlocks-chromium-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout", errPath = directory + "/stderr"
        guard FileManager.default.createFile(atPath: outPath, contents: nil), FileManager.default.createFile(atPath: errPath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOfFile: outPath, encoding: .utf8), try String(contentsOfFile: errPath, encoding: .utf8))
    }
}
