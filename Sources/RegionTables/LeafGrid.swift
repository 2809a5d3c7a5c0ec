/// Per index leaf, an 8 × 8 grid of sub-cells, each holding the unit of the whole sub-cell when no
/// segment of the leaf comes near it, so that most points in a leaf are answered without casting a
/// ray (docs/locator.md, "Leaf grids"). Built from the table when a locator is created.
///
/// A sub-cell is *clear* when no segment of the leaf's chunks has a bounding box that meets its
/// closed square; every point of it then lies in one unit (or none), the unit of the sub-cell's
/// middle row line just above its height (the ray-casting rule's "a hair north"), which is the
/// west side of the nearest crossing of that line east of the sub-cell, inside the leaf, or, when
/// the line crosses nothing before the leaf's east edge, the answer of the ray cast from that
/// edge (what the lookup's walk east would find).
struct LeafGrids {
    /// Sub-cells per side (2^3).
    static let sideLog2: Int64 = 3
    static let cellsPerLeaf = 64
    /// A sub-cell that a segment meets: the lookup casts its ray as before.
    static let unknown = Int32.min
    /// While building: a clear sub-cell whose row line crosses nothing east of it in the leaf.
    private static let pending = Int32.min + 1
    /// Per node: the index of its grid (× 64 in `cells`), or −1 (not a leaf, or too small).
    let gridOfNode: [Int32]
    /// Per sub-cell, row-major from the south-west: −1 no unit, `unknown`, or the unit.
    let cells: [Int32]

    var byteCount: Int { 4 * gridOfNode.count + 4 * cells.count }

