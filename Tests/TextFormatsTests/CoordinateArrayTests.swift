import XCTest
@testable import TextFormats

final class CoordinateArrayTests: XCTestCase {
    /// The compact array parsed from `{"coordinates": <text>}`.
    private func coordinates(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> CoordinateArray {
        let value = try parse(#"{"coordinates": "# + text + "}")
        guard case let .coordinates(array)? = value["coordinates"] else {
            XCTFail("not a coordinate array: \(String(describing: value["coordinates"]))", file: file, line: line)
            throw JSONError(offset: -1, reason: "test")
        }
        return array
    }

    func testPointDepth() throws {
        let point = try coordinates("[116.397128, -39.9]")
        XCTAssertEqual(point, CoordinateArray(depth: 1, values: [116.397128, -39.9], counts: [[2]]))
    }

    func testLineStringDepth() throws {
        let line = try coordinates("[[1, 2], [3, 4], [-5.5, 6e1]]")
        XCTAssertEqual(line, CoordinateArray(depth: 2, values: [1, 2, 3, 4, -5.5, 60], counts: [[3], [2, 2, 2]]))
    }

    func testPolygonDepth() throws {
        let polygon = try coordinates("[[[0,0],[10,0],[10,10],[0,0]], [[1,1],[2,1],[2,2],[1,2],[1,1]]]")
        XCTAssertEqual(polygon.depth, 3)
        XCTAssertEqual(polygon.counts, [[2], [4, 5], Array(repeating: 2, count: 9)])
        XCTAssertEqual(polygon.values, [0, 0, 10, 0, 10, 10, 0, 0, 1, 1, 2, 1, 2, 2, 1, 2, 1, 1])
    }

    func testMultiPolygonDepth() throws {
        let multi = try coordinates("""
            [ [ [[0,0],[1,0],[1,1],[0,0]] ],
              [ [[5,5],[6,5],[6,6],[5,5]], [[5.2,5.2],[5.4,5.2],[5.4,5.4],[5.2,5.2]] ],
              [ [[-1,-1],[-2,-1],[-2,-2],[-1,-1]] ] ]
            """)
        XCTAssertEqual(multi.depth, 4)
        XCTAssertEqual(multi.counts[0], [3])
        XCTAssertEqual(multi.counts[1], [1, 2, 1])
        XCTAssertEqual(multi.counts[2], [4, 4, 4, 4])
        XCTAssertEqual(multi.counts[3], Array(repeating: 2, count: 16))
        XCTAssertEqual(multi.values.count, 32)
        XCTAssertEqual(Array(multi.values.prefix(4)), [0, 0, 1, 0])
        XCTAssertEqual(Array(multi.values.suffix(2)), [-1, -1])
    }

    func testPositionsWithElevationAndMixedWidths() throws {
        let line = try coordinates("[[1, 2, 100], [3, 4, -5.5], [5, 6]]")
        XCTAssertEqual(line.depth, 2)
        XCTAssertEqual(line.counts, [[3], [3, 3, 2]])
        XCTAssertEqual(line.values, [1, 2, 100, 3, 4, -5.5, 5, 6])
    }

    func testEmptyCoordinates() throws {
        XCTAssertEqual(try coordinates("[]"), CoordinateArray(depth: 1, values: [], counts: [[0]]))
        XCTAssertEqual(try coordinates("[ \n ]"), CoordinateArray(depth: 1, values: [], counts: [[0]]))
        // An empty innermost array is an array at that depth, not a parse error.
        XCTAssertEqual(try coordinates("[[]]"), CoordinateArray(depth: 2, values: [], counts: [[1], [0]]))
        XCTAssertEqual(try coordinates("[[[]]]"), CoordinateArray(depth: 3, values: [], counts: [[1], [1], [0]]))
        XCTAssertEqual(try coordinates("[[[0,0]], []]"), CoordinateArray(depth: 3, values: [0, 0], counts: [[2], [1, 0], [2]]))
        XCTAssertEqual(try coordinates("[[1,2], []]"), CoordinateArray(depth: 2, values: [1, 2], counts: [[2], [2, 0]]))
    }

    func testWhitespaceInside() throws {
        let line = try coordinates(" [ \n[ 1 ,\t2 ] ,\r\n [3,4] ] ")
        XCTAssertEqual(line, CoordinateArray(depth: 2, values: [1, 2, 3, 4], counts: [[2], [2, 2]]))
    }

    func testCoordinatesAnywhereAreCompact() throws {
        // Any member named "coordinates" whose value is an array, at any depth.
        let value = try parse(#"{"a": [{"coordinates": [[1,2]]}], "coordinates": [3]}"#)
        XCTAssertEqual(value["coordinates"], .coordinates(CoordinateArray(depth: 1, values: [3], counts: [[1]])))
        guard case .coordinates? = value["a"]?.arrayValue?.first?["coordinates"] else { return XCTFail() }
        // Other names are ordinary arrays; non-array values stay what they are.
        XCTAssertEqual(try parse(#"{"coords": [1, 2]}"#)["coords"], .array([.number(1), .number(2)]))
        XCTAssertEqual(try parse(#"{"coordinates": null}"#)["coordinates"], .null)
        XCTAssertEqual(try parse(#"{"coordinates": "x"}"#)["coordinates"], .string("x"))
        XCTAssertEqual(try parse(#"{"coordinates": 5}"#)["coordinates"], .number(5))
        // A "coordinates" string inside an array is just a string.
        XCTAssertEqual(try parse(#"["coordinates", [1]]"#), .array([.string("coordinates"), .array([.number(1)])]))
    }

    func testNegativeZeroAndExponentsInCoordinates() throws {
        let point = try coordinates("[-0, 1.5e2, -2E-1]")
        XCTAssertEqual(point.values, [0, 150, -0.2])
        XCTAssertEqual(point.values[0].sign, .minus)
    }

    /// `null` stands for a value a position lacks (an elevation, or a coordinate: the reader then
    /// counts that one position unreadable): it is kept as NaN, the array's shape intact.
    func testNullIsANaNInItsPlace() throws {
        let value = try JSONParser.parse(Array(#"{"coordinates": [[1, 2, null], [3, null]]}"#.utf8))
        guard case let .coordinates(array)? = value["coordinates"] else { return XCTFail("\(value)") }
        XCTAssertEqual(array.values.count, 5)
        XCTAssertEqual(Array(array.values[0...1]), [1, 2])
        XCTAssertTrue(array.values[2].isNaN)
        XCTAssertEqual(array.values[3], 3)
        XCTAssertTrue(array.values[4].isNaN)
    }

    func testNonNumbersAreErrors() {
        // {"coordinates": [1, "a"]}: the string is at byte 20.
        assertJSONError(#"{"coordinates": [1, "a"]}"#, offset: 20, reason: "expected a number in coordinates")
        assertJSONError(#"{"coordinates": [true]}"#, offset: 17, reason: "expected a number")
        assertJSONError(#"{"coordinates": [[1, 2], [3, {}]]}"#, reason: "expected a number")
        assertJSONError(#"{"coordinates": [+1]}"#, offset: 17, reason: "expected a number")
        assertJSONError(#"{"coordinates": [1.]}"#, offset: 19, reason: "no digits after '.'")
        assertJSONError(#"{"coordinates": [01]}"#, offset: 18, reason: "expected ',' or ']' in coordinates")
        assertJSONError(#"{"coordinates": [1, 2,]}"#, offset: 22, reason: "expected a number")
        assertJSONError(#"{"coordinates": [1 2]}"#, offset: 19, reason: "expected ',' or ']' in coordinates")
        assertJSONError(#"{"coordinates": [[1, 2]"#, offset: 23, reason: "expected ',' or ']' in coordinates")
        assertJSONError(#"{"coordinates": [1, 2]"#, offset: 22, reason: "expected ',' or '}'")
    }

    func testRaggedDepthIsAnErrorNotACrash() {
        // Shallow first, deeper later.
        assertJSONError(#"{"coordinates": [[1,2],[[1,2]]]}"#, offset: 24, reason: "expected a number")
        assertJSONError(#"{"coordinates": [1, [2]]}"#, offset: 20, reason: "expected a number")
        // Deep first, shallower later.
        assertJSONError(#"{"coordinates": [[[1,2]],[1,2]]}"#, offset: 26, reason: "expected '['")
        assertJSONError(#"{"coordinates": [[1,2], 3]}"#, offset: 24, reason: "expected '['")
        assertJSONError(#"{"coordinates": [[], 3]}"#, reason: "expected '['")
        assertJSONError(#"{"coordinates": [[[[0,0]]], [[0,0]]]}"#, reason: "expected '['")
        // Empty first element fixes the depth; a deeper later element is ragged.
        assertJSONError(#"{"coordinates": [[], [[1,2]]]}"#, reason: "expected a number")
    }

    func testTooDeepCoordinates() throws {
        XCTAssertNoThrow(try coordinates(String(repeating: "[", count: 8) + "1" + String(repeating: "]", count: 8)))
        assertJSONError(#"{"coordinates": "# + String(repeating: "[", count: 9) + "1" + String(repeating: "]", count: 9) + "}",
                        offset: 16, reason: "coordinates nested 9 deep")
    }

    func testManyPositionsAreLinear() throws {
        // 200,000 positions in one LineString.
        var text = #"{"type":"LineString","coordinates":["#
        for i in 0..<200_000 {
            if i > 0 { text += "," }
            text += "[\(i % 360 - 180).5,\(i % 180 - 90).25]"
        }
        text += "]}"
        var array: CoordinateArray?
        let elapsed = try seconds {
            guard case let .coordinates(a)? = try parse(text)["coordinates"] else { return }
            array = a
        }
        XCTAssertEqual(array?.counts[0], [200_000])
        XCTAssertEqual(array?.counts[1].count, 200_000)
        XCTAssertEqual(array?.values.count, 400_000)
        XCTAssertEqual(array?.values.last, Double("\(199_999 % 180 - 90).25"))
        XCTAssertEqual(array?.values.first, -180.5)
        XCTAssertLessThan(elapsed, 5.0)
    }
}
