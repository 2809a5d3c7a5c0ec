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
    /// Decoded vertices of all arcs, interleaved x, y (quantised), arc after arc.
    public private(set) var vertices: [Int32] = []
    /// `arcStart[a]` is the index (in vertices, not in the interleaved array) of arc a's first vertex.
    public private(set) var arcStart: [UInt32] = []
    /// Left and right unit of every arc (−1: outside the coverage).
    public private(set) var arcLeft: [Int32] = []
    public private(set) var arcRight: [Int32] = []
    /// Chunks: first vertex (global), segment count and arc of each.
    public private(set) var chunkStart: [UInt32] = []
    public private(set) var chunkSegments: [UInt8] = []
    public private(set) var chunkArc: [UInt32] = []
    /// Index geometry: origin of the root cell and its size (log2 of quanta).
    public private(set) var indexOriginX: Int64 = 0
    public private(set) var indexOriginY: Int64 = 0
    public private(set) var indexRootLog2: Int = 0
    public private(set) var indexDepth: Int = 0

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
    public convenience init(contentsOf path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw TableError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw TableError(path: path, reason: "cannot stat: \(String(cString: strerror(errno)))") }
        let size = Int(status.st_size)
        guard size >= TableFormat.headerSize else {
            throw TableError(path: path, reason: "\(size) bytes: too short for a region table (header is \(TableFormat.headerSize))")
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
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
            guard let level = RegionLevel(rawValue: bytes[TableFormat.Header.levels + i]), !levels.contains(level) else {
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
        let arcCount = try count(.arcs, recordSize: TableFormat.arcRecordSize)
        guard regionCount < Int(Int32.max), unitCount < Int(IndexNode.payloadMask) - 1, arcCount < Int(Int32.max) else {
            throw fail(nil, "implausible counts")
        }
        self.regionCount = regionCount
        self.unitCount = unitCount
        self.arcCount = arcCount
        try validateRegions()
        try validateUnits()
        try decodeArcs()
        try validateRings()
        try validateIndex()
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

    private func error(_ offset: Int?, _ reason: String) -> TableError {
        TableError(path: path, offset: offset, reason: reason)
    }

    // MARK: Regions

    private func validateRegions() throws {
        let strings = section(.strings)
        let base = section(.regions).lowerBound
        for index in 0..<regionCount {
            let record = base + index * TableFormat.RegionRecord.size
            guard RegionLevel(rawValue: bytes[record]).map(levels.contains) == true else {
                throw error(record, "region \(index): level \(bytes[record]) not in this table")
            }
            for (offsetField, lengthField) in [(TableFormat.RegionRecord.codeOffset, TableFormat.RegionRecord.codeLength),
                                               (TableFormat.RegionRecord.nameOffset, TableFormat.RegionRecord.nameLength),
                                               (TableFormat.RegionRecord.englishOffset, TableFormat.RegionRecord.englishLength)] {
                let offset = Int(Self.load(bytes, record + offsetField) as UInt32)
                let length = Int(Self.load(bytes, record + lengthField) as UInt16)
                guard offset + length <= strings.count,
                      String(validating: UnsafeRawBufferPointer(rebasing: bytes[strings.lowerBound + offset..<strings.lowerBound + offset + length]), as: UTF8.self) != nil else {
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

    private func decodeArcs() throws {
        let records = section(.arcs).lowerBound
        let coordinates = section(.coordinates)
        var total = 0
        for arc in 0..<arcCount {
            let count = Int(Self.load(bytes, records + arc * TableFormat.arcRecordSize) as UInt32)
            // Each segment costs at least the bits of its deltas; a count beyond the section is corrupt.
            // A chunk of n segments takes at least 1 + ⌈2n/8⌉ bytes (width ≥ 1 unless n = 1).
            let most = (coordinates.count + 1) * 4 + arcCount
            guard count >= 2, count <= most else { throw error(records + arc * TableFormat.arcRecordSize, "arc \(arc): \(count) vertices") }
            total += count
            guard total <= most else { throw error(coordinates.lowerBound, "vertex counts exceed what the coordinates can hold") }
        }
        // Decoded into locals (class properties pay an exclusivity check per access), then stored.
        var vertices = [Int32](repeating: 0, count: total * 2)
        var arcStart = [UInt32](repeating: 0, count: arcCount + 1)
        var arcLeft = [Int32](repeating: -1, count: arcCount)
        var arcRight = [Int32](repeating: -1, count: arcCount)
        let arcCount = self.arcCount, unitCount = self.unitCount, bytes = self.bytes
        var next = 0
        var expectedOffset = 0
        try vertices.withUnsafeMutableBufferPointer { out in
            for arc in 0..<arcCount {
                let record = records + arc * TableFormat.arcRecordSize
                let count = Int(Self.load(bytes, record) as UInt32)
                let left: Int32 = Self.load(bytes, record + 4)
                let right: Int32 = Self.load(bytes, record + 8)
                let offset = Int(Self.load(bytes, record + 12) as UInt32)
                var x = Int64(Self.load(bytes, record + 16) as Int32)
                var y = Int64(Self.load(bytes, record + 20) as Int32)
                guard left >= -1, left < Int32(unitCount), right >= -1, right < Int32(unitCount), left != right || left < 0 else {
                    throw error(record, "arc \(arc): units \(left)/\(right) out of range")
                }
                guard offset == expectedOffset else { throw error(record, "arc \(arc): coordinates at \(offset), expected \(expectedOffset)") }
                arcLeft[arc] = left
                arcRight[arc] = right
                arcStart[arc] = UInt32(next)
                let limit = Int64(180.0 / TableFormat.quantum)
                guard abs(x) <= limit, abs(y) <= limit / 2 else { throw error(record, "arc \(arc): first vertex out of range") }
                out[2 * next] = Int32(x)
                out[2 * next + 1] = Int32(y)
                next += 1
                var position = coordinates.lowerBound + offset
                var remaining = count - 1
                while remaining > 0 {
                    let n = min(TableFormat.chunkSegments, remaining)
                    guard position < coordinates.upperBound else { throw error(position, "arc \(arc): coordinates run past the section") }
                    let width = Int(bytes[position])
                    position += 1
                    // Width 0 (all deltas zero) only for a lone zero-length segment: this bounds the
                    // decoded size at a few vertices per byte of the file.
                    guard width <= 33, width > 0 || n == 1, position + (2 * n * width + 7) / 8 <= coordinates.upperBound else {
                        throw error(position - 1, "arc \(arc): bad chunk width \(width) or chunk past the section")
                    }
                    let mask: UInt64 = (1 << UInt64(width)) - 1
                    let chunkBytes = (2 * n * width + 7) / 8
                    let base = bytes.baseAddress! + position
                    // Where 8 bytes can be loaded at once without leaving the section, read codes
                    // straight out of unaligned 64-bit words (a code is ≤ 33 bits, so it fits in a
                    // word after a shift of ≤ 7); the chunk at the very end goes byte by byte.
                    let wide = position + chunkBytes + 8 <= coordinates.upperBound
                    var bit = 0
                    for k in 0..<(2 * n) {
                        let word: UInt64
                        if wide {
                            word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                        } else {
                            var w: UInt64 = 0
                            for b in 0..<min(8, chunkBytes - (bit >> 3)) { w |= UInt64(base.load(fromByteOffset: (bit >> 3) + b, as: UInt8.self)) << UInt64(8 * b) }
                            word = w
                        }
                        let delta = ZigZag.decode((word >> UInt64(bit & 7)) & mask)
                        bit += width
                        if k & 1 == 0 { x += delta } else {
                            y += delta
                            guard abs(x) <= limit, abs(y) <= limit / 2 else { throw error(position, "arc \(arc): coordinate out of range") }
                            out[2 * next] = Int32(x)
                            out[2 * next + 1] = Int32(y)
                            next += 1
                        }
                    }
                    position += chunkBytes
                    remaining -= n
                }
                expectedOffset = position - coordinates.lowerBound
            }
        }
        guard expectedOffset == coordinates.count else { throw error(coordinates.lowerBound + expectedOffset, "unused bytes after the last arc") }
        arcStart[arcCount] = UInt32(next)
        var chunkStart: [UInt32] = [], chunkSegments: [UInt8] = [], chunkArc: [UInt32] = []
        chunkStart.reserveCapacity(next / TableFormat.chunkSegments + arcCount)
        chunkSegments.reserveCapacity(next / TableFormat.chunkSegments + arcCount)
        chunkArc.reserveCapacity(next / TableFormat.chunkSegments + arcCount)
        // Chunks: each arc's segments in runs of up to chunkSegments.
        for arc in 0..<arcCount {
            var first = Int(arcStart[arc])
            let last = Int(arcStart[arc + 1]) - 1
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
        self.arcLeft = arcLeft
        self.arcRight = arcRight
        self.chunkStart = chunkStart
        self.chunkSegments = chunkSegments
        self.chunkArc = chunkArc
    }

    /// Vertices of arc `arc` as quantised (x, y) pairs.
    public func arcVertices(_ arc: Int) -> [(x: Int32, y: Int32)] {
        (Int(arcStart[arc])..<Int(arcStart[arc + 1])).map { (vertices[2 * $0], vertices[2 * $0 + 1]) }
    }

    /// The levels at which arc `arc` is a border: its two sides belong to different regions there.
    public func borderLevels(ofArc arc: Int) -> [RegionLevel] {
        levels.filter { level in
            let left = arcLeft[arc] < 0 ? nil : region(ofUnit: arcLeft[arc], at: level)
            let right = arcRight[arc] < 0 ? nil : region(ofUnit: arcRight[arc], at: level)
            return left != right
        }
    }

    // MARK: Rings

    private func validateRings() throws {
        let unitRings = section(.unitRings), rings = section(.rings), references = section(.arcReferences)
        guard unitRings.count == (unitCount + 1) * 4 else { throw error(unitRings.lowerBound, "unit ring table has \(unitRings.count) bytes for \(unitCount) units") }
        let ringCount = rings.count / 8, referenceCount = references.count / 4
        guard rings.count % 8 == 0, references.count % 4 == 0 else { throw error(rings.lowerBound, "ring sections misaligned") }
        var previous: UInt32 = 0
        for unit in 0...unitCount {
            let value: UInt32 = Self.load(bytes, unitRings.lowerBound + unit * 4)
            guard value >= previous, value <= UInt32(ringCount), unit > 0 || value == 0 else {
                throw error(unitRings.lowerBound + unit * 4, "unit ring offsets not increasing")
            }
            previous = value
        }
        guard previous == UInt32(ringCount) else { throw error(unitRings.lowerBound, "unit ring offsets do not cover the rings") }
        for ring in 0..<ringCount {
            let start = Int(Self.load(bytes, rings.lowerBound + ring * 8) as UInt32)
            let count = Int((Self.load(bytes, rings.lowerBound + ring * 8 + 4) as UInt32) & 0x7FFF_FFFF)
            guard count >= 1, start + count <= referenceCount else { throw error(rings.lowerBound + ring * 8, "ring \(ring) references out of range") }
            for k in start..<start + count {
                let reference: Int32 = Self.load(bytes, references.lowerBound + k * 4)
                let arc = reference < 0 ? ~reference : reference
                guard arc < Int32(arcCount) else { throw error(references.lowerBound + k * 4, "ring \(ring): arc \(arc) out of range") }
            }
        }
    }

    /// The polygons of `unit`: each an outer ring then its holes, each ring closed, quantised.
    public func unitPolygons(_ unit: Int32) -> [[[(x: Int32, y: Int32)]]] {
        let unitRings = section(.unitRings), rings = section(.rings), references = section(.arcReferences)
        let first = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4) as UInt32)
        let end = Int(Self.load(bytes, unitRings.lowerBound + Int(unit) * 4 + 4) as UInt32)
        var polygons: [[[(x: Int32, y: Int32)]]] = []
        for ring in first..<end {
            let start = Int(Self.load(bytes, rings.lowerBound + ring * 8) as UInt32)
            let word: UInt32 = Self.load(bytes, rings.lowerBound + ring * 8 + 4)
            var points: [(x: Int32, y: Int32)] = []
            for k in start..<start + Int(word & 0x7FFF_FFFF) {
                let reference: Int32 = Self.load(bytes, references.lowerBound + k * 4)
                var arc = arcVertices(Int(reference < 0 ? ~reference : reference))
                if reference < 0 { arc.reverse() }
                if !points.isEmpty { arc.removeFirst() }
                points.append(contentsOf: arc)
            }
            if word & 0x8000_0000 == 0 || polygons.isEmpty { polygons.append([points]) } else { polygons[polygons.count - 1].append(points) }
        }
        return polygons
    }

    // MARK: Index

    private func validateIndex() throws {
        let meta = section(.indexMeta)
        guard meta.count == 16 else { throw error(meta.lowerBound, "index meta has \(meta.count) bytes, expected 16") }
        indexOriginX = Int64(Self.load(bytes, meta.lowerBound) as Int32)
        indexOriginY = Int64(Self.load(bytes, meta.lowerBound + 4) as Int32)
        indexRootLog2 = Int(Self.load(bytes, meta.lowerBound + 8) as UInt32)
        indexDepth = Int(Self.load(bytes, meta.lowerBound + 12) as UInt32)
        guard indexRootLog2 <= 31, indexDepth <= indexRootLog2 else { throw error(meta.lowerBound, "index root 2^\(indexRootLog2), depth \(indexDepth)") }
        let nodes = section(.indexNodes), leaves = section(.indexLeaves)
        guard nodes.count % 4 == 0, nodes.count >= 4 else { throw error(nodes.lowerBound, "index nodes misaligned or empty") }
        let nodeCount = nodes.count / 4
        // Depth at which the descent from the root reaches each node (−1: not reached). Parents come
        // before their children, so it is final when the loop gets to the node.
        var depth = [Int8](repeating: -1, count: nodeCount)
        depth[0] = 0
        for node in 0..<nodeCount {
            let raw: UInt32 = Self.load(bytes, nodes.lowerBound + node * 4)
            switch IndexNode(raw: raw) {
            case let .uniform(unit):
                if let unit, unit >= Int32(unitCount) { throw error(nodes.lowerBound + node * 4, "index node \(node): unit \(unit) out of range") }
            case let .split(first):
                // Children come after their parent, so descending always terminates.
                guard Int(first) > node, Int(first) + 4 <= nodeCount else { throw error(nodes.lowerBound + node * 4, "index node \(node): children at \(first)") }
                // No cell below the depth (≤ root log2) is narrower than a quantum, so the walk east always advances.
                if depth[node] >= 0 {
                    guard Int(depth[node]) < indexDepth else { throw error(nodes.lowerBound + node * 4, "index node \(node): split deeper than the index depth \(indexDepth)") }
                    for child in Int(first)..<Int(first) + 4 { depth[child] = max(depth[child], depth[node] + 1) }
                }
            case let .leaf(offset):
                var position = leaves.lowerBound + Int(offset)
                guard position < leaves.upperBound, let count = UnsignedVarint.read(bytes, &position, end: leaves.upperBound),
                      count <= UInt64(chunkStart.count) else {
                    throw error(nodes.lowerBound + node * 4, "index node \(node): leaf at \(offset) is out of range")
                }
                var chunk: UInt64 = 0
                for _ in 0..<count {
                    guard let delta = UnsignedVarint.read(bytes, &position, end: leaves.upperBound) else {
                        throw error(position, "index leaf at \(offset) runs past the section")
                    }
                    chunk += delta
                    guard chunk < UInt64(chunkStart.count) else { throw error(position, "index leaf at \(offset): chunk \(chunk) out of range") }
                }
            }
        }
    }
}