    /// The grids of every leaf of `lookup`'s index at least 8 quanta wide.
    init(_ lookup: UnitLookup) {
        let nodeCount = lookup.table.section(.indexNodes).count / 4
        var gridOfNode = [Int32](repeating: -1, count: nodeCount)
        var cells: [Int32] = []
        let nodes = lookup.nodes
        // Depth-first over the index: node, cell corner, log2 size.
        var stack: [(Int, Int64, Int64, Int64)] = [(0, lookup.originX, lookup.originY, lookup.rootLog2)]
        var crossings = [RayCasting.Crossing?](repeating: nil, count: Self.cellsPerLeaf)
        var crossingChunks = [Int](repeating: 0, count: Self.cellsPerLeaf)
        var eastRows: UInt8 = 0
        while let (node, ox, oy, log2) = stack.popLast() {
            let raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: node * 4, as: UInt32.self))
            if raw >> 30 == 1 {
                let first = Int(raw & IndexNode.payloadMask), half = Int64(1) << (log2 - 1)
                for child in 0..<4 {
                    stack.append((first + child, ox + (child & 1 != 0 ? half : 0), oy + (child & 2 != 0 ? half : 0), log2 - 1))
                }
                continue
            }
            guard raw >> 30 >= 2, log2 >= Self.sideLog2 + 2 else { continue }
            let grid = cells.count / Self.cellsPerLeaf
            gridOfNode[node] = Int32(grid)
            cells.append(contentsOf: repeatElement(Self.unknown, count: Self.cellsPerLeaf))
            let impure = Self.scan(lookup, leaf: Int(raw & IndexNode.payloadMask), ox: ox, oy: oy, log2: log2, crossings: &crossings, chunks: &crossingChunks)
            let subLog2 = log2 - Self.sideLog2, size = Int64(1) << log2
            eastRows = 0
            for row in 0..<8 {
                // Walking west from the east edge, the nearest crossing east of each sub-cell.
                var nearest: RayCasting.Crossing?
                var nearestChunk = 0
                for column in stride(from: 7, through: 0, by: -1) {
                    let k = row * 8 + column
                    if impure & (1 << UInt64(k)) == 0 {
                        if let nearest {
                            let arc = lookup.chunkArc[nearestChunk]
                            let unit = nearest.upward ? lookup.arcLeft[Int(arc)] : lookup.arcRight[Int(arc)]
                            cells[grid * Self.cellsPerLeaf + k] = unit < 0 ? -1 : unit
                        } else {
                            eastRows |= 1 << UInt8(row)
                            cells[grid * Self.cellsPerLeaf + k] = Self.pending
                        }
                    }
                    if let c = crossings[k], nearest.map({ c.isNearer(than: $0) }) ?? true {
                        nearest = c
                        nearestChunk = crossingChunks[k]
                    }
                }
            }
            // Rows whose line crosses nothing east of a clear sub-cell: the walk east's answer.
            for row in 0..<8 where eastRows & (1 << UInt8(row)) != 0 {
                let line = oy + Int64(row) << subLog2 + (Int64(1) << (subLog2 - 1))
                let found = lookup.find(x: ox + size, y: line).unit
                for k in (row * 8)..<(row * 8 + 8) where cells[grid * Self.cellsPerLeaf + k] == Self.pending {
                    cells[grid * Self.cellsPerLeaf + k] = found ?? -1
                }
            }
        }
        self.gridOfNode = gridOfNode
        self.cells = cells
    }

    /// The sub-cells of the leaf (list at `offset` in the leaves section, cell (ox, oy), 2^log2
    /// wide) that a segment's bounding box meets (bit row · 8 + column), and per sub-cell the
    /// nearest crossing inside it of its row's middle line (cast from the leaf's west edge, up to
    /// its east edge, as `RayCasting.crossing` finds it) and its chunk.
    static func scan(_ lookup: UnitLookup, leaf offset: Int, ox: Int64, oy: Int64, log2: Int64,
                     crossings: inout [RayCasting.Crossing?], chunks: inout [Int]) -> UInt64 {
        for k in 0..<cellsPerLeaf { crossings[k] = nil }
        let leaves = lookup.leaves
        var position = offset
        let count = Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
        let subLog2 = log2 - sideLog2, size = Int64(1) << log2, sub = Int64(1) << subLog2
        let maxX = ox + size, maxY = oy + size
        var impure: UInt64 = 0
        var chunk = 0
        for _ in 0..<count {
            chunk += Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
            var i = Int(lookup.chunkStart[chunk])
            let last = i + Int(lookup.chunkSegments[chunk])
            while i < last {
                let ax = Int64(lookup.vertices[2 * i]), ay = Int64(lookup.vertices[2 * i + 1])
                let bx = Int64(lookup.vertices[2 * i + 2]), by = Int64(lookup.vertices[2 * i + 3])
                i += 1
                let lowX = min(ax, bx), highX = max(ax, bx), lowY = min(ay, by), highY = max(ay, by)
                guard lowX <= maxX, highX >= ox, lowY <= maxY, highY >= oy else { continue }
                // Sub-cells whose closed squares the box meets: column c spans [ox + c·sub, ox + (c+1)·sub].
                let c0 = max(0, Int((lowX - ox + sub - 1) >> subLog2) - 1), c1 = min(7, Int((highX - ox) >> subLog2))
                let r0 = max(0, Int((lowY - oy + sub - 1) >> subLog2) - 1), r1 = min(7, Int((highY - oy) >> subLog2))
                guard c0 <= c1, r0 <= r1 else { continue }
                let columns = (UInt64(0xFF) >> UInt64(7 - (c1 - c0))) << UInt64(c0)
                for row in r0...r1 {
                    impure |= columns << UInt64(8 * row)
                    let line = oy + Int64(row) << subLog2 + sub / 2
                    guard let c = RayCasting.crossing(ax: ax, ay: ay, bx: bx, by: by, px: ox, py: line, limitX: maxX) else { continue }
                    let column = min(7, max(0, Int((c.x - Double(ox)) / Double(sub))))
                    let k = row * 8 + column
                    if crossings[k].map({ c.isNearer(than: $0) }) ?? true {
                        crossings[k] = c
                        chunks[k] = chunk
                    }
                }
            }
        }
        return impure
    }
}
