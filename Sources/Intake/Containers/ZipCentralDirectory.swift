import Tracks

/// Reads a zip's end of central directory record (zip64 included) and its central directory.
/// Anything that does not hold together throws an ``InputError`` of kind `damaged` (or
/// `truncated`) naming the byte offset, and the archive is then recovered from its local headers.
enum ZipCentralDirectory {
    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let entrySignature: UInt32 = 0x0201_4B50

    /// The members, in the order of their data in the file.
    static func members(of bytes: any RandomAccessBytes, path: String) throws -> [ZipMember] {
        func damaged(_ what: String) -> InputError {
            InputError(path: path, reason: "damaged zip archive: \(what)", kind: .damaged)
        }
        let integers = FileIntegers(path: path, format: "zip archive")
        // The end record is the last 22 bytes plus a comment of up to 65,535 bytes.
        let tailCount = Int(min(bytes.size, 22 + 65_535))
        guard let tail = try bytes.bytes(at: bytes.size - Int64(tailCount), count: tailCount) else { throw damaged("cannot read its end") }
        var found: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 0x05, tail[i + 3] == 0x06 { found = i; break }
            i -= 1
        }
        guard let endIndex = found else {
            throw InputError(path: path, reason: "damaged zip archive: no end of central directory record (cut off, or not a zip)", kind: .truncated)
        }
        let endOffset = bytes.size - Int64(tailCount) + Int64(endIndex)
        let end = Array(tail[endIndex..<(endIndex + 22)])
        guard ZipLocalWalk.uint16(end, 4) == 0, ZipLocalWalk.uint16(end, 6) == 0 else {
            throw InputError(path: path, reason: "a zip archive split over several disks is not read", kind: .unsupported)
        }
        var count = Int64(ZipLocalWalk.uint16(end, 10))
        var directorySize = Int64(ZipLocalWalk.uint32(end, 12))
        var directoryOffset = Int64(ZipLocalWalk.uint32(end, 16))
        var directoryEnd = endOffset
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            guard endOffset >= 20, let locator = try bytes.bytes(at: endOffset - 20, count: 20),
                  ZipLocalWalk.uint32(locator, 0) == zip64LocatorSignature else {
                throw damaged("no zip64 end of central directory locator before byte \(endOffset)")
            }
            let recordOffset = try integers.value(ZipLocalWalk.uint64(locator, 8), "zip64 end record's offset", at: endOffset - 12, limit: bytes.size, bound: "the archive's size")
            guard let record = try bytes.bytes(at: recordOffset, count: 56), ZipLocalWalk.uint32(record, 0) == zip64EndSignature else {
                throw damaged("no zip64 end of central directory record at byte \(recordOffset)")
            }
            count = try integers.value(ZipLocalWalk.uint64(record, 32), "zip64 entry count", at: recordOffset + 32, limit: bytes.size / 46,
                                       bound: "entries of 46 bytes the archive could hold")
            directorySize = try integers.value(ZipLocalWalk.uint64(record, 40), "zip64 central directory size", at: recordOffset + 40, limit: bytes.size, bound: "the archive's size")
            directoryOffset = try integers.value(ZipLocalWalk.uint64(record, 48), "zip64 central directory offset", at: recordOffset + 48, limit: bytes.size, bound: "the archive's size")
            directoryEnd = recordOffset
        }
        // Bytes before the archive (a self-extractor's stub) shift every offset alike.
        let shift = directoryEnd - directorySize - directoryOffset
        guard directorySize >= 0, directoryOffset >= 0, shift >= 0, count >= 0, count <= directorySize / 46 + 1 else {
            throw damaged("its central directory (\(directorySize) bytes at byte \(directoryOffset)) does not end at its end record (byte \(directoryEnd))")
        }
        guard directorySize <= 1 << 30, let directory = try bytes.bytes(at: directoryOffset + shift, count: Int(directorySize)) else {
            throw damaged("its central directory at byte \(directoryOffset + shift) is cut off")
        }
        var members: [ZipMember] = []
        members.reserveCapacity(Int(count))
        var p = 0
        for index in 0..<count {
            let at = directoryOffset + shift + Int64(p)
            guard p + 46 <= directory.count, ZipLocalWalk.uint32(directory, p) == entrySignature else {
                throw damaged("central directory entry \(index + 1) of \(count) at byte \(at) is not one")
            }
            let nameLength = Int(ZipLocalWalk.uint16(directory, p + 28)), extraLength = Int(ZipLocalWalk.uint16(directory, p + 30))
            let commentLength = Int(ZipLocalWalk.uint16(directory, p + 32))
            let next = p + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw damaged("central directory entry \(index + 1) at byte \(at) runs past the directory") }
            var member = ZipMember(name: Array(directory[(p + 46)..<(p + 46 + nameLength)]), flags: ZipLocalWalk.uint16(directory, p + 8),
                                   method: ZipLocalWalk.uint16(directory, p + 10), crc: ZipLocalWalk.uint32(directory, p + 16),
                                   compressedSize: Int64(ZipLocalWalk.uint32(directory, p + 20)), size: Int64(ZipLocalWalk.uint32(directory, p + 24)),
                                   localHeaderOffset: Int64(ZipLocalWalk.uint32(directory, p + 42)), kind: .file)
            try ZipLocalWalk.applyZip64(Array(directory[(p + 46 + nameLength)..<(p + 46 + nameLength + extraLength)]), at: at + 46 + Int64(nameLength),
                                        integers: integers, sizeLimit: bytes.size,
                                        size: &member.size, compressedSize: &member.compressedSize, offset: &member.localHeaderOffset)
            member.localHeaderOffset = try integers.sum(member.localHeaderOffset, shift, "local header offset of entry \(index + 1)", at: at + 42, limit: bytes.size,
                                                           bound: "the archive's size")
            let madeBy = ZipLocalWalk.uint16(directory, p + 4) >> 8, attributes = ZipLocalWalk.uint32(directory, p + 38)
            let mode = attributes >> 16 & 0o170000
            if member.name.last == UInt8(ascii: "/") || (madeBy == 3 && mode == 0o040000) || (madeBy != 3 && attributes & 0x10 != 0) {
                member.kind = .directory
            } else if madeBy == 3, mode != 0, mode != 0o100000 {
                member.kind = .notARegularFile
            }
            guard member.compressedSize >= 0, member.localHeaderOffset >= 0, member.localHeaderOffset < directoryOffset + shift + 1 else {
                throw damaged("central directory entry \(index + 1) at byte \(at) points outside the archive")
            }
            members.append(member)
            p = next
        }
        // In the order of their data (as the archive was written), the first of equal offsets first.
        return members.enumerated().sorted { ($0.element.localHeaderOffset, $0.offset) < ($1.element.localHeaderOffset, $1.offset) }.map(\.element)
    }
}
