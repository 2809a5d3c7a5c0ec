import RegionTables

/// The steps both table builders share once a coverage is simplified: quantise the arcs as the
/// table stores them, record the rings, the regions' bounding boxes, and measure each stored
/// arc's deviation from the arc it came from.
struct StoredArcs {
    /// For every stored vertex of every arc, the index of the original vertex it came from.
    private(set) var origins: [[Int]] = []

    /// Quantises `simplifier.arcs` into `contents.arcs` (and rings from `topology`), to multiples of
    /// `contents.step` quanta.
    /// `toDegrees` maps an arc's plane coordinates (interleaved) to longitudes and latitudes.
    init(_ simplifier: CoverageSimplifier, _ topology: CoverageTopology, into contents: inout TableContents,
         toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double])) rethrows {
        let step = contents.step, stepDegrees = TableFormat.quantum * Double(contents.step)
        for (index, arc) in simplifier.arcs.enumerated() {
            let (lon, lat) = try toDegrees(arc)
            var vertices: [Int32] = []
            var kept: [Int] = []
            for k in lon.indices {
                let x = Int32((lon[k] / stepDegrees).rounded()) * step, y = Int32((lat[k] / stepDegrees).rounded()) * step
                if vertices.count >= 2, vertices[vertices.count - 2] == x, vertices[vertices.count - 1] == y {
                    // A repeated point: keep the arc's end point, drop the interior one.
                    if k != lon.count - 1 || vertices.count < 4 { continue }
                    vertices.removeLast(2)
                    kept.removeLast()
                }
                vertices.append(x); vertices.append(y)
                kept.append(simplifier.keptIndices[index][k])
            }
            // An arc shorter than the quantum (a speck of land) keeps both ends, even if equal.
            if vertices.count < 4 { vertices += vertices.suffix(2); kept.append(kept.last!) }
            origins.append(kept)
            let source = topology.arcs[index]
            contents.arcs.append(.init(vertices: vertices, leftUnit: source.leftUnit, rightUnit: source.rightUnit))
        }
        contents.unitRings = topology.units.map { polygons in
            polygons.flatMap { polygon in
                polygon.rings.enumerated().map { ringIndex, references in
                    TableContents.RingEntry(isHole: ringIndex > 0, references: references.map { $0.reversed ? ~$0.arc : $0.arc })
                }
            }
        }
        // Bounding boxes of regions from their units' arcs.
        var boxes = [(Int32, Int32, Int32, Int32)](repeating: (Int32.max, Int32.max, Int32.min, Int32.min), count: contents.regions.count)
        for (unit, rings) in contents.unitRings.enumerated() {
            var box = (Int32.max, Int32.max, Int32.min, Int32.min)
            for ring in rings {
                for reference in ring.references {
                    let v = contents.arcs[Int(reference < 0 ? ~reference : reference)].vertices
                    for k in stride(from: 0, to: v.count, by: 2) {
                        box = (min(box.0, v[k]), min(box.1, v[k + 1]), max(box.2, v[k]), max(box.3, v[k + 1]))
                    }
                }
            }
            for region in contents.unitRegions[unit] where region >= 0 {
                let b = boxes[Int(region)]
                boxes[Int(region)] = (min(b.0, box.0), min(b.1, box.1), max(b.2, box.2), max(b.3, box.3))
            }
        }
        for index in contents.regions.indices { contents.regions[index].boundingBox = boxes[index] }
    }

    /// Deviation of each stored arc from its original, in metres: every original vertex lies
    /// between two kept ones, and its distance to the stored segment between them bounds the
    /// Hausdorff distance (a chord of a path is within the path's largest vertex distance from it,
    /// and vice versa). `toPlane` maps stored degrees back into the originals' plane; `metresPerUnit`
    /// converts that plane's distances to metres.
    func deviations(_ contents: TableContents, originals: [[Double]], metresPerUnit: Double,
                    toPlane: ([Double], [Double]) throws -> (x: [Double], y: [Double])) rethrows -> [Double] {
        try contents.arcs.indices.map { index in
            let arc = contents.arcs[index].vertices
            let (x, y) = try toPlane(stride(from: 0, to: arc.count, by: 2).map { Double(arc[$0]) * TableFormat.quantum },
                                     stride(from: 1, to: arc.count, by: 2).map { Double(arc[$0]) * TableFormat.quantum })
            let original = originals[index]
            let kept = origins[index]
            var worst = 0.0
            for s in 0..<(kept.count - 1) {
                for i in kept[s]...kept[s + 1] {
                    worst = max(worst, Self.distance(original[2 * i], original[2 * i + 1], x[s], y[s], x[s + 1], y[s + 1]))
                }
            }
            return worst * metresPerUnit
        }
    }

    /// Distance from (px, py) to the segment (ax, ay)–(bx, by).
    static func distance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        var t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / length2 : 0
        t = min(1, max(0, t))
        let ex = ax + t * dx - px, ey = ay + t * dy - py
        return (ex * ex + ey * ey).squareRoot()
    }
}
