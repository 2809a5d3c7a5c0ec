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
final class LeafGrids {
    /// Sub-cells per side (2^3).
    static let sideLog2: Int64 = 3
    static let cellsPerLeaf = 64
    /// Bytes a node's grid takes: the codes and palette (one cache line), then the rings.
    static let lineBytes = 128
    /// The code of a sub-cell that a segment meets: the lookup casts its ray as before.
    static let unknownCode: UInt8 = 15
    /// While building: a sub-cell that a segment meets.
    static let unknown = Int32.min
    /// While building: a clear sub-cell whose row line crosses nothing east of it in the leaf.
    private static let pending = Int32.min + 1
    /// Per node, 128 bytes (64-byte aligned): bytes 0..<32 hold the sub-cells' 4-bit codes
    /// (sub-cell k = row · 8 + column from the south-west, in byte k / 2, the low half for even k),
    /// bytes 32..<64 a palette of 8 `Int32` (a unit, or −1 for none) that codes 0…7 index. Code 15
    /// (`unknownCode`): cast the ray; a node that is not a leaf with a grid has only code 15.
    /// Bytes 64..<96: each sub-cell's ring (`encodeRings`), 4 bits likewise.
    let lines: UnsafeMutableRawPointer
    let nodeCount: Int

    var byteCount: Int { nodeCount * Self.lineBytes }

    deinit { lines.deallocate() }

    /// The unit of sub-cell `k` of `node`'s grid (−1: none), or nil when a segment meets it.
    @inline(__always)
    func unit(node: Int, cell k: Int) -> Int32? {
        let line = UnsafeRawPointer(lines) + node &* Self.lineBytes
        let code = (line.load(fromByteOffset: k >> 1, as: UInt8.self) >> UInt8((k & 1) << 2)) & 15
        guard code != Self.unknownCode else { return nil }
        return line.load(fromByteOffset: 32 &+ Int(code) &* 4, as: Int32.self)
    }

