import SeededRandom

/// The length, size, offset and count fields of the containers and binary formats the tool
/// reads, found by their structure, and the boundary values the fuzzer writes into them: 0, 1,
/// 2^31, 2^32, 2^63−1 and 2^64−1 (each cut to the field's width as a writer's overflow would
/// cut it). The crashes of issue 35 were such values, each in one field (a zip64 size of
/// 0xFFFF…FFFF, a pax record length of 2^63−1, a base-256 tar size near 2^63); random bit flips
/// almost never make them. Where a field's header has a checksum (tar), it is made to hold
/// again, so the value reaches the arithmetic behind the check.
public enum IntegerFields {
    /// How a field's value is written.
    public enum Encoding: Sendable {
        case littleEndian, bigEndian
        /// tar's numeric fields: octal digits and a NUL, or GNU's base-256 when the value does not fit.
        case tarNumber
        /// Decimal digits (pax record lengths and `size`): the run of digits is replaced.
        case decimal
    }

    public struct Field: Sendable {
        public let offset: Int
        public let width: Int
        public let encoding: Encoding
        public let name: String
        /// The tar header the field is in, whose checksum is redone after a write.
        var tarHeader: Int?
    }

    public static let boundaries: [UInt64] = [0, 1, 1 << 31, 1 << 32, UInt64(Int64.max), .max]

    /// The fields found in `bytes`: zip's local headers, central directory, end records, zip64
    /// extra fields and data descriptors; tar's size fields and pax records; gzip's FEXTRA
    /// length and ISIZE; FIT's header; a Fog of World tile's block numbers; EXIF's IFD counts and
    /// offsets (JPEG); ISO BMFF box sizes (HEIF).
    public static func fields(in bytes: [UInt8]) -> [Field] {
        var found: [Field] = []
        zip(bytes, &found)
        tar(bytes, &found)
        if bytes.starts(with: [0x1F, 0x8B, 8]) { gzip(bytes, &found) }
        if bytes.count >= 12, bytes[0] == 12 || bytes[0] == 14, bytes[8...11].elementsEqual(Array(".FIT".utf8)) {
            found.append(Field(offset: 4, width: 4, encoding: .littleEndian, name: "FIT data size"))
        }
        if bytes.starts(with: [0xFF, 0xD8]) { exif(bytes, &found) }
        if bytes.count >= 8, bytes[4..<8].elementsEqual(Array("ftyp".utf8)) { boxes(bytes, &found) }
        return found
    }

    /// The block numbers of an inflated Fog of World tile (its 128 × 128 `UInt16` header): a
    /// number of 1 names another block again, one past the data names none.
    public static func fogOfWorldFields(in tile: [UInt8]) -> [Field] {
        guard tile.count >= 32768 else { return [] }
        return stride(from: 0, to: 32768, by: 2).compactMap { at in
            tile[at] == 0 && tile[at + 1] == 0 ? nil : Field(offset: at, width: 2, encoding: .littleEndian, name: "Fog of World block number")
        }
    }

    /// Writes a random boundary value into a random one of `fields` (or, with none, into a
    /// random 2-, 4- or 8-byte run of `bytes`, little-endian); describes what it did.
    public static func mutate(_ bytes: inout [UInt8], fields: [Field], _ random: inout SplitMix64) -> String {
        let value = boundaries[random.below(boundaries.count)]
        guard !fields.isEmpty else {
            let width = [2, 4, 8][random.below(3)]
            guard bytes.count >= width else { return "nothing (too short for an integer)" }
            let at = random.below(bytes.count - width + 1)
            write(value, into: Field(offset: at, width: width, encoding: .littleEndian, name: "bytes"), of: &bytes)
            return "integer \(value) over \(width) bytes at \(at)"
        }
        let field = fields[random.below(fields.count)]
        write(value, into: field, of: &bytes)
        return "\(field.name) at \(field.offset) → \(value)"
    }

