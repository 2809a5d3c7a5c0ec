import SeededRandom
import Tracks

/// Bytes in memory handed to a reader the way a file, a pipe or a decompressor might: as much as
/// each read asks for, a fixed number at a time (one byte per read at the extreme), or in chunks of
/// seeded random sizes. After each read a few bytes of the reader's buffer beyond those returned
/// are overwritten with `0xFF`, so a reader that looks past what it was given reads garbage.
public struct FedSource: ByteSource {
    /// How the bytes are handed out.
    public enum Feeding: Equatable, Sendable, CustomStringConvertible {
        /// As much as each read asks for (a file).
        case whole
        /// At most `n` bytes per read; `.fixed(1)` is one byte at a time.
        case fixed(Int)
        /// Chunks of 1…`largest` bytes, sizes drawn from `seed` (mostly small, so chunk boundaries
        /// fall inside every token, sometimes up to `largest`).
        case random(seed: UInt64, largest: Int)

        /// A few bytes per read (1…7, seeded), so records straddle nearly every read.
        public static let trickle = Feeding.random(seed: 1, largest: 7)

        public var description: String {
            switch self {
            case .whole: return "all at once"
            case .fixed(1): return "one byte at a time"
            case let .fixed(n): return "\(n) bytes at a time"
            case let .random(seed, largest): return "in random chunks of at most \(largest) bytes (seed \(seed))"
            }
        }
    }

    public let bytes: [UInt8]
    public let feeding: Feeding
    private var offset = 0
    private var random: SplitMix64

    public init(_ bytes: [UInt8], feeding: Feeding = .whole) {
        self.bytes = bytes
        self.feeding = feeding
        if case let .random(seed, _) = feeding { random = SplitMix64(seed: seed) } else { random = SplitMix64(seed: 0) }
    }

    public init(_ text: String, feeding: Feeding = .whole) {
        self.init(Array(text.utf8), feeding: feeding)
    }

    /// Bytes that remain to be read.
    public var remaining: Int { bytes.count - offset }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let limit: Int
        switch feeding {
        case .whole: limit = buffer.count
        case let .fixed(n): limit = max(n, 1)
        case let .random(_, largest):
            switch random.below(10) {
            case 0..<6: limit = 1 + random.below(min(8, largest))
            case 6..<9: limit = 1 + random.below(min(64, largest))
            default: limit = 1 + random.below(max(largest, 1))
            }
        }
        let n = min(limit, buffer.count, bytes.count - offset)
        if n > 0 {
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
        }
        for k in n..<min(buffer.count, n + 8) { buffer[k] = 0xFF }
        return n
    }
}
