#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a table could not be loaded. Every failure names the file and, where it can, the byte.
public struct TableError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let offset: Int?
    public let reason: String

    public init(path: String, offset: Int? = nil, reason: String) {
        self.path = path
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        offset.map { "\(path): byte \($0): \(reason)" } ?? "\(path): \(reason)"
    }
}

/// A region as a table describes it.
public struct Region: Equatable, Sendable {
    public var index: Int32
    public var level: RegionLevel
    /// Adcode (Chinese regions) or ISO3 (countries).
    public var code: String
    public var name: String
    public var englishName: String
    /// Index of the parent region in the same table, or nil.
    public var parent: Int32?
    /// Quantised bounding box (multiples of ``TableFormat/quantum`` degrees).
    public var boundingBox: (minX: Int32, minY: Int32, maxX: Int32, maxY: Int32)

    public static func == (a: Region, b: Region) -> Bool {
        a.index == b.index && a.level == b.level && a.code == b.code && a.name == b.name
            && a.englishName == b.englishName && a.parent == b.parent && a.boundingBox == b.boundingBox
    }
}

/// A region table, memory-mapped and validated: regions and their hierarchy, the units (the
/// finest pieces the table partitions its area into), shared arcs, and the spatial index.
///
/// Loading checks the header, both checksums and every offset, count and index, so a damaged or
/// hostile file is refused with a ``TableError`` and never crashes a reader. Coordinates are
/// delta-coded in the file and decoded once at load (8 bytes per vertex in memory).
public final class RegionTable: @unchecked Sendable {
    public let path: String
    public let datum: TableDatum
    public let levels: [RegionLevel]
    /// For each level's raw value, its column in the units section (−1: not in this table).
    private let levelSlots: [Int]
    /// Douglas–Peucker tolerance the table was simplified with, metres.
    public let tolerance: Double
    /// Width of the edge zone around the coverage's outer boundary, metres.
    public let buffer: Double
    /// Every coordinate of the table is a multiple of this many quanta (1: full precision).
    public let step: Int
    /// SHA-256 of the boundary source the table was built from, hex.
    public let sourceSHA256: String
    public let byteCount: Int

    private let storage: Storage
    let bytes: UnsafeRawBufferPointer
    /// Section byte ranges, by section id (an array: looked up on every query).
    private var sectionRanges = [Range<Int>](repeating: 0..<0, count: TableFormat.Section.allCases.count + 1)

    public let regionCount: Int
    public let unitCount: Int
    public let arcCount: Int
    /// Vertices of all arcs together (an arc's ends counted with each arc).
    public var vertexCount: Int { vertices.count / 2 }
    /// Decoded vertices of all arcs, interleaved x, y (quantised), arc after arc.
    package private(set) var vertices: [Int32] = []
    /// `arcStart[a]` is the index (in vertices, not in the interleaved array) of arc a's first vertex.
    package private(set) var arcStart: [UInt32] = []
    /// Left and right unit of every arc (−1: outside the coverage).
    package private(set) var arcLeft: [Int32] = []
    package private(set) var arcRight: [Int32] = []
    /// Rings: where each ring's references start in ``arcReferences`` (ring count + 1 values), and
    /// whether it is a hole.
    private(set) var ringStart: [UInt32] = []
    private(set) var ringHole: [Bool] = []
    /// Arc references of all rings: arc index, or its complement when the ring runs it backwards.
    private(set) var arcReferences: [Int32] = []
    /// Chunks: first vertex (global), segment count and arc of each.
    package private(set) var chunkStart: [UInt32] = []
    package private(set) var chunkSegments: [UInt8] = []
    package private(set) var chunkArc: [UInt32] = []
    /// Index geometry: origin of the root cell and its size (log2 of quanta).
    package private(set) var indexOriginX: Int64 = 0
    package private(set) var indexOriginY: Int64 = 0
    package private(set) var indexRootLog2: Int = 0
    package private(set) var indexDepth: Int = 0