    /// Writes `value` into `field` (cut to its width), then redoes a tar header's checksum.
    public static func write(_ value: UInt64, into field: Field, of bytes: inout [UInt8]) {
        guard field.offset >= 0, field.offset + field.width <= bytes.count else { return }
        let range = field.offset..<(field.offset + field.width)
        switch field.encoding {
        case .littleEndian, .bigEndian:
            var little = (0..<field.width).map { UInt8(truncatingIfNeeded: field.width > 8 || $0 >= 8 ? 0 : value >> (8 * UInt64($0))) }
            if field.encoding == .bigEndian { little.reverse() }
            bytes.replaceSubrange(range, with: little)
        case .tarNumber:
            let octal = String(value, radix: 8)
            if octal.utf8.count < field.width {
                bytes.replaceSubrange(range, with: Array(String(repeating: "0", count: field.width - 1 - octal.utf8.count).utf8) + Array(octal.utf8) + [0])
            } else {
                // GNU base-256: the first byte's high bit set, the value big-endian in the rest.
                var digits = (0..<(field.width - 1)).map { i -> UInt8 in
                    let shift = 8 * (field.width - 2 - i)
                    return shift >= 64 ? 0 : UInt8(truncatingIfNeeded: value >> UInt64(shift))
                }
                digits.insert(0x80, at: 0)
                bytes.replaceSubrange(range, with: digits)
            }
        case .decimal:
            bytes.replaceSubrange(range, with: Array(String(value).utf8))
        }
        if let header = field.tarHeader, header + 512 <= bytes.count {
            for i in 148..<156 { bytes[header + i] = UInt8(ascii: " ") }
            let sum = bytes[header..<(header + 512)].reduce(0) { $0 + Int($1) }
            let text = String(sum, radix: 8)
            let field = Array((String(repeating: "0", count: max(0, 6 - text.utf8.count)) + text).utf8) + [0, UInt8(ascii: " ")]
            bytes.replaceSubrange((header + 148)..<(header + 156), with: field.prefix(8))
        }
    }

    // MARK: Finders

    static func u16(_ b: [UInt8], _ i: Int) -> Int { i + 2 <= b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }

