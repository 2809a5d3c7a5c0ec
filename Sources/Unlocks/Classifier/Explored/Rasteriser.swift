import Tracks

/// A committed ground point and what the next leg from it needs (its placement is kept apart:
/// most points reuse the last lookup's).
struct GroundPoint {
    var point = TrackPoint(latitude: 0, longitude: 0)
    var cell = CellVisit(time: .max, country: -1, chinaRegion: -1)
    /// `ExploredGrid.rowCoordinate` of the point, kept for the next leg.
    var row = 0.0
    /// The point's z17 tile coordinates (``SlippyTile/tileCoordinates(latitude:longitude:zoom:)``).
    var tile = (x: 0.0, y: 0.0)
    /// The key of the z17 tile whose interior holds it; -1 on a tile's edge (or beyond the last
    /// column), where the leg's supercover decides.
    var tileKey: Int64 = -1
    /// Beyond Web Mercator's ±85.0511°, where no tile is (``SlippyTile/maximumLatitude``).
    var beyondTiles = false

    init() {}

    init(point: TrackPoint, cell: CellVisit, row: Double, tile: (x: Double, y: Double)) {
        self.point = point
        self.cell = cell
        self.row = row
        self.tile = tile
        beyondTiles = abs(point.latitude) > SlippyTile.maximumLatitude
        // Tile coordinates are finite and at least 0 (x from a longitude ≥ −180°, y clamped),
        // so truncation is the floor; the checks keep the rule for any other value.
        let size = Int64(1) << SlippyTile.storedZoom
        if tile.x >= 0, tile.y >= 0, tile.x < Double(size), tile.y < Double(size) {
            let x = Int64(tile.x), y = Int64(tile.y)
            tileKey = Double(x) != tile.x && Double(y) != tile.y ? SlippyTile.key(x: x, y: y, zoom: SlippyTile.storedZoom) : -1
        }
    }
}

/// Steps 4 and 8 of ``TrackClassifier``: the current input's explored 25 m cells, z17 explorer
/// tiles and pass candidates, drawn along its legs. Its row and Mercator caches make a point's
/// coordinates depend on the points before it: one rasteriser draws a whole input.
struct Rasteriser {
    private var rows = ExploredGrid.RowCache()
    private var mercator = MercatorCache()
    /// The cells while the input is read (a hash table: a track reaches a cell per point).
    private(set) var cells = CellTable()
    private var tiles = TileTable()
    /// Pass candidates (``PassCandidates``) as (cell key, second).
    private var passes: [(key: Int64, second: Int64)] = []
    /// The last drawn leg gave candidates: the next leg's start cell is no new entry.
    private var passChain = false

    /// Starts an input.
    mutating func begin() {
        self = Rasteriser()
    }

    /// `point` with its grid and tile coordinates, its cell `cell`.
    @inline(__always)
    mutating func locate(_ point: TrackPoint, cell: CellVisit) -> GroundPoint {
        GroundPoint(point: point, cell: cell, row: rows.rowCoordinate(latitude: point.latitude),
                    tile: mercator.tileCoordinates(latitude: point.latitude, longitude: point.longitude, zoom: SlippyTile.storedZoom))
    }

    /// A segment starts at `start`: its cell and tile are explored, no pass chain goes on.
    mutating func startSegment(at start: GroundPoint) {
        passChain = false
        let key = rows.key(rowCoordinate: start.row, longitude: start.point.longitude)
        cells.explore(key, start.cell)
        if !start.beyondTiles {
            let tile = SlippyTile.tile(tileCoordinates: start.tile, zoom: SlippyTile.storedZoom)
            tiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: start.cell.time)
        }
    }

    /// A leg that is not drawn: it breaks the pass chain.
    mutating func skipLeg() {
        passChain = false
    }

    /// Draws the leg from `start` to `end`: every cell it crosses, explored with the visit of the
    /// nearer end; with `passesFrom` (the leg's times, a moving leg with good fixes) every cell it
    /// enters is a pass candidate at the time the leg enters it (its start cell only when the
    /// last leg gave none); its tiles at the earlier end's time.
    @inline(__always)
    mutating func draw(from start: GroundPoint, to end: GroundPoint, passesFrom times: (t0: Int64, t1: Int64)?) {
        let startCell = start.cell, endCell = end.cell
        if let (t0, t1) = times {
            let chained = passChain, duration = Double(t1 - t0)
            rows.rasterise(from: (start.row, start.point.longitude), to: (end.row, end.point.longitude)) { key, fraction in
                cells.explore(key, fraction < 0.5 ? startCell : endCell)
                if fraction > 0 || !chained { passes.append((key, Self.second(of: t0 &+ Int64(duration * fraction)))) }
            }
            passChain = true
        } else {
            passChain = false
            rows.rasterise(from: (start.row, start.point.longitude), to: (end.row, end.point.longitude)) { key, fraction in
                cells.explore(key, fraction < 0.5 ? startCell : endCell)
            }
        }
        // Most legs stay inside one z17 tile.
        let time = min(startCell.time, endCell.time)
        if start.tileKey >= 0, start.tileKey == end.tileKey {
            tiles.visit(start.tileKey, time: time)
        } else if start.beyondTiles || end.beyondTiles {
            // A leg across Mercator's edge visits only its inside end's tile; beyond, none.
            for end in [start, end] where !end.beyondTiles {
                let tile = SlippyTile.tile(tileCoordinates: end.tile, zoom: SlippyTile.storedZoom)
                tiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: time)
            }
        } else {
            SlippyTile.supercover(from: start.tile, to: end.tile, zoom: SlippyTile.storedZoom) { key in
                tiles.visit(key, time: time)
            }
        }
    }

    /// One explored spot of a map of explored ground: its cell (the exact row coordinate, not the
    /// row cache's linearised one: a spot is no leg, and its cell is the one an independent
    /// implementation of the grid finds) and its tile, untimed.
    mutating func explore(spot point: TrackPoint, cell: CellVisit) {
        cells.explore(rows.key(rowCoordinate: ExploredGrid.rowCoordinate(latitude: point.latitude), longitude: point.longitude), cell)
        let tile = SlippyTile.tile(tileCoordinates: mercator.tileCoordinates(latitude: point.latitude, longitude: point.longitude, zoom: SlippyTile.storedZoom),
                                   zoom: SlippyTile.storedZoom)
        tiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: .max)
    }

    /// Hands over the input's cells, tiles and pass candidates as an input keeps them, leaving
    /// them empty (the caches stay).
    mutating func take() -> (cells: CellList, tiles: TileList, passes: PassCandidates) {
        defer { clear() }
        return (CellList(cells), TileList(tiles.tiles), PassCandidates(passes))
    }

    /// Lets the input's cells, tiles and pass candidates go (the caches stay).
    mutating func clear() {
        cells = CellTable()
        tiles = TileTable()
        passes = []
    }

    /// The whole second of a time in milliseconds (rounded down, before 1970 too).
    static func second(of time: Int64) -> Int64 {
        let q = time / 1000
        return time % 1000 < 0 ? q - 1 : q
    }
}
