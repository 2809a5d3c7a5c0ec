/// The ray-casting rule of the region tables, shared by the table builder and the reader.
///
/// A point's unit is found by casting a ray from it towards +x and taking the first boundary
/// segment it crosses: the point lies on that segment's west side, which is the arc's left unit
/// when the segment runs north (in the arc's direction) and its right unit when it runs south.
/// Vertices exactly at the ray's height count as below it (half-open), so every crossing is
/// counted once and a point exactly on a border gets one answer: the region to its west (or, on
/// an east–west border, the one to its north).
package enum RayCasting {
    /// A crossing found by the ray: where (approximately; exact comparisons are used for ties),
    /// and the segment's end points ordered bottom → top, plus whether the arc runs upward there.
    package struct Crossing {
        package var x: Double
        package var lowX: Int64, lowY: Int64, highX: Int64, highY: Int64
        package var upward: Bool

        @inlinable
        package init(x: Double, lowX: Int64, lowY: Int64, highX: Int64, highY: Int64, upward: Bool) {
            self.x = x
            self.lowX = lowX
            self.lowY = lowY
            self.highX = highX
            self.highY = highY
            self.upward = upward
        }

        /// True when this crossing is nearer the ray's origin than `other` (ties broken exactly by
        /// which segment the ray meets first just above the shared vertex).
        @inlinable
        package func isNearer(than other: Crossing) -> Bool {
            if x != other.x { return x < other.x }
            // Same x: both leave a shared vertex at the ray's height; the smaller dx/dy comes first.
            let a = (highX - lowX) * (other.highY - other.lowY)
            let b = (other.highX - other.lowX) * (highY - lowY)
            if a != b { return a < b }
            return upward && !other.upward
        }
    }

    /// The crossing of segment (ax, ay)→(bx, by) with the ray from (px, py) to +x, limited to
    /// x ≤ limitX, or nil. All coordinates are quantised table units (|v| ≤ 1.8e8, so the exact
    /// Int64 cross products cannot overflow).
    @inlinable
    package static func crossing(ax: Int64, ay: Int64, bx: Int64, by: Int64, px: Int64, py: Int64, limitX: Int64) -> Crossing? {
        let aAbove = ay > py, bAbove = by > py
        guard aAbove != bAbove else { return nil }
        let (lx, ly, hx, hy) = bAbove ? (ax, ay, bx, by) : (bx, by, ax, ay)
        let dx = hx - lx, dy = hy - ly
        // q on or west of the upward line low→high ⇔ cross((dx, dy), q − low) ≥ 0.
        guard dx * (py - ly) - dy * (px - lx) >= 0 else { return nil }
        guard dx * (py - ly) - dy * (limitX - lx) <= 0 else { return nil }
        let x = ly == py ? Double(lx) : Double(lx) + Double(py - ly) * Double(dx) / Double(dy)
        return Crossing(x: x, lowX: lx, lowY: ly, highX: hx, highY: hy, upward: bAbove)
    }
}

extension RegionTable {
    /// The unit containing the quantised point (x, y), or nil when it lies in no unit.
    ///
    /// Descends the quadtree to the point's cell; a uniform cell answers at once, a leaf casts
    /// the ray over its own chunks and, when nothing is crossed inside the cell, continues from
    /// the cell's east edge into the next cell.
    package func unit(atX x: Int64, y: Int64) -> Int32? {
        UnitLookup(self, jumpDepth: nil).find(x: x, y: y).unit
    }
}

/// What a unit lookup found: the unit (nil: none), and, when a uniform cell answered, how far
/// (quanta, along x and along y) the point is from that cell's sides: no arc lies closer.
struct UnitLookupResult {
    var unit: Int32?
    var clearanceX: Int64
    var clearanceY: Int64
}

