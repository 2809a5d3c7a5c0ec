import CAtomicFlags
import Dispatch
import Foundation

/// How a locator uses the leaves' sub-cell grids (docs/locator.md, "Leaf grids"). The answers
/// are the same bit for bit in every mode; only when the work is done differs.
public enum LeafGridMode: Sendable {
    /// Each leaf's grid is built on the first lookup that reaches the leaf and published to every
    /// thread (the default): the locator is ready as fast as without grids, and a leaf costs its
    /// build (some 29,000 instructions) once, when first used.
    case lazy
    /// Every leaf's grid is built at creation (0.1–0.4 s on both cores): for a measurement
    /// without first-lookup builds in it.
    case eager
    /// No grids: every lookup that reaches a leaf casts its ray.
    case none
}

/// Per index leaf, an 8 × 8 grid of sub-cells, each holding the unit of the whole sub-cell when no
/// segment of the leaf comes near it, so that most points in a leaf are answered without casting a
/// ray (docs/locator.md, "Leaf grids"). Built leaf by leaf on first lookup (`LeafGridMode.lazy`)
/// or all at once at creation (`.eager`).
///
/// A sub-cell is *clear* when no segment of the leaf's chunks has a bounding box that meets its
/// closed square; every point of it then lies in one unit (or none), the unit of the sub-cell's
/// middle row line just above its height (the ray-casting rule's "a hair north"), which is the
/// west side of the nearest crossing of that line east of the sub-cell, inside the leaf, or, when
/// the line crosses nothing before the leaf's east edge, the answer of the ray cast from that
/// edge (what the lookup's walk east would find).
///
/// Publication: each line's state byte (`stateOffset`) goes 0 (absent) → 1 (building: one thread
/// won the compare-exchange and alone writes the line) → 2 (ready: stored with release ordering
/// after the line's bytes). A lookup reads a line's bytes only after loading 2 with acquire
/// ordering, so it sees them complete; a lookup that finds 1 (another thread building) casts its
/// ray, which gives the same answer. The atomics are `CAtomicFlags`'s (C, since the package
/// supports macOS 12 / iOS 15, before Swift's Synchronization module).
final class LeafGrids: @unchecked Sendable {
    /// Sub-cells per side (2^3).
    static let sideLog2: Int64 = 3
    static let cellsPerLeaf = 64
    /// Bytes a node's grid takes: the codes and palette (one cache line), then the rings and the state.
    static let lineBytes = 128
    /// Where in a line its state byte lies (0 absent, 1 building, 2 ready).
    static let stateOffset = 96
    static let absent: UInt8 = 0, building: UInt8 = 1, ready: UInt8 = 2
    /// The code of a sub-cell that a segment meets: the lookup casts its ray as before.
    static let unknownCode: UInt8 = 15
    /// While building: a sub-cell that a segment meets.
    static let unknown = Int32.min
    /// While building: a clear sub-cell whose row line crosses nothing east of it in the leaf.
    private static let pending = Int32.min + 1
    /// Threads that build the grids at most when built eagerly: each leaf writes only its own
    /// line, so the leaves are shared out among the cores (two measured 1.9× faster than one on
    /// an idle machine).
    static let maxWorkers = 8
    /// Per node, 128 bytes (128-byte aligned), zero until the node's grid is built: bytes 0..<32
    /// hold the sub-cells' 4-bit codes (sub-cell k = row · 8 + column from the south-west, in byte
    /// k / 2, the low half for even k), bytes 32..<64 a palette of 8 `Int32` (a unit, or −1 for
    /// none) that codes 0…7 index. Code 15 (`unknownCode`): cast the ray. Bytes 64..<96: each
    /// sub-cell's ring (`encodeRings`), 4 bits likewise. Byte 96: the state. Only leaves at least
    /// 32 quanta wide get grids; other nodes' lines stay zero (untouched pages of the allocation).
    let lines: UnsafeMutableRawPointer
    /// What `calloc` returned (the lines start at the first 128-byte boundary in it).
    private let allocation: UnsafeMutableRawPointer
    let nodeCount: Int
    /// The lookup without grids, which builds them: its east-edge rays never recurse into a grid.
    private let base: UnitLookup

    /// Bytes reserved for the lines (pages are touched only as leaves are built).
    var byteCount: Int { nodeCount * Self.lineBytes }

    deinit { free(allocation) }