    /// The grids of every leaf of `lookup`'s index at least 32 quanta wide.
    init(_ lookup: UnitLookup) {
        let nodeCount = lookup.table.section(.indexNodes).count / 4
        self.nodeCount = nodeCount
        lines = UnsafeMutableRawPointer.allocate(byteCount: nodeCount * Self.lineBytes, alignment: Self.lineBytes)
        lines.initializeMemory(as: UInt8.self, repeating: 0xFF, count: nodeCount * Self.lineBytes)
        let nodes = lookup.nodes
        // Depth-first over the index: node, cell corner, log2 size.
        var stack: [(Int, Int64, Int64, Int64)] = [(0, lookup.originX, lookup.originY, lookup.rootLog2)]
        var crossings = [RayCasting.Crossing?](repeating: nil, count: Self.cellsPerLeaf)
        var crossingChunks = [Int](repeating: 0, count: Self.cellsPerLeaf)
        var cells = [Int32](repeating: Self.unknown, count: Self.cellsPerLeaf)
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
            for k in 0..<Self.cellsPerLeaf { cells[k] = Self.unknown }
            let impure = Self.scan(lookup, leaf: Int(raw & IndexNode.payloadMask), ox: ox, oy: oy, log2: log2, crossings: &crossings, chunks: &crossingChunks)
            let subLog2 = log2 - Self.sideLog2, size = Int64(1) << log2
            var eastRows: UInt8 = 0
            for row in 0..<8 {
                // Walking west from the east edge, the nearest crossing east of each sub-cell.
                var nearest: RayCasting.Crossing?
                var nearestChunk = 0
                for column in stride(from: 7, through: 0, by: -1) {
                    let k = row * 8 + column
                    if impure & (1 << UInt64(k)) == 0 {
                        if let nearest {
                            let arc = Int(lookup.chunkArc[nearestChunk])
                            let unit = nearest.upward ? lookup.arcLeft[arc] : lookup.arcRight[arc]
                            cells[k] = unit < 0 ? -1 : unit
                        } else {
                            eastRows |= 1 << UInt8(row)
                            cells[k] = Self.pending
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
                for k in (row * 8)..<(row * 8 + 8) where cells[k] == Self.pending { cells[k] = found ?? -1 }
            }
            encode(cells, node: node)
            encodeRings(impure, node: node)
        }
    }

    /// Writes, per clear sub-cell, the Chebyshev distance (in sub-cells, 1…8) to the nearest
    /// sub-cell a segment meets or to the first position outside the leaf: the square of
    /// sub-cells closer than that around it is clear, so no arc comes nearer the point than that
    /// square's sides.
    private func encodeRings(_ impure: UInt64, node: Int) {
        let line = lines + node * Self.lineBytes + 64
        for k in 0..<Self.cellsPerLeaf {
            let row = k >> 3, column = k & 7
            var ring = 0
            if impure & (1 << UInt64(k)) == 0 {
                ring = min(row, column, 7 - row, 7 - column) + 1
                var j = impure
                while j != 0, ring > 1 {
                    let b = j.trailingZeroBitCount
                    j &= j - 1
                    ring = min(ring, max(abs((b >> 3) - row), abs((b & 7) - column)))
                }
            }
            let byte = line.load(fromByteOffset: k >> 1, as: UInt8.self)
            let code = UInt8(ring)
            line.storeBytes(of: k & 1 == 0 ? (byte & 0xF0) | code : (byte & 0x0F) | (code << 4), toByteOffset: k >> 1, as: UInt8.self)
        }
    }

    /// The ring of clear sub-cells around sub-cell `k` of `node`'s grid (see `encodeRings`).
    @inline(__always)
    func ring(node: Int, cell k: Int) -> Int64 {
        let line = UnsafeRawPointer(lines) + (node &* Self.lineBytes &+ 64)
        return Int64((line.load(fromByteOffset: k >> 1, as: UInt8.self) >> UInt8((k & 1) << 2)) & 15)
    }

    /// Writes a leaf's 64 sub-cell values into its line: the first 8 distinct values get palette
    /// codes, any further ones (rare) the unknown code.
    private func encode(_ cells: [Int32], node: Int) {
        let line = lines + node * Self.lineBytes
        var palette: [Int32] = []
        for k in 0..<Self.cellsPerLeaf {
            var code = Self.unknownCode
            if cells[k] != Self.unknown {
                if let index = palette.firstIndex(of: cells[k]) {
                    code = UInt8(index)
                } else if palette.count < 8 {
                    palette.append(cells[k])
                    code = UInt8(palette.count - 1)
                }
            }
            let byte = line.load(fromByteOffset: k >> 1, as: UInt8.self)
            let merged = k & 1 == 0 ? (byte & 0xF0) | code : (byte & 0x0F) | (code << 4)
            line.storeBytes(of: merged, toByteOffset: k >> 1, as: UInt8.self)
        }
        for (index, unit) in palette.enumerated() { line.storeBytes(of: unit, toByteOffset: 32 + 4 * index, as: Int32.self) }
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
                for row in r0...r1 {
                    // The columns the segment meets within the row's closed band (a quantum spare).
                    var x0 = lowX, x1 = highX
                    if ay != by {
                        let y0 = max(lowY, oy + Int64(row) << subLog2), y1 = min(highY, oy + Int64(row + 1) << subLog2)
                        let slope = Double(bx - ax) / Double(by - ay)
                        let xa = Double(ax) + Double(y0 - ay) * slope, xb = Double(ax) + Double(y1 - ay) * slope
                        x0 = max(lowX, Int64(min(xa, xb).rounded(.down)) - 1)
                        x1 = min(highX, Int64(max(xa, xb).rounded(.up)) + 1)
                    }
                    let rc0 = max(c0, Int((x0 - ox + sub - 1) >> subLog2) - 1), rc1 = min(c1, Int((x1 - ox) >> subLog2))
                    if rc0 <= rc1 { impure |= ((UInt64(0xFF) >> UInt64(7 - (rc1 - rc0))) << UInt64(rc0)) << UInt64(8 * row) }
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
