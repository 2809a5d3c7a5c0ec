import Foundation
import RegionTables

/// The 25 m explored grid: rows of equal meridian height, each row cut into equal columns about
/// 25 m wide at the row's centre latitude, so every cell covers about 625 m² at any latitude.
///
/// Rows are counted from the equator along the WGS-84 meridian (row r covers meridian distance
/// [25 r, 25 r + 25) metres); row r has `columnCount(row:)` columns spanning 360° of longitude from
/// −180°. The naive grid (degrees scaled by cos φ of each point) would misalign columns from one
/// latitude to the next; here every point of a row uses the same column width.
public enum ExploredGrid {
    /// Side of a cell in metres.
    public static let cellSize = 25.0
    /// WGS-84 semi-major axis and flattening.
    static let a = 6_378_137.0
    static let f = 1 / 298.257223563
    static let e2 = f * (2 - f)
    static let n = f / (2 - f)
    /// Rectifying radius: the meridian distance from the equator is A·μ, μ the rectifying latitude.
    static let rectifyingRadius = a / (1 + n) * (1 + n * n / 4 + n * n * n * n / 64)
    /// Helmert's series coefficients (Karney 2011, eq. 4 truncated at n³: error < 1 mm).
    static let alpha1 = 3 * n / 2 - 27 * n * n * n / 32
    static let alpha2 = 21 * n * n / 16
    static let alpha3 = 151 * n * n * n / 96
    static let beta1 = -3 * n / 2 + 9 * n * n * n / 16
    static let beta2 = 15 * n * n / 16
    static let beta3 = -35 * n * n * n / 48

    /// The largest row index (the pole) in each direction.
    public static let maximumRow = Int64((rectifyingRadius * .pi / 2 / cellSize).rounded(.down))

    /// Meridian distance in metres from the equator to latitude `degrees` (signed).
    public static func meridianDistance(latitude degrees: Double) -> Double {
        let phi = degrees * .pi / 180
        // Rectifying latitude μ = φ + Σ βk sin 2kφ (inverse series written in terms of φ).
        let mu = phi + beta1 * sin(2 * phi) + beta2 * sin(4 * phi) + beta3 * sin(6 * phi)
        return rectifyingRadius * mu
    }

    /// Latitude in degrees at a meridian distance (inverse of `meridianDistance`).
    public static func latitude(meridianDistance metres: Double) -> Double {
        let mu = metres / rectifyingRadius
        let phi = mu + alpha1 * sin(2 * mu) + alpha2 * sin(4 * mu) + alpha3 * sin(6 * mu)
        return phi * 180 / .pi
    }

    /// Continuous row coordinate of a latitude: its row is `floor` of this.
    @inline(__always)
    public static func rowCoordinate(latitude: Double) -> Double {
        meridianDistance(latitude: latitude) / cellSize
    }

    /// Radius of the parallel at `degrees` (N cos φ) in metres.
    static func parallelRadius(latitude degrees: Double) -> Double {
        let phi = degrees * .pi / 180
        let s = sin(phi)
        return a * cos(phi) / (1 - e2 * s * s).squareRoot()
    }

    /// Centre latitude of a row, in degrees.
    public static func centreLatitude(row: Int64) -> Double {
        latitude(meridianDistance: (Double(row) + 0.5) * cellSize)
    }

    /// How many columns row `row` has: the parallel's length at the row's centre over 25 m, at least 1.
    public static func columnCount(row: Int64) -> Int64 {
        let circumference = 2 * .pi * parallelRadius(latitude: centreLatitude(row: row))
        return max(1, Int64((circumference / cellSize).rounded()))
    }

    /// Area of any cell of `row` in m²: the row's area over its column count (the zone between the
    /// row's bounding parallels on the ellipsoid, computed exactly from the authalic formula).
    public static func cellArea(row: Int64) -> Double {
        let south = latitude(meridianDistance: Double(row) * cellSize)
        let north = latitude(meridianDistance: Double(row + 1) * cellSize)
        return (zoneArea(upTo: north) - zoneArea(upTo: south)) / Double(columnCount(row: row))
    }

    /// Area of the ellipsoid between the equator and latitude `degrees` (signed), m².
    static func zoneArea(upTo degrees: Double) -> Double { EllipsoidArea.zone(upTo: degrees) }

