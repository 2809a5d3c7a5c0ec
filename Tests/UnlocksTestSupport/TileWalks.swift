import Foundation

/// Walks laid out in slippy-map tile coordinates, by the tests' own Web Mercator formulas (written
/// out here, not the library's), whose explorer-tile figures are known in closed form.
public enum TileWalks {
    /// 2024-05-01T00:00:00Z.
    public static let start = 1_714_521_600

    /// Tile coordinates (x east, y south, in tiles of `zoom`) of a point.
    public static func tileCoordinates(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let n = pow(2, Double(zoom)), phi = latitude * .pi / 180
        return ((longitude + 180) / 360 * n, (1 - asinh(tan(phi)) / .pi) / 2 * n)
    }

    /// The point at tile coordinates (`x`, `y`) of `zoom`.
    public static func point(x: Double, y: Double, zoom: Int) -> (latitude: Double, longitude: Double) {
        let n = pow(2, Double(zoom))
        return (atan(sinh(.pi * (1 - 2 * y / n))) * 180 / .pi, x / n * 360 - 180)
    }

    /// GPX of points given in tile coordinates, `seconds` apart from `start`.
    public static func gpx(_ points: [(x: Double, y: Double)], zoom: Int, start: Int, seconds: Int) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let formatter = ISO8601DateFormatter()
        for (i, p) in points.enumerated() {
            let q = point(x: p.x, y: p.y, zoom: zoom)
            let time = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + i * seconds)))
            text += String(format: "<trkpt lat=\"%.9f\" lon=\"%.9f\"><time>%@</time></trkpt>\n", q.latitude, q.longitude, time)
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Points every `step` tiles along straight pieces through `corners` (the corners included).
    public static func path(_ corners: [(x: Double, y: Double)], step: Double) -> [(x: Double, y: Double)] {
        var points = [corners[0]]
        for (a, b) in zip(corners, corners.dropFirst()) {
            let length = hypot(b.x - a.x, b.y - a.y)
            let pieces = max(1, Int((length / step).rounded(.up)))
            for k in 1...pieces { points.append((a.x + (b.x - a.x) * Double(k) / Double(pieces), a.y + (b.y - a.y) * Double(k) / Double(pieces))) }
        }
        return points
    }

    /// The z14 tile west of Tiananmen where the block starts.
    public static let origin: (x: Double, y: Double) = {
        let c = tileCoordinates(latitude: 39.95, longitude: 116.30, zoom: 14)
        return (c.x.rounded(.down), c.y.rounded(.down))
    }()

    /// A lawnmower over rows `rows` of an n-wide block of z14 tiles: each row swept at 0.45 of its
    /// height (clear of z17 edges) from 0.1 tile inside its west edge to 0.1 inside its east edge,
    /// alternating direction, with a turn leg 0.1 inside the block between rows. 20 m apart at
    /// 4 m/s (a jog).
    public static func lawnmower(rows: Range<Int>, n: Int) -> [(x: Double, y: Double)] {
        var corners: [(x: Double, y: Double)] = []
        for r in rows {
            let y = origin.y + Double(r) + 0.45
            let west = origin.x + 0.1, east = origin.x + Double(n) - 0.1
            corners += r % 2 == 0 ? [(west, y), (east, y)] : [(east, y), (west, y)]
        }
        // A z14 tile here is about 1,870 m wide (40,075 km × cos 39.95° / 2^14).
        return path(corners, step: 20.0 / 1870)
    }
}
