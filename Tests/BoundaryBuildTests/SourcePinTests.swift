import Foundation
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// The one place the sources are pinned (`SourcePin`) is what the committed tables were built
/// from (their manifest names each release and hash) and what `Scripts/fetch-source` reads.
final class SourcePinTests: XCTestCase {
    func testTheCommittedTablesWereBuiltFromThePinnedWheels() throws {
        let url = URL(fileURLWithPath: Repository.root + "/Data/regions/manifest.json")
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let source = try XCTUnwrap(manifest["source"] as? [String: Any])
        let expected: [(SourcePin, release: String, sha256: String)] = [
            (.cnmaps, "release", "sha256"), (.naturalEarth, "internationalRelease", "internationalSHA256"),
            (.orangeGeo, "subdivisionGeometryRelease", "subdivisionGeometrySHA256"), (.superset, "subdivisionCodesRelease", "subdivisionCodesSHA256"),
        ]
        XCTAssertEqual(expected.map(\.0.key), SourcePin.all.map(\.key))
        for (pin, release, sha256) in expected {
            XCTAssertEqual(source[release] as? String, pin.release, pin.key)
            XCTAssertEqual(source[sha256] as? String, pin.sha256, pin.key)
            // A wheel's file name is its distribution and version as pip writes them.
            let version = try XCTUnwrap(pin.release.components(separatedBy: "==").last)
            XCTAssertTrue(pin.wheel.hasSuffix("-\(version)-py3-none-any.whl"), pin.wheel)
        }
    }

    /// `Scripts/fetch-source` finds each key's line (release, wheel, hash) in SourcePin.swift and
    /// refuses a key it does not have. Offline: with an empty cache it must try PyPI for exactly the
    /// pinned release, and pip, pointed at no index, fails.
    func testFetchSourceReadsEachPinFromTheSwiftFile() throws {
        let cache = try temporaryDirectory()
        for pin in SourcePin.all {
            let run = try fetchSource(pin.key, environment: ["ADMINUNLOCKS_CACHE": cache, "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
                                                             "PIP_RETRIES": "0", "PIP_TIMEOUT": "1", "PIP_NO_INPUT": "1"])
            XCTAssertEqual(run.status, 1, pin.key)
            XCTAssertTrue(run.stderr.contains("downloading \(pin.release) from PyPI"), run.stderr)
        }
        let unknown = try fetchSource("nonesuch", environment: [:])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("cnmaps natural-earth orange-geo superset"), unknown.stderr)
    }

    func fetchSource(_ key: String, environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repository.root + "/Scripts/fetch-source")
        process.arguments = [key]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
