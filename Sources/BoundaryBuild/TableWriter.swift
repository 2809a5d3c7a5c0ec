import RegionTables

/// Everything a region table holds, in build-time form; ``serialized()`` produces the file bytes
/// described in docs/region-table-format.md.
struct TableContents {
    struct RegionEntry {
        var level: RegionLevel
        var code: String
        var name: String
        var englishName: String
        var parent: Int32
        var boundingBox: (Int32, Int32, Int32, Int32)
    }

    struct ArcEntry {
        /// Quantised vertices, interleaved x, y.
        var vertices: [Int32]
        var leftUnit: Int32
        var rightUnit: Int32
    }

    struct RingEntry {
        var isHole: Bool
        /// Arc index, or its complement when the ring uses the arc reversed.
        var references: [Int32]
    }

    var datum: TableDatum
    var levels: [RegionLevel]
    var tolerance: Double
    var buffer: Double
    /// Every stored coordinate is a multiple of this many quanta (the header's `step`).
    var step: Int32 = 1
    var sourceSHA256: String
    var regions: [RegionEntry] = []
    /// Region index per level, for every unit.
    var unitRegions: [[Int32]] = []
    var arcs: [ArcEntry] = []
    /// Rings of every unit: each polygon's outer ring followed by its holes.
    var unitRings: [[RingEntry]] = []
    var index = TableIndexBuilder(vertices: [], arcStart: [0], arcLeft: [], arcRight: [], buffer: 0)

    /// Builds the spatial index over the arcs (call after the arcs are final), with leaves that
    /// cover the `buffer` (metres) around outer arcs (see ``TableIndexBuilder`` for the rest).
    mutating func buildIndex(buffer: Double, maximumLeafChunks: Int = 6, minimumLeafLog2: Int64 = 5) {
        var vertices: [Int32] = []
        var arcStart: [Int] = [0]
        for arc in arcs {
            vertices.append(contentsOf: arc.vertices)
            arcStart.append(vertices.count / 2)
        }
        index = TableIndexBuilder(vertices: vertices, arcStart: arcStart, arcLeft: arcs.map(\.leftUnit),
                                  arcRight: arcs.map(\.rightUnit), buffer: buffer,
                                  maximumLeafChunks: maximumLeafChunks, minimumLeafLog2: minimumLeafLog2)
    }

    /// The file bytes, with the figures that describe them filled into `report`.
    func finish(_ report: inout TableReport, started: Double) -> [UInt8] {
        let bytes = serialized()
        report.units = unitRegions.count
        report.arcs = arcs.count
        report.bytes = bytes.count
        report.sha256 = SHA256.hex(bytes)
        report.buildSeconds = Stopwatch.seconds() - started
        return bytes
    }

