/// A parsed JSON value. Coordinate arrays of GeoJSON geometries are kept in a compact form
/// (``CoordinateArray``) instead of millions of tiny nested arrays.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order (duplicates kept; ``subscript(_:)`` returns the last).
    case object([(key: String, value: JSONValue)])
    /// The value of a `"coordinates"` member: nested arrays of numbers, stored flat.
    case coordinates(CoordinateArray)

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.coordinates(x), .coordinates(y)): return x == y
        default: return false
        }
    }

    /// The member named `key` of an object (the last one when repeated), else nil.
    public subscript(_ key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    public var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    public var numberValue: Double? {
        if case let .number(n) = self { return n }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case let .array(a) = self { return a }
        return nil
    }
}

/// Nested arrays of numbers (a GeoJSON `coordinates` value), flattened.
///
/// `values` holds every number in document order. `depth` is the nesting depth (1 for a
/// position, 2 for a LineString, 3 for a Polygon, 4 for a MultiPolygon). `counts[level]` lists,
/// for every array at that level (0 = outermost), how many children it has, in order; the
/// innermost level's counts are the number of values of each position. A `null` where a number
/// belongs (`[lon, lat, null]`, an elevation not recorded) is stored as NaN, which no number gives.
public struct CoordinateArray: Equatable, Sendable {
    public var depth: Int
    public var values: [Double]
    public var counts: [[Int]]

    public init(depth: Int, values: [Double], counts: [[Int]]) {
        self.depth = depth
        self.values = values
        self.counts = counts
    }
}