    /// A leaf that gets a grid: its node and its cell (south-west corner, log2 size).
    struct Leaf {
        var node: Int, ox: Int64, oy: Int64, log2: Int64
    }

    /// Grids over `base`'s index (a lookup without grids), built now when `eager`, else leaf by
    /// leaf as lookups reach them (`readyLine`).
    init(_ base: UnitLookup, eager: Bool) {
        let nodeCount = base.table.section(.indexNodes).count / 4
        self.nodeCount = nodeCount
        self.base = base
        // Zeroed pages from the system: no cost until a line is written.
        let allocation = calloc(nodeCount * Self.lineBytes + Self.lineBytes, 1)!
        self.allocation = allocation
        let misalignment = Int(bitPattern: allocation) & (Self.lineBytes - 1)
        lines = allocation + (misalignment == 0 ? 0 : Self.lineBytes - misalignment)
        lines.bindMemory(to: UInt8.self, capacity: nodeCount * Self.lineBytes)
        if eager { buildAll() }
    }

    /// The state byte of `line`.
    @inline(__always)
    private static func state(_ line: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UInt8> {
        (line + stateOffset).assumingMemoryBound(to: UInt8.self)
    }

    /// True when `node`'s grid is built and published.
    func isReady(node: Int) -> Bool {
        caf_load_acquire(Self.state(lines + node * Self.lineBytes)) == Self.ready
    }

    /// The line of `node` in `lines` when its grid is ready, else nil (then `buildOnFirstLookup`).
    @inline(__always)
    static func readyLine(_ lines: UnsafeMutableRawPointer, node: Int) -> UnsafeRawPointer? {
        let line = lines + node &* lineBytes
        return caf_load_acquire(state(line)) == ready ? UnsafeRawPointer(line) : nil
    }

    /// The line of the leaf `leaf` (at least 32 quanta wide) once its grid is ready: built here
    /// when no thread has started it; nil while another thread builds it (cast the ray instead).
    func readyLine(_ leaf: Leaf) -> UnsafeRawPointer? {
        Self.readyLine(lines, node: leaf.node) ?? buildOnFirstLookup(leaf)
    }

    /// Builds `leaf`'s grid into its line when this thread wins it, and publishes it.
    @inline(never)
    func buildOnFirstLookup(_ leaf: Leaf) -> UnsafeRawPointer? {
        let line = lines + leaf.node * Self.lineBytes
        let state = Self.state(line)
        guard caf_compare_exchange(state, Self.absent, Self.building) else {
            return caf_load_acquire(state) == Self.ready ? UnsafeRawPointer(line) : nil
        }
        let scratch = Scratch()
        defer { scratch.deallocate() }
        Self.build(leaf, base, scratch, into: line)
        caf_store_release(state, Self.ready)
        return UnsafeRawPointer(line)
    }

    /// The unit of sub-cell `k` of a ready line (−1: none), or nil when a segment meets it.
    @inline(__always)
    static func unit(line: UnsafeRawPointer, cell k: Int) -> Int32? {
        let code = (line.load(fromByteOffset: k >> 1, as: UInt8.self) >> UInt8((k & 1) << 2)) & 15
        guard code != Self.unknownCode else { return nil }
        return line.load(fromByteOffset: 32 &+ Int(code) &* 4, as: Int32.self)
    }

    /// The ring of clear sub-cells around sub-cell `k` of a ready line (see `encodeRings`).
    @inline(__always)
    static func ring(line: UnsafeRawPointer, cell k: Int) -> Int64 {
        Int64((line.load(fromByteOffset: 64 &+ k >> 1, as: UInt8.self) >> UInt8((k & 1) << 2)) & 15)
    }

    /// The unit of sub-cell `k` of `node`'s grid, which must be ready (−1: none), or nil when a
    /// segment meets it.
    func unit(node: Int, cell k: Int) -> Int32? {
        Self.unit(line: lines + node * Self.lineBytes, cell: k)
    }

    /// The leaves at least 32 quanta wide, depth-first over the index.
    func gridLeaves() -> [Leaf] {
        let nodes = base.nodes
        var leaves: [Leaf] = []
        var stack = [Leaf(node: 0, ox: base.originX, oy: base.originY, log2: base.rootLog2)]
        while let cell = stack.popLast() {
            let raw = UInt32(littleEndian: nodes.loadUnaligned(fromByteOffset: cell.node * 4, as: UInt32.self))
            if raw >> 30 == 1 {
                let first = Int(raw & IndexNode.payloadMask), half = Int64(1) << (cell.log2 - 1)
                for child in 0..<4 {
                    stack.append(Leaf(node: first + child, ox: cell.ox + (child & 1 != 0 ? half : 0), oy: cell.oy + (child & 2 != 0 ? half : 0), log2: cell.log2 - 1))
                }
            } else if raw >> 30 >= 2, cell.log2 >= Self.sideLog2 + 2 {
                leaves.append(cell)
            }
        }
        return leaves
    }

    /// Builds every leaf's grid (that no lookup has built), the leaves shared out among the cores.
    private func buildAll() {
        let leaves = gridLeaves()
        let workers = max(1, min(Self.maxWorkers, ProcessInfo.processInfo.activeProcessorCount, leaves.count / 256))
        leaves.withUnsafeBufferPointer { leaves in
            let shared = SharedBuild(grids: self, leaves: leaves)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for i in stride(from: worker, to: shared.leaves.count, by: workers) {
                    _ = shared.grids.readyLine(shared.leaves[i])
                }
            }
        }
    }

