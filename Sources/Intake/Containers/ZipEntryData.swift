import Tracks

/// The data of one zip member: stored or deflated, its CRC-32 and length checked at its end.
/// Sizes come from the central directory, the local header, or (written as a stream) the data
/// descriptor after the data: a deflate stream ends by itself, stored data ends at a descriptor
/// whose CRC and size match the bytes before it.
final class ZipEntryData: EntryData {
    enum Method { case stored, deflated }

    private let input: InputBuffer
    private let path: String
    private let method: Method
    /// Compressed bytes of the member, when known.
    private let compressedSize: Int64?
    private var expectedCRC: UInt32
    private var expectedSize: Int64
    /// The sizes and CRC follow the data (general purpose flag bit 3), 8-byte sizes when zip64.
    private let descriptor: (present: Bool, zip64: Bool)
    /// A forward-only archive must read through what its caller left.
    private let forwardOnly: Bool
    private let tally: ArchiveTally
    private lazy var inflater = Inflater()
    private let startOffset: Int64
    private var produced: Int64 = 0
    private var crc: UInt32 = 0
    private var finished = false

    init(input: InputBuffer, path: String, method: Method, compressedSize: Int64?, crc: UInt32, size: Int64,
         descriptor: (present: Bool, zip64: Bool), forwardOnly: Bool, tally: ArchiveTally) {
        self.input = input
        self.path = path
        self.method = method
        self.compressedSize = compressedSize
        expectedCRC = crc
        expectedSize = size
        self.descriptor = descriptor
        self.forwardOnly = forwardOnly
        self.tally = tally
        startOffset = input.offset
    }

    private func damaged(_ what: String, kind: InputError.Kind = .damaged) -> InputError {
        InputError(path: path, reason: "damaged zip entry: \(what) (after \(produced) bytes)", kind: kind)
    }

    /// Compressed bytes of this member read so far.
    private var consumed: Int64 { input.offset - startOffset }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished else { return 0 }
        let n: Int
        switch method {
        case .deflated:
            do {
                n = try inflater.inflate(from: input, into: buffer, limit: compressedSize.map { $0 - consumed } ?? .max)
            } catch .truncated {
                finished = true
                throw truncated()
            } catch let .damaged(message) {
                finished = true
                throw damaged("\(message) at byte \(input.offset) of the archive")
            }
        case .stored:
            if let size = compressedSize {
                n = try input.copy(into: buffer, limit: size - consumed)
                if n == 0, consumed < size {
                    finished = true
                    throw truncated()
                }
            } else {
                n = try readStoredUntilDescriptor(into: buffer)
            }
            crc = crc32Update(crc, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        produced += Int64(n)
        if let bomb = DecompressionLimits.check(output: produced, input: consumed, path: path) {
            finished = true
            throw bomb
        }
        try tally.add(n, path: path)
        let ended: Bool
        switch method {
        case .deflated: ended = inflater.ended
        case .stored: ended = compressedSize.map { consumed == $0 } ?? storedEnded
        }
        if ended {
            finished = true
            try checkEnd()
        }
        return n
    }

    private func truncated() -> InputError {
        InputError(path: path, reason: "zip entry truncated at byte \(input.offset) of the archive (after \(produced) bytes)", kind: .truncated)
    }

    /// The CRC-32 and length, after reading the descriptor when the data has one.
    private func checkEnd() throws {
        // A deflate stream that ends before its stated size: the rest is passed over.
        if forwardOnly, let size = compressedSize, consumed < size, !(try input.skip(size - consumed)) { throw truncated() }
        if descriptor.present, !storedEnded {
            let at = input.offset
            guard try input.fill(atLeast: 4) else { throw damaged("data descriptor missing at byte \(at) of the archive", kind: .truncated) }
            if input.uint32(at: 0) == 0x0807_4B50 { input.consume(4) }
            let width = descriptor.zip64 ? 8 : 4
            guard try input.fill(atLeast: 4 + 2 * width) else { throw damaged("data descriptor cut at byte \(at) of the archive", kind: .truncated) }
            expectedCRC = input.uint32(at: 0)
            expectedSize = descriptor.zip64 ? Int64(bitPattern: input.uint64(at: 4 + width)) : Int64(input.uint32(at: 4 + width))
            input.consume(4 + 2 * width)
        }
        let actual = method == .deflated ? inflater.crc : crc
        if actual != expectedCRC {
            throw damaged("its CRC-32 is \(hex(actual)), the archive says \(hex(expectedCRC)); nothing of it is counted", kind: .checksumMismatch)
        }
        if produced != expectedSize {
            throw damaged("\(produced) bytes, the archive says \(expectedSize); nothing of it is counted", kind: .checksumMismatch)
        }
    }

    /// Stored data of unknown length (a stream written with a data descriptor) ends where a
    /// descriptor signature is followed by the CRC-32 and size of the bytes before it.
    private var storedEnded = false
    private func readStoredUntilDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !storedEnded else { return 0 }
        try input.fill(atLeast: min(InputBuffer.capacity, 16))
        var p = 0
        while p + 4 <= input.count {
            if input[p] == 0x50, input[p + 1] == 0x4B, input[p + 2] == 0x07, input[p + 3] == 0x08 {
                if p + 16 > input.count {
                    if p > 0 { break }  // deliver what is before it first, then look again
                    guard try input.fill(atLeast: 16) else { break }
                }
                let candidateCRC = crc32Update(crc, UnsafeRawBufferPointer(rebasing: input.available[0..<p]))
                let size = Int64(input.uint32(at: p + 8))
                if input.uint32(at: p + 4) == candidateCRC, size == (produced + Int64(p)) & 0xFFFF_FFFF {
                    let n = min(p, buffer.count)
                    if n > 0 { buffer.baseAddress!.copyMemory(from: input.available.baseAddress!, byteCount: n) }
                    input.consume(n)
                    if n == p {
                        expectedCRC = candidateCRC
                        expectedSize = produced + Int64(n)
                        input.consume(16)
                        storedEnded = true
                    }
                    return n
                }
            }
            p += 1
        }
        // Keep the last 15 bytes: a descriptor may begin among them.
        let n = min(max(input.count - 15, p < input.count - 3 ? p : 0), buffer.count)
        if n == 0 {
            if input.atEnd {
                throw InputError(path: path, reason: "zip entry truncated at byte \(input.offset + Int64(input.count)) of the archive: no data descriptor ends it",
                                 kind: .truncated)
            }
            try input.fill(atLeast: min(InputBuffer.capacity, input.count + 1))
            return try readStoredUntilDescriptor(into: buffer)
        }
        buffer.baseAddress!.copyMemory(from: input.available.baseAddress!, byteCount: n)
        input.consume(n)
        return n
    }

    func passOver() throws {
        guard forwardOnly, !finished else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { scratch.deallocate() }
        do {
            while try read(into: scratch) > 0 {}
        } catch let error as InputError where error.kind == .checksumMismatch {
            // A member nobody reads is not judged by its checksum.
        }
    }
}
