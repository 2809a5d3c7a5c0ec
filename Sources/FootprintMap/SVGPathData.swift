/// SVG path data for the card's maps, in tenths of a pixel as integers.
enum SVGPathData {
    /// Path data of points (already simplified): `M` then relative integer steps, `z` to close.
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
