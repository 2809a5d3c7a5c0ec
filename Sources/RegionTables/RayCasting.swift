/// The ray-casting rule of the region tables, shared by the table builder and the reader.
///
/// A point's unit is found by casting a ray from it towards +x and taking the first boundary
/// segment it crosses: the point lies on that segment's west side, which is the arc's left unit
/// when the segment runs north (in the arc's direction) and its right unit when it runs south.
/// Vertices exactly at the ray's height count as below it (half-open), so every crossing is
/// counted once and a point exactly on a border gets one answer: the region to its west (or, on
/// an east–west border, the one to its north).
public enum RayCasting {
    /// A crossing found by the ray: where (approximately; exact comparisons are used for ties),
    /// and the segment's end points ordered bottom → top, plus whether the arc runs upward there.
    public struct Crossing {
        public var x: Double
        public var lowX: Int64, lowY: Int64, highX: Int64, highY: Int64
        public var upward: Bool

        @inlinable
        public init(x: Double, lowX: Int64, lowY: Int64, highX: Int64, highY: Int64, upward: Bool) {
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
        public func isNearer(than other: Crossing) -> Bool {
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
    public static func crossing(ax: Int64, ay: Int64, bx: Int64, by: Int64, px: Int64, py: Int64, limitX: Int64) -> Crossing? {
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
    public func unit(atX x: Int64, y: Int64) -> Int32? {
        unitAndClearance(atX: x, y: y).unit
    }

    /// ``unit(atX:y:)``, plus, when a uniform cell answered, how far (quanta, along x and along y)
    /// the point is from that cell's sides: no border lies closer than that.
    func unitAndClearance(atX x: Int64, y: Int64) -> (unit: Int32?, clearanceX: Int64, clearanceY: Int64) {
        let nodes = section(.indexNodes), leaves = section(.indexLeaves)
        let rootSize = Int64(1) << Int64(indexRootLog2)
        var qx = x
        while true {
            guard qx >= indexOriginX, qx < indexOriginX + rootSize, y >= indexOriginY, y < indexOriginY + rootSize else { return (nil, 0, 0) }
            var node = 0
            var ox = indexOriginX, oy = indexOriginY, size = rootSize
            var raw: UInt32 = Self.load(bytes, nodes.lowerBound)
            while raw >> 30 == 1 {
                size >>= 1
                let child = (qx >= ox + size ? 1 : 0) + (y >= oy + size ? 2 : 0)
                if child & 1 != 0 { ox += size }
                if child & 2 != 0 { oy += size }
                node = Int(raw & IndexNode.payloadMask) + child
                raw = Self.load(bytes, nodes.lowerBound + node * 4)
            }
            if raw >> 30 == 0 {
                let payload = raw & IndexNode.payloadMask
                // Clearance only when the point's own cell answered (not after walking east).
                let clear = qx == x
                return (payload == 0 ? nil : Int32(payload - 1),
                        clear ? min(x - ox, ox + size - 1 - x) : 0, clear ? min(y - oy, oy + size - 1 - y) : 0)
            }
            var position = leaves.lowerBound + Int(raw & IndexNode.payloadMask)
            // Validated at load: the leaf's varints are complete and its chunk ids in range.
            let count = Int(UnsignedVarint.read(bytes, &position, end: leaves.upperBound)!)
            let limitX = ox + size
            var best: RayCasting.Crossing?
            var bestArc = 0
            vertices.withUnsafeBufferPointer { v in
                var chunk = 0
                for _ in 0..<count {
                    chunk += Int(UnsignedVarint.read(bytes, &position, end: leaves.upperBound)!)
                    var i = Int(chunkStart[chunk])
                    let last = i + Int(chunkSegments[chunk])
                    while i < last {
                        if let c = RayCasting.crossing(ax: Int64(v[2 * i]), ay: Int64(v[2 * i + 1]), bx: Int64(v[2 * i + 2]), by: Int64(v[2 * i + 3]),
                                                       px: qx, py: y, limitX: limitX),
                           best.map({ c.isNearer(than: $0) }) ?? true {
                            best = c
                            bestArc = Int(chunkArc[chunk])
                        }
                        i += 1
                    }
                }
            }
            if let best {
                let unit = best.upward ? arcLeft[bestArc] : arcRight[bestArc]
                return (unit < 0 ? nil : unit, 0, 0)
            }
            qx = limitX
        }
    }
}
