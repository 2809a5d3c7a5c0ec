import Tracks

/// A zip read forward through its local headers: a zip inside another archive (a stream, no
/// central directory to seek to), or a file whose central directory is damaged (recovering:
/// bytes that are no header are searched through for the next one).
struct ZipLocalWalk {
    static let localSignature: UInt32 = 0x0403_4B50
    let input: InputBuffer
    let path: String
    let recovering: Bool
    private let integers: FileIntegers
    private var names = EntryNames()

    init(input: InputBuffer, path: String, recovering: Bool) {
        self.input = input
        self.path = path
        self.recovering = recovering
        integers = FileIntegers(path: path, format: "zip archive")
    }

    mutating func forEachEntry(tally: ArchiveTally, _ body: (ArchiveEntry) throws -> Void) throws {
        while true {
            guard try input.fill(atLeast: 4) else { return }
            let signature = input.uint32(at: 0)
            if signature == ZipCentralDirectory.entrySignature || signature == ZipCentralDirectory.endSignature
                || signature == ZipCentralDirectory.zip64EndSignature { return }
            guard signature == Self.localSignature else {
                guard recovering else {
                    throw InputError(path: path, reason: "damaged zip archive: no entry header at byte \(input.offset)", kind: .damaged)
                }
                guard try seekNextHeader() else { return }
                continue
            }
            let at = input.offset
            guard try input.fill(atLeast: 30) else {
                throw InputError(path: path, reason: "zip archive truncated in the entry header at byte \(at)", kind: .truncated)
            }
            let flags = input.uint16(at: 6), methodCode = input.uint16(at: 8), crc = input.uint32(at: 14)
            var compressedSize = Int64(input.uint32(at: 18)), size = Int64(input.uint32(at: 22))
            let nameLength = Int(input.uint16(at: 26)), extraLength = Int(input.uint16(at: 28))
            input.consume(30)
            guard try input.fill(atLeast: nameLength) else { throw InputError(path: path, reason: "zip archive truncated in the entry name at byte \(at)", kind: .truncated) }
            let nameBytes = input.bytes(0..<nameLength)
            input.consume(nameLength)
            guard try input.fill(atLeast: extraLength) else { throw InputError(path: path, reason: "zip archive truncated in the entry header at byte \(at)", kind: .truncated) }
            var unusedOffset: Int64 = 0
            let zip64 = try Self.applyZip64(input.bytes(0..<extraLength), at: at + 30 + Int64(nameLength), integers: integers,
                                            size: &size, compressedSize: &compressedSize, offset: &unusedOffset)
            input.consume(extraLength)
            let entryName = EntryName(nameBytes)
            let name = entryName.text
            let occurrence = names.occurrence(of: name)
            let entryPath = "\(path):\(name)" + (occurrence > 1 ? "#\(occurrence)" : "")
            let hasDescriptor = flags & 0x08 != 0
            let isDirectory = nameBytes.last == UInt8(ascii: "/")
            var data: (any EntryData)?
            let method = Self.method(methodCode)
            if flags & 1 == 0, let method {
                data = ZipEntryData(input: input, path: entryPath, method: method, compressedSize: hasDescriptor ? nil : compressedSize,
                                    crc: crc, size: size, descriptor: (hasDescriptor, zip64), forwardOnly: true, tally: tally)
            } else if !hasDescriptor {
                // Encrypted, or a method not read: passed over by its stated size.
                data = SkippedEntryData(input: input, size: compressedSize, problem: Self.unsupportedMethod(methodCode, path: entryPath))
            } else {
                throw InputError(path: path, reason: "zip entry \(name) at byte \(at) (encrypted or compression method \(methodCode)) has no stated size: the archive cannot be read past it",
                                 kind: .unsupported)
            }
            if let problem = entryName.problem(archivePath: path, occurrence: occurrence, at: at) { data = FailingEntryData(problem, passing: data) }
            let entry = ArchiveEntry(name: name, archivePath: path, occurrence: occurrence, kind: isDirectory ? .directory : .file,
                                     isEncrypted: flags & 1 != 0, data: data)
            do {
                try body(entry)
            } catch {
                try? entry.close()
                throw error
            }
            do {
                try entry.close()
            } catch let problem as InputError where recovering {
                // A member whose data is damaged: look for the next header after it.
                _ = problem
                guard try seekNextHeader() else { return }
            }
        }
    }

