/// The quadtree index of a region table, checked at load (docs/region-table-format.md, sections 9–11).
extension RegionTable {
    /// The index meta (origin, root log2 size, depth), after checking it, every node and every leaf.
    func validateIndex() throws -> (originX: Int64, originY: Int64, rootLog2: Int, depth: Int) {
        let meta = section(.indexMeta)
        guard meta.count == 16 else { throw error(meta.lowerBound, "index meta has \(meta.count) bytes, expected 16") }
        let indexOriginX = Int64(Self.load(bytes, meta.lowerBound) as Int32)
        let indexOriginY = Int64(Self.load(bytes, meta.lowerBound + 4) as Int32)
        let indexRootLog2 = Int(Self.load(bytes, meta.lowerBound + 8) as UInt32)
        let indexDepth = Int(Self.load(bytes, meta.lowerBound + 12) as UInt32)
        guard indexRootLog2 <= 31, indexDepth <= indexRootLog2 else { throw error(meta.lowerBound, "index root 2^\(indexRootLog2), depth \(indexDepth)") }
        let nodes = section(.indexNodes), leaves = section(.indexLeaves)
        guard nodes.count % 4 == 0, nodes.count >= 4 else { throw error(nodes.lowerBound, "index nodes misaligned or empty") }
        let nodeCount = nodes.count / 4
        // Depth at which the descent from the root reaches each node (−1: not reached). Parents come
        // before their children, so it is final when the loop gets to the node.
        let depth = UnsafeMutablePointer<Int8>.allocate(capacity: nodeCount)
        defer { depth.deallocate() }
        depth.initialize(repeating: -1, count: nodeCount)
        depth[0] = 0
        let chunkCount = UInt64(chunkStart.count), unitCount = UInt32(self.unitCount), bytes = self.bytes
        for node in 0..<nodeCount {
            let raw: UInt32 = Self.load(bytes, nodes.lowerBound + node * 4)
            let payload = raw & IndexNode.payloadMask
            switch raw >> 30 {
            case 0:
                if payload > unitCount { throw error(nodes.lowerBound + node * 4, "index node \(node): unit \(Int64(payload) - 1) out of range") }
            case 1:
                // Children come after their parent, so descending always terminates.
                let first = Int(payload)
                guard first > node, first + 4 <= nodeCount else { throw error(nodes.lowerBound + node * 4, "index node \(node): children at \(first)") }
                // No cell below the depth (≤ root log2) is narrower than a quantum, so the walk east always advances.
                if depth[node] >= 0 {
                    guard Int(depth[node]) < indexDepth else { throw error(nodes.lowerBound + node * 4, "index node \(node): split deeper than the index depth \(indexDepth)") }
                    for child in first..<first + 4 { depth[child] = max(depth[child], depth[node] + 1) }
                }
            default:
                var position = leaves.lowerBound + Int(payload)
                guard position < leaves.upperBound, let count = UnsignedVarint.read(bytes, &position, end: leaves.upperBound), count <= chunkCount else {
                    throw error(nodes.lowerBound + node * 4, "index node \(node): leaf at \(payload) is out of range")
                }
                var chunk: UInt64 = 0
                for _ in 0..<count {
                    guard let delta = UnsignedVarint.read(bytes, &position, end: leaves.upperBound) else {
                        throw error(position, "index leaf at \(payload) runs past the section")
                    }
                    chunk &+= delta
                    guard delta < chunkCount, chunk < chunkCount else { throw error(position, "index leaf at \(payload): chunk out of range") }
                }
            }
        }
        return (indexOriginX, indexOriginY, indexRootLog2, indexDepth)
    }
}
