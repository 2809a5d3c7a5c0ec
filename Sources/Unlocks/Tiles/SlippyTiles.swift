import Foundation

/// Web Mercator slippy-map tiles ("explorer tiles"): the 2^z × 2^z squares of the OpenStreetMap
/// tile scheme at zoom z, x growing east from −180°, y growing south from 85.0511°. The explorer
/// metrics use zoom 14 (about 1.2 km wide in Beijing) and zoom 17 (8 × 8 inside each z14 tile).
///
/// A tile is packed into one integer key per zoom, `y << zoom | x`, so keys sort by row (north
/// first), then column. Every figure here is checked against PyPI `mercantile`
/// (`Scripts/fixtures/make-tile-fixtures`).
public enum SlippyTile {
    /// The zooms the report counts.
    public static let reportedZooms = [14, 17]
    /// The zoom each input keeps (the z14 tiles are their parents, see ``parentKey(_:from:to:)``).
    public static let storedZoom = 17
    /// Web Mercator's edge, atan(sinh π) ≈ 85.0511°: the tiles end there, so a point beyond it
    /// visits no tile (clamped to the edge row, a 1 km circle round the pole would cross every
    /// column of it).
    public static let maximumLatitude = atan(sinh(Double.pi)) * 180 / .pi

    /// A point this close (in world units, 1 = the whole width) to a tile's east or south edge is
    /// in the next tile: mercantile's rule, so a tile's own corner read back from its bounds lands in it.
    static let epsilon = 1e-14

    /// The point in world units: x in [0, 1] from −180° east, y from the north edge (0) south (1),
    /// before clamping (a latitude beyond ±85.0511° gives y outside [0, 1], ±90° an infinity).
    @inline(__always)
    public static func worldCoordinates(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let s = sin(latitude * .pi / 180)
        return (longitude / 360 + 0.5, 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi)
    }

    /// Continuous tile coordinates at `zoom`: world units plus ``epsilon``, times 2^zoom, y clamped
    /// to [0, 2^zoom] (the poles beyond Web Mercator's ±85.0511° fall on its edge rows). The tile of
    /// the point is the floor of each (x wrapped, y at most 2^zoom − 1).
    @inline(__always)
    public static func tileCoordinates(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let (x, y) = worldCoordinates(latitude: latitude, longitude: longitude)
        let size = Double(Int64(1) << zoom)
        let v = (y + epsilon) * size
        return ((x + epsilon) * size, v.isNaN ? 0 : min(max(v, 0), size))
    }

    /// The tile holding a point (mercantile's `tile`: longitude 180° is in the last column).
    public static func tile(latitude: Double, longitude: Double, zoom: Int) -> (x: Int64, y: Int64) {
        tile(tileCoordinates: tileCoordinates(latitude: latitude, longitude: longitude, zoom: zoom), zoom: zoom)
    }

    /// The tile of a point given its tile coordinates.
    @inline(__always)
    public static func tile(tileCoordinates c: (x: Double, y: Double), zoom: Int) -> (x: Int64, y: Int64) {
        let last = (Int64(1) << zoom) - 1
        let x = c.x.isNaN ? 0 : Int64(min(max(c.x.rounded(.down), 0), Double(last)))
        return (x, min(Int64(c.y.rounded(.down)), last))
    }

    /// A tile's bounds in degrees (mercantile's `bounds`).
    public static func bounds(x: Int64, y: Int64, zoom: Int) -> (west: Double, south: Double, east: Double, north: Double) {
        let size = Double(Int64(1) << zoom)
        func latitude(_ row: Int64) -> Double { atan(sinh(.pi * (1 - 2 * Double(row) / size))) * 180 / .pi }
        return (Double(x) / size * 360 - 180, latitude(y + 1), Double(x + 1) / size * 360 - 180, latitude(y))
    }

    /// The centre of a tile in degrees: the midpoint of its Mercator square (not of its latitudes).
    public static func centre(x: Int64, y: Int64, zoom: Int) -> (latitude: Double, longitude: Double) {
        let size = Double(Int64(1) << zoom)
        return (atan(sinh(.pi * (1 - 2 * (Double(y) + 0.5) / size))) * 180 / .pi, (Double(x) + 0.5) / size * 360 - 180)
    }

    @inline(__always)
    public static func key(x: Int64, y: Int64, zoom: Int) -> Int64 { y << zoom | x }

    @inline(__always)
    public static func tile(ofKey key: Int64, zoom: Int) -> (x: Int64, y: Int64) {
        (key & ((Int64(1) << zoom) - 1), key >> zoom)
    }

    /// The key of the tile at zoom `to` (≤ `from`) that holds tile `key` of zoom `from`.
    @inline(__always)
    public static func parentKey(_ key: Int64, from: Int, to: Int) -> Int64 {
        let (x, y) = tile(ofKey: key, zoom: from)
        return Self.key(x: x >> (from - to), y: y >> (from - to), zoom: to)
    }

