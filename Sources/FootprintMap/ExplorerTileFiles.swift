import TextFormats
import Unlocks

/// The explorer tiles as files a person opens in a map app: the visited tiles as GeoJSON, and
/// the tiles missing from the next max square (``SquareFrontier``) as GeoJSON and as GPX
/// waypoints to ride to (docs/footprint-format.md).
public enum ExplorerTileFiles {
    /// The visited tiles of one zoom (keys of that zoom), each row's runs of adjacent tiles merged
    /// into one rectangle (a tile's edges are a meridian and a parallel, so a run is a rectangle in
    /// longitude and latitude too). Features in key order; coordinates to 7 decimals.
    public static func visitedGeoJSON(_ tiles: TileList, zoom: Int) -> String {
        var out = "{\"type\":\"FeatureCollection\",\"generator\":\"adminunlocks-map\",\"features\":["
        var first = true
        var k = 0
        let keys = tiles.keys
        while k < keys.count {
            let (x0, y) = SlippyTile.tile(ofKey: keys[k], zoom: zoom)
            var x1 = x0
            while k + 1 < keys.count, keys[k + 1] == keys[k] + 1, SlippyTile.tile(ofKey: keys[k + 1], zoom: zoom).y == y {
                k += 1
                x1 += 1
            }
            k += 1
            out += first ? "\n" : ",\n"
            first = false
            let properties: JSONValue = .object([("kind", .string("visitedTiles")), ("zoom", .number(Double(zoom))), ("y", .number(Double(y))),
                                                 ("x", .number(Double(x0))), ("tiles", .number(Double(x1 - x0 + 1)))])
            out += feature(properties, rectangle(x0: x0, x1: x1, y0: y, y1: y, zoom: zoom))
        }
        return out + "\n]}\n"
    }

    /// The square to complete (its outline, `kind` `nextSquare`) and each missing tile
    /// (`missingTile`); no feature without a visited tile.
    public static func frontierGeoJSON(_ frontier: SquareFrontier?) -> String {
        guard let frontier else { return "{\"type\":\"FeatureCollection\",\"generator\":\"adminunlocks-map\",\"features\":[]}\n" }
        let z = frontier.zoom, side = Int64(frontier.side)
        var out = "{\"type\":\"FeatureCollection\",\"generator\":\"adminunlocks-map\",\"features\":[\n"
        out += feature(.object([("kind", .string("nextSquare")), ("zoom", .number(Double(z))), ("side", .number(Double(side))),
                                ("x", .number(Double(frontier.origin.x))), ("y", .number(Double(frontier.origin.y))),
                                ("missing", .number(Double(frontier.missing.count)))]),
                       rectangle(x0: frontier.origin.x, x1: frontier.origin.x + side - 1, y0: frontier.origin.y, y1: frontier.origin.y + side - 1, zoom: z))
        for tile in frontier.missing {
            out += ",\n" + feature(.object([("kind", .string("missingTile")), ("zoom", .number(Double(z))), ("x", .number(Double(tile.x))),
                                            ("y", .number(Double(tile.y)))]),
                                   rectangle(x0: tile.x, x1: tile.x, y0: tile.y, y1: tile.y, zoom: z))
        }
        return out + "\n]}\n"
    }

    /// A GPX 1.1 file with a waypoint at the centre of each missing tile, named `z/x/y`. Waypoints,
    /// not a track: read back by `unlocks`, they are pins and unlock nothing. No waypoint without
    /// a visited tile.
    public static func frontierGPX(_ frontier: SquareFrontier?) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<gpx version=\"1.1\" creator=\"adminunlocks-map\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        guard let frontier else { return out + "</gpx>\n" }
        let z = frontier.zoom
        out += "<metadata><name>Tiles to grow the z\(z) max square to \(frontier.side) × \(frontier.side)</name></metadata>\n"
        for tile in frontier.missing {
            let c = SlippyTile.centre(x: tile.x, y: tile.y, zoom: z)
            out += "<wpt lat=\"\(Footprint.decimal(c.latitude))\" lon=\"\(Footprint.decimal(c.longitude))\"><name>\(z)/\(tile.x)/\(tile.y)</name></wpt>\n"
        }
        return out + "</gpx>\n"
    }

    /// A rectangle of tiles, counterclockwise (RFC 7946), as a GeoJSON Polygon's coordinates.
    static func rectangle(x0: Int64, x1: Int64, y0: Int64, y1: Int64, zoom: Int) -> String {
        let nw = SlippyTile.bounds(x: x0, y: y0, zoom: zoom), se = SlippyTile.bounds(x: x1, y: y1, zoom: zoom)
        let west = Footprint.decimal(nw.west), north = Footprint.decimal(nw.north)
        let east = Footprint.decimal(se.east), south = Footprint.decimal(se.south)
        return "[[[\(west),\(south)],[\(east),\(south)],[\(east),\(north)],[\(west),\(north)],[\(west),\(south)]]]"
    }

    static func feature(_ properties: JSONValue, _ polygon: String) -> String {
        "{\"type\":\"Feature\",\"properties\":" + properties.compactRendered() + ",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":" + polygon + "}}"
    }
}
