import XCTest
@testable import TextFormats
import UnlocksTestSupport

final class JSONRenderingTests: XCTestCase {
    func testLayout() {
        let value = JSONValue.object([
            (key: "name", value: .string("a\"b")),
            (key: "list", value: .array([.number(1), .string("x"), .array([]), .object([])])),
            (key: "nums", value: .array([.number(1), .number(2.5)])),
            (key: "nested", value: .object([(key: "k", value: .null), (key: "t", value: .bool(true))])),
            (key: "f", value: .bool(false)),
        ])
        XCTAssertEqual(value.rendered(), """
            {
              "name": "a\\"b",
              "list": [
                1,
                "x",
                [],
                {}
              ],
              "nums": [1, 2.5],
              "nested": {
                "k": null,
                "t": true
              },
              "f": false
            }
            """)
        XCTAssertEqual(JSONValue.null.rendered(), "null")
        XCTAssertEqual(JSONValue.array([]).rendered(), "[]")
        XCTAssertEqual(JSONValue.object([]).rendered(), "{}")
    }

    func testCompactDepthPutsDeepValuesOnOneLine() {
        let point = JSONValue.object([(key: "t", value: .string("é\n")), (key: "at", value: .array([.number(1), .number(2.5)]))])
        let value = JSONValue.object([(key: "points", value: .array([point, point])), (key: "n", value: .number(2))])
        XCTAssertEqual(value.rendered(compactDepth: 2), """
            {
              "points": [
                {"t":"é\\n","at":[1,2.5]},
                {"t":"é\\n","at":[1,2.5]}
              ],
              "n": 2
            }
            """)
        XCTAssertEqual(value.rendered(compactDepth: 0), value.compactRendered())
        XCTAssertEqual(value.rendered(compactDepth: .max), value.rendered())
        XCTAssertEqual(value.renderedUTF8(compactDepth: 2), Array(value.rendered(compactDepth: 2).utf8))
        XCTAssertEqual(value.compactRenderedUTF8(), Array(value.compactRendered().utf8))
    }

