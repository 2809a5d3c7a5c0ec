import XCTest
@testable import Tracks
import UnlocksTestSupport

final class XMLScannerTests: XCTestCase {
    /// Every token of `text` as a line of text: `<qualified name id=…@depth>`, `</name@depth>`,
    /// `"text"` (consecutive pieces joined).
    func tokens(_ text: String, root: String = "kml", trickle: Bool = false) throws -> [String] {
        var source = FedSource(Array(text.utf8), feeding: trickle ? .trickle : .whole)
        var scanner = XMLScanner(path: "t.xml", format: "KML", root: root)
        defer { scanner.deallocate() }
        var out: [String] = []
        while true {
            while let token = try scanner.next() {
                switch token {
                case .startTag:
                    let name = String(decoding: scanner.name, as: UTF8.self)
                    out.append("<\(name)" + (scanner.attribute("id").map { " id=\($0)" } ?? "") + "@\(scanner.depth)>")
                case .endTag:
                    out.append("</\(String(decoding: scanner.name, as: UTF8.self))@\(scanner.depth)>")
                case .text:
                    let piece = String(decoding: scanner.text, as: UTF8.self)
                    if let last = out.last, last.hasPrefix("\"") {
                        out[out.count - 1] = String(last.dropLast()) + piece + "\""  // pieces of one text joined
                    } else {
                        out.append("\"" + piece + "\"")
                    }
                }
            }
            if scanner.finished { return out }
            let space = try scanner.inputSpace()
            scanner.received(try source.read(into: space))
        }
    }

    func testTokensNamesPrefixesAttributesAndText() throws {
        let text = """
        \u{FEFF}<?xml version="1.0"?><!-- a comment --><kml xmlns:gx="x"><gx:Track id='t&amp;1'><when>a&lt;b&#x41;&#66;</when><gx:coord><![CDATA[1 <2>]]></gx:coord><br/></gx:Track></kml>
        """
        let expected = [
            "<kml@1>", "<gx:Track id=t&1@2>", "<when@3>", "\"a<bAB\"", "</when@3>", "<gx:coord@3>", "\"1 <2>\"", "</gx:coord@3>",
            "<br@3>", "</br@3>", "</gx:Track@2>", "</kml@1>",
        ]
        XCTAssertEqual(try tokens(text), expected)
        var scanner = XMLScanner(path: "t", format: "KML", root: "kml")
        defer { scanner.deallocate() }
        let space = try scanner.inputSpace()
        let bytes = Array("<kml><gx:Track/></kml>".utf8)
        space.copyBytes(from: bytes)
        scanner.received(bytes.count)
        scanner.received(0)
        XCTAssertEqual(try scanner.next(), .startTag)
        XCTAssertTrue(scanner.hasLocalName("kml"))
        XCTAssertEqual(try scanner.next(), .startTag)
        XCTAssertTrue(scanner.hasLocalName("Track"))
        XCTAssertFalse(scanner.hasLocalName("gx:Track"))
        XCTAssertEqual(String(decoding: scanner.name, as: UTF8.self), "gx:Track")
    }

    func testReferencesAreNeverSplitAcrossReads() throws {
        let text = "<kml>" + String(repeating: "&amp;&#x4E2D;&#22269;x", count: 50) + "</kml>"
        let want = try tokens(text)
        XCTAssertEqual(want, ["<kml@1>", "\"" + String(repeating: "&中国x", count: 50) + "\"", "</kml@1>"])
        XCTAssertEqual(try tokens(text, trickle: true), want)
        // An unknown reference becomes a zero byte (spoiling a value), never an expansion.
        XCTAssertEqual(try tokens("<kml>&nbsp;1</kml>"), ["<kml@1>", "\"\u{0}nbsp;1\"", "</kml@1>"])
    }
}