    /// Packs a cell into one integer key that sorts by row, then column.
    @inline(__always)
    public static func key(row: Int64, column: Int64) -> Int64 {
        ((row + maximumRow + 1) << 23) | column
    }

    /// The row and column of a key.
    public static func cell(ofKey key: Int64) -> (row: Int64, column: Int64) {
        ((key >> 23) - maximumRow - 1, key & ((1 << 23) - 1))
    }

    /// Visits every cell a straight line (in latitude/meridian-distance and longitude) from `start`
    /// to `end` passes through — the supercover: cells it only touches at a corner are included
    /// too. Longitudes are taken the short way round (across ±180° when shorter). `fraction` is how
    /// far along the line the cell is first entered (0…1), so callers can attribute it to the
    /// nearer end point.
    public static func rasterise(from start: (latitude: Double, longitude: Double),
                                 to end: (latitude: Double, longitude: Double),
                                 visit: (_ key: Int64, _ fraction: Double) -> Void) {
        var rows = RowCache()
        rows.rasterise(from: (rowCoordinate(latitude: start.latitude), start.longitude),
                       to: (rowCoordinate(latitude: end.latitude), end.longitude), visit: visit)
    }

    /// Remembers the column counts of recent rows: consecutive legs of a track stay in a few rows,
    /// and a row's column count costs several trigonometric calls.
    public struct RowCache {
        private var rows: (Int64, Int64, Int64, Int64) = (.min, .min, .min, .min)
        private var counts: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
        private var next = 0
        /// `rowCoordinate` linearised around a recent latitude (see `rowCoordinate(latitude:)`).
        private var baseLatitude = Double.nan
        private var baseRow = 0.0
        private var rowsPerDegree = 0.0
        /// `maximumRow + 1`, read once (the static is initialised lazily, a check on every read).
        private let rowOffset = ExploredGrid.maximumRow + 1

        public init() {}

        /// `ExploredGrid.key(row:column:)`.
        @inline(__always)
        private func key(row: Int64, column: Int64) -> Int64 {
            ((row + rowOffset) << 23) | column
        }

        /// `Int64(x.rounded(.down))` without a call to `floor` (the same for every x it does not trap on).
        @inline(__always)
        private static func floor(_ x: Double) -> Int64 {
            let t = Int64(x)
            return Double(t) > x ? t - 1 : t
        }

        /// `((column % columns) + columns) % columns`, without dividing when it is in range already.
        @inline(__always)
        private static func wrap(_ column: Int64, _ columns: Int64) -> Int64 {
            column >= 0 && column < columns ? column : ((column % columns) + columns) % columns
        }

        /// `ExploredGrid.rowCoordinate(latitude:)`, linearised within 0.001° (111 m) of the last
        /// exact evaluation: the curvature term there is below 10⁻⁵ m, so a point changes row only
        /// if it lies within 0.01 mm of a row's edge — and three sines per point become one multiply.
        public mutating func rowCoordinate(latitude: Double) -> Double {
            let delta = latitude - baseLatitude
            if abs(delta) <= 0.001 { return baseRow + delta * rowsPerDegree }
            baseLatitude = latitude
            baseRow = ExploredGrid.rowCoordinate(latitude: latitude)
            let phi = latitude * .pi / 180, s = sin(phi)
            let w = (1 - e2 * s * s).squareRoot()
            rowsPerDegree = a * (1 - e2) / (w * w * w) * .pi / 180 / cellSize
            return baseRow
        }

        public mutating func columnCount(row: Int64) -> Int64 {
            if rows.0 == row { return counts.0 }
            if rows.1 == row { return counts.1 }
            if rows.2 == row { return counts.2 }
            if rows.3 == row { return counts.3 }
            let count = ExploredGrid.columnCount(row: row)
            switch next {
            case 0: rows.0 = row; counts.0 = count
            case 1: rows.1 = row; counts.1 = count
            case 2: rows.2 = row; counts.2 = count
            default: rows.3 = row; counts.3 = count
            }
            next = (next + 1) & 3
            return count
        }

