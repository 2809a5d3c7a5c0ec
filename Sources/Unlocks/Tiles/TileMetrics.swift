/// The explorer figures of a set of visited tiles at one zoom, and when each was reached.
///
/// - **visited**: tiles with a visit.
/// - **clusterTiles**: visited tiles whose four edge neighbours (north, south, east, west; east
///   and west wrap across ±180°) are all visited.
/// - **largestCluster**: the most cluster tiles in one 4-connected group of cluster tiles.
/// - **maxSquare**: the side of the largest N × N block of visited tiles (blocks do not wrap
///   across ±180°).
///
/// "Reached" is the earliest first-visit time at which the figure, computed from only the tiles
/// first visited at or before that time, already had its present value: for `visited` the last
/// tile's first visit, for a square the latest first visit among its tiles, minimised over the
/// squares of that side. Nil when the figure is 0 or needs an untimed tile.
public struct TileMetrics: Equatable, Sendable {
    public var zoom: Int
    public var visited = 0
    public var clusterTiles = 0
    public var largestCluster = 0
    public var maxSquare = 0
    /// Milliseconds since the epoch (whole seconds) at which each figure was reached.
    public var visitedReached: Int64?
    public var clusterTilesReached: Int64?
    public var largestClusterReached: Int64?
    public var maxSquareReached: Int64?
    /// The north-west tile of the largest square completed first (among those completed at
    /// ``maxSquareReached``, the first by its south-east corner's key).
    public var maxSquareOrigin: (x: Int64, y: Int64)?

    public static func == (a: TileMetrics, b: TileMetrics) -> Bool {
        a.zoom == b.zoom && a.visited == b.visited && a.clusterTiles == b.clusterTiles && a.largestCluster == b.largestCluster
            && a.maxSquare == b.maxSquare && a.visitedReached == b.visitedReached && a.clusterTilesReached == b.clusterTilesReached
            && a.largestClusterReached == b.largestClusterReached && a.maxSquareReached == b.maxSquareReached
            && a.maxSquareOrigin?.x == b.maxSquareOrigin?.x && a.maxSquareOrigin?.y == b.maxSquareOrigin?.y
    }

    /// The figures of `tiles` (keys of `zoom`, ``SlippyTile/key(x:y:zoom:)``).
    public init(tiles: TileList, zoom: Int) {
        self.zoom = zoom
        visited = tiles.count
        guard visited > 0 else { return }
        func known(_ t: Int64) -> Int64? { t == Int64.max ? nil : t }
        visitedReached = known(tiles.times.max()!)
        let columns = Int64(1) << zoom
        var index: [Int64: Int] = [:]
        index.reserveCapacity(tiles.count)
        for (i, key) in tiles.keys.enumerated() { index[key] = i }
        func neighbours(_ key: Int64) -> [Int64] {
            let (x, y) = SlippyTile.tile(ofKey: key, zoom: zoom)
            var result = [SlippyTile.key(x: (x + 1) % columns, y: y, zoom: zoom), SlippyTile.key(x: (x + columns - 1) % columns, y: y, zoom: zoom)]
            if y > 0 { result.append(SlippyTile.key(x: x, y: y - 1, zoom: zoom)) }
            if y < columns - 1 { result.append(SlippyTile.key(x: x, y: y + 1, zoom: zoom)) }
            return result
        }

        // Cluster tiles and when each became one.
        var clusterTime: [Int64: Int64] = [:]
        for (key, time) in zip(tiles.keys, tiles.times) {
            let around = neighbours(key)
            guard around.count == 4 else { continue }
            var latest = time
            var all = true
            for n in around {
                guard let j = index[n] else { all = false; break }
                latest = max(latest, tiles.times[j])
            }
            if all { clusterTime[key] = latest }
        }
        clusterTiles = clusterTime.count
        if clusterTiles > 0 {
            clusterTilesReached = known(clusterTime.values.max()!)
            // Cluster tiles joined in the order they became ones (ties by key): the largest group
            // only grows, so its present size is reached when the last join gets there.
            let order = clusterTime.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            var position: [Int64: Int] = [:]
            var parent: [Int] = [], size: [Int] = []
            func root(_ i: Int) -> Int {
                var i = i
                while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
                return i
            }
            var largest = 0
            var history: [(time: Int64, largest: Int)] = []
            for (key, time) in order {
                let i = parent.count
                parent.append(i)
                size.append(1)
                position[key] = i
                for n in neighbours(key) {
                    guard let j = position[n] else { continue }
                    let a = root(i), b = root(j)
                    if a == b { continue }
                    let (big, small) = size[a] >= size[b] ? (a, b) : (b, a)
                    parent[small] = big
                    size[big] += size[small]
                }
                let grown = size[root(i)]
                if grown > largest {
                    largest = grown
                    history.append((time, largest))
                }
            }
            largestCluster = largest
            largestClusterReached = known(history.last!.time)
        }

        // The largest square, then the earliest time a square of that side was complete.
        maxSquare = Self.largestSquare(tiles.keys, zoom: zoom).side
        let times = Set(tiles.times).sorted()
        var low = 0, high = times.count - 1
        while low < high {
            let middle = (low + high) / 2
            let keys = zip(tiles.keys, tiles.times).filter { $0.1 <= times[middle] }.map(\.0)
            if Self.largestSquare(keys, zoom: zoom).side >= maxSquare { high = middle } else { low = middle + 1 }
        }
        maxSquareReached = known(times[low])
        let complete = zip(tiles.keys, tiles.times).filter { $0.1 <= times[low] }.map(\.0)
        maxSquareOrigin = Self.largestSquare(complete, zoom: zoom).origin
    }