    func testStringEscaping() throws {
        let text = "q\"b\\s/\n\r\t\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}é漢😀\u{2028}"
        let rendered = JSONValue.string(text).rendered()
        XCTAssertEqual(rendered, #""q\"b\\s/\n\r\t\u0008\u000c\u0000\u0001\u001f"# + "\u{7F}é漢😀\u{2028}\"")
        // No raw control characters survive.
        XCTAssertFalse(rendered.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertEqual(try parse(rendered), .string(text))
        // Member names are escaped the same way.
        let object = JSONValue.object([(key: "a\"\n\u{1}", value: .number(1))])
        XCTAssertEqual(object.rendered(), "{\n  \"a\\\"\\n\\u0001\": 1\n}")
        XCTAssertEqual(try parse(object.rendered()), object)
    }

    func testNumberFormatting() {
        let cases: [(Double, String)] = [
            (0, "0"), (1, "1"), (-3, "-3"), (42, "42"), (1e14, "100000000000000"),
            (123456789012345, "123456789012345"), (-999999999999999, "-999999999999999"),
            (0.1, "0.1"), (0.5, "0.5"), (-2.25, "-2.25"), (116.397128, "116.397128"),
            (1e15, "1000000000000000"), (-4e15, "-4000000000000000"), (0x1p53, "9007199254740992"), (1e16, "1e+16"), (1e-7, "1e-07"), (1.5e300, "1.5e+300"), (.leastNonzeroMagnitude, "5e-324"),
            (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
        ]
        for (number, text) in cases {
            XCTAssertEqual(JSONValue.number(number).rendered(), text, "\(number)")
        }
        XCTAssertEqual(JSONValue.array([.number(1), .number(0.1), .number(.nan), .number(-0.0)]).rendered(), "[1, 0.1, null, 0]")
        XCTAssertEqual(JSONValue.object([(key: "x", value: .number(.nan))]).rendered(), "{\n  \"x\": null\n}")
    }

    func testIndentParameter() {
        let value = JSONValue.array([.object([(key: "a", value: .number(1))])])
        XCTAssertEqual(value.rendered(indent: 2), "[\n    {\n      \"a\": 1\n    }\n  ]")
    }

    func testCoordinatesRenderNested() throws {
        let doc = try parse(#"{"type":"Polygon","coordinates":[[[0,0],[1.5,0],[1,1,7],[0,0]],[[0.2,0.2],[0.3,0.2],[0.2,0.3],[0.2,0.2]]]}"#)
        let rendered = doc.rendered()
        XCTAssertEqual(rendered, """
            {
              "type": "Polygon",
              "coordinates": [[[0, 0], [1.5, 0], [1, 1, 7], [0, 0]], [[0.2, 0.2], [0.3, 0.2], [0.2, 0.3], [0.2, 0.2]]]
            }
            """)
        let again = try parse(rendered)
        XCTAssertEqual(again, doc)
        XCTAssertEqual(try GeoJSON.polygons(again), try GeoJSON.polygons(doc))
        XCTAssertEqual(try parse(#"{"coordinates": []}"#).rendered(), "{\n  \"coordinates\": []\n}")
        XCTAssertEqual(try parse(#"{"coordinates": [[]]}"#).rendered(), "{\n  \"coordinates\": [[]]\n}")
        XCTAssertEqual(try parse(#"{"coordinates": [[1,2],[]]}"#).rendered(), "{\n  \"coordinates\": [[1, 2], []]\n}")
        XCTAssertEqual(try parse(#"{"coordinates": [5]}"#).rendered(), "{\n  \"coordinates\": [5]\n}")
    }

    func testParsedDocumentRoundTrips() throws {
        let text = """
            \u{FEFF}{"type": "FeatureCollection", "name": "测试 \\"q\\" \\u0001\\n", "features": [
              {"type": "Feature", "properties": {"adcode": 110000, "name": "北京市", "center": [116.405285, 39.904989],
                "parent": {"adcode": 100000}, "ratio": 0.1, "big": 1e300, "small": -2.5e-10, "neg0": -0,
                "flags": [true, false, null], "dup": 1, "dup": 2, "empty": {}, "none": [], "emoji": "\\ud83d\\ude00"},
               "geometry": {"type": "MultiPolygon", "coordinates": [[[[116.1,39.1],[117.2,39.1],[117.2,40.3],[116.1,39.1]],
                 [[116.5,39.5],[116.6,39.5],[116.6,39.6],[116.5,39.5]]], [[[115,38],[115.5,38],[115.5,38.5,12.5],[115,38]]]]}},
              {"type": "Feature", "properties": null, "geometry": null}
            ]}
            """
        let value = try JSONParser.parse(Array(text.utf8))
        let first = value.rendered()
        let second = value.rendered()
        XCTAssertEqual(Array(first.utf8), Array(second.utf8), "two renders are byte-identical")
        let reparsed = try parse(first)
        XCTAssertEqual(reparsed, value)
        XCTAssertEqual(reparsed.rendered(), first, "rendering is a fixed point")
        XCTAssertEqual(try GeoJSON.polygons(reparsed), try GeoJSON.polygons(value))
        XCTAssertEqual(try GeoJSON.polygons(reparsed).count, 2)
        guard case let .object(members)? = reparsed["features"]?.arrayValue?.first?["properties"] else { return XCTFail() }
        XCTAssertEqual(members.filter { $0.key == "dup" }.map(\.value), [.number(1), .number(2)])
    }

    func testRandomValuesRoundTrip() throws {
        var random = SplitMix64(seed: 0x5eed)
        let scalars: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{8}", "\u{C}",
                                        "\u{1F}", "\u{7F}", "é", "漢", "😀", "\u{2028}", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "{", "]", ","]
        func string() -> String {
            var s = String.UnicodeScalarView()
            for _ in 0..<random.below(12) { s.append(scalars[random.below(scalars.count)]) }
            return String(s)
        }
        func number() -> Double {
            switch random.below(5) {
            case 0: return Double(random.below(2_000_001) - 1_000_000)
            case 1: return Double(random.below(2_000_000_001) - 1_000_000_000) / 1e6
            case 2: return Double(random.below(1000)) / 10
            default:
                while true {
                    let d = Double(bitPattern: random.next())
                    if d.isFinite { return d }
                }
            }
        }
        func coordinateText(level: Int, depth: Int, first: Bool) -> String {
            if level == depth - 1 { return "[" + (0..<(2 + random.below(2))).map { _ in "\(number())" }.joined(separator: ",") + "]" }
            let count = first ? 1 + random.below(3) : random.below(4)
            return "[" + (0..<count).map { coordinateText(level: level + 1, depth: depth, first: first && $0 == 0) }.joined(separator: ",") + "]"
        }
        func value(_ depth: Int) throws -> JSONValue {
            switch random.below(depth > 4 ? 5 : 8) {
            case 0: return .null
            case 1: return .bool(random.chance(50))
            case 2, 3: return .number(number())
            case 4: return .string(string())
            case 5: return .array(try (0..<random.below(5)).map { _ in try value(depth + 1) })
            case 6:
                var members: [(key: String, value: JSONValue)] = []
                for _ in 0..<random.below(5) {
                    let key = random.chance(20) ? (members.last?.key ?? "k") : string()
                    members.append((key, try value(depth + 1)))
                }
                return .object(members)
            default:
                let text = #"{"coordinates": "# + coordinateText(level: 0, depth: 1 + random.below(4), first: true) + "}"
                // Only a member named "coordinates" holds a compact array.
                let object = try parse(text)
                guard case .coordinates? = object["coordinates"] else { throw JSONError(offset: -1, reason: "no coordinates in \(text)") }
                return object
            }
        }
        for round in 0..<2_000 {
            let original = try value(0)
            let text = original.rendered()
            XCTAssertEqual(text, original.rendered())
            let reparsed: JSONValue
            do { reparsed = try parse(text) } catch {
                XCTFail("round \(round): \(error) in \(text)")
                continue
            }
            XCTAssertEqual(reparsed, original, "round \(round): \(text)")
            XCTAssertEqual(reparsed.rendered(), text, "round \(round)")
        }
    }
}

/// `JSONTextBuffer`, the token writer for documents written piece by piece.
final class JSONTextBufferTests: XCTestCase {
    func decimal(_ value: Double, _ places: Int) -> String {
        var text = JSONTextBuffer()
        text.decimal(value, places: places)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    func testDecimalsAreFixedPlacesWithoutTrailingZerosOrExponents() {
        XCTAssertEqual(decimal(116.39123449, 7), "116.3912345")
        XCTAssertEqual(decimal(39.9, 7), "39.9")
        XCTAssertEqual(decimal(12, 1), "12")
        XCTAssertEqual(decimal(-0.05, 1), "-0.1")
        XCTAssertEqual(decimal(-0.04, 1), "0")
        XCTAssertEqual(decimal(0.0000001, 7), "0.0000001")
        XCTAssertEqual(decimal(-179.99999999, 7), "-180")
        XCTAssertEqual(decimal(.nan, 3), "null")
        var text = JSONTextBuffer()
        text.decimal(nil, places: 1)
        XCTAssertEqual(text.bytes, Array("null".utf8))
    }

    /// Whatever it writes parses back to the value rounded to its places.
    func testDecimalsParseBackToTheRoundedValue() throws {
        var generator = SplitMix64(seed: 1001)
        for _ in 0..<2000 {
            let value = Double.random(in: -200...200, using: &generator)
            let places = Int.random(in: 0...7, using: &generator)
            let parsed = try JSONParser.parse(Array(decimal(value, places).utf8)).numberValue
            XCTAssertEqual(parsed, rounded(value, places), "\(value) to \(places) places")
        }
    }

    func testTokensMakeAValidDocument() throws {
        var text = JSONTextBuffer()
        text.raw("{\"name\":")
        text.string("quote \" and \\ and \n")
        text.raw(",\"n\":")
        text.integer(-42)
        text.raw(",\"x\":")
        text.decimal(0.1, places: 3)
        text.raw(",\"ok\":")
        text.bool(true)
        text.raw(",\"none\":")
        text.string(nil as String?)
        text.raw("}")
        let value = try JSONParser.parse(text.bytes)
        XCTAssertEqual(value["name"]?.stringValue, "quote \" and \\ and \n")
        XCTAssertEqual(value["n"]?.numberValue, -42)
        XCTAssertEqual(value["x"]?.numberValue, 0.1)
    }
}