    /// Calls `visit` with the key of every tile whose closed square the straight segment (in tile
    /// coordinates, ``tileCoordinates(latitude:longitude:zoom:)``) meets: a leg that clips a
    /// tile's corner visits it, and one through a corner shared by four tiles visits all four.
    /// Longitudes are taken the short way round (across ±180° when shorter). A tile may be
    /// visited twice (at a row's ends); callers keep sets.
    public static func supercover(from a: (x: Double, y: Double), to b: (x: Double, y: Double), zoom: Int, visit: (Int64) -> Void) {
        let size = Double(Int64(1) << zoom)
        let columns = Int64(1) << zoom
        let x0 = a.x, y0 = a.y
        var x1 = b.x
        if x1 - x0 > size / 2 { x1 -= size } else if x0 - x1 > size / 2 { x1 += size }
        let y1 = b.y
        let rows = (low: max(Int64(min(y0, y1).rounded(.up)) - 1, 0), high: min(Int64(max(y0, y1).rounded(.down)), columns - 1))
        guard rows.low <= rows.high else { return }
        for row in rows.low...rows.high {
            // The part of the segment within the closed band [row, row + 1].
            var tLow = 0.0, tHigh = 1.0
            if y1 != y0 {
                let ta = (Double(row) - y0) / (y1 - y0), tb = (Double(row + 1) - y0) / (y1 - y0)
                tLow = max(0, min(ta, tb))
                tHigh = min(1, max(ta, tb))
                if tLow > tHigh { continue }
            }
            let xa = x0 + (x1 - x0) * tLow, xb = x0 + (x1 - x0) * tHigh
            let first = Int64(min(xa, xb).rounded(.up)) - 1, last = Int64(max(xa, xb).rounded(.down))
            var column = first
            while column <= last {
                visit(key(x: ((column % columns) + columns) % columns, y: row, zoom: zoom))
                column += 1
            }
        }
    }
}

/// ``SlippyTile/tileCoordinates(latitude:longitude:zoom:)`` for a track's points: the Mercator y
/// linearised within 0.001° (111 m) of the last exact evaluation (exact beyond ±84°). The
/// curvature term there is below 2·10⁻⁵ z17 tiles (3 mm) up to 60° and 1.1·10⁻⁴ (6 mm) at 80°,
/// so a point changes tile only if it lies that close to a tile's edge — and a sine and a
/// logarithm per point become one multiply. Reset per input, so an input's tiles depend only on
/// its own points, in their order.
struct MercatorCache {
    private var baseLatitude = Double.nan
    private var baseY = 0.0
    private var rowsPerDegree = 0.0

    mutating func tileCoordinates(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let size = Double(Int64(1) << zoom)
        let x = (longitude / 360 + 0.5 + SlippyTile.epsilon) * size
        let delta = latitude - baseLatitude
        // Near the poles the linear term is no good: exact there.
        if abs(delta) <= 0.001, abs(latitude) < 84 { return (x, min(max(baseY + delta * rowsPerDegree, 0), size)) }
        let exact = SlippyTile.tileCoordinates(latitude: latitude, longitude: longitude, zoom: zoom)
        baseLatitude = latitude
        baseY = exact.y
        // dy/dφ = −sec φ / 2π in world units per radian.
        rowsPerDegree = -size / (2 * .pi) / cos(latitude * .pi / 180) * .pi / 180
        return (x, exact.y)
    }
}

/// Tiles in ascending key order at one zoom, each with its first visit (milliseconds rounded down
/// to the second, `Int64.max` untimed): what an input keeps, and the archive's union.
public struct TileList: Equatable, Sendable {
    public private(set) var keys: [Int64] = []
    public private(set) var times: [Int64] = []

    public init() {}

    /// Tiles already in ascending key order, each once (the caller checks).
    init(sortedKeys keys: [Int64], times: [Int64]) {
        self.keys = keys
        self.times = times
    }

    /// The tiles of a key → time table, sorted.
    public init(_ table: [Int64: Int64]) {
        let sorted = table.keys.sorted()
        keys = sorted
        times = sorted.map { table[$0]! }
    }

    public var count: Int { keys.count }

    /// The parents at zoom `to` of these tiles of zoom `from`, each with its children's earliest visit.
    public func parents(from: Int, to: Int) -> TileList {
        var table: [Int64: Int64] = [:]
        for (key, time) in zip(keys, times) {
            let parent = SlippyTile.parentKey(key, from: from, to: to)
            table[parent] = min(table[parent] ?? .max, time)
        }
        return TileList(table)
    }

    /// Every tile of the lists with its earliest visit (``SortedKeyMerge``).
    public static func union(_ lists: [TileList]) -> TileList {
        SortedKeyMerge.union(lists, empty: TileList(), count: \.count) { a, b in
            let merged = SortedKeyMerge.merge(a.keys, a.times, b.keys, b.times, earlier: min)
            return TileList(sortedKeys: merged.keys, times: merged.values)
        }
    }
}

/// The tiles one input visits while it is read: key → earliest second, with the last tile
/// remembered (consecutive legs of a track stay in one z17 tile for dozens of points).
struct TileTable {
    private(set) var tiles: [Int64: Int64] = [:]
    private var lastKey = Int64.min
    private var lastTime = Int64.min

    @inline(__always)
    mutating func visit(_ key: Int64, time: Int64) {
        if key == lastKey, time >= lastTime { return }
        if let known = tiles[key], known <= time {
            lastKey = key
            lastTime = known
            return
        }
        tiles[key] = time
        lastKey = key
        lastTime = time
    }
}
