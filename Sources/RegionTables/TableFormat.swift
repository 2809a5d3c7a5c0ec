/// Constants and primitive encodings of the region table format (docs/region-table-format.md).
/// Shared by the reader here and the writer in BoundaryBuild, so the two cannot drift apart.
package enum TableFormat {
    /// The first eight bytes of every table.
    package static let magic: [UInt8] = Array("AUREGION".utf8)
    /// The format version this reader understands; a table with another version is refused.
    package static let version: UInt16 = 2
    /// Size of the fixed header; sections follow.
    package static let headerSize = 128
    /// Size of one section directory entry.
    package static let directoryEntrySize = 24
    /// Coordinates are Int32 multiples of this many degrees (≈ 1.1 m north–south; at most
    /// 0.79 m from the true position, which the build subtracts from its simplification tolerance).
    package static let quantum = 1e-5
    /// The farthest a quantised position can be from the true one, metres (half the diagonal of
    /// a quantum cell at the equator).
    package static let quantisationErrorMetres = 0.79
    /// Segments per chunk, the unit the spatial index refers to.
    package static let chunkSegments = 16
    /// Stored deltas per coding group of the coordinates section (one width byte each).
    package static let groupDeltas = 16
    /// The largest coordinate step a table may declare (quanta; the header's `step`).
    package static let maximumStep = 1024
    /// Valid quantised coordinates: |x| ≤ 180°, |y| ≤ 90°.
    package static let limitX: Int64 = 18_000_000, limitY: Int64 = 9_000_000

    /// Byte offsets of the header fields.
    package enum Header {
        package static let magic = 0, version = 8, headerSize = 10, flags = 12
        package static let datum = 16, levelCount = 17, step = 18, levels = 20
        package static let tolerance = 24, buffer = 32, sourceSHA256 = 40
        package static let payloadLength = 72, payloadChecksum = 80, sectionCount = 88
        /// XXH64 of header bytes 0..<120.
        package static let headerChecksum = 120
    }

    /// The sections a table holds, by id.
    package enum Section: UInt32, CaseIterable, Sendable {
        /// UTF-8 text that region records point into.
        case strings = 1
        /// Region records, 40 bytes each.
        case regions = 2
        /// For each unit, one Int32 region index per level (−1: none).
        case units = 3
        /// The arc count (UInt32), then one varint record per arc: stored vertex count and a
        /// closed flag, left and right unit + 1, first vertex as zigzag deltas (in steps) from
        /// the previous arc's first vertex.
        case arcs = 4
        /// Each arc's stored vertices after the first as deltas, in groups of up to 16: a width
        /// byte w, then the group's zigzag x, y deltas (in steps) in w bits each (least
        /// significant bit first), padded to a byte.
        case coordinates = 5
        /// For each unit, where its rings start in `rings` (unit count + 1 UInt32).
        case unitRings = 6
        /// One varint per ring: its arc reference count << 1, plus 1 for a hole.
        case rings = 7
        /// Arc references of rings (arc index, or its bitwise complement when used reversed), as
        /// zigzag varint deltas from the previous reference.
        case arcReferences = 8
        /// Index parameters: origin x, y (Int32), root size as log2 of quanta (UInt32), depth (UInt32).
        case indexMeta = 9
        /// Quadtree nodes (UInt32; see ``IndexNode``).
        case indexNodes = 10
        /// Leaves: a varint chunk count, then the leaf's chunk ids ascending, as varint deltas
        /// (the first from 0). A leaf node's payload is the byte offset of its leaf here.
        case indexLeaves = 11
    }

    /// Region record layout (40 bytes).
    package enum RegionRecord {
        package static let size = 40
        package static let level = 0, codeLength = 2, codeOffset = 4, nameOffset = 8, nameLength = 12
        package static let englishLength = 14, englishOffset = 16, parent = 20, boundingBox = 24
    }
}

/// A quadtree node of the spatial index, packed in a UInt32: the top two bits say what it is.
package enum IndexNode: Equatable, Sendable {
    /// The whole cell lies in one unit (or, for `nil`, in none and farther than the buffer from any).
    case uniform(unit: Int32?)
    /// The cell is split; its four children (south-west, south-east, north-west, north-east)
    /// start at this node index.
    case split(firstChild: UInt32)
    /// The cell is a leaf whose chunks are listed at this byte offset of the leaves section.
    case leaf(UInt32)

    static let payloadMask: UInt32 = 0x3FFF_FFFF

    @inlinable
    package init(raw: UInt32) {
        let payload = raw & 0x3FFF_FFFF
        switch raw >> 30 {
        case 0: self = .uniform(unit: payload == 0 ? nil : Int32(payload - 1))
        case 1: self = .split(firstChild: payload)
        default: self = .leaf(payload)
        }
    }

    package var raw: UInt32 {
        switch self {
        case let .uniform(unit): return unit.map { UInt32($0) + 1 } ?? 0
        case let .split(first): return 1 << 30 | first
        case let .leaf(index): return 2 << 30 | index
        }
    }
}

/// Unsigned LEB128 varints (counts and ascending ids in the index leaves).
package enum UnsignedVarint {
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var z = value
        while z >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: z) | 0x80)
            z >>= 7
        }
        bytes.append(UInt8(z))
    }

    /// Reads one varint at `offset` (advancing it); nil past `end` or beyond 64 bits.
    @inlinable @inline(__always)
    package static func read(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int, end: Int) -> UInt64? {
        // Most varints are one byte.
        if offset < end, case let byte = bytes.load(fromByteOffset: offset, as: UInt8.self), byte < 0x80 {
            offset += 1
            return UInt64(byte)
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return nil
    }
}

/// Zigzag mapping of signed to unsigned integers (small magnitudes → small codes).
package enum ZigZag {
    @inlinable package static func encode(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    @inlinable package static func decode(_ z: UInt64) -> Int64 { Int64(bitPattern: z &>> 1) ^ (0 &- Int64(bitPattern: z & 1)) }
}

/// The datums a table can be in.
public enum TableDatum: UInt8, Sendable {
    case wgs84 = 0
    case gcj02 = 1

    public var name: String { self == .wgs84 ? "WGS-84" : "GCJ-02" }
}

/// The levels a place is located at: the four a table can hold (same numbering as the build's
/// administrative levels), and the subdivision (a state or province of any country: a region of
/// the subdivision table, whose own units a table stores as provinces under their countries).
public enum RegionLevel: UInt8, CaseIterable, Comparable, Sendable {
    case country = 0, province = 1, city = 2, county = 3, subdivision = 4

    /// The levels a region table stores (a table's header and records name no other).
    public static let tableLevels: [RegionLevel] = [.country, .province, .city, .county]

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .country: return "country"
        case .province: return "province"
        case .city: return "city"
        case .county: return "county"
        case .subdivision: return "subdivision"
        }
    }
}
