import Tracks

/// A source whose first bytes were read ahead (to recognise the format) and are replayed.
struct ReplayingSource<Base: ByteSource>: ByteSource {
    var prefix: [UInt8]
    var prefixOffset = 0
    var base: Base

    /// Reads up to `count` bytes ahead from `base`.
    init(_ base: Base, lookahead count: Int = 512) throws {
        var base = base
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try buffer.withUnsafeMutableBytes { try base.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if n == 0 { break }
            filled += n
        }
        self.base = base
        prefix = Array(buffer[0..<filled])
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if prefixOffset < prefix.count {
            let n = min(buffer.count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + prefixOffset, byteCount: n) }
            prefixOffset += n
            return n
        }
        return try base.read(into: buffer)
    }
}
