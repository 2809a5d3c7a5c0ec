import Foundation
import Intake
@testable import LogbookStore
import RegionTables
import Tracks
import UnlocksTestSupport
import Unlocks
import XCTest

/// Forgetting an area or a period of a logbook (`Logbook.forget(points:)`), against an answer the
/// test makes itself: the walk it wrote, written again without the points it knows are inside,
/// imported into a fresh logbook.
final class ForgetPointsTests: XCTestCase {
    static let locator = LogbookTests.locator
    static let rules = LogbookTests.rules

    // MARK: The walk

    /// Northward along the meridian 116.3975°E through central Beijing: a point every 10 s, 12 m
    /// apart (1.2 m/s). On a meridian the great-circle distance is the Earth's radius times the
    /// latitudes' difference, so point i lies |i − centre| × 12 m from point `centre`.
    static let start = 1_714_525_200  // 2024-05-01T01:00:00Z
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static func walk(count: Int = 101, start: Int = start) -> [TimedPoint] {
        (0..<count).map { i in (start + 10 * i, 39.9000 + Double(i) * 12 / metresPerDegree, 116.3975) }
    }
    /// A walk elsewhere in Beijing (about 8 km west), later that day: nothing of it is in the area.
    static let elsewhere = TimedWalks.eastward(39.9000, 116.3000, start: start + 7200, seconds: 900, step: 10)

    /// The area: 306 m around point 50. Points 25…75 are within 300 m of it, the others at least
    /// 312 m away: 6 m either side of the border, more than any radius of the Earth's changes.
    static let home = PointExclusion.area(latitude: walk()[50].lat, longitude: 116.3975, radiusMetres: 306)
    static let insideHome = 25...75

    func write(_ points: [TimedPoint], _ path: String) throws {
        try TimedWalks.gpx(points).write(toFile: path, atomically: true, encoding: .utf8)
    }

    func open(_ path: String) throws -> Logbook {
        try Logbook(at: URL(fileURLWithPath: path), locator: Self.locator, configuration: Logbook.Configuration(rules: Self.rules))
    }

