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
    /// `maximumSegment` (plane units) splits longer simplified segments by points along them
    /// before they are unprojected: the table's segments are straight in longitude and latitude,
    /// so a long segment of a projected plane would bow away from where the simplifier put it
    /// (about L²/8ρ: 37 m for a 49 km segment in China's Albers plane, 0.06 m at 2 km).
    init(_ simplifier: CoverageSimplifier, _ topology: CoverageTopology, into contents: inout TableContents,
         maximumSegment: Double = .infinity, toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double])) rethrows {
        self.maximumSegment = maximumSegment
        for index in simplifier.arcs.indices {
            let (vertices, kept) = try Self.quantise(simplifier, arc: index, step: contents.step, maximumSegment: maximumSegment, toDegrees: toDegrees)
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
        Self.updateBoundingBoxes(&contents)
    }

    let maximumSegment: Double

    /// Stores arcs `arcs` again from `simplifier` (after it re-simplified them), and the regions'
    /// bounding boxes.
    mutating func restore(_ arcs: [Int], from simplifier: CoverageSimplifier, into contents: inout TableContents,
                          toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double])) rethrows {
        for index in arcs {
            let (vertices, kept) = try Self.quantise(simplifier, arc: index, step: contents.step, maximumSegment: maximumSegment, toDegrees: toDegrees)
            origins[index] = kept
            contents.arcs[index].vertices = vertices
        }
        Self.updateBoundingBoxes(&contents)
    }

    /// Stored vertices `range` of arc `arc` are gone.
    mutating func removeVertices(_ arc: Int, _ range: ClosedRange<Int>) {
        origins[arc].removeSubrange(range)
    }

    /// Arc `arc` is now a speck at its first original vertex.
    mutating func storeSpeck(_ arc: Int) {
        origins[arc] = [0, 0]
    }

    /// One simplified arc as the table stores it: split, unprojected, rounded to the step grid,
    /// with repeated points dropped; and for each stored vertex the original vertex it came from.
    static func quantise(_ simplifier: CoverageSimplifier, arc index: Int, step: Int32, maximumSegment: Double,
                         toDegrees: ([Double]) throws -> (lon: [Double], lat: [Double])) rethrows -> (vertices: [Int32], origins: [Int]) {
        let stepDegrees = TableFormat.quantum * Double(step)
        let (arc, arcOrigins) = Self.split(simplifier.arcs[index], origins: simplifier.keptIndices[index], longerThan: maximumSegment)
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
            kept.append(arcOrigins[k])
        }
        // An arc shorter than the quantum (a speck of land) keeps both ends, even if equal.
        if vertices.count < 4 { vertices += vertices.suffix(2); kept.append(kept.last!) }
        return (vertices, kept)
    }

    /// Bounding boxes of regions from their units' arcs.
    static func updateBoundingBoxes(_ contents: inout TableContents) {
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

    /// Splits the segments of an interleaved plane arc longer than `limit` into equal pieces;
    /// the inserted points' origin is -1 (they come from no original vertex).
    static func split(_ arc: [Double], origins: [Int], longerThan limit: Double) -> (arc: [Double], origins: [Int]) {
        guard limit.isFinite else { return (arc, origins) }
        var out: [Double] = [arc[0], arc[1]]
        var outOrigins = [origins[0]]
        for k in 1..<(arc.count / 2) {
            let ax = arc[2 * k - 2], ay = arc[2 * k - 1], bx = arc[2 * k], by = arc[2 * k + 1]
            let pieces = Int((((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot() / limit).rounded(.up))
            for p in stride(from: 1, to: pieces, by: 1) {
                let t = Double(p) / Double(pieces)
                out.append(ax + (bx - ax) * t); out.append(ay + (by - ay) * t)
                outOrigins.append(-1)
            }
            out.append(bx); out.append(by)
            outOrigins.append(origins[k])
        }
        return (out, outOrigins)
    }

    /// Deviation of each stored arc from its original, in metres: every original vertex lies
    /// between two stored vertices that came from original ones, and its distance to the stored
    /// path between them bounds the Hausdorff distance (a chord of a path is within the path's
    /// largest vertex distance from it, and vice versa). `toPlane` maps stored degrees back into
    /// the originals' plane; `metresPerUnit` converts that plane's distances to metres. When the
    /// plane is a projection, `curveStep` (degrees) follows each stored segment — straight in
    /// longitude and latitude, so curved in the plane — in pieces that short.
    func deviations(_ contents: TableContents, originals: [[Double]], metresPerUnit: Double, curveStep: Double? = nil,
                    toPlane: ([Double], [Double]) throws -> (x: [Double], y: [Double])) rethrows -> [Double] {
        try contents.arcs.indices.map { index in
            let arc = contents.arcs[index].vertices
            let original = originals[index]
            let kept = origins[index]
            // The stored path, densified along its longitude/latitude segments when asked; `first`
            // holds where each stored vertex begins in it.
            var lon: [Double] = [], lat: [Double] = [], first: [Int] = []
            for k in 0..<(arc.count / 2) {
                let x = Double(arc[2 * k]) * TableFormat.quantum, y = Double(arc[2 * k + 1]) * TableFormat.quantum
                if k > 0, let curveStep {
                    let px = lon[lon.count - 1], py = lat[lat.count - 1]
                    let pieces = Int((max(abs(x - px), abs(y - py)) / curveStep).rounded(.up))
                    for p in stride(from: 1, to: pieces, by: 1) {
                        let t = Double(p) / Double(pieces)
                        lon.append(px + (x - px) * t); lat.append(py + (y - py) * t)
                    }
                }
                first.append(lon.count)
                lon.append(x); lat.append(y)
            }
            let (x, y) = try toPlane(lon, lat)
            var worst = 0.0
            var s0 = 0
            while s0 < kept.count - 1 {
                var s1 = s0 + 1
                while s1 < kept.count - 1, kept[s1] < 0 { s1 += 1 }
                for i in kept[s0]...kept[s1] {
                    var nearest = Double.infinity
                    for j in first[s0]..<first[s1] {
                        nearest = min(nearest, Self.distance(original[2 * i], original[2 * i + 1], x[j], y[j], x[j + 1], y[j + 1]))
                    }
                    worst = max(worst, nearest)
                }
                s0 = s1
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
