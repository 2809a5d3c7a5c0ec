import Foundation
import XCTest
import UnlocksTestSupport

/// `unlocks audit` end to end: the three files on the bundled archive, bad input as in classify,
/// the table self-audit's figures, and the HTML in a real browser (headless Chromium).
final class AuditCommandTests: XCTestCase {
    static let root = ClassifyCommandTests.root
    static let tables = ClassifyCommandTests.tables
    static let samples = ClassifyCommandTests.samples

    func json(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The sample archive: the three files, consistent with classify and with each other. With
    /// the source wheel at hand ($ADMINUNLOCKS_SOURCE, as Scripts/test sets it) simplification is
    /// checked; without, the report says it was not.
    func testTheSampleArchiveGivesTheThreeFiles() throws {
        let out = try temporaryDirectory() + "/report"
        let result = try CommandRunner.run(["audit", Self.samples, "--tables", Self.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("Audit: "))
        let audit = try json(out + "/audit.json")
        let summary = try XCTUnwrap(audit["summary"] as? [String: Any])
        let episodes = try XCTUnwrap(audit["episodes"] as? [[String: Any]])
        XCTAssertEqual(summary["episodes"] as? Int, episodes.count)
        XCTAssertGreaterThan(episodes.count, 5)

        // Ground points are classify's kept points less those in flight.
        let classify = try CommandRunner.run(["classify", "--tables", Self.tables, Self.samples])
        let points = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(classify.stdout.utf8)) as? [String: Any])?["points"] as? [String: Any])
        XCTAssertEqual(summary["groundPoints"] as? Int, (points["kept"] as! Int) - (points["inFlight"] as! Int))
        XCTAssertEqual(summary["pointsInFlight"] as? Int, points["inFlight"] as? Int)
        XCTAssertEqual(summary["flaggedPoints"] as? Int, episodes.reduce(0) { $0 + ($1["pointCount"] as! Int) })

        // The sample walks through central Beijing along county borders: datum flips there.
        let categories = try XCTUnwrap(summary["categories"] as? [String: [String: Any]])
        XCTAssertGreaterThan(categories["datum-flip"]?["points"] as? Int ?? 0, 0)
        XCTAssertTrue(episodes.contains { ($0["crossings"] as? [[String: Any]])?.contains { $0["level"] as? String == "province" } == true })
        let options = try XCTUnwrap(audit["options"] as? [String: Any])
        let source = ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"] ?? ""
        XCTAssertEqual(options["simplificationChecked"] as? Bool, !source.isEmpty)
        // A simplification-flip point says what the source answered, and only such points do; at
        // each level (countries included) the summary counts the points whose source answer
        // differs there.
        var sourceDiffers = ["country": 0, "province": 0, "city": 0, "county": 0]
        let flipBit = try XCTUnwrap((audit["categoryBits"] as? [String: Int])?["simplification-flip"])
        for point in episodes.flatMap({ $0["points"] as! [[Any]] }) {
            let flipped = (point[4] as! Int) & flipBit != 0
            let source = (point.count > 9 ? point[9] as? [String: Any] : nil)?["source"] as? [String: Any]
            XCTAssertEqual(source != nil, flipped)
            for level in (source ?? [:]).keys { sourceDiffers[level]! += 1 }
        }
        let flipsByLevel = try XCTUnwrap(categories["simplification-flip"]?["byLevel"] as? [String: Int])
        XCTAssertEqual(flipsByLevel, sourceDiffers)
        if !source.isEmpty { XCTAssertTrue((options["simplificationNote"] as? String ?? "").hasPrefix("country, province, city and county checked")) }

        let geo = try json(out + "/audit.geojson")
        XCTAssertEqual(geo["type"] as? String, "FeatureCollection")
        let features = try XCTUnwrap(geo["features"] as? [[String: Any]])
        let pointGroups = features.compactMap { $0["properties"] as? [String: Any] }.filter { $0["kind"] as? String == "points" }
        XCTAssertEqual(pointGroups.reduce(0) { $0 + ($1["points"] as! Int) }, summary["flaggedPoints"] as? Int)
        XCTAssertTrue(features.contains { ($0["properties"] as? [String: Any])?["kind"] as? String == "border" })
        // With the source, its borders are drawn too: county rings and countries.
        let sourceLevels = Set(features.compactMap { $0["properties"] as? [String: Any] }.filter { $0["kind"] as? String == "source-border" }.compactMap { $0["level"] as? String })
        XCTAssertEqual(sourceLevels, source.isEmpty ? [] : ["county", "country"])

