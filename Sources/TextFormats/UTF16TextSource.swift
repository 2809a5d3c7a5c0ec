/// A text source read as UTF-8 whatever it was saved in: when its first bytes are a UTF-16 byte
/// order mark (`FF FE` little-endian, `FE FF` big-endian, as Windows' "Unicode" text and Excel's
/// "Unicode Text" write), its code units are converted to UTF-8 as they are read (the mark
/// becomes UTF-8's, `EF BB BF`, which line readers skip); any other source passes through
/// unchanged. A lone surrogate becomes U+FFFD; an odd final byte is dropped.
public struct UTF16TextSource<Base: ByteSource>: ByteSource {
    private var base: Base
    private enum Mode { case unknown, passThrough, littleEndian, bigEndian }
    private var mode = Mode.unknown
    /// Bytes read but not yet handed out (the sniffed head, or converted text).
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// An odd byte, or a high surrogate, carried to the next read.
    private var carry: [UInt8] = []
    private var highSurrogate: UInt16?
    private var raw = [UInt8](repeating: 0, count: 1 << 15)

    public init(_ base: Base) {
        self.base = base
    }

    /// Whether the text was UTF-16 (known after the first read).
    public var wasUTF16: Bool { mode == .littleEndian || mode == .bigEndian }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if mode == .unknown { try sniff() }
        if pendingOffset < pending.count { return handOut(into: buffer) }
        if mode == .passThrough { return try base.read(into: buffer) }
        while pendingOffset >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
            let count = try raw.withUnsafeMutableBytes { try base.read(into: $0) }
            if count == 0 {
                if highSurrogate != nil { append(0xFFFD) }
                highSurrogate = nil
                if pending.isEmpty { return 0 }
                break
            }
            convert(carry + raw[0..<count])
        }
        return handOut(into: buffer)
    }

    private mutating func handOut(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, pending.count - pendingOffset)
        pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + pendingOffset, byteCount: count) }
        pendingOffset += count
        return count
    }

    private mutating func sniff() throws {
        var head: [UInt8] = []
        while head.count < 2 {
            var byte: UInt8 = 0
            let count = try withUnsafeMutableBytes(of: &byte) { try base.read(into: $0) }
            if count == 0 { break }
            head.append(byte)
        }
        if head == [0xFF, 0xFE] || head == [0xFE, 0xFF] {
            mode = head[0] == 0xFF ? .littleEndian : .bigEndian
            pending = [0xEF, 0xBB, 0xBF]
        } else {
            mode = .passThrough
            pending = head
        }
        pendingOffset = 0
    }

    private mutating func convert<Bytes: Collection<UInt8>>(_ bytes: Bytes) where Bytes.Index == Int {
        var i = bytes.startIndex
        carry.removeAll(keepingCapacity: true)
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            let unit = mode == .littleEndian ? a | b << 8 : a << 8 | b
            i += 2
            if let high = highSurrogate {
                highSurrogate = nil
                if (0xDC00..<0xE000).contains(unit) {
                    append(0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(unit - 0xDC00))
                    continue
                }
                append(0xFFFD)
            }
            if (0xD800..<0xDC00).contains(unit) {
                highSurrogate = unit
            } else if (0xDC00..<0xE000).contains(unit) {
                append(0xFFFD)
            } else {
                append(UInt32(unit))
            }
        }
        if i < bytes.endIndex { carry = [bytes[i]] }
    }

    private mutating func append(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            pending.append(UInt8(scalar))
        case 0x80..<0x800:
            pending.append(UInt8(0xC0 | scalar >> 6))
            pending.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            pending.append(UInt8(0xE0 | scalar >> 12))
            pending.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            pending.append(UInt8(0x80 | scalar & 0x3F))
        default:
            pending.append(UInt8(0xF0 | scalar >> 18))
            pending.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            pending.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            pending.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