    func serialized() -> [UInt8] {
        var strings: [UInt8] = []
        var stringOffsets: [String: UInt32] = [:]
        func intern(_ text: String) -> (UInt32, UInt16) {
            let utf8 = Array(text.utf8)
            precondition(utf8.count < 65536, "string too long for a region record")
            if let offset = stringOffsets[text] { return (offset, UInt16(utf8.count)) }
            let offset = UInt32(strings.count)
            strings.append(contentsOf: utf8)
            stringOffsets[text] = offset
            return (offset, UInt16(utf8.count))
        }
        var regionBytes: [UInt8] = []
        for region in regions {
            let code = intern(region.code), name = intern(region.name), english = intern(region.englishName)
            var record = ByteWriter()
            record.u8(region.level.rawValue); record.u8(0); record.u16(code.1); record.u32(code.0)
            record.u32(name.0); record.u16(name.1); record.u16(english.1); record.u32(english.0)
            record.i32(region.parent)
            record.i32(region.boundingBox.0); record.i32(region.boundingBox.1); record.i32(region.boundingBox.2); record.i32(region.boundingBox.3)
            precondition(record.bytes.count == TableFormat.RegionRecord.size)
            regionBytes += record.bytes
        }
        var units = ByteWriter()
        for regionsOfUnit in unitRegions { regionsOfUnit.forEach { units.i32($0) } }

        var arcRecords = ByteWriter()
        arcRecords.u32(UInt32(arcs.count))
        var coordinates: [UInt8] = []
        var previousX: Int64 = 0, previousY: Int64 = 0
        for arc in arcs {
            let v = arc.vertices
            precondition(v.count >= 4 && v.allSatisfy { $0 % step == 0 }, "an arc needs two vertices on the step grid")
            // A closed arc does not store its last vertex (it repeats the first).
            let closed = v[0] == v[v.count - 2] && v[1] == v[v.count - 1]
            let stored = v.count / 2 - (closed ? 1 : 0)
            UnsignedVarint.append(UInt64(stored - 1) << 1 | (closed ? 1 : 0), to: &arcRecords.bytes)
            UnsignedVarint.append(UInt64(arc.leftUnit + 1), to: &arcRecords.bytes)
            UnsignedVarint.append(UInt64(arc.rightUnit + 1), to: &arcRecords.bytes)
            let x = Int64(v[0] / step), y = Int64(v[1] / step)
            UnsignedVarint.append(ZigZag.encode(x - previousX), to: &arcRecords.bytes)
            UnsignedVarint.append(ZigZag.encode(y - previousY), to: &arcRecords.bytes)
            (previousX, previousY) = (x, y)
            Self.packDeltas(Array(v.prefix(2 * stored)).map { $0 / step }, into: &coordinates)
        }
        var unitRingOffsets = ByteWriter(), ringRecords: [UInt8] = [], references: [UInt8] = []
        var ringCount: UInt32 = 0, previousReference: Int64 = 0
        unitRingOffsets.u32(0)
        for rings in unitRings {
            for ring in rings {
                UnsignedVarint.append(UInt64(ring.references.count) << 1 | (ring.isHole ? 1 : 0), to: &ringRecords)
                for reference in ring.references {
                    UnsignedVarint.append(ZigZag.encode(Int64(reference) - previousReference), to: &references)
                    previousReference = Int64(reference)
                }
                ringCount += 1
            }
            unitRingOffsets.u32(ringCount)
        }
        var meta = ByteWriter()
        meta.i32(index.originX); meta.i32(index.originY); meta.u32(index.rootLog2); meta.u32(index.depth)
        var nodes = ByteWriter()
        index.nodes.forEach { nodes.u32($0) }

        let sections: [(TableFormat.Section, [UInt8])] = [
            (.strings, strings), (.regions, regionBytes), (.units, units.bytes), (.arcs, arcRecords.bytes),
            (.coordinates, coordinates), (.unitRings, unitRingOffsets.bytes), (.rings, ringRecords),
            (.arcReferences, references), (.indexMeta, meta.bytes), (.indexNodes, nodes.bytes),
            (.indexLeaves, index.leaves),
        ]
        // Directory, then each section at an 8-byte boundary.
        var payload = ByteWriter()
        var offset = TableFormat.headerSize + sections.count * TableFormat.directoryEntrySize
        var placed: [(TableFormat.Section, Int, Int)] = []
        for (section, bytes) in sections {
            offset = (offset + 7) & ~7
            placed.append((section, offset, bytes.count))
            offset += bytes.count
        }
        for (section, start, length) in placed {
            payload.u32(section.rawValue); payload.u32(0); payload.u64(UInt64(start)); payload.u64(UInt64(length))
        }
        for ((_, bytes), (_, start, _)) in zip(sections, placed) {
            while TableFormat.headerSize + payload.bytes.count < start { payload.u8(0) }
            payload.bytes += bytes
        }

        var header = ByteWriter()
        header.bytes += TableFormat.magic
        header.u16(TableFormat.version); header.u16(UInt16(TableFormat.headerSize)); header.u32(0)
        header.u8(datum.rawValue); header.u8(UInt8(levels.count)); header.u16(UInt16(step))
        for slot in 0..<4 { header.u8(slot < levels.count ? levels[slot].rawValue : 0xFF) }
        header.f64(tolerance); header.f64(buffer)
        header.bytes += hexBytes(sourceSHA256)
        header.u64(UInt64(payload.bytes.count))
        header.u64(payload.bytes.withUnsafeBytes { XXH64.hash($0) })
        header.u32(UInt32(sections.count))
        while header.bytes.count < TableFormat.Header.headerChecksum { header.u8(0) }
        header.u64(XXH64.hash(header.bytes))
        precondition(header.bytes.count == TableFormat.headerSize)
        return header.bytes + payload.bytes
    }

    /// The deltas between consecutive `vertices` (interleaved x, y, in steps), in groups of
    /// TableFormat.groupDeltas: a width byte, then the group's zigzag x, y deltas at that width,
    /// least significant bit first, padded to a byte.
    static func packDeltas(_ vertices: [Int32], into bytes: inout [UInt8]) {
        let count = vertices.count / 2
        var first = 0
        while first < count - 1 {
            let n = min(TableFormat.groupDeltas, count - 1 - first)
            var codes: [UInt64] = []
            for v in (first + 1)...(first + n) {
                codes.append(ZigZag.encode(Int64(vertices[2 * v]) - Int64(vertices[2 * v - 2])))
                codes.append(ZigZag.encode(Int64(vertices[2 * v + 1]) - Int64(vertices[2 * v - 1])))
            }
            let width = codes.map { 64 - $0.leadingZeroBitCount }.max()!
            bytes.append(UInt8(width))
            // Fewer than 8 bits wait in the accumulator between codes, and a code has at most 33.
            var accumulator: UInt64 = 0, filled = 0
            for code in codes {
                accumulator |= code << UInt64(filled)
                filled += width
                while filled >= 8 {
                    bytes.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator >>= 8
                    filled -= 8
                }
            }
            if filled > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
            first += n
        }
    }

    private func hexBytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var chars = Array(hex.utf8)[...]
        while chars.count >= 2 {
            result.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) ?? 0)
            chars = chars.dropFirst(2)
        }
        while result.count < 32 { result.append(0) }
        return Array(result.prefix(32))
    }
}

/// Little-endian byte output.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func i32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
}
