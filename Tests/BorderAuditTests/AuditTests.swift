import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import Tracks
import XCTest
@testable import BorderAudit
import Unlocks
import UnlocksTestSupport

/// The audit over the committed tables with walks built to cross real borders. Expected
/// categories come from the geography (where the borders are, found by scanning) and from direct
/// table lookups of each point, never from the audit's own output.
final class AuditTests: XCTestCase {
    /// Classify's locator (300 m margins, as `unlocks classify` uses).
    static var locator: RegionLocator { BundledTables.locator(marginRadius: 300) }
    static let start = Timestamp.parse("2024-05-01T01:00:00Z")!

    struct Run {
        var auditor: BorderAuditor
        /// The episodes as the auditor delivered them.
        var episodes: [AuditEpisode]
        var ledger: UnlockLedger
        var record: InputRecord
        var report: AuditReport
        /// The three documents as written.
        var json: [UInt8]
        var geoJSON: [UInt8]
        var html: String
    }

    func audit(_ points: [TrackPoint], within: Double = 300, episodeLimit: Int = BorderAuditor.maximumEpisodePoints) -> Run {
        let documents = (json: AuditDocumentBuffer(), geoJSON: AuditDocumentBuffer(), html: AuditDocumentBuffer())
        let report = AuditReport(locator: Self.locator, within: within, options: ClassifyOptions(),
                                 json: documents.json, geoJSON: documents.geoJSON, html: documents.html)
        var episodes: [AuditEpisode] = []
        let auditor = BorderAuditor(locator: Self.locator, within: within, options: ClassifyOptions(), episodeLimit: episodeLimit) {
            episodes.append($0)
            do { try report.add($0) } catch { XCTFail("\(error)") }
        }
        var classifier = TrackClassifier(locator: Self.locator, options: ClassifyOptions())
        classifier.observer = { auditor.observe($0) }
        classifier.begin(InputRecord(path: "walk", fingerprint: "f", format: "test"))
        for point in points { classifier.point(point) }
        let record = classifier.finish()
        auditor.finish()
        let ledger = classifier.takeLedger()
        XCTAssertNoThrow(try report.finish(ledger: ledger, groundPoints: auditor.groundPoints, flaggedPoints: auditor.flaggedPoints))
        return Run(auditor: auditor, episodes: episodes, ledger: ledger, record: record, report: report,
                   json: documents.json.bytes, geoJSON: documents.geoJSON.bytes, html: documents.html.text)
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
        for level in RegionLevel.tableLevels {
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
    func assertMatchesLookups(_ run: Run, _ points: [TrackPoint], levels: [RegionLevel] = RegionLevel.tableLevels, file: StaticString = #filePath, line: UInt = #line) {
        var audited: [Int64: AuditedPoint] = [:]
        for episode in run.episodes { for p in episode.points { audited[p.point.time!] = p } }
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
        run.episodes.flatMap { $0.crossings }.filter { $0.level == level }.map { (code(level, $0.from), code(level, $0.to)) }
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
        let flips = run.episodes.flatMap(\.points).filter { $0.levelFlags[Int(RegionLevel.province.rawValue)] & AuditCategory.datumFlip.bit != 0 }
        XCTAssertFalse(flips.isEmpty)
        XCTAssertTrue(flips.allSatisfy { p in
            let shifted = code(.province, p.placement.province.region), unshifted = code(.province, p.unshifted?.province)
            return Set([shifted, unshifted]) == Set(["110000", "130000"])
        })
        // One walk along the border is one episode, not hundreds.
        XCTAssertEqual(run.episodes.count, 1)
        let json = try! JSONParser.parse(run.json)
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
        let flagged = run.episodes.flatMap(\.points)
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
        XCTAssertFalse(run.episodes.flatMap(\.crossings).contains { code(.province, $0.from) == "110000" && code(.province, $0.to) == "310000" })
        let flown = Set(flight.map(\.time!))
        XCTAssertFalse(run.episodes.flatMap(\.points).contains { flown.contains($0.point.time!) })
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
        XCTAssertEqual(a.json, b.json)
        XCTAssertEqual(a.geoJSON, b.geoJSON)
        let html = a.html
        XCTAssertEqual(html, b.html)
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, a.episodes.count)
        XCTAssertFalse(html.contains("<script"))
        XCTAssertFalse(html.contains("http://") && html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        // Border lines near the Shenzhen episode include the Shenzhen–Hong Kong border (province level).
        let shenzhen = a.episodes.first { $0.points.contains { code(.province, $0.placement.province.region) == "810000" } }!
        XCTAssertTrue(a.report.borderLines(for: shenzhen).contains { $0.table == "china" && $0.level == .province && Set([$0.left, $0.right]) == ["440000", "810000"] })
    }

    /// audit.json and audit.geojson hold every delivered episode and point, with the placement's
    /// regions and margins, and the summary counts what the points carry.
    func testTheDocumentsHoldEveryEpisodeAndPoint() throws {
        let points = walk(from: (39.94, 116.765), to: (39.94, 116.790), count: 1500)
            + walk(from: (31.30, 121.130), to: (31.30, 121.158), count: 900, start: Self.start + 3_600_000)
        let run = audit(points)
        let json = try JSONParser.parse(run.json)
        let episodes = try XCTUnwrap(json["episodes"]?.arrayValue)
        XCTAssertEqual(episodes.count, run.episodes.count)
        XCTAssertGreaterThan(episodes.count, 1)
        var nearBorder = 0
        for (written, episode) in zip(episodes, run.episodes) {
            XCTAssertEqual(written["id"]?.numberValue, Double(episode.id))
            let writtenPoints = try XCTUnwrap(written["points"]?.arrayValue)
            XCTAssertEqual(writtenPoints.count, episode.points.count)
            let start = try XCTUnwrap(episode.points.first?.point.time)
            for (w, p) in zip(writtenPoints, episode.points) {
                // A row of pointFields: time after the episode's start, latitude, longitude,
                // accuracy, categories, then per level [region index, status, margin, categories].
                let row = try XCTUnwrap(w.arrayValue)
                XCTAssertEqual(row[0].numberValue, Double(try XCTUnwrap(p.point.time) - start))
                XCTAssertEqual(row[1].numberValue, rounded(p.point.latitude, 7))
                XCTAssertEqual(row[2].numberValue, rounded(p.point.longitude, 7))
                XCTAssertEqual(row[4].numberValue, Double(p.flags))
                for level in RegionLevel.tableLevels {
                    let found = p.placement.level(level)
                    let cell = try XCTUnwrap(row[5 + Int(level.rawValue)].arrayValue)
                    let listed = written["regions"]?[level.name]?.arrayValue ?? []
                    XCTAssertEqual(cell[0].numberValue.map { listed[Int($0)].stringValue }, code(level, found.region).map { $0 })
                    XCTAssertEqual(cell[1].stringValue, found.status == .inside ? "i" : found.status == .edge ? "e" : "o")
                    XCTAssertEqual(cell[2].numberValue, found.marginMetres.map { rounded($0, 1) })
                    XCTAssertEqual(cell[3].numberValue, Double(p.levelFlags[level]))
                }
                if p.flags & AuditCategory.nearBorder.bit != 0 { nearBorder += 1 }
            }
        }
        XCTAssertEqual(json["pointFields"]?.arrayValue?.compactMap(\.stringValue),
                       ["time", "latitude", "longitude", "accuracy", "categories", "country", "province", "city", "county", "more"])
        XCTAssertEqual(json["summary"]?["categories"]?["near-border"]?["points"]?.numberValue, Double(nearBorder))
        XCTAssertEqual(json["summary"]?["flaggedPoints"]?.numberValue, Double(run.episodes.reduce(0) { $0 + $1.points.count }))
        let geoJSON = try JSONParser.parse(run.geoJSON)
        let features = try XCTUnwrap(geoJSON["features"]?.arrayValue)
        // One MultiPoint per episode and set of categories, every flagged point in one of them.
        let groups = features.filter { $0["properties"]?["kind"]?.stringValue == "points" }
        XCTAssertEqual(groups.reduce(0.0) { $0 + ($1["properties"]?["points"]?.numberValue ?? 0) }, Double(run.episodes.reduce(0) { $0 + $1.points.count }))
        XCTAssertEqual(groups.count, run.episodes.reduce(0) { $0 + Set($1.points.map(\.flags)).count })
        XCTAssertTrue(features.contains { $0["properties"]?["kind"]?.stringValue == "border" })
    }

    /// A run of flagged points longer than the episode limit goes on in episodes that name the
    /// one they continue; no point is lost or repeated.
    func testALongRunIsCutIntoContinuedEpisodes() throws {
        let points = walk(from: (39.94, 116.765), to: (39.94, 116.790), count: 1500)
        let whole = audit(points), cut = audit(points, episodeLimit: 100)
        XCTAssertEqual(whole.episodes.count, 1)
        let total = whole.episodes[0].points.count
        XCTAssertGreaterThan(total, 200)
        XCTAssertEqual(cut.episodes.count, (total + 99) / 100)
        XCTAssertEqual(cut.episodes.flatMap(\.points).map(\.point.time), whole.episodes[0].points.map(\.point.time))
        XCTAssertNil(cut.episodes[0].continues)
        for (a, b) in zip(cut.episodes, cut.episodes.dropFirst()) { XCTAssertEqual(b.continues, a.id) }
        let json = try JSONParser.parse(cut.json)
        XCTAssertEqual(json["episodes"]?.arrayValue?[1]["continues"]?.numberValue, 1)
        XCTAssertTrue(cut.html.contains("href=\"#e1\""))
    }

    /// Far from every border nothing is flagged, and the three documents are still complete.
    func testNothingFlaggedGivesEmptyButCompleteDocuments() throws {
        // Central Australia: hundreds of kilometres from any border or coast.
        let run = audit(walk(from: (-25.0, 133.0), to: (-25.0, 133.01), count: 600))
        XCTAssertTrue(run.episodes.isEmpty)
        let json = try JSONParser.parse(run.json)
        XCTAssertEqual(json["episodes"]?.arrayValue?.count, 0)
        XCTAssertEqual(json["summary"]?["groundPoints"]?.numberValue, 600)
        XCTAssertEqual(try JSONParser.parse(run.geoJSON)["features"]?.arrayValue?.count, 0)
        XCTAssertTrue(run.html.contains("No point needs a second look"))
        XCTAssertTrue(run.html.hasSuffix("</body></html>\n"))
    }

    /// The seam check skips the exact shift farther than `maximumShiftMetres` from China's land
    /// border: no shift in the datum's rectangle may be larger (a 0.1° grid over it).
    func testNoDatumShiftExceedsTheSeamChecksBound() {
        var largest = 0.0
        for latitude in stride(from: 0.9, through: 55.8, by: 0.1) {
            for longitude in stride(from: 72.1, through: 137.8, by: 0.1) where ChinaRectangle().appliesShift(latitude: latitude, longitude: longitude) {
                let g = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
                let north = (g.latitude - latitude) * 111_320, east = (g.longitude - longitude) * 111_320 * cos(latitude * .pi / 180)
                largest = max(largest, (north * north + east * east).squareRoot())
            }
        }
        XCTAssertGreaterThan(largest, 300)
        XCTAssertLessThan(largest * 1.01, BorderAuditor.maximumShiftMetres)
    }
}