    static func signatures(_ bytes: [UInt8], _ third: UInt8, _ fourth: UInt8) -> [Int] {
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == third && bytes[$0 + 3] == fourth }
    }

    static func zip(_ bytes: [UInt8], _ found: inout [Field]) {
        func add(_ at: Int, _ width: Int, _ name: String) {
            if at + width <= bytes.count { found.append(Field(offset: at, width: width, encoding: .littleEndian, name: name)) }
        }
        func extras(_ start: Int, _ length: Int, _ what: String) {
            var p = start
            while p + 4 <= min(bytes.count, start + length) {
                let id = u16(bytes, p), size = u16(bytes, p + 2)
                if id == 1 { for value in stride(from: p + 4, to: p + 4 + size - 7, by: 8) { add(value, 8, "zip64 \(what) value") } }
                p += 4 + size
            }
        }
        for at in signatures(bytes, 3, 4) {
            add(at + 18, 4, "zip local compressed size")
            add(at + 22, 4, "zip local size")
            add(at + 26, 2, "zip local name length")
            add(at + 28, 2, "zip local extra length")
            extras(at + 30 + u16(bytes, at + 26), u16(bytes, at + 28), "local")
        }
        for at in signatures(bytes, 1, 2) {
            for (offset, width, name) in [(20, 4, "compressed size"), (24, 4, "size"), (28, 2, "name length"), (30, 2, "extra length"),
                                          (32, 2, "comment length"), (42, 4, "local header offset")] {
                add(at + offset, width, "zip central " + name)
            }
            extras(at + 46 + u16(bytes, at + 28), u16(bytes, at + 30), "central")
        }
        for at in signatures(bytes, 5, 6) {
            for (offset, width, name) in [(8, 2, "entries on disk"), (10, 2, "entries"), (12, 4, "directory size"), (16, 4, "directory offset"), (20, 2, "comment length")] {
                add(at + offset, width, "zip end " + name)
            }
        }
        for at in signatures(bytes, 6, 6) {
            for (offset, name) in [(4, "record size"), (24, "entries on disk"), (32, "entries"), (40, "directory size"), (48, "directory offset")] {
                add(at + offset, 8, "zip64 end " + name)
            }
        }
        for at in signatures(bytes, 6, 7) { add(at + 8, 8, "zip64 locator offset") }
        for at in signatures(bytes, 7, 8) {
            add(at + 8, 4, "zip descriptor compressed size")
            add(at + 12, 4, "zip descriptor size")
        }
    }

    static func tar(_ bytes: [UInt8], _ found: inout [Field]) {
        var header = 0
        while header + 512 <= bytes.count {
            defer { header += 512 }
            guard bytes[(header + 257)..<(header + 262)].elementsEqual(Array("ustar".utf8)) else { continue }
            found.append(Field(offset: header + 124, width: 12, encoding: .tarNumber, name: "tar size", tarHeader: header))
            guard bytes[header + 156] == UInt8(ascii: "x") || bytes[header + 156] == UInt8(ascii: "g") else { continue }
            // pax records: `LENGTH KEY=VALUE\n`; the lengths and a `size` value.
            var p = header + 512
            let end = min(bytes.count, p + 4096)
            while p < end, bytes[p] &- UInt8(ascii: "0") < 10 {
                var q = p
                while q < end, bytes[q] &- UInt8(ascii: "0") < 10 { q += 1 }
                found.append(Field(offset: p, width: q - p, encoding: .decimal, name: "pax record length"))
                let length = Int(String(decoding: bytes[p..<q], as: UTF8.self)) ?? 0
                if bytes[(q + 1)..<min(end, q + 6)].elementsEqual(Array("size=".utf8)) {
                    var v = q + 6
                    while v < end, bytes[v] &- UInt8(ascii: "0") < 10 { v += 1 }
                    found.append(Field(offset: q + 6, width: v - q - 6, encoding: .decimal, name: "pax size"))
                }
                guard length > 0 else { break }
                p += length
            }
        }
    }

    static func gzip(_ bytes: [UInt8], _ found: inout [Field]) {
        if bytes.count >= 12, bytes[3] & 0x04 != 0 { found.append(Field(offset: 10, width: 2, encoding: .littleEndian, name: "gzip extra length")) }
        if bytes.count >= 18 { found.append(Field(offset: bytes.count - 4, width: 4, encoding: .littleEndian, name: "gzip ISIZE")) }
    }

    static func exif(_ bytes: [UInt8], _ found: inout [Field]) {
        guard let marker = (0..<max(0, bytes.count - 14)).first(where: { bytes[$0...].starts(with: Array("Exif\0\0".utf8)) }) else { return }
        let tiff = marker + 6
        guard tiff + 8 <= bytes.count else { return }
        let little = bytes[tiff] == 0x49
        let encoding: Encoding = little ? .littleEndian : .bigEndian
        func u(_ at: Int, _ width: Int) -> Int {
            guard at >= 0, at + width <= bytes.count else { return -1 }
            let slice = bytes[at..<(at + width)]
            return (little ? slice.reversed() : Array(slice)).reduce(0) { $0 << 8 | Int($1) }
        }
        found.append(Field(offset: tiff + 4, width: 4, encoding: encoding, name: "EXIF IFD0 offset"))
        var pending = [u(tiff + 4, 4)]
        var seen: Set<Int> = []
        while let ifd = pending.popLast(), ifd >= 0, seen.insert(ifd).inserted, seen.count < 8 {
            let at = tiff + ifd, count = u(at, 2)
            guard count > 0, count < 512 else { continue }
            found.append(Field(offset: at, width: 2, encoding: encoding, name: "EXIF entry count"))
            for i in 0..<count {
                let entry = at + 2 + 12 * i
                guard entry + 12 <= bytes.count else { break }
                found.append(Field(offset: entry + 4, width: 4, encoding: encoding, name: "EXIF value count"))
                found.append(Field(offset: entry + 8, width: 4, encoding: encoding, name: "EXIF value offset"))
                let tag = u(entry, 2)
                if tag == 0x8825 || tag == 0x8769 { pending.append(u(entry + 8, 4)) }
            }
        }
    }

    static func boxes(_ bytes: [UInt8], _ found: inout [Field]) {
        var at = 0
        while at + 8 <= bytes.count, found.count < 64 {
            found.append(Field(offset: at, width: 4, encoding: .bigEndian, name: "ISO BMFF box size"))
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            at += size
        }
    }
}
