import Foundation
import UnlocksTestSupport
import XCTest

/// audit.html in real Chromium at a laptop's size and at a phone's with mobile emulation: one map
/// per episode, nothing sticking out sideways (tables scroll in their own box, maps shrink to
/// their card), nothing fetched, nothing logged.
final class AuditPageBrowserTests: XCTestCase {
    func testTheAuditPageFitsALaptopAndAPhone() throws {
        let out = try temporaryDirectory()
        let result = try CommandRunner.run(["audit", ClassifyCommandTests.samples, "--tables", ClassifyCommandTests.tables, "--out", out, "--source", ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        let audit = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/audit.json"))) as? [String: Any])
        let episodes = try XCTUnwrap(audit["episodes"] as? [[String: Any]]).count
        let file = out + "/audit.html"
        let html = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        for (device, name) in [(DevToolsPage.Device.laptop, "laptop"), (.phone, "phone")] {
            let page = try DevToolsPage(url: "file://" + file, device: device, profile: out + "/profile-\(name)")
            XCTAssertEqual(try page.evaluate("document.querySelectorAll('section.ep svg').length") as? Int, episodes)
            XCTAssertEqual(try page.horizontalOverflow(), [], name)
            let text = try page.smallestText()
            XCTAssertEqual(text.layoutWidth, device.width, "laid out at the device's width, not a desktop's")
            XCTAssertGreaterThanOrEqual(text.pixels, 11, "legible on the \(name): \(text.element)")
            // Every episode's map within its card, at its own aspect.
            let maps = try XCTUnwrap(page.evaluate("""
            Array.from(document.querySelectorAll('section.ep')).map(s => {
              const c = s.getBoundingClientRect(), m = s.querySelector('svg').getBoundingClientRect();
              return [m.left >= c.left && m.right <= c.right, Math.round(m.width / m.height * 100)];
            })
            """) as? [[Any]])
            XCTAssertEqual(maps.count, episodes)
            for map in maps {
                XCTAssertEqual(map[0] as? Bool, true, "a map sticks out of its card on the \(name)")
                XCTAssertEqual(map[1] as? Int, Int((560.0 / 380 * 100).rounded()), "the map keeps its aspect on the \(name)")
            }
            try MapPageBrowserTests.keep(try page.screenshot(height: device.mobile ? 1900 : 1700, scale: device.mobile ? 0.5 : 1), as: "audit-\(name).png")
            XCTAssertEqual(page.requests, ["file://" + file], "nothing fetched")
            XCTAssertEqual(page.messages, [], "console messages")
        }
    }
}
