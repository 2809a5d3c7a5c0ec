/// The rings section of a region table: decoding and checking it at load, and assembling a
/// unit's polygons from its rings' arcs.
extension RegionTable {
    /// Decodes the ring structure: where each unit's rings start (checked), each ring's
    /// references and hole flag, and the references themselves (each a valid arc).
    func decodeRings() throws -> (ringStart: [UInt32], ringHole: [Bool], arcReferences: [Int32]) {
        let unitRings = section(.unitRings), rings = section(.rings), references = section(.arcReferences)
        guard unitRings.count == (unitCount + 1) * 4 else { throw error(unitRings.lowerBound, "unit ring table has \(unitRings.count) bytes for \(unitCount) units") }
        var previous: UInt32 = 0
        for unit in 0...unitCount {
            let value: UInt32 = Self.load(bytes, unitRings.lowerBound + unit * 4)
            guard value >= previous, unit > 0 || value == 0 else { throw error(unitRings.lowerBound + unit * 4, "unit ring offsets not increasing") }
            previous = value
        }
        // Every ring takes at least one byte, and so does every reference.
        let ringCount = Int(previous)
        guard ringCount <= rings.count else { throw error(unitRings.lowerBound + unitCount * 4, "\(ringCount) rings in \(rings.count) bytes") }
        var ringStart = [UInt32](repeating: 0, count: ringCount + 1)
        var ringHole = [Bool](repeating: false, count: ringCount)
        var position = rings.lowerBound
        var total = 0
        for ring in 0..<ringCount {
            let record = position
            guard let value = UnsignedVarint.read(bytes, &position, end: rings.upperBound) else { throw error(record, "ring \(ring) runs past the section") }
            let count = value >> 1
            guard count >= 1, count <= UInt64(references.count - total) else { throw error(record, "ring \(ring): \(count) references") }
            ringHole[ring] = value & 1 == 1
            ringStart[ring] = UInt32(total)
            total += Int(count)
        }
        guard position == rings.upperBound else { throw error(position, "unused bytes after the last ring") }
        ringStart[ringCount] = UInt32(total)
        var arcReferences = [Int32](repeating: 0, count: total)
        position = references.lowerBound
        var reference: Int64 = 0
        for k in 0..<total {
            let record = position
            guard let delta = UnsignedVarint.read(bytes, &position, end: references.upperBound) else { throw error(record, "reference \(k) runs past the section") }
            reference += ZigZag.decode(delta)
            guard delta >> 40 == 0, reference >= -Int64(arcCount), reference < Int64(arcCount) else {
                throw error(record, "reference \(k): arc \(reference < 0 ? ~reference : reference) out of range")
            }
            arcReferences[k] = Int32(reference)
        }
        guard position == references.upperBound else { throw error(position, "unused bytes after the last reference") }
        return (ringStart, ringHole, arcReferences)
    }

    /// The polygons of `unit`: each an outer ring then its holes, each ring closed, quantised.
    package func unitPolygons(_ unit: Int32) -> [[[(x: Int32, y: Int32)]]] {
        var polygons: [[[(x: Int32, y: Int32)]]] = []
        for ring in unitRings(unit) {
            let points = Self.assemble(ring.arcs) { arcVertices($0) }
            if !ring.hole || polygons.isEmpty { polygons.append([points]) } else { polygons[polygons.count - 1].append(points) }
        }
        return polygons
    }

    /// A unit's rings in order (an outer ring, then its holes, then the next outer ring): whether
    /// each is a hole, and its arcs as references (an arc index, or ~index for the arc reversed).
    /// For callers that compute something once per arc and reuse it across the units that share it.
    package func unitRings(_ unit: Int32) -> [(hole: Bool, arcs: ArraySlice<Int32>)] {
        let unitRings = section(.unitRings)
        let first = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4) as UInt32)
        let end = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4 + 4) as UInt32)
        return (first..<end).map { ring in (ringHole[ring], arcReferences[Int(ringStart[ring])..<Int(ringStart[ring + 1])]) }
    }

    /// A ring's points from its arc references, each arc's points given by `points(arc)` (in the
    /// arc's direction): reversed arcs reversed, each arc's first point dropped after the first
    /// arc (it repeats the previous arc's last). The ring ends on its first point.
    @inlinable
    package static func assemble<Point>(_ references: ArraySlice<Int32>, _ points: (Int) -> [Point]) -> [Point] {
        var ring: [Point] = []
        for reference in references {
            var arc = points(Int(reference < 0 ? ~reference : reference))
            if reference < 0 { arc.reverse() }
            ring.append(contentsOf: ring.isEmpty ? arc[...] : arc.dropFirst())
        }
        return ring
    }
}
