/// Constants and primitive encodings of the region table format (docs/region-table-format.md).
/// Shared by the reader here and the writer in BoundaryBuild, so the two cannot drift apart.
public enum TableFormat {
    /// The first eight bytes of every table.
    public static let magic: [UInt8] = Array("AUREGION".utf8)
    /// The format version this reader understands; a table with another version is refused.
    public static let version: UInt16 = 1
    /// Size of the fixed header; sections follow.
    public static let headerSize = 128
    /// Size of one section directory entry.
    public static let directoryEntrySize = 24
    /// Coordinates are stored as Int32 multiples of this many degrees (≈ 0.11 m).
    public static let quantum = 1e-6
    /// Segments per chunk, the unit the spatial index refers to.
    public static let chunkSegments = 16

    /// Byte offsets of the header fields.
    public enum Header {
        public static let magic = 0, version = 8, headerSize = 10, flags = 12
        public static let datum = 16, levelCount = 17, levels = 20
        public static let tolerance = 24, buffer = 32, sourceSHA256 = 40
        public static let payloadLength = 72, payloadChecksum = 80, sectionCount = 88
        /// XXH64 of header bytes 0..<120.
        public static let headerChecksum = 120
    }

    /// The sections a table holds, by id.
    public enum Section: UInt32, CaseIterable, Sendable {
        /// UTF-8 text that region records point into.
        case strings = 1
        /// Region records, 40 bytes each.
        case regions = 2
        /// For each unit, one Int32 region index per level (−1: none).
        case units = 3
        /// Arc records, 16 bytes each: vertex count, left unit, right unit, coordinate byte offset.
        case arcs = 4
        /// Arc coordinates: zigzag varints, first vertex absolute, then deltas.
        case coordinates = 5
        /// For each unit, where its rings start in `rings` (unit count + 1 UInt32).
        case unitRings = 6
        /// Ring records: first arc reference (UInt32) and count (UInt32, top bit set for holes).
        case rings = 7
        /// Arc references of rings: arc index, or its bitwise complement when used reversed.
        case arcReferences = 8
        /// Index parameters: origin x, y (Int32), root size as log2 of quanta (UInt32), depth (UInt32).
        case indexMeta = 9
        /// Quadtree nodes (UInt32; see ``IndexNode``).
        case indexNodes = 10
        /// For each leaf, where its chunk references start (leaf count + 1 UInt32).
        case indexLeaves = 11
        /// Chunk references of leaves (UInt32 chunk ids).
        case indexChunks = 12
    }

    /// Region record layout (40 bytes).
    public enum RegionRecord {
        public static let size = 40
        public static let level = 0, codeLength = 2, codeOffset = 4, nameOffset = 8, nameLength = 12
        public static let englishLength = 14, englishOffset = 16, parent = 20, boundingBox = 24
    }

    public static let arcRecordSize = 16
}

/// A quadtree node of the spatial index, packed in a UInt32: the top two bits say what it is.
public enum IndexNode: Equatable, Sendable {
    /// The whole cell lies in one unit (or, for `nil`, in none and farther than the buffer from any).
    case uniform(unit: Int32?)
    /// The cell is split; its four children (south-west, south-east, north-west, north-east)
    /// start at this node index.
    case split(firstChild: UInt32)
    /// The cell is a leaf whose chunks are listed in the leaf table at this index.
    case leaf(UInt32)

    static let payloadMask: UInt32 = 0x3FFF_FFFF

    @inlinable
    public init(raw: UInt32) {
        let payload = raw & 0x3FFF_FFFF
        switch raw >> 30 {
        case 0: self = .uniform(unit: payload == 0 ? nil : Int32(payload - 1))
        case 1: self = .split(firstChild: payload)
        default: self = .leaf(payload)
        }
    }

    public var raw: UInt32 {
        switch self {
        case let .uniform(unit): return unit.map { UInt32($0) + 1 } ?? 0
        case let .split(first): return 1 << 30 | first
        case let .leaf(index): return 2 << 30 | index
        }
    }
}

/// Zigzag varint coding of signed integers (the coordinate deltas).
public enum Varint {
    /// Appends `value` zigzag-encoded, 7 bits per byte, low bits first.
    public static func append(_ value: Int64, to bytes: inout [UInt8]) {
        var z = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while z >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: z) | 0x80)
            z >>= 7
        }
        bytes.append(UInt8(z))
    }

    /// Reads one zigzag varint at `offset` (advancing it); nil when it runs past `end` or is
    /// longer than 10 bytes.
    @inlinable
    public static func read(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int, end: Int) -> Int64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                return Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1)
            }
            shift += 7
        }
        return nil
    }
}

/// The datums a table can be in.
public enum TableDatum: UInt8, Sendable {
    case wgs84 = 0
    case gcj02 = 1

    public var name: String { self == .wgs84 ? "WGS-84" : "GCJ-02" }
}

/// Levels a table can hold (same numbering as the build's administrative levels).
public enum RegionLevel: UInt8, CaseIterable, Comparable, Sendable {
    case country = 0, province = 1, city = 2, county = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .country: return "country"
        case .province: return "province"
        case .city: return "city"
        case .county: return "county"
        }
    }
}
