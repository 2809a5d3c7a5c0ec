import RegionTables

#if canImport(Glibc)
import Glibc
#endif

/// Builds the quadtree index of a table: cells wholly inside one unit (or far outside all) become
/// uniform nodes that answer without any edge test; the rest split until few chunks remain, and
/// their leaves list the chunks that cross them or come within the buffer of them.
struct TableIndexBuilder {
    var nodes: [UInt32] = []
    /// Leaf records: varint chunk count, then ascending chunk ids as varint deltas.
    var leaves: [UInt8] = []
    var leafCount = 0
    var chunkReferenceCount = 0
    var originX: Int32 = 0, originY: Int32 = 0
    var rootLog2: UInt32 = 0
    var depth: UInt32 = 0

    /// Chunks as the reader derives them (arc by arc, up to TableFormat.chunkSegments segments).
    struct Chunks {
        var start: [Int] = [], count: [Int] = [], arc: [Int] = []
        var minX: [Int64] = [], minY: [Int64] = [], maxX: [Int64] = [], maxY: [Int64] = []

        init(vertices: [Int32], arcStart: [Int]) {
            for a in 0..<(arcStart.count - 1) {
                var first = arcStart[a]
                let last = arcStart[a + 1] - 1
                while first < last {
                    let n = min(TableFormat.chunkSegments, last - first)
                    start.append(first); count.append(n); arc.append(a)
                    var x0 = Int64.max, y0 = Int64.max, x1 = Int64.min, y1 = Int64.min
                    for v in first...(first + n) {
                        let x = Int64(vertices[2 * v]), y = Int64(vertices[2 * v + 1])
                        x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
                    }
                    minX.append(x0); minY.append(y0); maxX.append(x1); maxY.append(y1)
                    first += n
                }
            }
        }
    }

    /// How far (quanta) around a cell a chunk of an outer arc must reach to be listed, so that
    /// leaves cover the edge zone: `buffer` metres north–south, and east–west `buffer` / cos φ,
    /// φ being the latitude of the cell's edge (grown by the north–south margin) farthest from
    /// the equator, at most ``maximumMarginLatitude``.
    struct Margin {
        let y: Int64
        init(buffer: Double) { y = Int64((buffer / (111_320 * TableFormat.quantum)).rounded(.up)) }
        func x(minY: Int64, maxY: Int64) -> Int64 {
            let degrees = min(Double(max(abs(minY - y), abs(maxY + y))) * TableFormat.quantum, TableIndexBuilder.maximumMarginLatitude)
            return Int64((Double(y) / cos(degrees * Double.pi / 180)).rounded(.up))
        }
    }

    /// Beyond this latitude (degrees) the east–west margin stops growing (11.5 times the
    /// north–south one).
    static let maximumMarginLatitude = 85.0

