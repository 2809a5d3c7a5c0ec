import Foundation
import XCTest
@testable import Tracks
import UnlocksTestSupport

/// Google's activity labels reach the classifier as ``TrackAnnotation/movement(_:)``: the
/// Semantic Location History's `activityType` on its own segment; the Timeline's activities on the
/// path points of their time (a separate segment of the export, read here independently with
/// Foundation's JSON parser).
final class GoogleMovementLabelTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/google")

    /// Each delivered point with the label in force (a segment break clears it), in order.
    func labelled(_ name: String) throws -> [(TrackPoint, Movement?)] {
        let path = Self.fixtures.appendingPathComponent(name).path
        var sink = TrackEventRecorder()
        _ = try JSONTrackReader.read(try FileSource(path: path), path: path, into: &sink)
        var label: Movement?, out: [(TrackPoint, Movement?)] = []
        for event in sink.events {
            switch event {
            case .segmentBreak: label = nil
            case let .annotation(.movement(m)): label = m
            case let .point(p): out.append((p, label))
            default: break
            }
        }
        return out
    }

    func testSemanticHistoryActivitiesLabelTheirOwnFixes() throws {
        let points = try labelled("semantic-handmade-2023_MAY.json")
        // A visit (a stay), a walk (WALKING) and a train ride (IN_TRAIN), in file order.
        XCTAssertEqual(points.map(\.1), [.humanPowered, .humanPowered, .humanPowered, .humanPowered, .vehicle, .vehicle])
    }

    /// Android and iOS exports: each path point's label is the type of the activity whose
    /// `startTime…endTime` holds its time (none: no label), as the file's own segments say.
    func testTimelineActivitiesLabelThePathPointsOfTheirTime() throws {
        for (name, ios) in [("timeline-android-handmade.json", false), ("timeline-ios-handmade.json", true)] {
            let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
            let json = try JSONSerialization.jsonObject(with: data)
            let segments = ios ? try XCTUnwrap(json as? [[String: Any]]) : try XCTUnwrap((json as? [String: Any])?["semanticSegments"] as? [[String: Any]])
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            func time(_ text: Any?) -> Int64? { (text as? String).flatMap { formatter.date(from: $0) }.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } }
            var windows: [(Int64, Int64, String)] = []
            for segment in segments {
                guard let activity = segment["activity"] as? [String: Any], let type = (activity["topCandidate"] as? [String: Any])?["type"] as? String,
                      let start = time(segment["startTime"]), let end = time(segment["endTime"]) else { continue }
                windows.append((start, end, type))
            }
            XCTAssertFalse(windows.isEmpty, name)
            let points = try labelled(name)
            XCTAssertFalse(points.isEmpty, name)
            var labelledCount = 0
            for (point, label) in points {
                let type = windows.first { $0.0 <= point.time! && point.time! <= $0.1 }?.2
                let expected: Movement?
                switch type?.uppercased().replacingOccurrences(of: " ", with: "_") {
                case "WALKING"?, "RUNNING"?, "CYCLING"?: expected = .humanPowered
                case "IN_PASSENGER_VEHICLE"?, "IN_BUS"?, "IN_TRAIN"?, "IN_SUBWAY"?: expected = .vehicle
                case "FLYING"?: expected = .flight
                default: expected = nil
                }
                XCTAssertEqual(label, expected, "\(name) at \(point.time!)")
                if label != nil { labelledCount += 1 }
            }
            XCTAssertGreaterThan(labelledCount, 0, "\(name): some points lie in a labelled activity")
        }
    }
}
