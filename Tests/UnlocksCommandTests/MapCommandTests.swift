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
                       ["footprint-card.png", "footprint-card.svg", "footprint.geojson", "footprint.html", "next-square-z14.geojson", "next-square-z14.gpx", "next-square-z17.geojson",
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
        let expected = [("countries", "country"), ("subdivisions", "subdivision"), ("provinces", "province"), ("cities", "city"), ("counties", "county")].flatMap { key, level in
            (unlocks[key] ?? []).map { "\(level)/\($0["code"]!)" }
        }
        XCTAssertEqual(outlines, expected)
        let dongcheng = try XCTUnwrap(features.first { ($0["properties"] as? [String: Any])?["code"] as? String == "110101" }?["properties"] as? [String: Any])
        XCTAssertEqual(dongcheng["englishName"] as? String, "Dongcheng District")
        let reported = try XCTUnwrap(unlocks["counties"]?.first { $0["code"] as? String == "110101" })
        XCTAssertEqual(dongcheng["exploredPercent"] as? Double, reported["exploredPercent"] as? Double)
    }

    /// A GPX walk through `points` (latitude, longitude), a fix every 5 s from `start` (seconds
    /// since the epoch), with 20 fixes between two points.
    static func walk(_ points: [(Double, Double)], start: Int) -> String {
        var out = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        var t = start
        for (a, b) in zip(points, points.dropFirst()) {
            for k in 0..<20 {
                let f = Double(k) / 20
                let date = Date(timeIntervalSince1970: Double(t))
                out += "<trkpt lat=\"\(a.0 + (b.0 - a.0) * f)\" lon=\"\(a.1 + (b.1 - a.1) * f)\"><time>\(ISO8601DateFormatter().string(from: date))</time></trkpt>\n"
                t += 5
            }
        }
        return out + "</trkseg></trk></gpx>\n"
    }

    /// Walks in Paris, Lyon and Marseille (and nothing in China), the Paris one seven months
    /// before the others.
    static func frenchWalks(in parent: String) throws -> String {
        let folder = parent + "/france"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let walks: [(String, [(Double, Double)], Int)] = [
            ("paris.gpx", [(48.8530, 2.3499), (48.8566, 2.3522), (48.8606, 2.3376), (48.8584, 2.2945)], 1_696_150_800),   // 2023-10-01
            ("lyon.gpx", [(45.7578, 4.8320), (45.7640, 4.8357), (45.7676, 4.8343)], 1_714_550_400),                         // 2024-05-01
            ("marseille.gpx", [(43.2951, 5.3745), (43.2965, 5.3698), (43.2976, 5.3620)], 1_714_723_200),                   // 2024-05-03
        ]
        for (name, points, start) in walks { try Data(Self.walk(points, start: start).utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        return folder
    }

    /// `map --state S` draws the state alone, the same bytes as the inputs themselves; a missing
    /// state is an error, not an empty map; `--jobs` gives the same bytes; the help says what
    /// `--state` does for a map.
    func testTheMapIsDrawnFromAStateAlone() throws {
        let folder = try temporaryDirectory(), state = folder + "/state"
        XCTAssertEqual(try CommandRunner.run(["classify", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--state", state]).status, 0)
        let fromState = try CommandRunner.run(["map", "--state", state, "--tables", ClassifyCommandTests.tables, "--out", folder + "/a"])
        XCTAssertEqual(fromState.status, 0, fromState.stderr)
        let fromInputs = try CommandRunner.run(["map", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", folder + "/b", "--jobs", "2"])
        XCTAssertEqual(fromInputs.status, 0, fromInputs.stderr)
        let oneJob = try CommandRunner.run(["map", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", folder + "/c", "--jobs", "1"])
        XCTAssertEqual(oneJob.status, 0, oneJob.stderr)
        for name in ["footprint.html", "footprint.geojson", "footprint-card.svg", "footprint-card.png", "tiles-z17.geojson"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/a/" + name))
            XCTAssertEqual(a, try Data(contentsOf: URL(fileURLWithPath: folder + "/b/" + name)), name)
            XCTAssertEqual(a, try Data(contentsOf: URL(fileURLWithPath: folder + "/c/" + name)), name)
        }
        // The card as a PNG at story size: a PNG whose header says 1080 × 1920, drawn (not blank:
        // an image of one colour deflates to a few kilobytes).
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/a/footprint-card.png")))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(String(decoding: png[12..<16], as: UTF8.self), "IHDR")
        func word(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        XCTAssertEqual(word(16), 1080)
        XCTAssertEqual(word(20), 1920)
        XCTAssertGreaterThan(png.count, 100_000)
        let missing = try CommandRunner.run(["map", "--state", folder + "/no-such-state", "--tables", ClassifyCommandTests.tables, "--out", folder + "/d"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("no-such-state"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/d/footprint.html"))
        let nothing = try CommandRunner.run(["map", "--tables", ClassifyCommandTests.tables, "--out", folder + "/e"])
        XCTAssertEqual(nothing.status, 2, "no input and no state is a usage error")
        let help = try CommandRunner.run(["map", "--help"])
        let line = try XCTUnwrap(help.stdout.split(separator: "\n").first { $0.contains("--state FILE") && !$0.contains("Usage") })
        XCTAssertTrue(line.contains("read, never written"), String(line))
        XCTAssertFalse(help.stdout.contains("new ones added"), "classify's wording of --state")
        XCTAssertTrue(help.stdout.contains("--jobs N"))
    }

    /// Sections in the order of where the person has been: someone who walked in Paris, Lyon and
    /// Marseille and once, briefly, in Beijing sees the world, then the three French places (most
    /// cells first), then Beijing, and China's three maps last; a Paris-only walker sees Paris
    /// first and no map of China.
    func testSectionsFollowWhereThePersonHasBeen() throws {
        func sections(_ folder: String) throws -> [String] {
            let out = try temporaryDirectory()
            let result = try CommandRunner.run(["map", folder, "--tables", ClassifyCommandTests.tables, "--out", out])
            XCTAssertEqual(result.status, 0, result.stderr)
            let html = try String(contentsOfFile: out + "/footprint.html", encoding: .utf8)
            // Each section as its id and title: `id="view-ID"><b>TITLE</b>`.
            return html.components(separatedBy: "data-view=\"").dropFirst().compactMap { button in
                guard let id = button.components(separatedBy: "id=\"view-").dropFirst().first?.components(separatedBy: "\"").first,
                      let title = button.components(separatedBy: "<b>").dropFirst().first?.components(separatedBy: "</b>").first else { return nil }
                return id + " " + title
            }
        }
        let folder = try Self.frenchWalks(in: try temporaryDirectory())
        // A short stroll in Dongcheng, Beijing: 60 m, far fewer cells than any French walk.
        try Data(Self.walk([(39.9139, 116.4003), (39.9139, 116.4010)], start: 1_717_200_000).utf8).write(to: URL(fileURLWithPath: folder + "/beijing.gpx"))
        let mixed = try sections(folder)
        XCTAssertEqual(mixed.map { $0.components(separatedBy: " ")[0] }, ["world", "place-1", "place-2", "place-3", "place-4", "china-county", "china-city", "china-province"], "\(mixed)")
        XCTAssertTrue(mixed[1...3].allSatisfy { $0.contains("法国 France · ") }, "\(mixed)")
        XCTAssertTrue(mixed[4].contains("东城区 Dongcheng District"), "\(mixed)")
        let paris = try temporaryDirectory()
        try Data(Self.walk([(48.8530, 2.3499), (48.8566, 2.3522), (48.8606, 2.3376)], start: 1_696_150_800).utf8).write(to: URL(fileURLWithPath: paris + "/paris.gpx"))
        let parisOnly = try sections(paris)
        XCTAssertEqual(parisOnly.map { $0.components(separatedBy: " ")[0] }, ["place-1", "world"], "\(parisOnly)")
        XCTAssertTrue(parisOnly[0].contains("法国 France"), "\(parisOnly)")
    }

    /// The growth chart steps: flat across the seven months between the Paris walk and the others
    /// (only horizontal and vertical moves), both panels on labelled scales whose top covers the data.
    func testTheGrowthChartStepsOnLabelledScales() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["map", try Self.frenchWalks(in: try temporaryDirectory()), "--tables", ClassifyCommandTests.tables, "--out", out, "--utc-offset", "+01:00"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let html = try String(contentsOfFile: out + "/footprint.html", encoding: .utf8)
        for chart in ["growth-wide", "growth-narrow"] {
            let svg = try XCTUnwrap(html.components(separatedBy: "id=\"\(chart)\"").dropFirst().first?.components(separatedBy: "</svg>").first)
            let step = try XCTUnwrap(svg.components(separatedBy: "<path d=\"").dropFirst().first { $0.contains("stroke=\"#d7263d\"") }?.components(separatedBy: "\"").first)
            XCTAssertEqual(Set(step.filter(\.isLetter)), ["M", "H", "V"], "the total only steps: \(step)")
            XCTAssertEqual(step.filter { $0 == "V" }.count, 3, "three days with new cells")
            // Scales: a km² label on each panel's top tick, and the first and last day.
            XCTAssertTrue(svg.contains(">km²<") && svg.contains(">km²/day<"))
            XCTAssertTrue(svg.contains(">2023-10-01<") && svg.contains(">2024-05-03<"), svg)
        }
    }
}
