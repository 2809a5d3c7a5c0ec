import Foundation
import Intake
import LogbookStore
import RegionTables
import Unlocks
import UnlocksTestSupport
import XCTest

/// `changes`: what an import into a stored logbook added, checked against the difference of two
/// independent fresh reports (one without the new inputs, one with them), never against the
/// changes' own figures.
final class RunChangesTests: XCTestCase {
    static let levels: [RegionLevel] = [.country, .province, .city, .county]
    static let rules = Footprints.rules(utcOffsetHours: 0)

    /// A walk eastward at 1.4 m/s sampled every 5 s for `seconds`, from (`latitude`, `longitude`)
    /// at `start` (Unix seconds); `untimed` adds points without a time after it.
    static func walk(latitude: Double, longitude: Double, start: Int, seconds: Int, untimed: [(Double, Double)] = []) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let formatter = ISO8601DateFormatter()
        for s in stride(from: 0, through: seconds, by: 5) {
            let lon = longitude + 1.4 * Double(s) / (111_320 * cos(latitude * .pi / 180))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", latitude, lon,
                           formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + s))))
        }
        for (lat, lon) in untimed { text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"/>\n", lat, lon) }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Per level, the codes a report counts as unlocked (confirmed; the reports are not lenient).
    static func counted(_ report: ClassifyReport) -> [RegionLevel: Set<String>] {
        Dictionary(uniqueKeysWithValues: levels.map { level in (level, Set((report.unlocks[level] ?? []).filter(\.confirmed).map(\.code))) })
    }

    static func evidence(_ report: ClassifyReport) -> [RegionLevel: [String: RegionStanding]] {
        Dictionary(uniqueKeysWithValues: levels.map { level in
            (level, Dictionary(uniqueKeysWithValues: (report.unlocks[level] ?? []).map { ($0.code, $0.evidence) }))
        })
    }

    static func codes(_ lists: [RegionLevel: [ClassifyReport.Changes.Region]]) -> [RegionLevel: Set<String>] {
        Dictionary(uniqueKeysWithValues: levels.map { ($0, Set((lists[$0] ?? []).map(\.code))) })
    }

    func testAnImportIntoAStoredLogbookReportsWhatTheNewInputsAddedAsTwoFreshReportsDiffer() async throws {
        let dir = try temporaryDirectory()
        let first = dir + "/first", both = dir + "/both"
        for folder in [first, both] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // A: an hour in Dongcheng, Beijing, and one untimed point in Shanghai's Huangpu (tentative
        // evidence only). B: an hour in Huangpu the next day (confirms it) and one in Tianjin.
        let a = Self.walk(latitude: 39.9050, longitude: 116.3900, start: 1_714_525_200, seconds: 3600, untimed: [(31.2304, 121.4737)])
        let b = Self.walk(latitude: 31.2304, longitude: 121.4700, start: 1_714_611_600, seconds: 3600)
        let c = Self.walk(latitude: 39.1300, longitude: 117.2000, start: 1_714_698_000, seconds: 1800)
        for folder in [first, both] { try a.write(toFile: folder + "/a.gpx", atomically: true, encoding: .utf8) }
        try b.write(toFile: both + "/b.gpx", atomically: true, encoding: .utf8)
        try c.write(toFile: both + "/c.gpx", atomically: true, encoding: .utf8)

        let catalog = try BadgeCatalog(json: Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path("Data/badges/example.json")))),
                                       path: "example.json")
        let withBadges = ReportOptions(badges: catalog)
        func fresh(_ folder: String) async throws -> ClassifyReport {
            try await Footprints.logbook(rules: Self.rules).importSources([.path(folder)], report: withBadges).report
        }
        let onlyA = try await fresh(first), withB = try await fresh(both)
        let logbook = try Footprints.logbook(at: dir + "/s.logbook", rules: Self.rules)
        let firstRun = try await logbook.importSources([.path(first)], report: withBadges).report
        let secondRun = try await logbook.importSources([.path(both)], report: withBadges).report
        let changes = try XCTUnwrap(secondRun.changes)

        // Newly unlocked: counted in the report with B, not in the one without.
        let before = Self.counted(onlyA), after = Self.counted(withB)
        let unlocked = Self.codes(changes.unlocked)
        for level in Self.levels { XCTAssertEqual(unlocked[level], after[level]!.subtracting(before[level]!), "\(level)") }
        XCTAssertEqual(unlocked[.province]?.contains("120000"), true, "Tianjin is new")
        // Tentative without B (not counted), confirmed with it (Shanghai): newly unlocked, and so
        // not "Now confirmed" as well (that list is for regions counted before, when lenient).
        let was = Self.evidence(onlyA), now = Self.evidence(withB)
        let confirmed = Self.codes(changes.confirmed)
        for level in Self.levels {
            let raised = Set(now[level]!.filter { $0.value == .confirmed && was[level]![$0.key] != nil && was[level]![$0.key] != .confirmed }.keys)
            XCTAssertTrue(raised.isSubset(of: unlocked[level]!), "\(level)")
            XCTAssertEqual(confirmed[level], [], "\(level)")
        }
        XCTAssertEqual(was[.province]?["310000"], .tentative)
        XCTAssertEqual(unlocked[.province]?.contains("310000"), true, "Shanghai was tentative (an untimed point), confirmed by B")

        let m0 = onlyA.metrics, m1 = withB.metrics
        XCTAssertEqual(changes.exploredCells, m1.exploredCellCount - m0.exploredCellCount)
        XCTAssertEqual(changes.exploredKm2, m1.globalAreaKm2 - m0.globalAreaKm2, accuracy: 1e-4)
        XCTAssertEqual(changes.distanceKilometers, m1.totalDistanceKilometers - m0.totalDistanceKilometers, accuracy: 1e-3)
        XCTAssertEqual(changes.recordedDays, 2)
        // Files met: b and c read, and first/a.gpx now a skipped copy of both/a.gpx beside it.
        XCTAssertEqual(changes.inputs + changes.skipped, secondRun.inputs.count - firstRun.inputs.count)
        XCTAssertEqual(changes.inputs, 2)
        XCTAssertEqual(changes.skipped, 1)
        let t0 = Dictionary(uniqueKeysWithValues: onlyA.tiles.map { ($0.zoom, $0) }), t1 = Dictionary(uniqueKeysWithValues: withB.tiles.map { ($0.zoom, $0) })
        XCTAssertFalse(changes.tiles.isEmpty)
        for change in changes.tiles {
            XCTAssertEqual(change.visited, t1[change.zoom]!.visited - t0[change.zoom]!.visited)
            XCTAssertEqual(change.maxSquareFrom, t0[change.zoom]!.maxSquare)
            XCTAssertEqual(change.maxSquareTo, t1[change.zoom]!.maxSquare)
        }
        let c0 = m0.familiarCells, c1 = m1.familiarCells
        XCTAssertEqual(changes.familiarCells.lit, c1.lit - c0.lit)
        XCTAssertEqual(changes.familiarCells.bright, c1.bright - c0.bright)
        XCTAssertEqual(changes.familiarCells.gold, c1.gold - c0.gold)

        // Badges: those whose percent rose from the report without B to the one with it.
        let p0 = Dictionary(uniqueKeysWithValues: try XCTUnwrap(onlyA.badges).map { ($0.id, $0) })
        let p1 = Dictionary(uniqueKeysWithValues: try XCTUnwrap(withB.badges).map { ($0.id, $0) })
        let rose = try XCTUnwrap(changes.badges)
        XCTAssertEqual(Set(rose.map(\.id)), Set(p1.keys.filter { p1[$0]!.percent > p0[$0]!.percent }))
        XCTAssertFalse(rose.isEmpty)
        for badge in rose {
            XCTAssertEqual(badge.fromPercent, p0[badge.id]!.percent, badge.id)
            XCTAssertEqual(badge.toPercent, p1[badge.id]!.percent, badge.id)
            XCTAssertEqual(badge.achieved, p1[badge.id]!.achieved, badge.id)
        }

        // The first import into a new logbook: everything is new.
        XCTAssertEqual(Self.codes(try XCTUnwrap(firstRun.changes).unlocked), before)
        // A third import adds nothing.
        let third = try await logbook.importSources([.path(both)], report: withBadges)
        let again = try XCTUnwrap(third.report.changes)
        XCTAssertEqual(again.exploredCells, 0)
        XCTAssertEqual(Self.codes(again.unlocked).values.map(\.count).reduce(0, +), 0)
        XCTAssertEqual(again.inputs, 0)
    }
}
