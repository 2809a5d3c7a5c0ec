import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import UnlocksTestSupport
import XCTest

/// footprint.html and footprint-card.svg in real Chromium, at a laptop's size and at a phone's
/// with mobile emulation: nothing sticks out sideways, nothing is fetched, nothing is logged, the
/// map zooms by wheel, button and pinch down to the streets, pans by a drag, shows cells by
/// familiarity and the max square where the report puts them, text stays legible, a tap names the region under it (checked against
/// `unlocks locate`), and the decoded cells are the report's.
final class MapPageBrowserTests: XCTestCase {
    /// Screenshots go to $ADMINUNLOCKS_SCREENSHOTS (Scripts/test: docs/) when set.
    static func keep(_ png: Data, as name: String) throws {
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47], name)
        XCTAssertGreaterThan(png.count, 20_000, name)
        guard let folder = ProcessInfo.processInfo.environment["ADMINUNLOCKS_SCREENSHOTS"], !folder.isEmpty else { return }
        try png.write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    /// Web Mercator of a point, written here independently of the page.
    static func mercator(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let phi = latitude * .pi / 180
        return ((longitude + 180) / 360, (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2)
    }

    /// The region codes `unlocks locate` gives a point, with the finest level's margin.
    func locate(_ latitude: Double, _ longitude: Double) throws -> [String: Any] {
        let result = try CommandRunner.run(["locate", "--tables", ClassifyCommandTests.tables, "--format", "jsonl"], input: Data("\(latitude),\(longitude)\n".utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func open(_ file: String, on device: DevToolsPage.Device, in folder: String) throws -> DevToolsPage {
        let page = try DevToolsPage(url: "file://" + file, device: device, profile: folder + "/profile-\(device.width)")
        try page.waitUntil("document.documentElement.getAttribute('data-ready') === '1'")
        return page
    }

    func zoom(_ page: DevToolsPage) throws -> Double { try XCTUnwrap(page.evaluate("footprintMap.view().zoom") as? Double) }

    /// Shows the map at a point and zoom, taps (clicks) the map's centre, and returns what the
    /// page says is there.
    func tap(_ page: DevToolsPage, latitude: Double, longitude: Double, zoom: Double, level: String) throws -> String {
        let p = Self.mercator(latitude: latitude, longitude: longitude)
        _ = try page.evaluate("document.getElementById('level').value = '\(level)'; document.getElementById('level').dispatchEvent(new Event('change'))")
        _ = try page.evaluate("footprintMap.setView(\(p.x), \(p.y), \(zoom))")
        let centre = try page.centre(of: "#map canvas")
        try page.click(centre)
        return try XCTUnwrap(page.evaluate("document.getElementById('info').textContent") as? String)
    }

    func testTheFootprintPageWorksOnALaptopAndAPhone() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["map", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let classify = try CommandRunner.run(["classify", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(classify.stdout.utf8)) as? [String: Any])
        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        let file = out + "/footprint.html"
        let html = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        XCTAssertLessThan(html.utf8.count, 2_000_000)
        // Points to tap, placed by the locator: deep in Dongcheng District (a county the samples
        // unlock), in Beijing away from its borders, and in Mongolia, China's neighbour.
        let dongcheng = (39.9139, 116.4103), beijing = (40.30, 116.25), mongolia = (47.92, 106.92)
        let located = try locate(dongcheng.0, dongcheng.1)
        func code(_ answer: [String: Any], _ level: String) -> String? { (answer[level] as? [String: Any])?["code"] as? String }
        XCTAssertEqual(code(located, "county"), "110101")
        XCTAssertEqual(code(try locate(beijing.0, beijing.1), "province"), "110000")
        XCTAssertEqual(code(try locate(mongolia.0, mongolia.1), "country"), "MNG")

        for (device, name) in [(DevToolsPage.Device.laptop, "laptop"), (.phone, "phone")] {
            let page = try open(file, on: device, in: out)
            XCTAssertEqual(try page.horizontalOverflow(), [], name)
            let text = try page.smallestText()
            XCTAssertEqual(text.layoutWidth, device.width, "laid out at the device's width, not a desktop's")
            XCTAssertGreaterThanOrEqual(text.pixels, 11, "legible on the \(name): \(text.element)")
            XCTAssertEqual(try page.evaluate("footprintMap.cellCount") as? Int, metrics["exploredCellCount"] as? Int, "the cells the page decoded")
            // Zoom by the gesture of the device, then by the button.
            let canvas = try page.centre(of: "#map canvas")
            let start = try zoom(page)
            if device.mobile {
                try page.pinch(at: canvas, from: 60, to: 240)
                XCTAssertEqual(try zoom(page), start + 2, accuracy: 0.3, "a pinch to four times the distance zooms in by two levels")
            } else {
                try page.wheel(at: canvas, deltaY: -250)
                XCTAssertEqual(try zoom(page), start + 1, accuracy: 0.05, "a wheel notch of 250 zooms in by one level")
            }
            let afterGesture = try zoom(page)
            try page.click(try page.centre(of: "#zoom-in"))
            XCTAssertEqual(try zoom(page), afterGesture + 1, accuracy: 0.01)
            // A drag (a finger on the phone) pans: the world moves with it, 256 · 2^zoom px a world.
            let before = try XCTUnwrap(page.evaluate("footprintMap.view()") as? [String: Any])
            try page.drag(from: try page.centre(of: "#map canvas"), to: (canvas.x - 100, canvas.y - 60))
            let after = try XCTUnwrap(page.evaluate("footprintMap.view()") as? [String: Any])
            let worldPx = 256 * pow(2, try XCTUnwrap(after["zoom"] as? Double))
            XCTAssertEqual((try XCTUnwrap(after["x"] as? Double) - (before["x"] as? Double ?? 0)) * worldPx, 100, accuracy: 1, "\(before) → \(after)")
            XCTAssertEqual((try XCTUnwrap(after["y"] as? Double) - (before["y"] as? Double ?? 0)) * worldPx, 60, accuracy: 1, "\(before) → \(after)")
            // Down to the streets: zoom 19 at most, where a walk's point (from the sample GPX)
            // lies in an explored cell about 100 px wide, drawn in its familiarity's colour.
            _ = try page.evaluate("footprintMap.setView(0.5, 0.5, 30)")
            XCTAssertEqual(try zoom(page), 19)
            let street = try tap(page, latitude: 39.9122041, longitude: 116.4107672, zoom: 19, level: "auto")
            XCTAssertTrue(street.hasSuffix("explored cell: lit"), street)
            XCTAssertEqual(Array(try page.pixel(of: "#map canvas", at: try page.centre(of: "#map canvas")).prefix(3)), [0xd7, 0x26, 0x3d], "lit cells are red, as the legend")
            // The max square of zoom 17 tiles where the report puts it: its west edge blue (the
            // cells hidden so they cannot cover it), and the land just outside it not.
            let tiles17 = try XCTUnwrap(((report["explorer"] as? [String: Any])?["tiles"] as? [[String: Any]])?.first { $0["zoom"] as? Int == 17 })
            let side = try XCTUnwrap(tiles17["maxSquare"] as? Int), origin = try XCTUnwrap(tiles17["maxSquareOrigin"] as? [String: Int])
            XCTAssertGreaterThan(side, 0)
            let n = 131_072.0, tileX = Double(try XCTUnwrap(origin["x"])), tileY = Double(try XCTUnwrap(origin["y"]))
            _ = try page.evaluate("""
            document.getElementById('tiles').value = '17'; document.getElementById('tiles').dispatchEvent(new Event('change'));
            document.getElementById('cells').checked = false; document.getElementById('cells').dispatchEvent(new Event('change'));
            footprintMap.setView(\((tileX + Double(side) / 2) / n), \((tileY + Double(side) / 2) / n), 16)
            """)
            let middle = try page.centre(of: "#map canvas"), tilePx = 256 * 65_536 / n
            let west = (middle.x - Double(side) / 2 * tilePx, middle.y)
            XCTAssertEqual(Array(try page.pixel(of: "#map canvas", at: (west.0 - 0.5, west.1)).prefix(3)), [0x1f, 0x6f, 0xeb], "the max square's edge")
            XCTAssertNotEqual(Array(try page.pixel(of: "#map canvas", at: (west.0 - 6, west.1)).prefix(3)), [0x1f, 0x6f, 0xeb], "outside the max square")
            _ = try page.evaluate("""
            document.getElementById('tiles').value = '14'; document.getElementById('tiles').dispatchEvent(new Event('change'));
            document.getElementById('cells').checked = true; document.getElementById('cells').dispatchEvent(new Event('change'))
            """)
            // A tap names what is under it: the detail near a place, the overview elsewhere, and
            // China's neighbours as countries, not sea.
            let neighbour = try tap(page, latitude: mongolia.0, longitude: mongolia.1, zoom: 5, level: "province")
            XCTAssertTrue(neighbour.contains("Mongolia") && neighbour.contains("(country: not yet)"), neighbour)
            XCTAssertEqual(Array(try page.pixel(of: "#map canvas", at: try page.centre(of: "#map canvas")).prefix(3)), [0xeb, 0xe8, 0xe1], "Mongolia drawn as land, not sea")
            let province = try tap(page, latitude: beijing.0, longitude: beijing.1, zoom: 6, level: "province")
            XCTAssertTrue(province.hasPrefix("北京市 Beijing"), province)
            let county = try tap(page, latitude: dongcheng.0, longitude: dongcheng.1, zoom: 14, level: "county")
            XCTAssertTrue(county.hasPrefix("东城区 Dongcheng District (county: confirmed"), county)
            XCTAssertTrue(county.contains("北京市 Beijing"), county)
            // Back to where it opened for the picture.
            try page.click(try page.centre(of: "#zoom-fit"))
            _ = try page.evaluate("document.getElementById('level').value = 'auto'; document.getElementById('level').dispatchEvent(new Event('change')); window.scrollTo(0, 0)")
            try Self.keep(try page.screenshot(height: device.mobile ? 1900 : 2300, scale: device.mobile ? 0.5 : 1), as: "footprint-\(name).png")
            XCTAssertEqual(page.requests, ["file://" + file], "nothing fetched")
            XCTAssertEqual(page.messages, [], "console messages")
        }
    }

    /// A person who walked in Paris, Lyon and Marseille: the page opens on France, lists three
    /// places told apart by position and no map of China, and carries only the outlines around
    /// the three (the whole page well under a megabyte).
    func testAParisLyonMarseillePageShowsThreePlacesAndNoChina() throws {
        let out = try temporaryDirectory()
        let folder = try MapCommandTests.frenchWalks(in: out)
        let result = try CommandRunner.run(["map", folder, "--tables", ClassifyCommandTests.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let file = out + "/footprint.html"
        XCTAssertLessThan(try Data(contentsOf: URL(fileURLWithPath: file)).count, 1_000_000)
        let page = try open(file, on: .phone, in: out)
        let sections = try XCTUnwrap(page.evaluate("Array.from(document.querySelectorAll('button[data-view]')).map(b => b.id + ' ' + b.querySelector('b').textContent)") as? [String])
        XCTAssertEqual(sections.count, 4, "\(sections)")
        XCTAssertTrue(sections[0].hasPrefix("view-world"), "\(sections)")
        XCTAssertFalse(sections.contains { $0.contains("china") }, "\(sections)")
        let places = sections.dropFirst()
        XCTAssertTrue(places.allSatisfy { $0.contains("法国 France · ") }, "\(sections)")
        XCTAssertEqual(Set(places.map { $0.components(separatedBy: " · ").last! }).count, 3, "told apart by position: \(sections)")
        XCTAssertEqual(try page.evaluate("footprintMap.detailCount") as? Int, 3, "one detail box around each place")
        // Opens on France: the map's centre within the three walks' box.
        let view = try XCTUnwrap(page.evaluate("footprintMap.view()") as? [String: Any])
        let south = Self.mercator(latitude: 43.29, longitude: 2.29), north = Self.mercator(latitude: 48.87, longitude: 5.38)
        XCTAssertTrue((south.x...north.x).contains(view["x"] as? Double ?? 0) && (north.y...south.y).contains(view["y"] as? Double ?? 0), "\(view)")
        let paris = try tap(page, latitude: 48.8566, longitude: 2.3522, zoom: 13, level: "auto")
        // The finest region first: Paris, the department FR-75 (ISO 3166-2), then France.
        XCTAssertTrue(paris.hasPrefix("Paris (subdivision: confirmed"), paris)
        XCTAssertTrue(paris.contains(" · 法国 France (country: confirmed"), paris)
        XCTAssertEqual(try page.horizontalOverflow(), [])
        XCTAssertEqual(page.requests, ["file://" + file])
        XCTAssertEqual(page.messages, [])
    }

    /// The card: one SVG of 1200 × 630 with the headline figures, drawn by Chromium without a
    /// request or a message.
    func testTheCardIsAPostableImage() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["map", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let file = out + "/footprint-card.svg"
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"630\""))
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse(), "well-formed XML")
        XCTAssertFalse(svg.contains("href") || svg.contains("<image") || svg.contains("<script"), "nothing to fetch or run")
        let classify = try CommandRunner.run(["classify", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables])
        let metrics = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(classify.stdout.utf8)) as? [String: Any])?["metrics"] as? [String: Any])
        let km2 = try XCTUnwrap(metrics["globalAreaKm2"] as? Double)
        XCTAssertTrue(svg.contains(">" + String(format: "%.2f", km2) + " km²<"), "the explored area")
        let page = try DevToolsPage(url: "file://" + file, device: DevToolsPage.Device(width: 1200, height: 630, scale: 1, mobile: false), profile: out + "/profile")
        try Self.keep(try page.screenshot(), as: "footprint-card.png")
        XCTAssertEqual(page.requests, ["file://" + file])
        XCTAssertEqual(page.messages, [])
    }
}