    private final class Storage {
        let base: UnsafeMutableRawPointer
        let count: Int
        let mapped: Bool
        init(base: UnsafeMutableRawPointer, count: Int, mapped: Bool) {
            self.base = base
            self.count = count
            self.mapped = mapped
        }
        deinit {
            if mapped { munmap(base, count) } else { base.deallocate() }
        }
    }

    /// Memory-maps and validates the table at `path`.
    /// Anything but a regular file (a device such as /dev/zero, a named pipe, a folder) is refused
    /// at once: it is opened without blocking, so a pipe cannot hang the load.
    public convenience init(contentsOf path: String) throws {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { throw TableError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw TableError(path: path, reason: "cannot stat: \(String(cString: strerror(errno)))") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw TableError(path: path, reason: "not a regular file (a device, pipe or folder); a region table is a file written by 'unlocks build'")
        }
        let size = Int(status.st_size)
        guard size >= TableFormat.headerSize else {
            throw TableError(path: path, reason: "\(size) bytes: too short for a region table (header is \(TableFormat.headerSize))")
        }
        // Every byte is read at load (the checksum), so on Linux the pages are mapped in one go
        // rather than faulted in one by one.
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let base = mmap(nil, size, PROT_READ, flags, fd, 0), base != MAP_FAILED else {
            throw TableError(path: path, reason: "cannot map: \(String(cString: strerror(errno)))")
        }
        try self.init(storage: Storage(base: base, count: size, mapped: true), path: path, verifyChecksum: true)
    }

    /// Validates a table held in memory (a copy is made). `path` names it in errors.
    public convenience init(bytes: [UInt8], path: String, verifyChecksum: Bool = true) throws {
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        try self.init(storage: Storage(base: base, count: bytes.count, mapped: false), path: path, verifyChecksum: verifyChecksum)
    }