    /// What the eager builders share: the grids (each leaf's line claimed by one thread through its
    /// state byte) and the leaves, only read.
    private struct SharedBuild: @unchecked Sendable {
        let grids: LeafGrids
        let leaves: UnsafeBufferPointer<Leaf>
    }

    /// One builder's working space for a leaf: per sub-cell, the nearest crossing found inside it
    /// and its chunk, and the sub-cell's value while building.
    private struct Scratch {
        let crossings = UnsafeMutablePointer<RayCasting.Crossing>.allocate(capacity: cellsPerLeaf)
        let chunks = UnsafeMutablePointer<Int>.allocate(capacity: cellsPerLeaf)
        let cells = UnsafeMutablePointer<Int32>.allocate(capacity: cellsPerLeaf)

        func deallocate() {
            crossings.deallocate()
            chunks.deallocate()
            cells.deallocate()
        }
    }

    /// Writes `leaf`'s grid into its line.
    private static func build(_ leaf: Leaf, _ lookup: UnitLookup, _ scratch: Scratch, into line: UnsafeMutableRawPointer) {
        let cells = scratch.cells, crossings = scratch.crossings, chunks = scratch.chunks
        cells.update(repeating: unknown, count: cellsPerLeaf)
        let (impure, crossed) = scan(lookup, leaf: leaf, scratch)
        let subLog2 = leaf.log2 - sideLog2, size = Int64(1) << leaf.log2
        var eastRows: UInt8 = 0
        for row in 0..<8 {
            // Walking west from the east edge, the nearest crossing east of each sub-cell.
            var nearest = -1
            for column in stride(from: 7, through: 0, by: -1) {
                let k = row * 8 + column
                if impure & (1 << UInt64(k)) == 0 {
                    if nearest >= 0 {
                        let arc = Int(lookup.chunkArc[chunks[nearest]])
                        let unit = crossings[nearest].upward ? lookup.arcLeft[arc] : lookup.arcRight[arc]
                        cells[k] = unit < 0 ? -1 : unit
                    } else {
                        eastRows |= 1 << UInt8(row)
                        cells[k] = pending
                    }
                }
                if crossed & (1 << UInt64(k)) != 0, nearest < 0 || crossings[k].isNearer(than: crossings[nearest]) {
                    nearest = k
                }
            }
        }
        // Rows whose line crosses nothing east of a clear sub-cell: the walk east's answer.
        for row in 0..<8 where eastRows & (1 << UInt8(row)) != 0 {
            let y = leaf.oy + Int64(row) << subLog2 + (Int64(1) << (subLog2 - 1))
            let found = lookup.find(x: leaf.ox + size, y: y).unit ?? -1
            for k in (row * 8)..<(row * 8 + 8) where cells[k] == pending { cells[k] = found }
        }
        encode(cells, into: line)
        encodeRings(impure, into: line + 64)
    }

    /// Per sub-cell, its Chebyshev distance (in sub-cells) to the first position outside the leaf.
    private static let sideRings: [UInt8] = (0..<64).map { (k: Int) -> UInt8 in
        let row: Int = k >> 3, column: Int = k & 7
        return UInt8(min(row, column, 7 - row, 7 - column) + 1)
    }

