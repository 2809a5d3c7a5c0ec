/// A position in a GeoJSON geometry: longitude (x) and latitude (y), in the file's datum.
public struct Position: Hashable, Sendable {
    public var x: Double
    public var y: Double

    @inlinable
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One polygon: its outer ring first, then its holes. Rings are closed (first == last).
public struct PolygonRings: Equatable, Sendable {
    public var rings: [[Position]]

    public init(rings: [[Position]]) {
        self.rings = rings
    }
}

/// What is wrong with a GeoJSON value, for an error message.
public struct GeoJSONError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Reading geometries out of parsed GeoJSON.
public enum GeoJSON {
    /// The polygons of a Polygon or MultiPolygon — bare, in a Feature, or in a FeatureCollection
    /// (all features, in order). Other geometry types are an error: a boundary must be an area.
    public static func polygons(_ value: JSONValue) throws -> [PolygonRings] {
        switch value["type"]?.stringValue {
        case "FeatureCollection":
            guard let features = value["features"]?.arrayValue else { throw GeoJSONError("FeatureCollection without a 'features' array") }
            return try features.flatMap { try polygons($0) }
        case "Feature":
            guard let geometry = value["geometry"] else { throw GeoJSONError("Feature without a 'geometry'") }
            if geometry == .null { return [] }
            return try polygons(geometry)
        case "Polygon":
            let array = try coordinates(of: value, depth: 3)
            var cursor = Cursor()
            let ringCount = array.counts[0].first ?? 0
            if ringCount == 0 { return [] }  // an empty Polygon has no outer ring: no polygon
            return [PolygonRings(rings: try (0..<ringCount).map { _ in try ring(array, &cursor, level: 1) })]
        case "MultiPolygon":
            let array = try coordinates(of: value, depth: 4)
            var result: [PolygonRings] = []
            var cursor = Cursor()
            for ringCount in array.counts[1] where ringCount > 0 {  // an empty part has no outer ring
                var rings: [[Position]] = []
                for _ in 0..<ringCount { rings.append(try ring(array, &cursor, level: 2)) }
                result.append(PolygonRings(rings: rings))
            }
            return result
        case let other?:
            throw GeoJSONError("geometry type '\(other)' is not a Polygon or MultiPolygon")
        case nil:
            throw GeoJSONError("object without a 'type'")
        }
    }

    private static func coordinates(of value: JSONValue, depth: Int) throws -> CoordinateArray {
        guard case let .coordinates(array)? = value["coordinates"] else {
            throw GeoJSONError("\(value["type"]?.stringValue ?? "geometry") without 'coordinates'")
        }
        // An empty geometry has fewer levels; treat it as no rings.
        if array.values.isEmpty { return CoordinateArray(depth: depth, values: [], counts: Array(repeating: [], count: depth)) }
        guard array.depth == depth else {
            throw GeoJSONError("\(value["type"]!.stringValue!) coordinates nested \(array.depth) deep, expected \(depth)")
        }
        return array
    }

    /// Where the next ring starts in a ``CoordinateArray``.
    private struct Cursor {
        var ring = 0, position = 0, value = 0
    }

    /// The ring at `cursor`, advancing it; `level` is the level whose counts are positions per ring.
    private static func ring(_ array: CoordinateArray, _ cursor: inout Cursor, level: Int) throws -> [Position] {
        let positions = array.counts[level][cursor.ring]
        cursor.ring += 1
        var ring: [Position] = []
        ring.reserveCapacity(positions)
        for _ in 0..<positions {
            let width = array.counts[level + 1][cursor.position]
            cursor.position += 1
            guard width >= 2 else { throw GeoJSONError("position with \(width) number(s); needs longitude and latitude") }
            let x = array.values[cursor.value], y = array.values[cursor.value + 1]
            guard x.isFinite, y.isFinite, abs(x) <= 180, abs(y) <= 90 else {
                throw GeoJSONError("position (\(x), \(y)) is outside longitude ±180 / latitude ±90")
            }
            ring.append(Position(x: x, y: y))
            cursor.value += width
        }
        guard ring.count >= 4 else { throw GeoJSONError("ring with \(ring.count) positions; a closed ring needs at least 4") }
        guard ring.first == ring.last else { throw GeoJSONError("ring is not closed (first position differs from last)") }
        return ring
    }
}
