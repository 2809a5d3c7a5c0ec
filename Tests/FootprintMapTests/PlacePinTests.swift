import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RegionTables
import Tracks
import XCTest
@testable import FootprintMap
import Unlocks
import UnlocksTestSupport

/// Issue 32, build items 4 and 6: a trip known only from photos gets a pin on the page and on
/// the card; the story card is 1080 × 1920 and its span covers the days it counts.
final class PlacePinTests: XCTestCase {
    static var locator: RegionLocator { BundledTables.locator(marginRadius: 120) }

    /// Photos at the Eiffel Tower and in Lyon (each its own input), and a walk in Marseille on
    /// another day: the photos' places have no cell.
    func footprint() throws -> (Footprint, ClassifyReport) {
        var options = ClassifyOptions()
        options.timeZone = .fixed(minutesEast: 120)
        var classifier = TrackClassifier(locator: Self.locator, options: options)
        let may1: Int64 = 1_714_521_600_000  // 2024-05-01T00:00:00Z
        for (k, (latitude, longitude)) in [(48.8584, 2.2945), (45.7640, 4.8357)].enumerated() {
            classifier.begin(InputRecord(path: "IMG_\(k).jpg", fingerprint: "photo\(k)", format: "photo"))
            classifier.annotate(.snapshot)
            classifier.point(TrackPoint(latitude: latitude, longitude: longitude, time: may1 + Int64(k) * 86_400_000 + 36_000_000, accuracy: 10))
            classifier.finish()
        }
        classifier.begin(InputRecord(path: "walk.gpx", fingerprint: "walk", format: "gpx"))
        for s in stride(from: 0, through: 600, by: 5) {
            classifier.point(TrackPoint(latitude: 43.2965, longitude: 5.3698 + 1.4 * Double(s) / 81_000, time: may1 + 5 * 86_400_000 + Int64(s) * 1000, accuracy: 5))
        }
        classifier.finish()
        let ledger = classifier.takeLedger()
        let combined = try ledger.combined()
        let report = try ClassifyReport(ledger: ledger, combined: combined, tables: Self.locator.tables, options: options, lenient: false)
        return (Footprint(report: report, cells: combined.cells, cellPasses: combined.cellPasses, tables: Self.locator.tables), report)
    }

    func testPhotosWithoutCellsArePinnedOnThePageAndTheCard() throws {
        let (footprint, report) = try footprint()
        XCTAssertEqual(report.unlocks[.country]?.map(\.code), ["FRA"])
        // Paris and Lyon are 390 km apart: two pins, France's first visit (Paris) among them; the
        // Marseille walk has cells, so no pin.
        XCTAssertEqual(footprint.pins.count, 2)
        // Each is titled by the finest region there: outside China, the department (ISO 3166-2:
        // Paris FR-75, Lyon's Rhône FR-69).
        let paris = try XCTUnwrap(footprint.pins.first { abs($0.latitude - 48.8584) < 1e-6 })
        XCTAssertEqual(paris.level, .subdivision)
        XCTAssertEqual(paris.code, "FR-75")
        XCTAssertFalse(footprint.pins.contains { abs($0.latitude - 43.2965) < 0.1 })
        // The page carries them (a section each, drawn by the viewer) and the card draws them.
        XCTAssertEqual(footprint.views().filter { $0.id.hasPrefix("pin-") }.map(\.title), ["📍 Paris", "📍 Rhône"])
        XCTAssertTrue(FootprintScript.viewer.contains("drawPins(b);"))
        for card in [footprint.card(), footprint.storyCard()] {
            XCTAssertEqual(card.components(separatedBy: "fill=\"#d7263d\" stroke=\"#fff\"").count - 1, 2, "two pins on the card")
        }
    }

    func testTheStoryCardIsStorySizedAndItsSpanIsTheRecordedDays() throws {
        let (footprint, report) = try footprint()
        let story = footprint.storyCard()
        XCTAssertTrue(story.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1080\" height=\"1920\" viewBox=\"0 0 1080 1920\""))
        XCTAssertTrue(XMLParser(data: Data(story.utf8)).parse(), "well-formed")
        // Days counted: May 1 and 2 (photos, local UTC+2) and May 6 (the walk): the span is May 1 to 6,
        // though cells were first explored only on May 6.
        XCTAssertEqual(report.metrics.recordedDays, 3)
        XCTAssertTrue(story.contains("2024-05-01 – 2024-05-06"), "the span covers the days counted")
        XCTAssertTrue(footprint.card().contains("2024-05-01 – 2024-05-06"))
        XCTAssertTrue(story.contains("on foot or by bike, over 3 days"))
    }
}
