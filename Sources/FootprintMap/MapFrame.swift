import Foundation

/// A map's window onto longitude and latitude: an equirectangular projection with longitudes
/// scaled by the cosine of the middle latitude (shapes look right at the window's centre), in
/// SVG units of a tenth of a pixel so paths can use integers.
struct MapFrame {
    static let unitsPerPixel = 10.0

    let west: Double, north: Double
    /// Pixels per degree of latitude and of longitude.
    let pixelsPerDegree: Double, pixelsPerLongitude: Double
    let width: Int, height: Int

    init(west: Double, east: Double, south: Double, north: Double, width: Int, maximumHeight: Int = .max) {
        let middle = (south + north) / 2 * .pi / 180
        let stretch = max(0.2, cos(middle))
        var scale = Double(width) / ((east - west) * stretch)
        var w = width
        if (north - south) * scale > Double(maximumHeight) {
            scale = Double(maximumHeight) / (north - south)
            w = Int(((east - west) * stretch * scale).rounded(.up))
        }
        self.west = west
        self.north = north
        pixelsPerDegree = scale
        pixelsPerLongitude = scale * stretch
        self.width = w
        height = Int(((north - south) * scale).rounded(.up))
    }

    /// SVG units of a point.
    func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        ((longitude - west) * pixelsPerLongitude * Self.unitsPerPixel, (north - latitude) * pixelsPerDegree * Self.unitsPerPixel)
    }

    var viewBox: String { "0 0 \(width * Int(Self.unitsPerPixel)) \(height * Int(Self.unitsPerPixel))" }

    /// SVG path data of points (already simplified): `M` then relative integer steps, `z` to close.
    static func path(_ points: [(x: Double, y: Double)], closed: Bool) -> String {
        guard let first = points.first else { return "" }
        var x = Int(first.x.rounded()), y = Int(first.y.rounded())
        let out = "M\(x) \(y)"
        var steps = ""
        for p in points.dropFirst() {
            let px = Int(p.x.rounded()), py = Int(p.y.rounded())
            if px == x && py == y { continue }
            steps += (steps.isEmpty ? "l" : " ") + "\(px - x) \(py - y)"
            x = px
            y = py
        }
        return out + steps + (closed ? "z" : "")
    }
}
