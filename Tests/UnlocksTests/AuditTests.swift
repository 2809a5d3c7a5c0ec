import ChinaDatum
import Foundation
import RegionTables
import Tracks
import XCTest
@testable import Unlocks

/// The audit over the committed tables with walks built to cross real borders. Expected
/// categories come from the geography (where the borders are, found by scanning) and from direct
/// table lookups of each point, never from the audit's own output.
final class AuditTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Data/regions").standardized.path
    /// Classify's locator (250 m margins, as `unlocks classify` uses).
    static let locator = try! RegionLocator(directory: directory, marginRadius: 300)
    static let start = Timestamp.parse("2024-05-01T01:00:00Z")!

    struct Run {
        var auditor: BorderAuditor
        var ledger: UnlockLedger
        var record: InputRecord
        var report: AuditReport
    }

    func audit(_ points: [TrackPoint], within: Double = 300) -> Run {
        let auditor = BorderAuditor(locator: Self.locator, within: within, options: ClassifyOptions())
        var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
        classifier.observer = { auditor.observe($0) }
        classifier.begin(InputRecord(path: "walk", fingerprint: "f", format: "test"))
        for point in points { classifier.point(point) }
        let record = classifier.finish()
        auditor.finish()
        let ledger = classifier.takeLedger()
        return Run(auditor: auditor, ledger: ledger, record: record,
                   report: AuditReport(auditor: auditor, ledger: ledger, simplification: (false, "not checked (test)")))
    }

    /// `count` points one second apart from `a` to `b`.
    func walk(from a: (Double, Double), to b: (Double, Double), count: Int, start: Int64 = start, accuracy: Double? = 8) -> [TrackPoint] {
        (0..<count).map { i in
            let t = Double(i) / Double(count - 1)
            return TrackPoint(latitude: a.0 + (b.0 - a.0) * t, longitude: a.1 + (b.1 - a.1) * t, time: start + Int64(i) * 1000, accuracy: accuracy)
        }
    }

    func code(_ level: RegionLevel, _ region: Int32?) -> String? {
        region.map { (level == .country ? Self.locator.world : Self.locator.china).region($0).code }
    }

    /// What a direct lookup says each point's categories are (crossings and the seam excepted).
    func expectedFlags(_ point: TrackPoint, within: Double = 300) -> [RegionLevel: Set<AuditCategory>] {
        let placement = try! Self.locator.locate(latitude: point.latitude, longitude: point.longitude)
        var flags: [RegionLevel: Set<AuditCategory>] = [:]
        let accuracy = point.accuracy ?? 30
        for level in RegionLevel.allCases {
            let found = placement.level(level)
            var set = Set<AuditCategory>()
            if found.region != nil, let m = found.marginMetres {
                if abs(m) < within { set.insert(.nearBorder) }
                if found.status == .edge ? -m < accuracy : m < accuracy { set.insert(.accuracyStraddle) }
            }
            if found.status == .edge { set.insert(.edgeOnly) }
            // In no region: at country level, and at China's levels when the point is in or at China.
            if found.region == nil, level == .country || code(.country, placement.country.region) == "CHN" { set.insert(.outside) }
            flags[level] = set
        }
        if placement.country.region != nil, code(.country, placement.country.region) == "CHN" {
            // The China table at the WGS-84 position, as if the shift were skipped.
            let unit = Self.locator.china.unit(atX: Int64((point.longitude * 1e5).rounded()), y: Int64((point.latitude * 1e5).rounded()))
            for level in [RegionLevel.province, .city, .county] where unit.flatMap({ Self.locator.china.region(ofUnit: $0, at: level) }) != placement.level(level).region {
                flags[level]!.insert(.datumFlip)
            }
        }
        return flags
    }

    /// Every audited point's categories at China levels match the direct lookup's, and every
    /// point the lookup flags is in an episode.
    func assertMatchesLookups(_ run: Run, _ points: [TrackPoint], levels: [RegionLevel] = RegionLevel.allCases, file: StaticString = #filePath, line: UInt = #line) {
        var audited: [Int64: AuditedPoint] = [:]
        for episode in run.auditor.episodes { for p in episode.points { audited[p.point.time!] = p } }
        for point in points {
            let expected = expectedFlags(point)
            let got = audited[point.time!]
            for level in levels {
                var want = expected[level]!
                var have = Set(AuditCategory.decode(got?.levelFlags[Int(level.rawValue)] ?? 0))
                have.remove(.crossing)
                if level == .country { have.remove(.datumFlip); want.remove(.datumFlip) }
                if have != want {
                    XCTFail("\(point.latitude),\(point.longitude) \(level.name): audit \(have.map(\.rawValue).sorted()), lookup \(want.map(\.rawValue).sorted())", file: file, line: line)
                    return
                }
            }
        }
    }

    /// The crossings a direct lookup sees: consecutive points whose region differs, per level.
    func expectedCrossings(_ points: [TrackPoint], level: RegionLevel) -> [(String?, String?)] {
        var result: [(String?, String?)] = []
        var previous: String??
        for point in points {
            let here = code(level, try! Self.locator.locate(latitude: point.latitude, longitude: point.longitude).level(level).region)
            if let p = previous, p != here { result.append((p, here)) }
            previous = here
        }
        return result
    }

    func auditCrossings(_ run: Run, level: RegionLevel) -> [(String?, String?)] {
        run.auditor.episodes.flatMap { $0.crossings }.filter { $0.level == level }.map { (code(level, $0.from), code(level, $0.to)) }
    }

    func testBeijingHebeiNearYanjiaoIsADatumFlipAndACrossing() {
        // East along 39.94°N from Tongzhou (Beijing) into Sanhe (Hebei, Yanjiao): the border is
        // between 116.776°E and 116.777°E there (found by scanning the table).
        let points = walk(from: (39.94, 116.765), to: (39.94, 116.790), count: 1500)
        let run = audit(points)
        let crossings = auditCrossings(run, level: .province)
        XCTAssertEqual(crossings.map { "\($0.0 ?? "-")>\($0.1 ?? "-")" }, expectedCrossings(points, level: .province).map { "\($0.0 ?? "-")>\($0.1 ?? "-")" })
        XCTAssertTrue(crossings.contains { $0.0 == "110000" && $0.1 == "130000" })
        assertMatchesLookups(run, points)
        // The classic: placed in one province with the shift, in the other without it.
        let flips = run.auditor.episodes.flatMap(\.points).filter { $0.levelFlags[Int(RegionLevel.province.rawValue)] & AuditCategory.datumFlip.bit != 0 }
        XCTAssertFalse(flips.isEmpty)
        XCTAssertTrue(flips.allSatisfy { p in
            let shifted = code(.province, p.placement.province.region), unshifted = code(.province, p.unshifted?[0] ?? nil)
            return Set([shifted, unshifted]) == Set(["110000", "130000"])
        })
        // One walk along the border is one episode, not hundreds.
        XCTAssertEqual(run.auditor.episodes.count, 1)
        let json = run.report.json()
        XCTAssertEqual(json["summary"]?["categories"]?["datum-flip"]?["byLevel"]?["province"]?.numberValue, Double(flips.count))
    }

    func testShanghaiJiangsuNearHuaqiao() {
        // East along 31.30°N from Kunshan (Jiangsu, Huaqiao) into Jiading (Shanghai).
        let points = walk(from: (31.30, 121.130), to: (31.30, 121.158), count: 1800)
        let run = audit(points)
        XCTAssertTrue(auditCrossings(run, level: .province).contains { $0.0 == "320000" && $0.1 == "310000" })
        XCTAssertEqual(auditCrossings(run, level: .county).count, expectedCrossings(points, level: .county).count)
        assertMatchesLookups(run, points)
    }

    func testShenzhenHongKongAcrossTheShenzhenRiver() {
        // South along 114.113°E from Luohu (Shenzhen) into the North District of Hong Kong.
        let points = walk(from: (22.538, 114.113), to: (22.522, 114.113), count: 1300)
        let run = audit(points)
        XCTAssertTrue(auditCrossings(run, level: .province).contains { $0.0 == "440000" && $0.1 == "810000" })
        assertMatchesLookups(run, points, levels: [.province, .city, .county])
    }

    func testZhuhaiMacauAtGongbei() {
        // South along 113.549°E from Gongbei (Zhuhai) into Macau.
        let points = walk(from: (22.222, 113.549), to: (22.212, 113.549), count: 900)
        let run = audit(points)
        XCTAssertTrue(auditCrossings(run, level: .province).contains { $0.0 == "440000" && $0.1 == "820000" })
        assertMatchesLookups(run, points, levels: [.province, .city, .county])
    }

    func testACoastalWalkIntoTheSeaIsEdgeOnlyThenOutside() {
        // South off Qingdao's shore at 120.339°E, 5.5 km out to sea (beyond the world table's 2 km
        // edge zone along coasts).
        let points = walk(from: (36.0500, 120.3390), to: (36.0000, 120.3390), count: 3000)
        let run = audit(points)
        let flagged = run.auditor.episodes.flatMap(\.points)
        let outside = flagged.filter { $0.levelFlags[0] & AuditCategory.outside.bit != 0 }
        let edge = flagged.filter { $0.flags & AuditCategory.edgeOnly.bit != 0 }
        XCTAssertFalse(outside.isEmpty)
        XCTAssertFalse(edge.isEmpty)
        // Out at sea the nearest country is China, between the edge zone (2 km) and the walk's end.
        XCTAssertTrue(outside.allSatisfy { code(.country, $0.nearestCountry?.region) == "CHN" && $0.nearestCountry!.metres < 6000 })
        assertMatchesLookups(run, points)
    }

    func testAFlightIsNotAudited() {
        // Walk at Beijing airport, fly to Shanghai at 250 m/s, walk at Hongqiao.
        let departure = walk(from: (40.0700, 116.5900), to: (40.0710, 116.5900), count: 60)
        let t0 = departure.last!.time!
        let flight = (1...480).map { i in
            let f = Double(i) / 481
            return TrackPoint(latitude: 40.0710 + (31.1979 - 40.0710) * f, longitude: 116.5900 + (121.3363 - 116.5900) * f, time: t0 + Int64(i) * 10_000, accuracy: 20)
        }
        let arrival = walk(from: (31.1979, 121.3363), to: (31.1989, 121.3363), count: 60, start: t0 + 4_810_000)
        let run = audit(departure + flight + arrival)
        XCTAssertEqual(run.record.pointsInFlight, 480)
        XCTAssertEqual(run.auditor.groundPoints, run.record.pointsKept - run.record.pointsInFlight)
        // No crossing joins the two ends: the landing starts a new segment.
        XCTAssertFalse(run.auditor.episodes.flatMap(\.crossings).contains { code(.province, $0.from) == "110000" && code(.province, $0.to) == "310000" })
        let flown = Set(flight.map(\.time!))
        XCTAssertFalse(run.auditor.episodes.flatMap(\.points).contains { flown.contains($0.point.time!) })
    }

    func testTentativeAndSinglePointUnlocksAreListed() {
        // One point 10 m inside Hebei at the Yanjiao border with 40 m accuracy: tentative.
        let border = (1..<200).map { 116.775 + Double($0) * 0.00001 }.first { lon in
            code(.province, try! Self.locator.locate(latitude: 39.94, longitude: lon).province.region) == "130000"
        }!
        let points = walk(from: (39.94, 116.765), to: (39.94, border - 0.0005), count: 600)
            + [TrackPoint(latitude: 39.94, longitude: border + 0.0001, time: Self.start + 601_000, accuracy: 40)]
        let run = audit(points)
        let hebei = run.report.findings.first { $0.key.level == .province && code(.province, $0.key.index) == "130000" }
        XCTAssertEqual(hebei?.kind, .tentative)
        XCTAssertFalse(hebei?.episodes.isEmpty ?? true)
    }

    func testOutputsAreDeterministicAndTheHTMLHasOneMapPerEpisode() {
        let points = walk(from: (39.94, 116.765), to: (39.94, 116.790), count: 1500)
            + walk(from: (22.538, 114.113), to: (22.522, 114.113), count: 1300, start: Self.start + 3_600_000)
        let a = audit(points), b = audit(points)
        XCTAssertEqual(a.report.json().rendered(), b.report.json().rendered())
        XCTAssertEqual(a.report.geoJSON().compactRendered(), b.report.geoJSON().compactRendered())
        let html = a.report.html()
        XCTAssertEqual(html, b.report.html())
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, a.auditor.episodes.count)
        XCTAssertFalse(html.contains("<script"))
        XCTAssertFalse(html.contains("http://") && html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        // Border lines near the Shenzhen episode include the Shenzhen–Hong Kong border (province level).
        let shenzhen = a.auditor.episodes.first { $0.points.contains { code(.province, $0.placement.province.region) == "810000" } }!
        XCTAssertTrue(a.report.borderLines(for: shenzhen).contains { $0.table == "china" && $0.level == .province && Set([$0.left, $0.right]) == ["440000", "810000"] })
    }
}