    /// The side of the largest full square among `keys` (ascending), by the classic dynamic
    /// programme over rows: a tile's square is one more than the smallest of its west, north and
    /// north-west neighbours'. `origin` is the north-west tile of the first square of that side in
    /// key order of its south-east corner.
    static func largestSquare(_ keys: [Int64], zoom: Int) -> (side: Int, origin: (x: Int64, y: Int64)?) {
        var best = 0
        var bestCorner: (x: Int64, y: Int64)?
        forEachSquare(keys, zoom: zoom) { x, y, side in
            if side > best {
                best = side
                bestCorner = (x, y)
            }
        }
        return (best, bestCorner.map { ($0.x - Int64(best) + 1, $0.y - Int64(best) + 1) })
    }

    /// The south-east corners of every full square of `side` among `keys`, in key order.
    static func squareCorners(_ keys: [Int64], zoom: Int, side wanted: Int) -> [(x: Int64, y: Int64)] {
        var corners: [(x: Int64, y: Int64)] = []
        forEachSquare(keys, zoom: zoom) { x, y, side in if side >= wanted { corners.append((x, y)) } }
        return corners
    }

    /// Calls `body` with each tile of `keys` (ascending) and the side of the largest full square
    /// whose south-east corner it is.
    private static func forEachSquare(_ keys: [Int64], zoom: Int, _ body: (Int64, Int64, Int) -> Void) {
        var previousRow: [(x: Int64, side: Int)] = [], row: [(x: Int64, side: Int)] = []
        var previousY = Int64.min, currentY = Int64.min
        var pointer = 0
        for key in keys {
            let (x, y) = SlippyTile.tile(ofKey: key, zoom: zoom)
            if y != currentY {
                if currentY != Int64.min {
                    previousRow = row
                    previousY = currentY
                }
                row.removeAll(keepingCapacity: true)
                currentY = y
                pointer = 0
                if previousY != y - 1 { previousRow.removeAll() }
            }
            let west = row.last.map { $0.x == x - 1 ? $0.side : 0 } ?? 0
            while pointer < previousRow.count && previousRow[pointer].x < x - 1 { pointer += 1 }
            var north = 0, northWest = 0
            if pointer < previousRow.count, previousRow[pointer].x == x - 1 {
                northWest = previousRow[pointer].side
                if pointer + 1 < previousRow.count, previousRow[pointer + 1].x == x { north = previousRow[pointer + 1].side }
            } else if pointer < previousRow.count, previousRow[pointer].x == x {
                north = previousRow[pointer].side
            }
            let side = min(west, north, northWest) + 1
            row.append((x, side))
            body(x, y, side)
        }
    }
}

/// What to ride next to grow the max square: of the (N + 1) × (N + 1) squares that contain a
/// largest full N × N square (one of its four corners extended by a row and a column), the one
/// with the fewest unvisited tiles; ties go to the smallest north-west tile key. Its unvisited
/// tiles all lie on the border of the N × N square it grows.
public struct SquareFrontier: Equatable, Sendable {
    public var zoom: Int
    /// The north-west tile and side of the square to complete.
    public var origin: (x: Int64, y: Int64)
    public var side: Int
    /// Its unvisited tiles, by key.
    public var missing: [(x: Int64, y: Int64)]

    public static func == (a: SquareFrontier, b: SquareFrontier) -> Bool {
        a.zoom == b.zoom && a.origin == b.origin && a.side == b.side && a.missing.elementsEqual(b.missing) { $0 == $1 }
    }

    /// The frontier of `tiles` (keys of `zoom`); nil when no tile is visited.
    public init?(tiles: TileList, zoom: Int) {
        guard tiles.count > 0 else { return nil }
        let visited = Set(tiles.keys)
        let side = TileMetrics.largestSquare(tiles.keys, zoom: zoom).side
        let columns = Int64(1) << zoom
        var best: (missing: [(x: Int64, y: Int64)], key: Int64)?
        for corner in TileMetrics.squareCorners(tiles.keys, zoom: zoom, side: side) {
            // The square's north-west tile; grown by one towards each of the four corners.
            let x0 = corner.x - Int64(side) + 1, y0 = corner.y - Int64(side) + 1
            for (dx, dy) in [(-1, -1), (0, -1), (-1, 0), (0, 0)] as [(Int64, Int64)] {
                let ox = x0 + dx, oy = y0 + dy
                guard ox >= 0, oy >= 0, ox + Int64(side) < columns, oy + Int64(side) < columns else { continue }
                var missing: [(x: Int64, y: Int64)] = []
                for y in oy...(oy + Int64(side)) {
                    for x in ox...(ox + Int64(side)) where !visited.contains(SlippyTile.key(x: x, y: y, zoom: zoom)) {
                        missing.append((x, y))
                    }
                }
                let key = SlippyTile.key(x: ox, y: oy, zoom: zoom)
                if let b = best, b.missing.count < missing.count || (b.missing.count == missing.count && b.key <= key) { continue }
                best = (missing, key)
            }
        }
        guard let best else { return nil }
        self.zoom = zoom
        origin = SlippyTile.tile(ofKey: best.key, zoom: zoom)
        self.side = side + 1
        missing = best.missing
    }
}
