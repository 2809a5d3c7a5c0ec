import Tracks

/// A tar archive (POSIX ustar and pax, GNU tar's long names) read forward, member by member: on
/// its own (`.tar`) or through gzip (`.tgz`, `.tar.gz`, Google Takeout's choice), nothing
/// unpacked to disk.
///
/// Rules (docs/input-formats.md, "Compressed files and archives"): names from pax `path`
/// records, GNU `L` records or ustar's prefix and name, in that order; sizes from pax `size`,
/// else the header's octal or base-256 field. Regular files are offered; directories passed
/// over; links, devices and the like offered as ``ArchiveEntry/Kind/notARegularFile``. Each
/// header's checksum is checked: a damaged header, or an archive cut short, ends the walk with
/// an ``InputError`` naming the byte offset (``damage``); the members before it stay read.
public final class TarArchive {
    public let path: String
    private let input: InputBuffer
    public private(set) var damage: InputError?
    public private(set) var membersOffered = 0

    public init(streaming source: some ByteSource, path: String) {
        self.path = path
        input = InputBuffer(source)
    }

    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        do {
            try walk(body)
        } catch let problem as InputError where problem.path == path {
            damage = problem
            throw problem
        }
    }

    private func walk(_ body: (ArchiveEntry) throws -> Void) throws {
        var names = EntryNames()
        var longName: [UInt8]?
        var pax: [String: [UInt8]] = [:]
        while true {
            let at = input.offset
            guard try input.fill(atLeast: 512) else {
                if input.count == 0, at > 0 { return }  // no end-of-archive blocks: tolerated, as GNU tar does
                if input.count == 0 { return }
                throw InputError(path: path, reason: "tar archive truncated in the header at byte \(at)", kind: .truncated)
            }
            let header = input.bytes(0..<512)
            input.consume(512)
            if header.allSatisfy({ $0 == 0 }) { return }  // the end-of-archive blocks
            guard Self.checksumHolds(header) else {
                throw InputError(path: path, reason: "damaged tar archive: the header at byte \(at) fails its checksum", kind: .damaged)
            }
            guard let size = Self.number(header[124..<136]) else {
                throw InputError(path: path, reason: "damaged tar archive: the header at byte \(at) has no size", kind: .damaged)
            }
            let type = header[156]
            let isExtension = [UInt8(ascii: "L"), UInt8(ascii: "x"), UInt8(ascii: "g"), UInt8(ascii: "K")].contains(type)
            var dataSize = size
            if !isExtension, let paxSize = pax["size"].flatMap({ Int64(String(decoding: $0, as: UTF8.self)) }), paxSize >= 0 { dataSize = paxSize }
            let padded = (dataSize + 511) / 512 * 512
            switch type {
            case UInt8(ascii: "L"), UInt8(ascii: "x"), UInt8(ascii: "g"), UInt8(ascii: "K"):
                guard dataSize <= 1 << 20 else {
                    throw InputError(path: path, reason: "damaged tar archive: a \(dataSize)-byte extended header at byte \(at)", kind: .damaged)
                }
                var record: [UInt8] = []
                while record.count < Int(dataSize) {
                    guard try input.fill() else { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
                    let n = min(input.count, Int(dataSize) - record.count)
                    record += input.bytes(0..<n)
                    input.consume(n)
                }
                guard try input.skip(padded - dataSize) else { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
                if type == UInt8(ascii: "L") { longName = Array(record.prefix { $0 != 0 }) }
                if type == UInt8(ascii: "x") { pax = Self.paxRecords(record) }
                continue
            default:
                break
            }
            var nameBytes = longName ?? pax["path"] ?? Self.headerName(header)
            longName = nil
            pax = [:]
            if nameBytes.starts(with: Array("./".utf8)) { nameBytes.removeFirst(2) }
            let kind: ArchiveEntry.Kind
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"): kind = nameBytes.last == UInt8(ascii: "/") ? .directory : .file
            case UInt8(ascii: "5"): kind = .directory
            default: kind = .notARegularFile
            }
            let name = EscapedName.string(from: nameBytes)
            let data = TarEntryData(input: input, size: dataSize, padding: padded - dataSize, path: path)
            guard kind != .directory, !name.isEmpty else {
                try data.passOver()
                continue
            }
            membersOffered += 1
            let entry = ArchiveEntry(name: name, archivePath: path, occurrence: names.occurrence(of: name), kind: kind,
                                     isEncrypted: false, data: kind == .file ? data : nil)
            do {
                try body(entry)
            } catch {
                try? entry.close()
                throw error
            }
            try entry.close()
            if kind != .file { try data.passOver() }
        }
    }

    /// The header's checksum (field at 148, 8 bytes, octal) equals the sum of its bytes with that
    /// field read as spaces (unsigned, as POSIX says; signed sums from old tars are accepted too).
    static func checksumHolds(_ header: [UInt8]) -> Bool {
        guard let stored = number(header[148..<156]) else { return false }
        var unsigned: Int64 = 0, signed: Int64 = 0
        for (i, byte) in header.enumerated() {
            let value = (148..<156).contains(i) ? UInt8(ascii: " ") : byte
            unsigned += Int64(value)
            signed += Int64(Int8(bitPattern: value))
        }
        return stored == unsigned || stored == signed
    }

    /// An octal field (spaces and NULs around it), or GNU's base-256 (first byte's high bit set).
    static func number(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        if first & 0x80 != 0 {
            var value: Int64 = Int64(first & 0x3F)
            for byte in field.dropFirst() {
                guard value < Int64.max >> 8 else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        let digits = field.drop { $0 == 0x20 || $0 == 0 }.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
        var value: Int64 = 0
        for digit in digits {
            guard value < Int64.max >> 3 else { return nil }
            value = value << 3 | Int64(digit - UInt8(ascii: "0"))
        }
        return digits.isEmpty && !field.allSatisfy({ $0 == 0 || $0 == 0x20 }) ? nil : value
    }

    /// ustar's `prefix/name`, or the name alone.
    static func headerName(_ header: [UInt8]) -> [UInt8] {
        let name = Array(header[0..<100].prefix { $0 != 0 })
        let isUstar = header[257..<262].elementsEqual(Array("ustar".utf8))
        let prefix = isUstar ? Array(header[345..<500].prefix { $0 != 0 }) : []
        return prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
    }

    /// pax records: `LENGTH KEY=VALUE\n`, one after another.
    static func paxRecords(_ data: [UInt8]) -> [String: [UInt8]] {
        var records: [String: [UInt8]] = [:]
        var p = 0
        while p < data.count {
            guard let space = data[p...].firstIndex(of: UInt8(ascii: " ")),
                  let length = Int(String(decoding: data[p..<space], as: UTF8.self)), length > 0, p + length <= data.count else { break }
            let record = data[(space + 1)..<(p + length - 1)]
            if let equals = record.firstIndex(of: UInt8(ascii: "=")) {
                records[String(decoding: record[..<equals], as: UTF8.self)] = Array(record[(equals + 1)...])
            }
            p += length
        }
        return records
    }
}

/// A tar member's data: its size, then padding to the next 512-byte block.
final class TarEntryData: EntryData {
    let input: InputBuffer
    private var left: Int64
    private let padding: Int64
    let path: String
    private var passed = false

    init(input: InputBuffer, size: Int64, padding: Int64, path: String) {
        self.input = input
        left = size
        self.padding = padding
        self.path = path
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard left > 0 else { return 0 }
        let n = try input.copy(into: buffer, limit: left)
        if n == 0 { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
        left -= Int64(n)
        return n
    }

    func passOver() throws {
        guard !passed else { return }
        passed = true
        guard try input.skip(left + padding) else { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
        left = 0
    }
}
