import Foundation
import TextFormats
import XCTest
import UnlocksTestSupport

/// `unlocks map`: footprint.geojson checked independently, footprint.html in headless Chromium.
final class MapCommandTests: XCTestCase {
    func map(_ out: String) throws -> (report: [String: Any], geo: [String: Any], html: String) {
        let result = try CommandRunner.run(["map", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(),
                       ["footprint.geojson", "footprint.html", "next-square-z14.geojson", "next-square-z14.gpx", "next-square-z17.geojson",
                        "next-square-z17.gpx", "tiles-z14.geojson", "tiles-z17.geojson"], "staging left behind")
        let classify = try CommandRunner.run(["classify", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(classify.stdout.utf8)) as? [String: Any])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out + "/footprint.geojson"))
        XCTAssertNoThrow(try JSONParser.parse(Array(bytes)), "our own parser reads it")
        let geo = try XCTUnwrap(JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        return (report, geo, try String(contentsOfFile: out + "/footprint.html", encoding: .utf8))
    }

    /// The same inputs in another order give the same bytes, and a killed run's staging folder
    /// (a process id that no longer runs) is removed by the next run.
    func testTheFilesAreDeterministicAndAStaleStagingFolderIsRemoved() throws {
        let first = try temporaryDirectory(), second = try temporaryDirectory()
        let stale = second + "/.map-999999999"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale + "/footprint.html"))
        let files = try FileManager.default.contentsOfDirectory(atPath: ClassifyCommandTests.samples).sorted().map { ClassifyCommandTests.samples + "/" + $0 }
        for (out, inputs) in [(first, files), (second, files.reversed())] {
            let result = try CommandRunner.run(["map"] + inputs + ["--tables", ClassifyCommandTests.tables, "--out", out])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        for name in try FileManager.default.contentsOfDirectory(atPath: first) {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first + "/" + name)), try Data(contentsOf: URL(fileURLWithPath: second + "/" + name)), name)
        }
    }

    /// Zone area from the equator to φ on WGS-84 (Snyder eq. 3-12), independent of the package.
    func zone(_ degrees: Double) -> Double {
        let a = 6_378_137.0, f = 1 / 298.257223563, e2 = f * (2 - f), e = e2.squareRoot()
        let s = sin(degrees * .pi / 180)
        return .pi * a * a * (1 - e2) * (s / (1 - e2 * s * s) - 1 / (2 * e) * log((1 - e * s) / (1 + e * s)))
    }

    func testTheGeoJSONHoldsTheExploredCellsAsPolygonsAndEveryUnlocksOutline() throws {
        let (report, geo, _) = try map(try temporaryDirectory())
        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        let features = try XCTUnwrap(geo["features"] as? [[String: Any]])
        var cells = 0, area = 0.0, outlines: [String] = []
        for feature in features {
            let properties = try XCTUnwrap(feature["properties"] as? [String: Any])
            let geometry = try XCTUnwrap(feature["geometry"] as? [String: Any])
            XCTAssertEqual(geometry["type"] as? String, "MultiPolygon")
            let polygons = try XCTUnwrap(geometry["coordinates"] as? [[[[Double]]]])
            let explored = properties["kind"] as? String == "explored"
            if !explored { outlines.append("\(properties["level"]!)/\(properties["code"]!)") }
            for polygon in polygons {
                for (k, ring) in polygon.enumerated() {
                    XCTAssertGreaterThanOrEqual(ring.count, 4)
                    XCTAssertEqual(ring.first ?? [], ring.last ?? [], "ring not closed")
                    var shoelace = 0.0, ringArea = 0.0
                    for (p, q) in zip(ring, ring.dropFirst()) {
                        XCTAssertTrue((-180...180).contains(p[0]) && (-90...90).contains(p[1]))
                        shoelace += p[0] * q[1] - q[0] * p[1]
                        if explored {
                            // Cells merge into edges along meridians and parallels only.
                            XCTAssertTrue(p[0] == q[0] || p[1] == q[1], "diagonal edge \(p) → \(q)")
                            if p[1] == q[1] { ringArea -= (q[0] - p[0]) / 360 * zone(p[1]) }
                        }
                    }
                    // RFC 7946: outer rings counterclockwise, holes clockwise.
                    XCTAssertEqual(shoelace > 0, k == 0, "winding of ring \(k) of \(properties["code"] ?? "")")
                    area += ringArea
                }
            }
            if explored { cells += try XCTUnwrap(properties["cells"] as? Int) }
        }
        XCTAssertEqual(cells, metrics["exploredCellCount"] as? Int)
        // The polygons' area is the cells' area: the report's globalAreaKm2 (4 decimals), and
        // about 625 m² a cell (the grid's cells are within 0.5% of it).
        XCTAssertEqual(area / 1e6, try XCTUnwrap(metrics["globalAreaKm2"] as? Double), accuracy: 0.0001)
        XCTAssertEqual(area / Double(cells), 625, accuracy: 625 * 0.005)
        // One outline per unlock, styled with the report's properties.
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        let expected = [("countries", "country"), ("provinces", "province"), ("cities", "city"), ("counties", "county")].flatMap { key, level in
            (unlocks[key] ?? []).map { "\(level)/\($0["code"]!)" }
        }
        XCTAssertEqual(outlines, expected)
        let dongcheng = try XCTUnwrap(features.first { ($0["properties"] as? [String: Any])?["code"] as? String == "110101" }?["properties"] as? [String: Any])
        XCTAssertEqual(dongcheng["englishName"] as? String, "Dongcheng District")
        let reported = try XCTUnwrap(unlocks["counties"]?.first { $0["code"] as? String == "110101" })
        XCTAssertEqual(dongcheng["exploredPercent"] as? Double, reported["exploredPercent"] as? Double)
    }

    func testThePageRendersInHeadlessChromium() throws {
        let out = try temporaryDirectory()
        let chromium = try HeadlessChromium(profile: out + "/profile")
        let (report, _, html) = try map(out)
        // Self-contained: nothing to fetch.
        for pattern in ["http://", "https://", "src=", "@import", "url("] { XCTAssertFalse(html.contains(pattern), pattern) }
        XCTAssertLessThan(html.utf8.count, 5_000_000)
        let page = "file://" + out + "/footprint.html"
        let (dom, console) = try chromium.dom(of: page)
        // Five maps (China by province, city and county, the world, the close-up), each marked
        // by the page's script once it ran, and the growth chart.
        XCTAssertEqual(dom.components(separatedBy: "<svg class=\"map\"").count - 1, 5)
        XCTAssertEqual(dom.components(separatedBy: "data-ready=\"1\"").count - 1, 5)
        XCTAssertTrue(dom.contains("id=\"growth\""))
        // Every unlock in a table row, with its English name.
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        XCTAssertEqual(dom.components(separatedBy: "<tr><td>").count - 1, unlocks.values.reduce(0) { $0 + $1.count })
        XCTAssertTrue(dom.contains("<td>东城区</td><td>Dongcheng District</td>"))
        XCTAssertEqual(console, [], "console messages")
        let png = try chromium.screenshot(of: page, width: 940, height: 1400,
                                          to: ProcessInfo.processInfo.environment["ADMINUNLOCKS_FOOTPRINT_SCREENSHOT"] ?? out + "/footprint.png")
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertGreaterThan(png.count, 20_000)
    }
}
