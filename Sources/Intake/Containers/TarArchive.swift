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

    private let integers: FileIntegers

    public init(streaming source: some ByteSource, path: String) {
        self.path = path
        input = InputBuffer(source)
        integers = FileIntegers(path: path, format: "tar archive")
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
        var longName: EntryName.Parts?
        var pax: [String: [UInt8]] = [:]
        var paxAt: Int64 = 0
        var record: [UInt8] = []
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
            if !isExtension, let paxSize = pax["size"] {
                dataSize = try integers.decimal(paxSize, "pax size of the member", at: paxAt)
            }
            let padded = try integers.roundedUp(dataSize, toMultipleOf: 512, "size in the header", at: at)
            if isExtension {
                guard dataSize <= Self.maximumExtensionBytes else {
                    throw integers.error("extended header's size", at: at, value: String(dataSize), "more than \(Self.maximumExtensionBytes)")
                }
                // A GNU long name past what any file system holds keeps only its first and last
                // bytes (it is not read, ``EntryName``): the work is a pass over the record, never
                // a copy of it. A pax header (at most 1 MiB) is held to be parsed.
                let isLongName = type == UInt8(ascii: "L")
                let kept = isLongName ? min(Int(dataSize), EntryName.maximumBytes + 1) : type == UInt8(ascii: "x") ? Int(dataSize) : 0
                record.removeAll(keepingCapacity: record.capacity <= 1 << 16)
                var tail: [UInt8] = []
                var left = Int(dataSize)
                while left > 0 {
                    guard try input.fill() else { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
                    let n = min(input.count, left)
                    let keep = min(n, max(0, kept - record.count))
                    if keep > 0 { record.append(contentsOf: UnsafeRawBufferPointer(rebasing: input.available[0..<keep])) }
                    if isLongName, Int(dataSize) > kept {
                        tail = Array((tail + UnsafeRawBufferPointer(rebasing: input.available[max(0, n - EntryName.tailBytes)..<n])).suffix(EntryName.tailBytes))
                    }
                    input.consume(n)
                    left -= n
                }
                guard try input.skip(padded - dataSize) else { throw InputError(path: path, reason: "tar archive truncated at byte \(input.offset)", kind: .truncated) }
                if isLongName {
                    if Int(dataSize) <= kept {
                        longName = EntryName.Parts(record.prefix { $0 != 0 })
                    } else {
                        let zeros = tail.reversed().prefix { $0 == 0 }.count  // the name's terminating NUL
                        tail.removeLast(zeros)
                        longName = EntryName.Parts(head: record, tail: tail, length: Int(dataSize) - zeros)
                    }
                }
                if type == UInt8(ascii: "x") {
                    pax = try paxRecords(record, at: at + 512)
                    paxAt = at + 512
                }
                continue
            }
            var parts = longName ?? EntryName.Parts(pax["path"] ?? Self.headerName(header))
            longName = nil
            pax = [:]
            parts.dropLeadingDotSlash()
            let kind: ArchiveEntry.Kind
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"): kind = parts.last == UInt8(ascii: "/") ? .directory : .file
            case UInt8(ascii: "5"): kind = .directory
            default: kind = .notARegularFile
            }
            let entryName = EntryName(parts)
            let data = TarEntryData(input: input, size: dataSize, padding: padded - dataSize, path: path)
            guard kind != .directory, !entryName.text.isEmpty else {
                try data.passOver()
                continue
            }
            membersOffered += 1
            let occurrence = names.occurrence(of: entryName.text)
            let readable: (any EntryData)? = kind != .file ? nil
                : entryName.problem(archivePath: path, occurrence: occurrence, at: at).map { FailingEntryData($0, passing: data) } ?? data
            let entry = ArchiveEntry(name: entryName.text, archivePath: path, occurrence: occurrence, kind: kind,
                                     isEncrypted: false, data: readable)
            do {
                try body(entry)
            } catch {
                try? entry.close()
                throw error
            }
            try entry.close()
            try data.passOver()
        }
    }

    /// The largest extended header read (a pax record set, a GNU long name): 1 MiB.
    static let maximumExtensionBytes: Int64 = 1 << 20

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

    /// pax records (`LENGTH KEY=VALUE\n`, one after another, LENGTH counting the whole record)
    /// of the extended header whose data starts at byte `start`. A record whose length does not
    /// hold its key, `=` and final newline is damage, named with its byte offset.
    func paxRecords(_ data: [UInt8], at start: Int64) throws -> [String: [UInt8]] {
        var records: [String: [UInt8]] = [:]
        var p = 0
        while p < data.count {
            if data[p...].allSatisfy({ $0 == 0 }) { break }  // padding some writers leave
            let at = start + Int64(p)
            guard let space = data[p...].prefix(20).firstIndex(of: UInt8(ascii: " ")) else {
                throw integers.error("pax record", at: at, value: "'" + EscapedName.string(from: data[p...].prefix(20)) + "'", "not 'LENGTH KEY=VALUE'")
            }
            let length = Int(try integers.decimal(data[p..<space], "pax record's length", at: at, limit: Int64(data.count - p),
                                                  bound: "the bytes left in its extended header"))
            let end = p + length
            guard end >= space + 3, data[end - 1] == UInt8(ascii: "\n"), let equals = data[(space + 1)..<(end - 1)].firstIndex(of: UInt8(ascii: "=")) else {
                throw integers.error("pax record", at: at, value: "'" + EscapedName.string(from: data[p...].prefix(40)) + "' (\(length) bytes long)",
                                     "not 'LENGTH KEY=VALUE' and a newline")
            }
            records[String(decoding: data[(space + 1)..<equals], as: UTF8.self)] = Array(data[(equals + 1)..<(end - 1)])
            p = end
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