/// The point lookup of one table (the ray casting of docs/region-table-format.md), over
/// immutable copies of the table's decoded arrays (no per-access exclusivity checks), with a
/// jump table that replaces the first `jumpDepth` levels of the quadtree descent: for each cell
/// of a 2^d × 2^d grid over the root, the node the descent reaches there at depth ≤ d. Without
/// one (nil: a lookup made for a single query) the descent starts at the root. A class, so that
/// holding and passing it never copies (and retains) its arrays one by one.
final class UnitLookup {
    let table: RegionTable
    let vertices: [Int32]
    let chunkStart: [UInt32]
    let chunkSegments: [UInt8]
    let chunkArc: [UInt32]
    /// Per chunk: min y, max y, min x and max x of its vertices, so that a leaf skips whole chunks
    /// the ray cannot cross (wholly above, below, or west of the point) and a nearby-arc search
    /// skips chunks out of reach. Empty without a jump table.
    let chunkBoxes: [Int32]
    let arcLeft: [Int32]
    let arcRight: [Int32]
    let nodes: UnsafeRawPointer
    let leaves: UnsafeRawBufferPointer
    let originX: Int64, originY: Int64, rootLog2: Int64
    let jumpDepth: Int64
    /// `jump[j << d | i]`: node index << 8 | its depth, for the cell (i, j) of the jump grid;
    /// empty without a jump table.
    let jump: [UInt64]
    /// The grids' lines (nil without grids), read per lookup without retaining `grids`.
    private let gridLines: UnsafeMutableRawPointer?
    /// The leaves' sub-cell grids (nil: every leaf casts its ray), built eagerly or leaf by leaf.
    let grids: LeafGrids?

    /// A lookup with a jump table of `jumpDepth` levels (nil: none) and the leaves' sub-cell grids
    /// as `leafGrids` says (built over a lookup without them: the same answers, by ray casting).
    convenience init(_ table: RegionTable, jumpDepth: Int?, leafGrids: LeafGridMode) {
        let base = UnitLookup(table, jumpDepth: jumpDepth)
        switch leafGrids {
        case .none: self.init(base, grids: nil)
        case .lazy: self.init(base, grids: LeafGrids(base, eager: false))
        case .eager: self.init(base, grids: LeafGrids(base, eager: true))
        }
    }

    private init(_ base: UnitLookup, grids: LeafGrids?) {
        table = base.table
        vertices = base.vertices
        chunkStart = base.chunkStart
        chunkSegments = base.chunkSegments
        chunkArc = base.chunkArc
        chunkBoxes = base.chunkBoxes
        arcLeft = base.arcLeft
        arcRight = base.arcRight
        nodes = base.nodes
        leaves = base.leaves
        originX = base.originX
        originY = base.originY
        rootLog2 = base.rootLog2
        jumpDepth = base.jumpDepth
        jump = base.jump
        self.grids = grids
        gridLines = grids?.lines
    }