    /// - Parameters:
    ///   - buffer: the table's edge zone, metres: chunks of outer arcs (coast, national border:
    ///     one side outside) are listed in every cell they come within the ``Margin`` of.
    ///   - maximumLeafChunks: a cell with more chunks than this is split (down to `maximumDepth`,
    ///     and never below 2^`minimumLeafLog2` quanta, by default 2^5, ~35 m, where splitting
    ///     stops paying).
    init(vertices: [Int32], arcStart: [Int], arcLeft: [Int32], arcRight: [Int32], buffer: Double,
         maximumLeafChunks: Int = 6, maximumDepth: Int = 22, minimumLeafLog2: Int64 = 5) {
        let chunks = Chunks(vertices: vertices, arcStart: arcStart)
        guard !chunks.start.isEmpty else {
            nodes = [IndexNode.uniform(unit: nil).raw]
            return
        }
        let margin = Margin(buffer: buffer)
        let widest = margin.x(minY: chunks.minY.min()!, maxY: chunks.maxY.max()!)
        let x0 = chunks.minX.min()! - widest, y0 = chunks.minY.min()! - margin.y
        let x1 = chunks.maxX.max()! + widest, y1 = chunks.maxY.max()! + margin.y
        var log2: Int64 = 0
        while (Int64(1) << log2) <= max(x1 - x0, y1 - y0) { log2 += 1 }
        originX = Int32(x0); originY = Int32(y0); rootLog2 = UInt32(log2)
        let bands = RowBands(chunks: chunks, originY: y0, vertices: vertices)

        let outer = (0..<chunks.start.count).map { arcLeft[chunks.arc[$0]] < 0 || arcRight[chunks.arc[$0]] < 0 }
        /// True when some segment of `chunk` has a bounding box meeting the cell (grown by the
        /// margin for outer chunks).
        func touches(_ chunk: Int, _ cx0: Int64, _ cy0: Int64, _ cx1: Int64, _ cy1: Int64) -> Bool {
            let mx = outer[chunk] ? margin.x(minY: cy0, maxY: cy1) : 0, my = outer[chunk] ? margin.y : 0
            let rx0 = cx0 - mx, ry0 = cy0 - my, rx1 = cx1 + mx, ry1 = cy1 + my
            if chunks.maxX[chunk] < rx0 || chunks.minX[chunk] > rx1 || chunks.maxY[chunk] < ry0 || chunks.minY[chunk] > ry1 { return false }
            let first = chunks.start[chunk]
            for v in first..<(first + chunks.count[chunk]) {
                let ax = Int64(vertices[2 * v]), ay = Int64(vertices[2 * v + 1])
                let bx = Int64(vertices[2 * v + 2]), by = Int64(vertices[2 * v + 3])
                if max(ax, bx) >= rx0 && min(ax, bx) <= rx1 && max(ay, by) >= ry0 && min(ay, by) <= ry1 { return true }
            }
            return false
        }

        struct Pending { var node: Int; var x: Int64; var y: Int64; var log2: Int64; var chunks: [Int]; var depth: Int }
        nodes = [0]
        var queue = [Pending(node: 0, x: x0, y: y0, log2: log2, chunks: Array(chunks.start.indices), depth: 0)]
        var head = 0
        var maxDepthSeen = 0
        while head < queue.count {
            let item = queue[head]
            head += 1
            maxDepthSeen = max(maxDepthSeen, item.depth)
            let size = Int64(1) << item.log2
            if item.chunks.isEmpty {
                let unit = bands.unit(atX: item.x + size / 2, y: item.y + size / 2, arcLeft: arcLeft, arcRight: arcRight)
                nodes[item.node] = IndexNode.uniform(unit: unit).raw
            } else if item.chunks.count <= maximumLeafChunks || item.depth >= maximumDepth || item.log2 <= minimumLeafLog2 {
                nodes[item.node] = IndexNode.leaf(UInt32(leaves.count)).raw
                UnsignedVarint.append(UInt64(item.chunks.count), to: &leaves)
                var previous = 0
                for chunk in item.chunks {
                    UnsignedVarint.append(UInt64(chunk - previous), to: &leaves)
                    previous = chunk
                }
                leafCount += 1
                chunkReferenceCount += item.chunks.count
            } else {
                let first = nodes.count
                nodes.append(contentsOf: [0, 0, 0, 0])
                nodes[item.node] = IndexNode.split(firstChild: UInt32(first)).raw
                let half = size / 2
                for child in 0..<4 {
                    let cx = item.x + (child & 1 == 0 ? 0 : half), cy = item.y + (child & 2 == 0 ? 0 : half)
                    let inside = item.chunks.filter { touches($0, cx, cy, cx + half, cy + half) }
                    queue.append(Pending(node: first + child, x: cx, y: cy, log2: item.log2 - 1, chunks: inside, depth: item.depth + 1))
                }
            }
            queue[head - 1].chunks = []
        }
        depth = UInt32(maxDepthSeen)
    }
}

/// Build-time point location by brute force over horizontal bands of chunks, used to label the
/// uniform cells of the index (whose centres lie far from every segment).
struct RowBands {
    let originY: Int64
    let bandLog2: Int64 = 15
    var bands: [[Int]] = []
    let chunks: TableIndexBuilder.Chunks
    let vertices: [Int32]

    init(chunks: TableIndexBuilder.Chunks, originY: Int64, vertices: [Int32]) {
        self.originY = originY
        self.chunks = chunks
        self.vertices = vertices
        let top = chunks.maxY.max() ?? originY
        bands = Array(repeating: [], count: Int((top - originY) >> bandLog2) + 1)
        for chunk in chunks.start.indices {
            let low = Int((chunks.minY[chunk] - originY) >> bandLog2), high = Int((chunks.maxY[chunk] - originY) >> bandLog2)
            for band in low...high { bands[band].append(chunk) }
        }
    }

    func unit(atX px: Int64, y py: Int64, arcLeft: [Int32], arcRight: [Int32]) -> Int32? {
        let band = (py - originY) >> bandLog2
        guard band >= 0, Int(band) < bands.count else { return nil }
        var best: RayCasting.Crossing?
        var bestArc = 0
        for chunk in bands[Int(band)] where chunks.maxX[chunk] >= px && chunks.minY[chunk] <= py && chunks.maxY[chunk] >= py {
            let first = chunks.start[chunk]
            for v in first..<(first + chunks.count[chunk]) {
                if let c = RayCasting.crossing(ax: Int64(vertices[2 * v]), ay: Int64(vertices[2 * v + 1]),
                                               bx: Int64(vertices[2 * v + 2]), by: Int64(vertices[2 * v + 3]),
                                               px: px, py: py, limitX: 400_000_000),
                   best.map({ c.isNearer(than: $0) }) ?? true {
                    best = c
                    bestArc = chunks.arc[chunk]
                }
            }
        }
        guard let best else { return nil }
        let unit = best.upward ? arcLeft[bestArc] : arcRight[bestArc]
        return unit < 0 ? nil : unit
    }
}
