import ChinaDatum
import RegionTables

/// A region's explorer tiles at one zoom: how many of its tiles were visited, of how many.
public struct RegionTileCount: Equatable, Sendable {
    public var visited: Int
    /// Nil when no visited tile lies in the region's bounding box: then `visited` is 0 and the
    /// total is not counted (a region only passed through costs no scan).
    public var total: Int?

    /// Visited over total, percent (0 without a visited tile near it); nil for a region without a
    /// tile centre inside it.
    public var percent: Double? {
        guard let total else { return 0 }
        return total > 0 ? Double(visited) / Double(total) * 100 : nil
    }
}

/// Counts the tiles of regions: a tile belongs to the region whose stored polygon holds the
/// tile's centre (the midpoint of its Mercator square). The China table's GCJ-02 rings are
/// brought to WGS-84 first, as tiles are WGS-84.
///
/// Each unit's rings are scanned row by row: the crossings of the row's centre line with the
/// ring edges (half-open in latitude, so a vertex on the line counts once) pair up into intervals,
/// and the tile centres in an interval (half-open in longitude: a centre on a border shared by two
/// units counts in one) are counted without testing them one by one. Work grows with the rows
/// and edges, not with the tiles, so China or Russia at zoom 17 stays cheap.
package struct RegionTileCounter {
    private let table: RegionTable
    /// The visited tiles by zoom (keys of that zoom).
    private let visited: [Int: TileList]
    /// Units' rings in z17 tile coordinates, converted once per run.
    private var unitRings: [Int32: [[(x: Double, y: Double)]]] = [:]
    /// Arcs' vertices in z17 tile coordinates, converted once per run (each arc bounds two units).
    private var convertedArcs: [Int: [(x: Double, y: Double)]] = [:]
    private var unitsByRegion: [Int32: [Int32]]?
    /// Each unit's counts by zoom: a county, its city and its province share their units.
    private var unitCounts: [Int: [Int32: (visited: Int, total: Int)]] = [:]

    /// A counter of `table`'s regions' tiles, `visited` the archive's visited tiles by zoom.
    package init(table: RegionTable, visited: [Int: TileList]) {
        self.table = table
        self.visited = visited
    }

    /// The visited and total tiles at `zoom` of each region of `regions` (indices in the table).
    package mutating func counts(ofRegions regions: [Int32], zoom: Int) -> [Int32: RegionTileCount] {
        let visited = self.visited[zoom] ?? TileList()
        let units = regionUnits()
        var result: [Int32: RegionTileCount] = [:]
        for region in Set(regions) {
            guard hasVisitedTile(near: table.region(region), zoom: zoom, visited: visited) else {
                result[region] = RegionTileCount(visited: 0, total: nil)
                continue
            }
            var count = RegionTileCount(visited: 0, total: 0)
            for unit in units[region] ?? [] {
                let c: (visited: Int, total: Int)
                if let known = unitCounts[zoom]?[unit] { c = known } else {
                    c = countUnit(unit, zoom: zoom, visited: visited)
                    unitCounts[zoom, default: [:]][unit] = c
                }
                count.visited += c.visited
                count.total! += c.total
            }
            result[region] = count
        }
        return result
    }

    private mutating func regionUnits() -> [Int32: [Int32]] {
        if unitsByRegion == nil {
            var map: [Int32: [Int32]] = [:]
            for unit in 0..<Int32(table.unitCount) {
                for level in table.levels {
                    if let region = table.region(ofUnit: unit, at: level) { map[region, default: []].append(unit) }
                }
            }
            unitsByRegion = map
        }
        return unitsByRegion!
    }

    private mutating func rings(ofUnit unit: Int32) -> [[(x: Double, y: Double)]] {
        if let known = unitRings[unit] { return known }
        var rings: [[(x: Double, y: Double)]] = []
        for ring in table.unitRings(unit) {
            rings.append(RegionTable.assemble(ring.arcs) { arcPoints(ofArc: $0) })
        }
        unitRings[unit] = rings
        return rings
    }

    /// An arc's vertices in z17 tile coordinates (WGS-84), converted once for all the units that
    /// share the arc.
    private mutating func arcPoints(ofArc arc: Int) -> [(x: Double, y: Double)] {
        if let known = convertedArcs[arc] { return known }
        let converter = DatumConverter()
        let gcj = table.datum == .gcj02
        let size = Double(Int64(1) << SlippyTile.storedZoom)
        let points = table.arcVertices(arc).map { vertex in
            var c = Coordinate(latitude: Double(vertex.y) * TableFormat.quantum, longitude: Double(vertex.x) * TableFormat.quantum)
            if gcj { c = converter.wgs84(fromGCJ02: c) }
            let t = SlippyTile.worldCoordinates(latitude: c.latitude, longitude: c.longitude)
            return (x: t.x * size, y: min(max(t.y, 0), 1) * size)
        }
        convertedArcs[arc] = points
        return points
    }

    private mutating func countUnit(_ unit: Int32, zoom: Int, visited: TileList) -> (visited: Int, total: Int) {
        let scale = Double(Int64(1) << (SlippyTile.storedZoom - zoom))
        let rings = rings(ofUnit: unit)
        var low = Double.infinity, high = -Double.infinity
        for ring in rings { for p in ring { low = min(low, p.y); high = max(high, p.y) } }
        guard low < high else { return (0, 0) }
        // Rows whose centre line r + 0.5 lies in [low, high).
        let firstRow = Int64((low / scale - 0.5).rounded(.up)), lastRow = Int64((high / scale - 0.5).rounded(.up)) - 1
        guard firstRow <= lastRow else { return (0, 0) }
        // Crossings of each row's centre line, in one flat array grouped by row (counted, then filled).
        let rowCount = Int(lastRow - firstRow + 1)
        func forEachCrossing(_ body: (Int, Double) -> Void) {
            for ring in rings where ring.count >= 2 {
                var a = ring[ring.count - 1]
                for b in ring {
                    let y0 = a.y / scale, y1 = b.y / scale
                    if y0 != y1 {
                        let top = min(y0, y1), bottom = max(y0, y1)
                        var row = max(Int64((top - 0.5).rounded(.up)), firstRow)
                        while row <= lastRow, Double(row) + 0.5 < bottom {
                            let y = Double(row) + 0.5
                            body(Int(row - firstRow), (a.x + (b.x - a.x) * ((y * scale - a.y) / (b.y - a.y))) / scale)
                            row += 1
                        }
                    }
                    a = b
                }
            }
        }
        var start = [Int](repeating: 0, count: rowCount + 1)
        forEachCrossing { row, _ in start[row + 1] += 1 }
        for r in 0..<rowCount { start[r + 1] += start[r] }
        var fill = start
        var crossings = [Double](repeating: 0, count: start[rowCount])
        forEachCrossing { row, x in
            crossings[fill[row]] = x
            fill[row] += 1
        }
        var total = 0, seen = 0
        let keys = visited.keys
        for offset in 0..<rowCount where start[offset + 1] - start[offset] >= 2 {
            crossings[start[offset]..<start[offset + 1]].sort()
            let xs = crossings[start[offset]..<start[offset + 1]]
            let row = firstRow + Int64(offset)
            // The visited tiles of this row, by binary search for its first key.
            var i = lowerBound(keys, SlippyTile.key(x: 0, y: row, zoom: zoom))
            let rowEnd = SlippyTile.key(x: 0, y: row + 1, zoom: zoom)
            var k = xs.startIndex
            while k + 1 < xs.endIndex {
                // Centres c + 0.5 in [xs[k], xs[k + 1]).
                let from = Int64((xs[k] - 0.5).rounded(.up)), to = Int64((xs[k + 1] - 0.5).rounded(.up))
                total += Int(max(0, to - from))
                while i < keys.count, keys[i] < rowEnd, SlippyTile.tile(ofKey: keys[i], zoom: zoom).x < from { i += 1 }
                while i < keys.count, keys[i] < rowEnd, SlippyTile.tile(ofKey: keys[i], zoom: zoom).x < to {
                    seen += 1
                    i += 1
                }
                k += 2
            }
        }
        return (seen, total)
    }

    /// Whether a visited tile meets the region's bounding box (widened by 0.02° for the China
    /// table's GCJ-02 shift).
    private func hasVisitedTile(near region: Region, zoom: Int, visited: TileList) -> Bool {
        guard visited.count > 0 else { return false }
        let q = TableFormat.quantum, margin = 0.02
        let box = region.boundingBox
        let nw = SlippyTile.tile(latitude: min(85, Double(box.maxY) * q + margin), longitude: max(-180, Double(box.minX) * q - margin), zoom: zoom)
        let se = SlippyTile.tile(latitude: max(-85, Double(box.minY) * q - margin), longitude: min(180, Double(box.maxX) * q + margin), zoom: zoom)
        guard nw.y <= se.y, nw.x <= se.x else { return true }
        for row in nw.y...se.y {
            let i = lowerBound(visited.keys, SlippyTile.key(x: nw.x, y: row, zoom: zoom))
            if i < visited.keys.count, visited.keys[i] <= SlippyTile.key(x: se.x, y: row, zoom: zoom) { return true }
        }
        return false
    }

    private func lowerBound(_ keys: [Int64], _ key: Int64) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