    init(_ table: RegionTable, jumpDepth: Int?) {
        grids = nil
        gridLines = nil
        self.table = table
        vertices = table.vertices
        chunkStart = table.chunkStart
        chunkSegments = table.chunkSegments
        chunkArc = table.chunkArc
        arcLeft = table.arcLeft
        arcRight = table.arcRight
        nodes = table.bytes.baseAddress! + table.section(.indexNodes).lowerBound
        leaves = UnsafeRawBufferPointer(rebasing: table.bytes[table.section(.indexLeaves)])
        originX = table.indexOriginX
        originY = table.indexOriginY
        rootLog2 = Int64(table.indexRootLog2)
        let d = Int64(min(jumpDepth ?? 0, table.indexRootLog2))
        self.jumpDepth = d
        guard jumpDepth != nil else {
            jump = []
            chunkBoxes = []
            return
        }
        var boxes = [Int32](repeating: 0, count: 4 * chunkStart.count)
        for chunk in chunkStart.indices {
            let first = Int(chunkStart[chunk])
            var minY = Int32.max, maxY = Int32.min, minX = Int32.max, maxX = Int32.min
            for i in first...(first + Int(chunkSegments[chunk])) {
                minY = min(minY, vertices[2 * i + 1])
                maxY = max(maxY, vertices[2 * i + 1])
                minX = min(minX, vertices[2 * i])
                maxX = max(maxX, vertices[2 * i])
            }
            boxes[4 * chunk] = minY
            boxes[4 * chunk + 1] = maxY
            boxes[4 * chunk + 2] = minX
            boxes[4 * chunk + 3] = maxX
        }
        chunkBoxes = boxes
        var jump = [UInt64](repeating: 0, count: 1 << (2 * d))
        let nodes = self.nodes
        for j in 0..<(Int64(1) << d) {
            for i in 0..<(Int64(1) << d) {
                // Descend towards the cell's south-west corner until depth d or a non-split node.
                let x = i << (rootLog2 - d), y = j << (rootLog2 - d)
                var node = 0, depth: Int64 = 0, size = Int64(1) << rootLog2, ox: Int64 = 0, oy: Int64 = 0
                var raw = UInt32(littleEndian: nodes.loadUnaligned(as: UInt32.self))
                while raw >> 30 == 1, depth < d {
                    size >>= 1
                    let child = (x >= ox + size ? 1 : 0) + (y >= oy + size ? 2 : 0)
                    if child & 1 != 0 { ox += size }
                    if child & 2 != 0 { oy += size }
                    node = Int(raw & IndexNode.payloadMask) + child
                    raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: node * 4, as: UInt32.self))
                    depth += 1
                }
                jump[Int(j << d | i)] = UInt64(node) << 8 | UInt64(depth)
            }
        }
        self.jump = jump
    }

    /// Bytes held beyond the table's own arrays: the jump table and the chunk boxes.
    var byteCount: Int { 8 * jump.count + 4 * chunkBoxes.count + (grids?.byteCount ?? 0) }

    /// The unit containing the quantised point (x, y), with the clearance of a uniform cell.
    @inline(__always)
    func find(x: Int64, y: Int64) -> UnitLookupResult {
        let rootSize = Int64(1) << rootLog2
        // Longitude −180° is +180° (one meridian; the tables draw it on the east side).
        var qx = x == -TableFormat.limitX ? TableFormat.limitX : x
        while true {
            // Compared before subtracting: x and y may be any Int64.
            guard qx >= originX, qx < originX + rootSize, y >= originY, y < originY + rootSize else {
                return UnitLookupResult(unit: nil, clearanceX: 0, clearanceY: 0)
            }
            let rx = qx - originX, ry = y - originY
            let entry = jump.isEmpty ? 0 : jump[Int((ry >> (rootLog2 - jumpDepth)) << jumpDepth | (rx >> (rootLog2 - jumpDepth)))]
            var node = Int(entry >> 8)
            let depth = Int64(entry & 0xFF)
            var size = rootSize >> depth
            var ox = originX + (rx >> (rootLog2 - depth)) << (rootLog2 - depth)
            var oy = originY + (ry >> (rootLog2 - depth)) << (rootLog2 - depth)
            var raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: node * 4, as: UInt32.self))
            while raw >> 30 == 1 {
                size >>= 1
                let child = (qx >= ox + size ? 1 : 0) + (y >= oy + size ? 2 : 0)
                if child & 1 != 0 { ox += size }
                if child & 2 != 0 { oy += size }
                node = Int(raw & IndexNode.payloadMask) + child
                raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: node * 4, as: UInt32.self))
            }
            if raw >> 30 == 0 {
                let payload = raw & IndexNode.payloadMask
                // Clearance only when the point's own cell answered (not after walking east).
                let clear = qx == x
                return UnitLookupResult(unit: payload == 0 ? nil : Int32(payload - 1),
                                        clearanceX: clear ? min(x - ox, ox + size - 1 - x) : 0, clearanceY: clear ? min(y - oy, oy + size - 1 - y) : 0)
            }
            if let gridLines {
                let subLog2 = Int64(size.trailingZeroBitCount) - LeafGrids.sideLog2
                // A leaf at least 32 quanta wide: its grid, built on the first lookup that gets here
                // (nil while another thread builds it: cast the ray).
                if subLog2 >= 2, let line = LeafGrids.readyLine(gridLines, node: node) ?? grids.unsafelyUnwrapped.buildOnFirstLookup(LeafGrids.Leaf(node: node, ox: ox, oy: oy, log2: subLog2 &+ LeafGrids.sideLog2)) {
                    let column = (qx - ox) >> subLog2, row = (y - oy) >> subLog2
                    let k = Int(row << 3 | column)
                    if let unit = LeafGrids.unit(line: line, cell: k) {
                        // A clear sub-cell: no arc meets its closed square.
                        // Around it, `ring` − 1 sub-cells each way are clear too.
                        let reach = (LeafGrids.ring(line: line, cell: k) - 1) << subLog2
                        let cx = ox + column << subLog2 - reach, cy = oy + row << subLog2 - reach, sub = Int64(1) << subLog2 + 2 * reach
                        let clear = qx == x
                        return UnitLookupResult(unit: unit < 0 ? nil : unit,
                                                clearanceX: clear ? min(x - cx, cx + sub - 1 - x) : 0, clearanceY: clear ? min(y - cy, cy + sub - 1 - y) : 0)
                    }
                }
            }
            let limitX = ox + size
            if let crossing = nearestCrossing(leaf: Int(raw & IndexNode.payloadMask), px: qx, py: y, limitX: limitX) {
                let unit = crossing.upward ? arcLeft[crossing.arc] : arcRight[crossing.arc]
                return UnitLookupResult(unit: unit < 0 ? nil : unit, clearanceX: 0, clearanceY: 0)
            }
            qx = limitX
        }
    }

    /// The nearest crossing, among the chunks of the leaf at `offset`, of the ray from (px, py)
    /// up to limitX: which arc, and whether it runs upward there.
    @inline(__always)
    func nearestCrossing(leaf offset: Int, px: Int64, py: Int64, limitX: Int64) -> (arc: Int, upward: Bool)? {
        var position = offset
        // Validated at load: the leaf's varints are complete and its chunk ids in range.
        let count = Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
        var best: RayCasting.Crossing?
        var bestArc = 0
        let boxed = !chunkBoxes.isEmpty
        vertices.withUnsafeBufferPointer { v in
            chunkStart.withUnsafeBufferPointer { starts in
                chunkSegments.withUnsafeBufferPointer { segments in
                  chunkBoxes.withUnsafeBufferPointer { boxes in
                    var chunk = 0
                    for _ in 0..<count {
                        chunk += Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
                        // A chunk wholly above the ray (min y > py), at or below it (max y ≤ py) or
                        // west of the point has no segment the ray crosses.
                        if boxed, Int64(boxes[4 * chunk]) > py || Int64(boxes[4 * chunk + 1]) <= py || Int64(boxes[4 * chunk + 3]) < px { continue }
                        var i = Int(starts[chunk])
                        let last = i + Int(segments[chunk])
                        var ay = Int64(v[2 * i + 1])
                        while i < last {
                            // Most segments lie wholly above or below the ray: reject them on y alone.
                            let by = Int64(v[2 * i + 3])
                            if (ay > py) != (by > py),
                               let c = RayCasting.crossing(ax: Int64(v[2 * i]), ay: ay, bx: Int64(v[2 * i + 2]), by: by, px: px, py: py, limitX: limitX),
                               best.map({ c.isNearer(than: $0) }) ?? true {
                                best = c
                                bestArc = chunk
                            }
                            ay = by
                            i += 1
                        }
                    }
                  }
                }
            }
        }
        guard let best else { return nil }
        return (Int(chunkArc[bestArc]), best.upward)
    }
}