        /// The cell of a point given its row coordinate (see `rowCoordinate(latitude:)`).
        public mutating func key(rowCoordinate y: Double, longitude: Double) -> Int64 {
            let row = Self.floor(y)
            let columns = columnCount(row: row)
            let column = Self.floor((longitude + 180) / (360 / Double(columns)))
            return key(row: row, column: Self.wrap(column, columns))
        }

        /// `ExploredGrid.rasterise` for end points given as (row coordinate, longitude).
        public mutating func rasterise(from start: (y: Double, longitude: Double), to end: (y: Double, longitude: Double),
                                       visit: (_ key: Int64, _ fraction: Double) -> Void) {
            let y0 = start.y, y1 = end.y
            var lon1 = end.longitude
            if lon1 - start.longitude > 180 { lon1 -= 360 } else if start.longitude - lon1 > 180 { lon1 += 360 }
            let lon0 = start.longitude
            let firstRow = Self.floor(min(y0, y1)), lastRow = Self.floor(max(y0, y1))
            if firstRow == lastRow {
                // One row (the line's parameters there are 0...1, so its ends are lon0 and
                // lon0 + (lon1 - lon0), as below) and one column: the leg of a track that stays
                // in its cell, most legs at walking pace.
                let columns = columnCount(row: firstRow)
                let width = 360 / Double(columns)
                let ca = Self.floor((lon0 + 180) / width)
                if ca == Self.floor((lon0 + (lon1 - lon0) + 180) / width) {
                    return visit(key(row: firstRow, column: Self.wrap(ca, columns)), 0)
                }
            }
            for row in firstRow...lastRow {
                // The part of the line inside this row's band, as parameters t along the line.
                var tLow = 0.0, tHigh = 1.0
                if y1 != y0 {
                    let ta = (Double(row) - y0) / (y1 - y0), tb = (Double(row + 1) - y0) / (y1 - y0)
                    tLow = max(0, min(ta, tb))
                    tHigh = min(1, max(ta, tb))
                    if tLow > tHigh { continue }
                }
                let columns = columnCount(row: row)
                let width = 360 / Double(columns)
                let la = lon0 + (lon1 - lon0) * tLow, lb = lon0 + (lon1 - lon0) * tHigh
                let ca = Self.floor((la + 180) / width), cb = Self.floor((lb + 180) / width)
                let step: Int64 = cb >= ca ? 1 : -1
                var column = ca
                while true {
                    // Where along the line this column is entered (for the row's first column, where the row is).
                    let entry: Double
                    if column == ca || lon1 == lon0 {
                        entry = tLow
                    } else {
                        let boundary = Double(step > 0 ? column : column + 1) * width - 180
                        entry = (boundary - lon0) / (lon1 - lon0)
                    }
                    visit(key(row: row, column: Self.wrap(column, columns)), min(1, max(0, entry)))
                    if column == cb { break }
                    column += step
                }
            }
        }
    }

    /// The cell of one point.
    public static func key(latitude: Double, longitude: Double) -> Int64 {
        var rows = RowCache()
        return rows.key(rowCoordinate: rowCoordinate(latitude: latitude), longitude: longitude)
    }
}

extension ExploredGrid {
    /// A cell's bounds in degrees (WGS-84): its row's parallels and its column's meridians.
    public static func bounds(ofKey key: Int64) -> GeoBox {
        let (row, column) = cell(ofKey: key)
        let width = 360 / Double(columnCount(row: row))
        return GeoBox(south: latitude(meridianDistance: Double(row) * cellSize), west: -180 + Double(column) * width,
                      north: latitude(meridianDistance: Double(row + 1) * cellSize), east: -180 + Double(column + 1) * width)
    }
}

/// A box of latitudes and longitudes (degrees, WGS-84): a map's viewport, a cell's bounds. `west`
/// greater than `east` crosses the antimeridian.
public struct GeoBox: Equatable, Hashable, Sendable {
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double

    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// Whether the boxes share a point (edges included).
    public func intersects(_ other: GeoBox) -> Bool {
        guard south <= other.north, other.south <= north else { return false }
        func spans(_ box: GeoBox) -> [ClosedRange<Double>] {
            box.west <= box.east ? [box.west...box.east] : [box.west...180, -180...box.east]
        }
        return spans(self).contains { a in spans(other).contains { b in a.overlaps(b) } }
    }
}