    /// The report's figures, without what names or counts the files and points read (the
    /// reference reads other files, without the forgotten points) and without `changes`.
    func figures(_ report: ClassifyReport) throws -> NSDictionary {
        var report = report
        report.changes = nil
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json().rendered().utf8)) as? [String: Any])
        object["inputs"] = nil
        object["points"] = nil
        return object as NSDictionary
    }

    /// The report of a fresh logbook importing `files`: the reference.
    func reference(_ files: [String]) async throws -> ClassifyReport {
        let fresh = try Logbook(inMemoryWith: Self.locator, rules: Self.rules)
        return try await fresh.importSources(files.map { .path($0) }).report
    }

    func points(_ report: ClassifyReport) -> (kept: Int64, forgotten: Int64) {
        (report.pointTotals.kept, report.pointTotals.dropped[.forgotten] ?? 0)
    }

    // MARK: Tests

    func testForgettingAnAreaGivesWhatTheFilesWithoutItsPointsGiveAndUndoGivesBackTheReport() async throws {
        let folder = try temporaryDirectory()
        try write(Self.walk(), folder + "/walk.gpx")
        try write(Self.elsewhere, folder + "/elsewhere.gpx")
        let logbook = try open(folder + "/f.logbook")
        let original = try await logbook.importSources([.path(folder + "/walk.gpx"), .path(folder + "/elsewhere.gpx")]).report

        let result = try await logbook.forget(points: [Self.home])
        let reference = folder + "/reference"
        try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
        try write(Self.walk().enumerated().filter { !Self.insideHome.contains($0.offset) }.map(\.element), reference + "/walk.gpx")
        try write(Self.elsewhere, reference + "/elsewhere.gpx")
        let expected = try await self.reference([reference + "/walk.gpx", reference + "/elsewhere.gpx"])
        XCTAssertEqual(try figures(result.report), try figures(expected))
        XCTAssertEqual(points(result.report).forgotten, Int64(Self.insideHome.count), "each point inside is dropped as forgotten")
        XCTAssertEqual(points(result.report).kept, points(expected).kept)
        XCTAssertEqual(result.exclusions, [Self.home])
        XCTAssertEqual(Set(result.reread.map { ($0.path as NSString).lastPathComponent }), ["walk.gpx", "elsewhere.gpx"])
        // What it removed, as changes: the report before against the reference.
        XCTAssertEqual(result.report.changes, ClassifyReport.Changes(from: ClassifyReport.Baseline(original), to: expected))
        XCTAssertLessThan(result.report.changes?.exploredCells ?? 0, 0)

        // Kept in the store: a reopened logbook has it, and a later import drops the same points.
        let reopened = try open(folder + "/f.logbook")
        let exclusions = await reopened.exclusions
        XCTAssertEqual(exclusions, [Self.home])
        let reopenedReport = try await reopened.report()
        XCTAssertEqual(try figures(reopenedReport), try figures(expected))
        try write(Self.walk(start: Self.start + 86_400), folder + "/next-day.gpx")
        let later = try await reopened.importSources([.path(folder + "/next-day.gpx")])
        XCTAssertEqual(later.inputs.first?.dropped[.forgotten], Int64(Self.insideHome.count))

        // Undo: the original report again (the next day's walk read again with nothing forgotten).
        let undone = try await reopened.unforget(points: [Self.home])
        XCTAssertEqual(undone.exclusions, [])
        let everything = try await self.reference([folder + "/walk.gpx", folder + "/elsewhere.gpx", folder + "/next-day.gpx"])
        XCTAssertEqual(try figures(undone.report), try figures(everything))
        XCTAssertEqual(points(undone.report).forgotten, 0)
        let check = try await reopened.integrityCheck()
        XCTAssertEqual(check, ["ok"])
    }

    func testForgettingAPeriodGivesWhatTheFileWithoutItsPointsGives() async throws {
        let folder = try temporaryDirectory()
        try write(Self.walk(), folder + "/walk.gpx")
        try write(Self.elsewhere, folder + "/elsewhere.gpx")
        let logbook = try open(folder + "/p.logbook")
        let original = try await logbook.importSources([.path(folder + "/walk.gpx"), .path(folder + "/elsewhere.gpx")]).report
        // Points 30 to 44: from point 30's moment to point 45's (exclusive), in milliseconds.
        let period = PointExclusion.period(from: Int64(Self.start + 300) * 1000, until: Int64(Self.start + 450) * 1000)
        let result = try await logbook.forget(points: [period])
        let reference = folder + "/reference.gpx"
        try write(Self.walk().enumerated().filter { !(30..<45).contains($0.offset) }.map(\.element), reference)
        let expected = try await self.reference([reference, folder + "/elsewhere.gpx"])
        XCTAssertEqual(try figures(result.report), try figures(expected))
        XCTAssertEqual(points(result.report).forgotten, 15)
        // The walk elsewhere began two hours later: it cannot hold a point of the period, and is not read again.
        XCTAssertEqual(result.reread.map { ($0.path as NSString).lastPathComponent }, ["walk.gpx"])

        let undone = try await logbook.unforget(points: [period])
        XCTAssertEqual(try figures(undone.report), try figures(original))
        XCTAssertEqual(points(undone.report).kept, points(original).kept)
    }

    func testAnInputThatCannotBeReadAgainIsNamedAndNothingChangesUnlessKeptAsItIs() async throws {
        let folder = try temporaryDirectory()
        try write(Self.walk(), folder + "/walk.gpx")
        try write(Self.elsewhere, folder + "/elsewhere.gpx")
        let logbook = try open(folder + "/m.logbook")
        let before = try await logbook.importSources([.path(folder + "/walk.gpx"), .path(folder + "/elsewhere.gpx")]).report
        try FileManager.default.removeItem(atPath: folder + "/walk.gpx")
        do {
            _ = try await logbook.forget(points: [Self.home])
            XCTFail("an input whose file is gone cannot be read again")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .unreadableInputs([UnreadableInput(path: folder + "/walk.gpx", origin: folder + "/walk.gpx", problem: .missing)]))
            XCTAssertTrue(error.reason.contains(folder + "/walk.gpx"), error.reason)
        }
        // Unchanged: the same report, nothing forgotten, SQLite's check clean, and so when reopened.
        let unchanged = try await logbook.report()
        XCTAssertEqual(try figures(unchanged), try figures(before))
        let exclusions = await logbook.exclusions
        XCTAssertEqual(exclusions, [])
        let check = try await logbook.integrityCheck()
        XCTAssertEqual(check, ["ok"])
        let reopened = try open(folder + "/m.logbook")
        let reopenedReport = try await reopened.report()
        XCTAssertEqual(try figures(reopenedReport), try figures(before))

        // Its content changed: named as such.
        try write(Self.walk(count: 90), folder + "/walk.gpx")
        do {
            _ = try await reopened.forget(points: [Self.home])
            XCTFail("an input whose file holds other content cannot be read again")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .unreadableInputs([UnreadableInput(path: folder + "/walk.gpx", origin: folder + "/walk.gpx", problem: .changed)]))
        }

        // Kept as it is: the walk still counts its points at home; the other input is read again.
        let kept = try await reopened.forget(points: [Self.home], unreadable: .keepAsTheyAre)
        XCTAssertEqual(kept.keptAsTheyWere.map(\.problem), [.changed])
        XCTAssertEqual(kept.reread.map { ($0.path as NSString).lastPathComponent }, ["elsewhere.gpx"])
        XCTAssertEqual(points(kept.report).forgotten, 0)
        XCTAssertEqual(try figures(kept.report), try figures(before))
        let exclusionsNow = await reopened.exclusions
        XCTAssertEqual(exclusionsNow, [Self.home])
    }

    func testASignedLogbookKeepsItsSignatureAcrossAForgetAndUndoNamesWhatWasForgotten() async throws {
        let folder = try temporaryDirectory()
        try write(Self.walk(), folder + "/walk.gpx")
        let key = Array("a key of the test".utf8)
        let configuration = Logbook.Configuration(rules: Self.rules, key: key)
        do {
            let logbook = try Logbook(at: URL(fileURLWithPath: folder + "/s.logbook"), locator: Self.locator, configuration: configuration)
            _ = try await logbook.importSources([.path(folder + "/walk.gpx")])
            _ = try await logbook.forget(points: [Self.home])
        }
        let reopened = try Logbook(at: URL(fileURLWithPath: folder + "/s.logbook"), locator: Self.locator, configuration: configuration)
        let exclusions = await reopened.exclusions
        XCTAssertEqual(exclusions, [Self.home])
        do {
            _ = try await reopened.unforget(points: [.area(latitude: 39.9, longitude: 116.4, radiusMetres: 100)])
            XCTFail("an area not forgotten cannot be brought back")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .nothingMatched)
            XCTAssertTrue(error.reason.contains("306 m"), error.reason)
        }
        do {
            _ = try await reopened.forget(points: [.area(latitude: 91, longitude: 0, radiusMetres: 10)])
            XCTFail("a latitude beyond 90° is no area")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .invalidExclusion)
        }
    }
}
