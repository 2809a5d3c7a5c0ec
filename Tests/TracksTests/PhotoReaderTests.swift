import Foundation
import XCTest
import TextFormats
@testable import Tracks
import UnlocksTestSupport

/// Photos' positions and times (JPEG and HEIC EXIF, Google Photos sidecars), against
/// exifread, libheif and Python's json (Scripts/fixtures/make-photo-fixtures).
final class PhotoReaderTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/photos").path

    struct Expected: Decodable {
        let latitude: Double?, longitude: Double?, elevation: Double?, accuracy: Double?, time: Int64?
        let noLocation: Bool?, unusable: Bool?
    }

    static func expected() throws -> [String: Expected] {
        struct File: Decodable { let photos: [String: Expected] }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))).photos
    }

    /// What one fixture gives: its point, nil when it has no location; the error or unreadable record otherwise.
    func read(_ name: String, trickle: Bool = false) throws -> (point: TrackPoint?, outcome: String) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name)))
        var sink = TrackEventRecorder()
        do {
            if name.hasSuffix(".json") {
                let format = try JSONTrackReader.read(MemorySource(bytes), path: name, into: &sink)
                XCTAssertEqual(format, .photoSidecar, name)
            } else {
                let outcome = trickle ? try PhotoReader.read(FedSource(bytes, feeding: .trickle), path: name, timeZone: .china, into: &sink)
                                      : try PhotoReader.read(MemorySource(bytes), path: name, timeZone: .china, into: &sink)
                if case .noLocation = outcome { return (nil, "noLocation") }
            }
        } catch let error as InputError {
            return (nil, error.kind == .noLocation ? "noLocation" : "error: \(error.reason)")
        }
        XCTAssertEqual(sink.annotations, [.snapshot], name)
        if !sink.problems.isEmpty { return (nil, "unusable") }
        XCTAssertEqual(sink.points.count, 1, name)
        return (sink.points.first, "located")
    }

    func testEveryPhotoAsTheDecodersSay() throws {
        let expected = try Self.expected()
        XCTAssertEqual(expected.count, 11)
        for (name, want) in expected.sorted(by: { $0.key < $1.key }) {
            for trickle in [false, true] where trickle == false || !name.hasSuffix(".json") {
                let (point, outcome) = try read(name, trickle: trickle)
                if want.noLocation == true {
                    XCTAssertEqual(outcome, "noLocation", name)
                } else if want.unusable == true {
                    XCTAssertTrue(outcome == "unusable" || outcome.hasPrefix("error"), "\(name): \(outcome)")
                } else {
                    let point = try XCTUnwrap(point, "\(name): \(outcome)")
                    XCTAssertEqual(point.latitude, try XCTUnwrap(want.latitude), accuracy: 1e-12, name)
                    XCTAssertEqual(point.longitude, try XCTUnwrap(want.longitude), accuracy: 1e-12, name)
                    XCTAssertEqual(point.time, want.time, name)
                    XCTAssertEqual(point.accuracy, want.accuracy, name)
                    if let elevation = want.elevation {
                        XCTAssertEqual(point.elevation ?? .nan, elevation, accuracy: 1e-9, name)
                    } else {
                        XCTAssertNil(point.elevation, name)
                    }
                }
            }
        }
    }

    func testContainersAreRecognisedByTheirFirstBytes() throws {
        for (name, kind) in [("written/shanghai.heic", PhotoReader.Kind.heif), ("pillow/ultrahdr.jpg", .jpeg)] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name)))
            XCTAssertEqual(PhotoReader.kind(of: bytes), kind, name)
        }
        XCTAssertNil(PhotoReader.kind(of: Array("<gpx>".utf8)))
        // An MP4's ftyp (isom, mp42) is no HEIF.
        XCTAssertNil(PhotoReader.kind(of: [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp42".utf8)))
    }

    /// Cut short anywhere before its EXIF ends, a photo is an error (truncated), never a wrong place.
    func testATruncatedPhotoIsAnErrorNotAGuess() throws {
        for name in ["written/shanghai.heic", "written/beijing-gps-time.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name)))
            for cut in stride(from: 1, to: 400, by: 7) {
                var sink = TrackEventRecorder()
                do {
                    _ = try PhotoReader.read(MemorySource(Array(bytes.prefix(cut))), path: name, timeZone: .china, into: &sink)
                } catch {
                    continue
                }
                XCTAssertTrue(sink.points.isEmpty || sink.points.first?.latitude ?? 0 > 20, "\(name) cut at \(cut)")
            }
        }
    }
}
