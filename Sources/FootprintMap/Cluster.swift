import Unlocks

extension Footprint {
    /// A place the person has been: explored cells whose zoom-12 tiles (about 10 km, less towards
    /// the poles) touch, side or corner. Walks in Paris, Lyon and Marseille are three places; a
    /// walk through Beijing's Dongcheng and Xicheng districts is one place over two counties. The
    /// page's close-ups are these (docs/footprint-format.md says why not one per region).
    public struct Cluster: Sendable {
        /// Explored cells in it.
        public var cells: Int
        /// Bounds of its cells (their edges), degrees.
        public var west: Double, south: Double, east: Double, north: Double
        /// The finest regions of its cells' first visitors, most cells first (ties by table order).
        public var places: [(place: Place, cells: Int)]

        /// Zoom of the tiles that join cells into one place.
        static let joinZoom = 12

        /// The clusters of `cellsByPlace`, most cells first (ties: northernmost, then westernmost).
        static func clusters(_ cellsByPlace: [Place: [Int64]]) -> [Cluster] {
            struct Tile {
                var cells = 0
                var west = 180.0, south = 90.0, east = -180.0, north = -90.0
                var places: [Place: Int] = [:]
            }
            var rows: [Int64: (south: Double, north: Double, centre: Double, columns: Int64)] = [:]
            var tiles: [Int64: Tile] = [:]
            for place in cellsByPlace.keys.sorted() {
                for key in cellsByPlace[place]! {
                    let (row, column) = ExploredGrid.cell(ofKey: key)
                    let r: (south: Double, north: Double, centre: Double, columns: Int64)
                    if let known = rows[row] {
                        r = known
                    } else {
                        r = (ExploredGrid.latitude(meridianDistance: Double(row) * ExploredGrid.cellSize),
                             ExploredGrid.latitude(meridianDistance: Double(row + 1) * ExploredGrid.cellSize),
                             ExploredGrid.centreLatitude(row: row), ExploredGrid.columnCount(row: row))
                        rows[row] = r
                    }
                    let west = Double(column) * 360 / Double(r.columns) - 180, east = Double(column + 1) * 360 / Double(r.columns) - 180
                    let tile = SlippyTile.tile(latitude: r.centre, longitude: (west + east) / 2, zoom: joinZoom)
                    let tileKey = SlippyTile.key(x: tile.x, y: tile.y, zoom: joinZoom)
                    var t = tiles[tileKey] ?? Tile()
                    t.cells += 1
                    t.west = min(t.west, west); t.east = max(t.east, east)
                    t.south = min(t.south, r.south); t.north = max(t.north, r.north)
                    t.places[place, default: 0] += 1
                    tiles[tileKey] = t
                }
            }
            // Tiles touching side or corner are one place (union–find over the sorted keys).
            let keys = tiles.keys.sorted()
            var slot: [Int64: Int] = [:]
            for (k, key) in keys.enumerated() { slot[key] = k }
            var parent = Array(keys.indices)
            func find(_ x: Int) -> Int {
                var x = x
                while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
                return x
            }
            let side = Int64(1) << joinZoom
            for (k, key) in keys.enumerated() {
                let (x, y) = SlippyTile.tile(ofKey: key, zoom: joinZoom)
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + Int64(dx), ny = y + Int64(dy)
                        guard nx >= 0, ny >= 0, nx < side, ny < side, let other = slot[SlippyTile.key(x: nx, y: ny, zoom: joinZoom)] else { continue }
                        let a = find(k), b = find(other)
                        if a != b { parent[max(a, b)] = min(a, b) }
                    }
                }
            }
            var byRoot: [Int: Tile] = [:]
            for (k, key) in keys.enumerated() {
                let t = tiles[key]!
                var c = byRoot[find(k)] ?? Tile()
                c.cells += t.cells
                c.west = min(c.west, t.west); c.east = max(c.east, t.east)
                c.south = min(c.south, t.south); c.north = max(c.north, t.north)
                for (place, n) in t.places { c.places[place, default: 0] += n }
                byRoot[find(k)] = c
            }
            return byRoot.keys.sorted().map { root in
                let c = byRoot[root]!
                return Cluster(cells: c.cells, west: c.west, south: c.south, east: c.east, north: c.north,
                               places: c.places.map { (place: $0.key, cells: $0.value) }.sorted { ($1.cells, $0.place) < ($0.cells, $1.place) })
            }.sorted { ($1.cells, $1.north, $0.west) < ($0.cells, $0.north, $1.west) }
        }
    }
}