        let html = try String(contentsOfFile: out + "/audit.html", encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, episodes.count)
        XCTAssertFalse(html.contains("<script"))
        XCTAssertFalse(html.contains("<link"))
        XCTAssertEqual(html.contains("<path class=\"ls\""), !source.isEmpty)

        // Two runs give the same bytes (without the source check, which costs 50 s a run in a
        // debug build; the source's answers come from GEOS on fixed inputs).
        for copy in ["2", "3"] {
            let again = try CommandRunner.run(["audit", Self.samples, "--tables", Self.tables, "--out", out + copy, "--source", ""])
            XCTAssertEqual(again.status, 0, again.stderr)
        }
        for name in ["audit.json", "audit.geojson", "audit.html"] {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "2/" + name)), try Data(contentsOf: URL(fileURLWithPath: out + "3/" + name)), name)
        }
    }

    /// A document that cannot be put in place fails the run with its path named, and the run
    /// leaves no partial files behind.
    func testAFailedWriteNamesTheFileAndLeavesNothingBehind() throws {
        let out = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: out + "/audit.json", withIntermediateDirectories: false)
        let result = try CommandRunner.run(["audit", Self.samples, "--tables", Self.tables, "--out", out, "--source", ""])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains(out + "/audit.json"), result.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        XCTAssertEqual(left.filter { $0.contains(".body-") || $0.contains(".tmp-") }, [])
    }

    /// The three files are the same bytes whatever order the inputs are named in (inputs are
    /// read in path order: segments were numbered in argument order).
    func testTheFilesDoNotDependOnTheArgumentOrder() throws {
        let dir = try temporaryDirectory()
        let walk = Self.samples + "/2024-05-01-beijing-walk.gpx"
        var rows = ["latitude,longitude,time"]
        for i in 0..<200 { rows.append(String(format: "%.6f,%.6f,%d", 39.93 + Double(i) * 0.00005, 116.40, 1_700_000_000 + i * 5)) }
        try (rows.joined(separator: "\n") + "\n").write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        for (out, inputs) in [("one", [walk, dir + "/b.csv"]), ("two", [dir + "/b.csv", walk])] {
            let result = try CommandRunner.run(["audit"] + inputs + ["--tables", Self.tables, "--out", dir + "/" + out, "--source", ""])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        for name in ["audit.json", "audit.geojson", "audit.html"] {
            XCTAssertEqual(FileManager.default.contents(atPath: dir + "/one/" + name), FileManager.default.contents(atPath: dir + "/two/" + name), name)
        }
    }

    func testBadInputBehavesAsInClassify() throws {
        let dir = try temporaryDirectory()
        try "<gpx><trk><trkseg><trkpt lat=\"39.94\" lon=\"116.77\"><time>2024-05-01T01:00:00Z</time></trkpt><trkpt lat=".write(toFile: dir + "/broken.gpx", atomically: false, encoding: .utf8)
        let broken = try CommandRunner.run(["audit", dir + "/broken.gpx", "--tables", Self.tables, "--out", dir + "/out", "--source", ""])
        XCTAssertEqual(broken.status, 3, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("broken.gpx"), broken.stderr)
        let audit = try json(dir + "/out/audit.json")
        let failed = try XCTUnwrap((audit["summary"] as? [String: Any])?["inputsWithErrors"] as? [[String: Any]])
        XCTAssertEqual(failed.first?["path"] as? String, dir + "/broken.gpx")

        let missing = try CommandRunner.run(["audit", dir + "/nothing.gpx", "--tables", Self.tables, "--out", dir + "/out2", "--source", ""])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nothing.gpx"), missing.stderr)

        XCTAssertEqual(try CommandRunner.run(["audit"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["audit", Self.samples, "--within", "-5"]).status, 2)
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        let notFolder = try CommandRunner.run(["audit", Self.samples, "--tables", Self.tables, "--out", dir + "/file", "--source", ""])
        XCTAssertEqual(notFolder.status, 1)
        XCTAssertTrue(notFolder.stderr.contains("is not a folder"), notFolder.stderr)
    }

    /// The figures part of the table self-audit on the committed tables (CI runs this).
    func testTheCommittedTablesAuditClean() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["audit", "--tables", Self.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let audit = try json(out + "/tables-audit.json")
        let tables = try XCTUnwrap(audit["tables"] as? [[String: Any]])
        let china = try XCTUnwrap(tables.first { $0["file"] as? String == "china.bin" })
        let world = try XCTUnwrap(tables.first { $0["file"] as? String == "world.bin" })
        XCTAssertEqual(china["regions"] as? [String: Int], ["province": 34, "city": 370, "county": 2875])
        XCTAssertEqual(world["regions"] as? [String: Int], ["country": 256])
        for table in [china, world] {
            XCTAssertEqual(table["nestingErrors"] as? Int, 0)
            XCTAssertEqual(table["selfArcs"] as? Int, 0)
            XCTAssertEqual(table["regionsWithoutUnits"] as? Int, 0)
        }
        // The build's figures (manifest.json): deviation within the tolerance, no overlap.
        let build = try XCTUnwrap(china["build"] as? [[String: Any]])
        XCTAssertEqual(build.count, 3)
        for level in build {
            XCTAssertLessThanOrEqual(level["maximumDeviationMetres"] as! Double, 30)
            XCTAssertEqual(level["overlapKm2"] as? Double, 0)
        }
        // China's land border in the world table is long (over 20,000 km) and shifted by
        // hundreds of metres where the datum applies.
        let seam = try XCTUnwrap(audit["datumSeam"] as? [String: Any])
        XCTAssertGreaterThan(seam["lengthKm"] as! Double, 15_000)
        XCTAssertGreaterThan(seam["shiftMeanMetres"] as! Double, 100)
        XCTAssertLessThan(seam["shiftMaximumMetres"] as! Double, 1_500)
        // The source's seam before the build repaired it, from the manifest.
        XCTAssertGreaterThan((seam["beforeRepair"] as? [String: Any])?["gapKm2"] as? Double ?? 0, 0)
        let html = try String(contentsOfFile: out + "/tables-audit.html", encoding: .utf8)
        // Map excerpts: the smallest regions (up to six) and the seam at its widest and narrowest
        // shift. The geometry repair left no degenerate rings in the world table, so fewer regions
        // are listed than before: Kaurik, the Vatican and 望德堂区.
        let small = try XCTUnwrap((audit["smallRegions"] as? [String: Any])?["regions"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(small.count, 3)
        XCTAssertTrue(small.contains { $0["code"] as? String == "VAT" })
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, min(6, small.count) + 2)
        // The geometry check: winding and crossings hold on both tables.
        for table in [china, world] {
            let geometry = try XCTUnwrap(table["geometry"] as? [String: Any])
            XCTAssertEqual(geometry["holds"] as? Bool, true)
            XCTAssertEqual(geometry["ringsWindingWrongly"] as? Int, 0)
            XCTAssertEqual(geometry["crossingSegments"] as? Int, 0)
        }
    }

    /// The HTML in headless Chromium: the expected number of maps, no console errors, and a
    /// screenshot (ADMINUNLOCKS_SCREENSHOT names where to keep it). Scripts/test installs
    /// Chromium (Scripts/bootstrap --audit) and sets ADMINUNLOCKS_REQUIRE_CHROMIUM, so CI cannot skip it.
    func testTheReportRendersInHeadlessChromium() throws {
        let out = try temporaryDirectory()
        let chromium = try HeadlessChromium(profile: out + "/profile")
        let result = try CommandRunner.run(["audit", Self.samples, "--tables", Self.tables, "--out", out, "--source", ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        let episodes = try XCTUnwrap(try json(out + "/audit.json")["episodes"] as? [[String: Any]]).count
        let page = "file://" + out + "/audit.html"
        let (dom, console) = try chromium.dom(of: page)
        // The DOM as the browser built it: one SVG element per episode.
        XCTAssertEqual(dom.components(separatedBy: "<svg ").count - 1, episodes)
        XCTAssertEqual(console, [], "console messages")
        let png = try chromium.screenshot(of: page, width: 1200, height: 1700,
                                          to: ProcessInfo.processInfo.environment["ADMINUNLOCKS_SCREENSHOT"] ?? out + "/audit.png")
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertGreaterThan(png.count, 20_000)
    }
}