    /// Writes, per clear sub-cell, the Chebyshev distance (in sub-cells, 1…4) to the nearest
    /// sub-cell a segment meets or to the first position outside the leaf (0 for a sub-cell a
    /// segment meets): the square of sub-cells closer than that around it is clear, so no arc
    /// comes nearer the point than that square's sides. The distances to the met sub-cells come
    /// from growing their set one ring at a time (a side ring is at most 4, so three suffice).
    private static func encodeRings(_ impure: UInt64, into line: UnsafeMutableRawPointer) {
        let notWest: UInt64 = 0xFEFE_FEFE_FEFE_FEFE, notEast: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        func grown(_ m: UInt64) -> UInt64 {
            let east: UInt64 = (m << 1) & notWest, west: UInt64 = (m >> 1) & notEast
            let across: UInt64 = m | east | west
            let north: UInt64 = across << 8, south: UInt64 = across >> 8
            return across | north | south
        }
        let within1 = grown(impure), within2 = grown(within1), within3 = grown(within2)
        for pair in 0..<32 {
            var byte: UInt8 = 0
            for half in 0..<2 {
                let k = 2 * pair + half, bit = UInt64(1) << UInt64(k)
                var ring = impure & bit != 0 ? 0 : sideRings[k]
                if ring > 1 {
                    ring = min(ring, within1 & bit != 0 ? 1 : within2 & bit != 0 ? 2 : within3 & bit != 0 ? 3 : 4)
                }
                byte |= ring << UInt8(4 * half)
            }
            line.storeBytes(of: byte, toByteOffset: pair, as: UInt8.self)
        }
    }

    /// Writes a leaf's 64 sub-cell values into its line: the first 8 distinct values get palette
    /// codes, any further ones (rare) the unknown code.
    private static func encode(_ cells: UnsafeMutablePointer<Int32>, into line: UnsafeMutableRawPointer) {
        var paletteCount = 0
        for pair in 0..<32 {
            var byte: UInt8 = 0
            for half in 0..<2 {
                let value = cells[2 * pair + half]
                var code = unknownCode
                if value != unknown {
                    if let index = (0..<paletteCount).first(where: { line.load(fromByteOffset: 32 + 4 * $0, as: Int32.self) == value }) {
                        code = UInt8(index)
                    } else if paletteCount < 8 {
                        line.storeBytes(of: value, toByteOffset: 32 + 4 * paletteCount, as: Int32.self)
                        code = UInt8(paletteCount)
                        paletteCount += 1
                    }
                }
                byte |= code << UInt8(4 * half)
            }
            line.storeBytes(of: byte, toByteOffset: pair, as: UInt8.self)
        }
    }

    /// The sub-cells of `leaf` that a segment's bounding box meets (bit row · 8 + column), and
    /// those (bits likewise) that hold, in `scratch`, the nearest crossing inside them of their
    /// row's middle line (cast from the leaf's west edge, up to its east edge, as
    /// `RayCasting.crossing` finds it) and its chunk.
    private static func scan(_ lookup: UnitLookup, leaf cell: Leaf, _ scratch: Scratch) -> (impure: UInt64, crossed: UInt64) {
        let leaves = lookup.leaves
        let ox = cell.ox, oy = cell.oy
        var position = Int(UInt32(littleEndian: lookup.nodes.loadUnaligned(fromByteOffset: cell.node * 4, as: UInt32.self)) & IndexNode.payloadMask)
        let count = Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
        let subLog2 = cell.log2 - sideLog2, size = Int64(1) << cell.log2, sub = Int64(1) << subLog2
        let maxX = ox + size, maxY = oy + size
        var impure: UInt64 = 0, crossed: UInt64 = 0
        var chunk = 0
        lookup.vertices.withUnsafeBufferPointer { v in
            for _ in 0..<count {
                chunk += Int(UnsignedVarint.read(leaves, &position, end: leaves.count)!)
                var i = Int(lookup.chunkStart[chunk])
                let last = i + Int(lookup.chunkSegments[chunk])
                while i < last {
                    let ax = Int64(v[2 * i]), ay = Int64(v[2 * i + 1])
                    let bx = Int64(v[2 * i + 2]), by = Int64(v[2 * i + 3])
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
                        let k = row * 8 + column, bit = UInt64(1) << UInt64(k)
                        if crossed & bit == 0 || c.isNearer(than: scratch.crossings[k]) {
                            crossed |= bit
                            scratch.crossings[k] = c
                            scratch.chunks[k] = chunk
                        }
                    }
                }
            }
        }
        return (impure, crossed)
    }
}