    private init(storage: Storage, path: String, verifyChecksum: Bool) throws {
        self.storage = storage
        self.path = path
        bytes = UnsafeRawBufferPointer(start: storage.base, count: storage.count)
        byteCount = storage.count
        let fail = { (offset: Int?, reason: String) in TableError(path: path, offset: offset, reason: reason) }
        let bytes = self.bytes
        guard bytes.count >= TableFormat.headerSize else { throw fail(nil, "too short for a region table") }
        guard Array(bytes[0..<8]) == TableFormat.magic else { throw fail(0, "not a region table (bad magic)") }
        let version: UInt16 = Self.load(bytes, TableFormat.Header.version)
        guard version == TableFormat.version else {
            throw fail(TableFormat.Header.version, "format version \(version); this reader understands version \(TableFormat.version): rebuild the tables or update unlocks")
        }
        let storedHeaderChecksum: UInt64 = Self.load(bytes, TableFormat.Header.headerChecksum)
        guard XXH64.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<TableFormat.Header.headerChecksum])) == storedHeaderChecksum else {
            throw fail(0, "header checksum mismatch: the header is damaged")
        }
        let headerSize: UInt16 = Self.load(bytes, TableFormat.Header.headerSize)
        guard Int(headerSize) == TableFormat.headerSize else { throw fail(TableFormat.Header.headerSize, "header size \(headerSize)") }
        let payloadLength: UInt64 = Self.load(bytes, TableFormat.Header.payloadLength)
        guard payloadLength == UInt64(bytes.count - TableFormat.headerSize) else {
            throw fail(TableFormat.Header.payloadLength, "file has \(bytes.count - TableFormat.headerSize) payload bytes, header says \(payloadLength): truncated or padded")
        }
        if verifyChecksum {
            let stored: UInt64 = Self.load(bytes, TableFormat.Header.payloadChecksum)
            guard XXH64.hash(UnsafeRawBufferPointer(rebasing: bytes[TableFormat.headerSize...])) == stored else {
                throw fail(TableFormat.headerSize, "payload checksum mismatch: the table is damaged")
            }
        }
        guard let datum = TableDatum(rawValue: bytes[TableFormat.Header.datum]) else {
            throw fail(TableFormat.Header.datum, "unknown datum \(bytes[TableFormat.Header.datum])")
        }
        self.datum = datum
        let levelCount = Int(bytes[TableFormat.Header.levelCount])
        guard (1...4).contains(levelCount) else { throw fail(TableFormat.Header.levelCount, "level count \(levelCount)") }
        var levels: [RegionLevel] = []
        for i in 0..<levelCount {
            guard let level = RegionLevel(rawValue: bytes[TableFormat.Header.levels + i]), RegionLevel.tableLevels.contains(level), !levels.contains(level) else {
                throw fail(TableFormat.Header.levels + i, "bad level \(bytes[TableFormat.Header.levels + i])")
            }
            levels.append(level)
        }
        self.levels = levels
        levelSlots = RegionLevel.allCases.map { levels.firstIndex(of: $0) ?? -1 }
        tolerance = Self.load(bytes, TableFormat.Header.tolerance)
        buffer = Self.load(bytes, TableFormat.Header.buffer)
        guard tolerance.isFinite, tolerance >= 0, buffer.isFinite, buffer >= 0 else {
            throw fail(TableFormat.Header.tolerance, "tolerance \(tolerance) / buffer \(buffer) not finite and non-negative")
        }
        step = Int(Self.load(bytes, TableFormat.Header.step) as UInt16)
        guard (1...TableFormat.maximumStep).contains(step) else { throw fail(TableFormat.Header.step, "coordinate step \(step)") }
        sourceSHA256 = bytes[TableFormat.Header.sourceSHA256..<TableFormat.Header.sourceSHA256 + 32]
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()

        // Section directory.
        let sectionCount = Int(Self.load(bytes, TableFormat.Header.sectionCount) as UInt32)
        let directoryEnd = TableFormat.headerSize + sectionCount * TableFormat.directoryEntrySize
        guard sectionCount <= 64, directoryEnd <= bytes.count else { throw fail(TableFormat.Header.sectionCount, "section count \(sectionCount)") }
        var previousEnd = directoryEnd
        var sections: [TableFormat.Section: Range<Int>] = [:]
        for i in 0..<sectionCount {
            let entry = TableFormat.headerSize + i * TableFormat.directoryEntrySize
            let id: UInt32 = Self.load(bytes, entry)
            let offset: UInt64 = Self.load(bytes, entry + 8)
            let length: UInt64 = Self.load(bytes, entry + 16)
            guard let section = TableFormat.Section(rawValue: id), sections[section] == nil else {
                throw fail(entry, "unknown or repeated section id \(id)")
            }
            guard offset % 8 == 0, offset >= UInt64(previousEnd), offset <= UInt64(bytes.count), length <= UInt64(bytes.count), offset + length <= UInt64(bytes.count) else {
                throw fail(entry, "section \(section) at \(offset)+\(length) is out of order, misaligned or past the end")
            }
            sections[section] = Int(offset)..<Int(offset + length)
            previousEnd = Int(offset + length)
        }
        for section in TableFormat.Section.allCases where sections[section] == nil {
            throw fail(nil, "missing section \(section)")
        }

        for (section, range) in sections { sectionRanges[Int(section.rawValue)] = range }
        func count(_ section: TableFormat.Section, recordSize: Int) throws -> Int {
            let range = sections[section]!
            guard range.count % recordSize == 0 else { throw fail(range.lowerBound, "\(section) length \(range.count) is not a multiple of \(recordSize)") }
            return range.count / recordSize
        }
        let regionCount = try count(.regions, recordSize: TableFormat.RegionRecord.size)
        let unitCount = try count(.units, recordSize: 4 * levelCount)
        // Each arc record takes at least 5 bytes (five varints).
        let arcs = sections[.arcs]!
        guard arcs.count >= 4 else { throw fail(arcs.lowerBound, "arcs section has \(arcs.count) bytes") }
        let arcCount = Int(Self.load(bytes, arcs.lowerBound) as UInt32)
        guard arcCount <= (arcs.count - 4) / 5 else { throw fail(arcs.lowerBound, "\(arcCount) arcs in \(arcs.count) bytes") }
        guard regionCount < Int(Int32.max), unitCount < Int(IndexNode.payloadMask) - 1, arcCount < Int(Int32.max) else {
            throw fail(nil, "implausible counts")
        }
        self.regionCount = regionCount
        self.unitCount = unitCount
        self.arcCount = arcCount
        try validateRegions()
        try validateUnits()
        try decodeArcs()
        (ringStart, ringHole, arcReferences) = try decodeRings()
        (indexOriginX, indexOriginY, indexRootLog2, indexDepth) = try validateIndex()
    }

    @inline(__always)
    static func load<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    @inline(__always)
    static func load(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    @inline(__always)
    func section(_ section: TableFormat.Section) -> Range<Int> { sectionRanges[Int(section.rawValue)] }

    func error(_ offset: Int?, _ reason: String) -> TableError {
        TableError(path: path, offset: offset, reason: reason)
    }

    // MARK: Regions

    private func validateRegions() throws {
        let strings = section(.strings)
        // The strings section is valid UTF-8 as a whole, so a string in it is valid when it
        // starts and ends on character boundaries (not before a continuation byte 10xxxxxx).
        guard String(validating: UnsafeRawBufferPointer(rebasing: bytes[strings]), as: UTF8.self) != nil else {
            throw error(strings.lowerBound, "strings section is not UTF-8")
        }
        func boundary(_ offset: Int) -> Bool { offset == strings.count || bytes[strings.lowerBound + offset] & 0xC0 != 0x80 }
        let base = section(.regions).lowerBound
        for index in 0..<regionCount {
            let record = base + index * TableFormat.RegionRecord.size
            guard RegionLevel(rawValue: bytes[record]).map(levels.contains) == true else {
                throw error(record, "region \(index): level \(bytes[record]) not in this table")
            }
            for field in 0..<3 {
                let (offsetField, lengthField) = field == 0 ? (TableFormat.RegionRecord.codeOffset, TableFormat.RegionRecord.codeLength)
                    : field == 1 ? (TableFormat.RegionRecord.nameOffset, TableFormat.RegionRecord.nameLength)
                    : (TableFormat.RegionRecord.englishOffset, TableFormat.RegionRecord.englishLength)
                let offset = Int(Self.load(bytes, record + offsetField) as UInt32)
                let length = Int(Self.load(bytes, record + lengthField) as UInt16)
                guard offset + length <= strings.count, boundary(offset), boundary(offset + length) else {
                    throw error(record, "region \(index): string out of range or not UTF-8")
                }
            }
            let parent: Int32 = Self.load(bytes, record + TableFormat.RegionRecord.parent)
            guard parent >= -1, parent < Int32(regionCount), parent != Int32(index) else {
                throw error(record, "region \(index): parent \(parent) out of range")
            }
        }
    }

    private func string(_ offset: Int, _ length: Int) -> String {
        let start = section(.strings).lowerBound + offset
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
    }

    /// Region `index` (0..<regionCount).
    public func region(_ index: Int32) -> Region {
        precondition(index >= 0 && Int(index) < regionCount, "region index out of range")
        let record = section(.regions).lowerBound + Int(index) * TableFormat.RegionRecord.size
        func text(_ offsetField: Int, _ lengthField: Int) -> String {
            string(Int(Self.load(bytes, record + offsetField) as UInt32), Int(Self.load(bytes, record + lengthField) as UInt16))
        }
        let parent: Int32 = Self.load(bytes, record + TableFormat.RegionRecord.parent)
        let box = record + TableFormat.RegionRecord.boundingBox
        return Region(index: index, level: RegionLevel(rawValue: bytes[record])!,
                      code: text(TableFormat.RegionRecord.codeOffset, TableFormat.RegionRecord.codeLength),
                      name: text(TableFormat.RegionRecord.nameOffset, TableFormat.RegionRecord.nameLength),
                      englishName: text(TableFormat.RegionRecord.englishOffset, TableFormat.RegionRecord.englishLength),
                      parent: parent < 0 ? nil : parent,
                      boundingBox: (Self.load(bytes, box), Self.load(bytes, box + 4), Self.load(bytes, box + 8), Self.load(bytes, box + 12)))
    }

    /// All regions, in table order.
    public var regions: [Region] { (0..<Int32(regionCount)).map(region) }

    // MARK: Units

    private func validateUnits() throws {
        let base = section(.units).lowerBound
        for unit in 0..<unitCount {
            for (slot, level) in levels.enumerated() {
                let offset = base + (unit * levels.count + slot) * 4
                let region: Int32 = Self.load(bytes, offset)
                guard region >= -1, region < Int32(regionCount) else { throw error(offset, "unit \(unit): region \(region) out of range") }
                if region >= 0, bytes[section(.regions).lowerBound + Int(region) * TableFormat.RegionRecord.size] != level.rawValue {
                    throw error(offset, "unit \(unit): region \(region) is not a \(level.name)")
                }
            }
        }
    }

    /// The region of `unit` at `level` (nil: the unit has none there, or the table lacks the level).
    public func region(ofUnit unit: Int32, at level: RegionLevel) -> Int32? {
        let slot = levelSlots[Int(level.rawValue)]
        guard slot >= 0 else { return nil }
        let value: Int32 = Self.load(bytes, section(.units).lowerBound + (Int(unit) * levels.count + slot) * 4)
        return value < 0 ? nil : value
    }

    // MARK: Arcs

    /// Decodes the arc records and their coordinates into ``vertices``, ``arcStart``, the units on
    /// each side and the chunk arrays, checking every count, unit, group and coordinate.
    private func decodeArcs() throws {
        let records = section(.arcs), coordinates = section(.coordinates)
        let bytes = self.bytes, arcCount = self.arcCount, unitCount = UInt64(self.unitCount), step = Int64(self.step)
        let limitX = TableFormat.limitX, limitY = TableFormat.limitY
        // Pass 1: the records. Stored vertex count (with the closed flag in bit 0), units and first
        // vertex of each arc, into raw buffers (class properties pay an exclusivity check per
        // access, array stores a uniqueness check).
        let heads = UnsafeMutablePointer<UInt32>.allocate(capacity: arcCount)
        let firstX = UnsafeMutablePointer<Int32>.allocate(capacity: arcCount), firstY = UnsafeMutablePointer<Int32>.allocate(capacity: arcCount)
        let starts = UnsafeMutablePointer<UInt32>.allocate(capacity: arcCount + 1)
        let lefts = UnsafeMutablePointer<Int32>.allocate(capacity: arcCount), rights = UnsafeMutablePointer<Int32>.allocate(capacity: arcCount)
        defer { [heads, starts].forEach { $0.deallocate() }; [firstX, firstY, lefts, rights].forEach { $0.deallocate() } }
        // A group of up to 16 deltas takes at least its width byte, so the deltas are bounded by
        // the coordinates' length; with one closing vertex per arc, so are the vertices.
        let mostDeltas = UInt64(coordinates.count * TableFormat.groupDeltas)
        var position = records.lowerBound + 4
        var total = 0
        var deltas: UInt64 = 0
        var x: Int64 = 0, y: Int64 = 0
        for arc in 0..<arcCount {
            let record = position
            guard let head = UnsignedVarint.read(bytes, &position, end: records.upperBound),
                  let left = UnsignedVarint.read(bytes, &position, end: records.upperBound),
                  let right = UnsignedVarint.read(bytes, &position, end: records.upperBound),
                  let dx = UnsignedVarint.read(bytes, &position, end: records.upperBound),
                  let dy = UnsignedVarint.read(bytes, &position, end: records.upperBound) else {
                throw error(record, "arc \(arc): record runs past the section")
            }
            let closed = head & 1
            let count = head >> 1 + 1
            deltas &+= count - 1
            guard count <= mostDeltas + 1, count >= 2 || closed == 1, deltas <= mostDeltas else {
                throw error(record, "arc \(arc): \(count) stored vertices, more than the coordinates can hold or too few")
            }
            guard left <= unitCount, right <= unitCount, left != right || left == 0 else {
                throw error(record, "arc \(arc): units \(Int64(left) - 1)/\(Int64(right) - 1) out of range")
            }
            guard dx >> 40 == 0, dy >> 40 == 0 else { throw error(record, "arc \(arc): first vertex out of range") }
            x &+= ZigZag.decode(dx) &* step
            y &+= ZigZag.decode(dy) &* step
            guard abs(x) <= limitX, abs(y) <= limitY else { throw error(record, "arc \(arc): first vertex out of range") }
            heads[arc] = UInt32(truncatingIfNeeded: head)
            firstX[arc] = Int32(truncatingIfNeeded: x)
            firstY[arc] = Int32(truncatingIfNeeded: y)
            lefts[arc] = Int32(truncatingIfNeeded: left) &- 1
            rights[arc] = Int32(truncatingIfNeeded: right) &- 1
            starts[arc] = UInt32(total)
            total += Int(count + closed)
        }
        guard position == records.upperBound else { throw error(position, "unused bytes after the last arc record") }
        starts[arcCount] = UInt32(total)
        let arcStart = Array(UnsafeBufferPointer(start: starts, count: arcCount + 1))

        // Pass 2: the coordinates, group by group, straight into the vertex array. A group's codes
        // are read from unaligned 64-bit words where 8 bytes can be loaded without leaving the
        // section (a code is ≤ 33 bits, so it fits in a word after a shift of ≤ 7); near the end
        // of the section they are read byte by byte. Coordinates are checked once per group: a
        // biased coordinate (x + limit, as unsigned) is in range when it is at most 2·limit.
        let end = coordinates.upperBound
        func decodeCoordinates(into out: UnsafeMutablePointer<Int32>) -> (offset: Int, reason: String)? {
            let base = bytes.baseAddress!
            var offset = coordinates.lowerBound
            for arc in 0..<arcCount {
                var next = out + 2 * Int(starts[arc])
                let x0 = firstX[arc], y0 = firstY[arc]
                var x = Int64(x0), y = Int64(y0)
                next[0] = x0
                next[1] = y0
                next += 2
                var remaining = Int(heads[arc] >> 1)
                while remaining > 0 {
                    let n = min(TableFormat.groupDeltas, remaining)
                    guard offset < end else { return (offset, "arc \(arc): coordinates run past the section") }
                    let width = Int(base.load(fromByteOffset: offset, as: UInt8.self))
                    let groupBytes = (2 &* n &* width &+ 7) &>> 3
                    guard width <= 33, offset + 1 + groupBytes <= end else {
                        return (offset, "arc \(arc): bad group width \(width) or group past the section")
                    }
                    offset += 1
                    let mask: UInt64 = (1 &<< UInt64(width)) &- 1
                    let group = base + offset
                    var bit = 0
                    var highX: UInt64 = 0, highY: UInt64 = 0
                    // Deltas of width w are at most 2^(w−1) steps: when the group cannot leave the
                    // valid range, and an x, y pair fits in one word, decode without checks.
                    let reach = Int64(n) &* (Int64(1) &<< Int64(max(width, 1) &- 1)) &* step
                    if offset + groupBytes + 8 <= end, 2 * width <= 56, abs(x) &+ reach <= limitX, abs(y) &+ reach <= limitY {
                        for _ in 0..<n {
                            let word = UInt64(littleEndian: group.loadUnaligned(fromByteOffset: bit &>> 3, as: UInt64.self)) &>> UInt64(bit & 7)
                            bit &+= 2 &* width
                            x &+= ZigZag.decode(word & mask) &* step
                            y &+= ZigZag.decode((word &>> UInt64(width)) & mask) &* step
                            next[0] = Int32(truncatingIfNeeded: x)
                            next[1] = Int32(truncatingIfNeeded: y)
                            next += 2
                        }
                    } else if offset + groupBytes + 8 <= end {
                        for _ in 0..<n {
                            let codeX = (UInt64(littleEndian: group.loadUnaligned(fromByteOffset: bit &>> 3, as: UInt64.self)) &>> UInt64(bit & 7)) & mask
                            bit &+= width
                            let codeY = (UInt64(littleEndian: group.loadUnaligned(fromByteOffset: bit &>> 3, as: UInt64.self)) &>> UInt64(bit & 7)) & mask
                            bit &+= width
                            x &+= ZigZag.decode(codeX) &* step
                            y &+= ZigZag.decode(codeY) &* step
                            highX = max(highX, UInt64(bitPattern: x &+ limitX))
                            highY = max(highY, UInt64(bitPattern: y &+ limitY))
                            next[0] = Int32(truncatingIfNeeded: x)
                            next[1] = Int32(truncatingIfNeeded: y)
                            next += 2
                        }
                    } else {
                        func code(_ bit: Int) -> UInt64 {
                            var word: UInt64 = 0
                            for b in 0..<min(8, groupBytes - (bit >> 3)) { word |= UInt64(group.load(fromByteOffset: (bit >> 3) + b, as: UInt8.self)) << UInt64(8 * b) }
                            return (word >> UInt64(bit & 7)) & mask
                        }
                        for _ in 0..<n {
                            x &+= ZigZag.decode(code(bit)) &* step
                            y &+= ZigZag.decode(code(bit + width)) &* step
                            bit += 2 * width
                            highX = max(highX, UInt64(bitPattern: x &+ limitX))
                            highY = max(highY, UInt64(bitPattern: y &+ limitY))
                            next[0] = Int32(truncatingIfNeeded: x)
                            next[1] = Int32(truncatingIfNeeded: y)
                            next += 2
                        }
                    }
                    if highX > UInt64(2 * limitX) || highY > UInt64(2 * limitY) { return (offset - 1, "arc \(arc): coordinate out of range") }
                    offset += groupBytes
                    remaining -= n
                }
                if heads[arc] & 1 == 1 {  // closed: the first vertex again
                    next[0] = x0
                    next[1] = y0
                }
            }
            return offset == end ? nil : (offset, "unused bytes after the last arc's coordinates")
        }
        // Every slot is written when decoding succeeds, so the array starts uninitialised (a table
        // that fails is thrown away with an empty one).
        var failure: (offset: Int, reason: String)?
        let vertices = [Int32](unsafeUninitializedCapacity: total * 2) { buffer, initialized in
            if let out = buffer.baseAddress {
                failure = decodeCoordinates(into: out)
            } else if !coordinates.isEmpty {
                failure = (coordinates.lowerBound, "unused bytes after the last arc's coordinates")
            }
            initialized = failure == nil ? total * 2 : 0
        }
        if let failure { throw error(failure.offset, failure.reason) }

        // Chunks: each arc's segments in runs of up to chunkSegments.
        var chunkStart: [UInt32] = [], chunkSegments: [UInt8] = [], chunkArc: [UInt32] = []
        let chunkEstimate = total / TableFormat.chunkSegments + arcCount
        chunkStart.reserveCapacity(chunkEstimate)
        chunkSegments.reserveCapacity(chunkEstimate)
        chunkArc.reserveCapacity(chunkEstimate)
        for arc in 0..<arcCount {
            var first = Int(starts[arc])
            let last = Int(starts[arc + 1]) - 1
            while first < last {
                let n = min(TableFormat.chunkSegments, last - first)
                chunkStart.append(UInt32(first))
                chunkSegments.append(UInt8(n))
                chunkArc.append(UInt32(arc))
                first += n
            }
        }
        self.vertices = vertices
        self.arcStart = arcStart
        arcLeft = Array(UnsafeBufferPointer(start: lefts, count: arcCount))
        arcRight = Array(UnsafeBufferPointer(start: rights, count: arcCount))
        self.chunkStart = chunkStart
        self.chunkSegments = chunkSegments
        self.chunkArc = chunkArc
    }

    /// Vertices of arc `arc` as quantised (x, y) pairs.
    package func arcVertices(_ arc: Int) -> [(x: Int32, y: Int32)] {
        (Int(arcStart[arc])..<Int(arcStart[arc + 1])).map { (vertices[2 * $0], vertices[2 * $0 + 1]) }
    }

    /// The levels at which arc `arc` is a border: its two sides belong to different regions there.
    package func borderLevels(ofArc arc: Int) -> [RegionLevel] {
        levels.filter { level in
            let left = arcLeft[arc] < 0 ? nil : region(ofUnit: arcLeft[arc], at: level)
            let right = arcRight[arc] < 0 ? nil : region(ofUnit: arcRight[arc], at: level)
            return left != right
        }
    }
}
