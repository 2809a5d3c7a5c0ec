import Tracks

/// Forward reading with a look-ahead window over any ``ByteSource``: what the containers parse
/// (gzip members, zip local headers, tar blocks) and inflate from. Inflating works on the window
/// in place, so the bytes a deflate stream did not use stay here for the next header.
final class InputBuffer {
    private var source: any ByteSource
    private let storage: UnsafeMutableRawBufferPointer
    private(set) var start = 0
    private(set) var end = 0
    private(set) var atEnd = false
    /// Bytes of the stream before ``start``: the offset of the window's first byte.
    private(set) var offset: Int64 = 0
    static let capacity = 1 << 16
    /// Reads at least this large skip the window when it is empty.
    static let directReadSize = 1 << 14

    init(_ source: any ByteSource) {
        self.source = source
        storage = .allocate(byteCount: Self.capacity, alignment: 8)
    }

    deinit { storage.deallocate() }

    /// The bytes available now.
    var available: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<end]) }
    var count: Int { end - start }

    /// Reads more when fewer than `minimum` bytes (at most ``capacity``) are available; false when
    /// the stream ends first (what there is stays available).
    @discardableResult
    func fill(atLeast minimum: Int = 1) throws -> Bool {
        precondition(minimum <= Self.capacity)
        while end - start < minimum {
            if atEnd { return false }
            if start > 0 {
                storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: end - start)
                end -= start
                start = 0
            }
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end...]))
            if n == 0 { atEnd = true } else { end += n }
        }
        return true
    }

    /// Takes `n` available bytes.
    func consume(_ n: Int) {
        precondition(n <= end - start)
        start += n
        offset += Int64(n)
    }

    /// The byte at `index` of the window.
    subscript(index: Int) -> UInt8 { storage[start + index] }

    /// Little-endian integers at `index` of the window (callers fill first).
    func uint16(at index: Int) -> UInt16 { UInt16(self[index]) | UInt16(self[index + 1]) << 8 }
    func uint32(at index: Int) -> UInt32 { UInt32(uint16(at: index)) | UInt32(uint16(at: index + 2)) << 16 }
    func uint64(at index: Int) -> UInt64 { UInt64(uint32(at: index)) | UInt64(uint32(at: index + 4)) << 32 }

    /// The window's bytes `range` as an array.
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(storage[(start + range.lowerBound)..<(start + range.upperBound)]) }

    /// Skips `n` bytes of the stream; false when it ends first.
    func skip(_ n: Int64) throws -> Bool {
        var left = n
        while left > 0 {
            if count == 0, !(try fill()) { return false }
            let step = Int(min(Int64(count), left))
            consume(step)
            left -= Int64(step)
        }
        return true
    }

    /// Copies up to `buffer.count` bytes (and at most `limit`) into `buffer`, reading when the
    /// window is empty; 0 at the end of the stream.
    func copy(into buffer: UnsafeMutableRawBufferPointer, limit: Int64) throws -> Int {
        // An empty window and a large read: straight from the source into the caller's buffer (a
        // stored member's or a tar member's bytes are then copied once, not twice).
        if count == 0, !atEnd, buffer.count >= Self.directReadSize, limit >= Int64(Self.directReadSize) {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), limit))]))
            if n == 0 { atEnd = true }
            offset += Int64(n)
            return n
        }
        if count == 0 { try fill() }
        let n = Int(min(Int64(min(count, buffer.count)), limit))
        guard n > 0 else { return 0 }
        buffer.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: n)
        consume(n)
        return n
    }
}
