import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// A fixture folder's files and its `expected.json`.
struct FixtureSet {
    let folder: URL

    init(_ name: String) {
        folder = URL(fileURLWithPath: Repository.fixtures("TracksTests")).appendingPathComponent(name)
    }

    func expected() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: folder.appendingPathComponent("expected.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    }

    func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}

/// Compares a delivered point with an expected one from a fixture's JSON (`lat`, `lon`, `time`,
/// `ele`, and `accuracy` when the JSON has it).
func assertPoint(_ got: TrackPoint?, _ want: Any?, _ message: String, tolerance: Double = 0, file: StaticString = #filePath, line: UInt = #line) {
    guard let want = want as? [String: Any] else {
        XCTAssertNil(got, message, file: file, line: line)
        return
    }
    guard let got else {
        XCTFail("\(message): no point", file: file, line: line)
        return
    }
    XCTAssertEqual(got.latitude, want["lat"] as? Double ?? .nan, accuracy: tolerance, message, file: file, line: line)
    XCTAssertEqual(got.longitude, want["lon"] as? Double ?? .nan, accuracy: tolerance, message, file: file, line: line)
    XCTAssertEqual(got.time, (want["time"] as? NSNumber)?.int64Value, message, file: file, line: line)
    XCTAssertEqual(got.elevation, want["ele"] as? Double, message, file: file, line: line)
    if want.keys.contains("accuracy") {
        XCTAssertEqual(got.accuracy, want["accuracy"] as? Double, message, file: file, line: line)
    }
}

/// The error a read throws (nil when none) and what was delivered before it.
func failure(_ read: (inout TrackEventRecorder) throws -> Void) -> (InputError?, TrackEventRecorder) {
    var sink = TrackEventRecorder()
    do {
        try read(&sink)
        return (nil, sink)
    } catch {
        return (error as? InputError, sink)
    }
}
