import XCTest
@testable import TextFormats

final class GeoJSONTests: XCTestCase {
    private func polygons(_ text: String) throws -> [PolygonRings] {
        try GeoJSON.polygons(try parse(text))
    }

    private func ring(_ points: [(Double, Double)]) -> [Position] {
        points.map { Position(x: $0.0, y: $0.1) }
    }

    private let square = "[[0,0],[10,0],[10,10],[0,10],[0,0]]"
    private let hole = "[[2,2],[2,4],[4,4],[4,2],[2,2]]"
    private var squareRing: [Position] { ring([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)]) }
    private var holeRing: [Position] { ring([(2, 2), (2, 4), (4, 4), (4, 2), (2, 2)]) }

    /// Asserts that reading polygons from `text` throws a `GeoJSONError` mentioning `reason`.
    private func assertGeoJSONError(_ text: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try polygons(text)
            XCTFail("expected a GeoJSON error, got \(result)", file: file, line: line)
        } catch let error as GeoJSONError {
            XCTAssertTrue(error.reason.contains(reason), "'\(error.reason)' should mention '\(reason)'", file: file, line: line)
            XCTAssertEqual(error.description, error.reason, file: file, line: line)
        } catch {
            XCTFail("unexpected error \(type(of: error)): \(error)", file: file, line: line)
        }
    }

    // MARK: Geometries

    func testPolygonWithHole() throws {
        let result = try polygons(#"{"type": "Polygon", "coordinates": [\#(square), \#(hole)]}"#)
        XCTAssertEqual(result, [PolygonRings(rings: [squareRing, holeRing])])
    }

    func testPolygonWithElevationAndMixedWidths() throws {
        // Extra values (elevation) are skipped, and positions of different widths stay aligned.
        let result = try polygons(#"{"type":"Polygon","coordinates":[[[0,0,100],[1,0],[1,1,5,6],[0,1,7],[0,0]]]}"#)
        XCTAssertEqual(result, [PolygonRings(rings: [ring([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)])])])
    }

    func testMultiPolygonPreservesOrder() throws {
        let result = try polygons("""
            {"type": "MultiPolygon", "coordinates": [
              [\(square), \(hole)],
              [[[20,20],[21,20],[21,21],[20,20]]],
              [[[-170.5,-80.25],[-170,-80.25],[-170,-80],[-170.5,-80.25]], [[1,1],[1,2],[2,2],[1,1]], \(hole)]
            ]}
            """)
        XCTAssertEqual(result.count, 3)
        XCTAssertEqual(result[0], PolygonRings(rings: [squareRing, holeRing]))
        XCTAssertEqual(result[1], PolygonRings(rings: [ring([(20, 20), (21, 20), (21, 21), (20, 20)])]))
        XCTAssertEqual(result[2].rings.count, 3)
        XCTAssertEqual(result[2].rings[0], ring([(-170.5, -80.25), (-170, -80.25), (-170, -80), (-170.5, -80.25)]))
        XCTAssertEqual(result[2].rings[1], ring([(1, 1), (1, 2), (2, 2), (1, 1)]))
        XCTAssertEqual(result[2].rings[2], holeRing)
    }

    func testBoundaryValuesAccepted() throws {
        let result = try polygons(#"{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[180,90],[-180,90],[-180,-90]]]}"#)
        XCTAssertEqual(result[0].rings[0].map(\.x), [-180, 180, 180, -180, -180])
        XCTAssertEqual(result[0].rings[0].map(\.y), [-90, -90, 90, 90, -90])
    }

    func testMembersInAnyOrder() throws {
        // "coordinates" before "type", extra members, duplicates: the last "type" counts.
        let result = try polygons(#"{"coordinates": [\#(square)], "bbox": [0,0,10,10], "type": "LineString", "type": "Polygon"}"#)
        XCTAssertEqual(result, [PolygonRings(rings: [squareRing])])
    }

    func testEmptyGeometriesHaveNoPolygons() throws {
        XCTAssertEqual(try polygons(#"{"type":"Polygon","coordinates":[]}"#), [])
        XCTAssertEqual(try polygons(#"{"type":"Polygon","coordinates":[[]]}"#), [])
        XCTAssertEqual(try polygons(#"{"type":"MultiPolygon","coordinates":[]}"#), [])
        XCTAssertEqual(try polygons(#"{"type":"MultiPolygon","coordinates":[[]]}"#), [])
        // An empty part of a MultiPolygon contributes nothing; the other parts stay in order.
        XCTAssertEqual(try polygons(#"{"type":"MultiPolygon","coordinates":[[\#(square)], [], [\#(hole)], []]}"#),
                       [PolygonRings(rings: [squareRing]), PolygonRings(rings: [holeRing])])
    }

    // MARK: Features

    func testFeatureWithNullGeometry() throws {
        XCTAssertEqual(try polygons(#"{"type": "Feature", "properties": {}, "geometry": null}"#), [])
    }

    func testFeature() throws {
        let result = try polygons(#"{"type": "Feature", "properties": {"name": "x", "coordinates": [1]}, "geometry": {"type": "Polygon", "coordinates": [\#(square)]}}"#)
        XCTAssertEqual(result, [PolygonRings(rings: [squareRing])])
    }

    func testFeatureCollectionFlattens() throws {
        let result = try polygons("""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Polygon", "coordinates": [\(square), \(hole)]}},
              {"type": "Feature", "properties": {"n": 2}, "geometry": null},
              {"type": "Feature", "properties": {"n": 3}, "geometry": {"type": "MultiPolygon", "coordinates": [
                [[[20,20],[21,20],[21,21],[20,20]]],
                [[[30,30],[31,30],[31,31],[30,30]]]
              ]}},
              {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[40,40],[41,40],[41,41],[40,40]]]}}
            ]}
            """)
        XCTAssertEqual(result.count, 4)
        XCTAssertEqual(result[0], PolygonRings(rings: [squareRing, holeRing]))
        XCTAssertEqual(result.dropFirst().map { $0.rings[0][0].x }, [20, 30, 40])
        XCTAssertEqual(try polygons(#"{"type": "FeatureCollection", "features": []}"#), [])
    }

    // MARK: Errors

    func testLineStringIsAnError() {
        assertGeoJSONError(#"{"type": "LineString", "coordinates": [[0,0],[1,1]]}"#, "geometry type 'LineString' is not a Polygon or MultiPolygon")
        assertGeoJSONError(#"{"type": "Point", "coordinates": [0,0]}"#, "'Point'")
        assertGeoJSONError(#"{"type": "GeometryCollection", "geometries": []}"#, "'GeometryCollection'")
        assertGeoJSONError(#"{"type": "Feature", "geometry": {"type": "MultiLineString", "coordinates": [[[0,0],[1,1]]]}}"#, "'MultiLineString'")
        assertGeoJSONError(#"{"type": "polygon", "coordinates": [\#(square)]}"#, "'polygon'")
    }

    func testMissingMembers() {
        assertGeoJSONError(#"{"type": "Polygon"}"#, "Polygon without 'coordinates'")
        assertGeoJSONError(#"{"type": "MultiPolygon", "coordinates": null}"#, "MultiPolygon without 'coordinates'")
        assertGeoJSONError(#"{"type": "Polygon", "coordinates": "[[0,0]]"}"#, "without 'coordinates'")
        assertGeoJSONError(#"{"type": "Feature", "properties": {}}"#, "Feature without a 'geometry'")
        assertGeoJSONError(#"{"type": "FeatureCollection"}"#, "FeatureCollection without a 'features' array")
        assertGeoJSONError(#"{"type": "FeatureCollection", "features": {}}"#, "'features' array")
        assertGeoJSONError(#"{"coordinates": [\#(square)]}"#, "object without a 'type'")
        assertGeoJSONError(#"{"type": 3, "coordinates": [\#(square)]}"#, "without a 'type'")
        assertGeoJSONError(#"[1, 2]"#, "without a 'type'")
        assertGeoJSONError(#"{"type": "Feature", "geometry": {}}"#, "without a 'type'")
    }

    func testErrorInsideFeatureCollectionPropagates() {
        assertGeoJSONError(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[\#(square)]}},{"type":"Feature","geometry":{"type":"LineString","coordinates":[]}}]}"#, "'LineString'")
    }

    func testUnclosedRing() {
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#, "not closed")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[\#(square), [[2,2],[2,4],[4,4],[4,2],[2,2.5]]]}"#, "not closed")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[[\#(square)], [[[0,0],[1,0],[1,1],[0,0.0001]]]]}"#, "not closed")
    }

    func testRingWithTooFewPositions() {
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#, "ring with 3 positions")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0]]]}"#, "ring with 1 positions")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[\#(square), []]}"#, "ring with 0 positions")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[0,0]]]]}"#, "ring with 3 positions")
    }

    func testPositionOutOfRange() {
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[200,0],[1,1],[0,0]]]}"#, "outside longitude ±180 / latitude ±90")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[-180.0001,0],[1,1],[0,0]]]}"#, "outside")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[1,91],[1,1],[0,0]]]}"#, "outside")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,-90.5],[1,1],[0,0]]]]}"#, "outside")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]], [[0,0],[1e10,0],[1,1],[0,0]]]}"#, "outside")
    }

    func testPositionWithOneNumber() {
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[1],[1,1],[0,0]]]}"#, "position with 1 number(s)")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[[0,0],[],[1,1],[0,0]]]}"#, "position with 0 number(s)")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[[[[0],[1,0],[1,1],[0]]]]}"#, "position with 1 number(s)")
    }

    func testWrongNestingDepthForType() {
        // A Polygon written as a LineString, a MultiPolygon written as a Polygon, and vice versa.
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[0,0],[1,0],[1,1],[0,0]]}"#, "Polygon coordinates nested 2 deep, expected 3")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[\#(square)]}"#, "MultiPolygon coordinates nested 3 deep, expected 4")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[[\#(square)]]}"#, "Polygon coordinates nested 4 deep, expected 3")
        assertGeoJSONError(#"{"type":"Polygon","coordinates":[0,0]}"#, "nested 1 deep, expected 3")
        assertGeoJSONError(#"{"type":"MultiPolygon","coordinates":[[[[[0,0]]]]]}"#, "nested 5 deep, expected 4")
    }

    // MARK: Performance

    func testTwentyThousandRingsInOneMultiPolygonIsLinear() throws {
        // 10,000 polygons, each an outer ring and a hole: 20,000 rings.
        var text = #"{"type":"MultiPolygon","coordinates":["#
        for i in 0..<10_000 {
            if i > 0 { text += "," }
            let x = Double(i % 300) * 0.5 - 75, y = Double(i / 300) * 0.5 - 10
            text += "[[[\(x),\(y)],[\(x + 0.4),\(y)],[\(x + 0.4),\(y + 0.4)],[\(x),\(y + 0.4)],[\(x),\(y)]],"
            text += "[[\(x + 0.1),\(y + 0.1)],[\(x + 0.1),\(y + 0.2)],[\(x + 0.2),\(y + 0.2)],[\(x + 0.1),\(y + 0.1)]]]"
        }
        text += "]}"
        let bytes = Array(text.utf8)
        var result: [PolygonRings] = []
        let elapsed = try seconds { result = try GeoJSON.polygons(try JSONParser.parse(bytes)) }
        XCTAssertEqual(result.count, 10_000)
        XCTAssertEqual(result.reduce(0) { $0 + $1.rings.count }, 20_000)
        XCTAssertEqual(result[9_999].rings[0][0], Position(x: Double(9_999 % 300) * 0.5 - 75, y: Double(9_999 / 300) * 0.5 - 10))
        XCTAssertEqual(result[1].rings[1].count, 4)
        XCTAssertLessThan(elapsed, 1.0, "20,000 rings took \(elapsed) s")
    }

    /// 20,000 rings cost about ten times what 2,000 do (a quadratic parse would cost a hundred
    /// times): a ratio of the two, each the best of three, so a busy machine does not fail it.
    func testTwentyThousandRingsInOnePolygonIsLinear() throws {
        func polygon(_ rings: Int) -> [UInt8] {
            var text = #"{"type":"Polygon","coordinates":[[[-179,-89],[179,-89],[179,89],[-179,89],[-179,-89]]"#
            for i in 1..<rings {
                let x = Double(i % 1000) * 0.3 - 150, y = Double(i / 1000) * 0.3
                text += ",[[\(x),\(y)],[\(x + 0.1),\(y)],[\(x),\(y + 0.1)],[\(x),\(y)]]"
            }
            return Array((text + "]}").utf8)
        }
        let small = polygon(2_000), large = polygon(20_000)
        var result: [PolygonRings] = []
        func best(_ bytes: [UInt8]) throws -> Double {
            try (0..<3).map { _ in try seconds { result = try GeoJSON.polygons(try JSONParser.parse(bytes)) } }.min()!
        }
        let few = try best(small), many = try best(large)
        XCTAssertEqual(result.count, 1)
        XCTAssertEqual(result[0].rings.count, 20_000)
        XCTAssertEqual(result[0].rings[19_999][1], Position(x: Double(19_999 % 1000) * 0.3 - 150 + 0.1, y: Double(19_999 / 1000) * 0.3))
        XCTAssertLessThan(many / few, 30, "20,000 rings took \(many) s, 2,000 took \(few) s")
    }
}