    /// Moves to the next local header signature; false at the end of the data.
    private func seekNextHeader() throws -> Bool {
        input.consume(min(1, input.count))
        while try input.fill(atLeast: 4) {
            let window = input.available
            var p = 0
            while p + 4 <= window.count {
                if window[p] == 0x50, window[p + 1] == 0x4B, window[p + 2] == 0x03, window[p + 3] == 0x04 {
                    input.consume(p)
                    return true
                }
                p += 1
            }
            input.consume(p)
        }
        return false
    }

    static func method(_ code: UInt16) -> ZipEntryData.Method? {
        code == 0 ? .stored : code == 8 ? .deflated : nil
    }

    static func unsupportedMethod(_ code: UInt16, path: String) -> InputError {
        let names: [UInt16: String] = [9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard", 95: "xz", 98: "PPMd", 99: "AES encryption"]
        return InputError(path: path, reason: "compression method \(code)\(names[code].map { " (\($0))" } ?? "") is not read", kind: .unsupported)
    }

    /// Applies a zip64 extended information field (id 1) found in `extra` (at byte `start` of
    /// the archive): the 64-bit values of the fields whose 32-bit value is 0xFFFFFFFF, in the
    /// order size, compressed size, offset, each through `integers` (the compressed size and the
    /// offset at most `sizeLimit`, the archive's size when known). True when there was one.
    @discardableResult
    static func applyZip64(_ extra: [UInt8], at start: Int64, integers: FileIntegers, sizeLimit: Int64 = .max,
                           size: inout Int64, compressedSize: inout Int64, offset: inout Int64) throws(InputError) -> Bool {
        var p = 0
        while p + 4 <= extra.count {
            let id = uint16(extra, p), length = Int(uint16(extra, p + 2))
            guard p + 4 + length <= extra.count else { return false }
            if id == 1 {
                var q = p + 4
                for field in [0, 1, 2] {
                    let value = field == 0 ? size : field == 1 ? compressedSize : offset
                    guard value == 0xFFFF_FFFF, q + 8 <= p + 4 + length else { continue }
                    let raw = uint64(extra, q), at = start + Int64(q)
                    let bound = sizeLimit < .max ? "the archive's size" : nil
                    switch field {
                    case 0: size = try integers.value(raw, "zip64 size", at: at)
                    case 1: compressedSize = try integers.value(raw, "zip64 compressed size", at: at, limit: sizeLimit, bound: bound)
                    default: offset = try integers.value(raw, "zip64 local header offset", at: at, limit: sizeLimit, bound: bound)
                    }
                    q += 8
                }
                return true
            }
            p += 4 + length
        }
        return false
    }

    static func uint16(_ bytes: [UInt8], _ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }
    static func uint32(_ bytes: [UInt8], _ i: Int) -> UInt32 { UInt32(uint16(bytes, i)) | UInt32(uint16(bytes, i + 2)) << 16 }
    static func uint64(_ bytes: [UInt8], _ i: Int) -> UInt64 { UInt64(uint32(bytes, i)) | UInt64(uint32(bytes, i + 4)) << 32 }
}

/// A member not read (encrypted, or its method not read), passed over by its stated size.
final class SkippedEntryData: EntryData {
    let input: InputBuffer
    let size: Int64
    let problem: InputError
    private var passed = false

    init(input: InputBuffer, size: Int64, problem: InputError) {
        self.input = input
        self.size = size
        self.problem = problem
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { throw problem }

    func passOver() throws {
        guard !passed else { return }
        passed = true
        guard try input.skip(size) else { throw InputError(path: problem.path, reason: "zip archive truncated in this entry", kind: .truncated) }
    }
}
