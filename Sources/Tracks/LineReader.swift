/// Splits a byte stream into lines in constant memory.
///
/// Lines end at `\n`; a trailing `\r` is dropped, so CRLF files read the same. A line longer
/// than ``maximumLineLength`` is an error rather than a reason to grow without bound.
public struct LineReader<Source: ByteSource> {
    /// The longest line accepted, in bytes.
    public static var maximumLineLength: Int { 1 << 20 }

    private var source: Source
    private let path: String
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The 1-based number of the line last returned.
    public private(set) var lineNumber = 0

    /// `path` names the source in errors.
    public init(_ source: Source, path: String, chunkSize: Int = 1 << 16) {
        self.source = source
        self.path = path
        buffer = .allocate(byteCount: max(chunkSize, 2 * Self.maximumLineLength), alignment: 8)
    }

    /// Frees the buffer. Call once when done (a struct cannot free it by itself).
    public func close() {
        buffer.deallocate()
    }

    /// Calls `body` with each line's bytes (without the line ending) and its 1-based number.
    /// The bytes are valid only during the call.
    public mutating func forEachLine(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        while true {
            if let newline = findNewline() {
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                lineNumber += 1
                try body(UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), lineNumber)
                start = newline + 1
                continue
            }
            if end - start > Self.maximumLineLength {
                throw InputError(path: path, line: lineNumber + 1,
                                 reason: "line longer than \(Self.maximumLineLength) bytes")
            }
            if atEnd {
                if end > start {
                    var lineEnd = end
                    if buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                    lineNumber += 1
                    try body(UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), lineNumber)
                    start = end
                }
                return
            }
            try refill()
        }
    }

    private func findNewline() -> Int? {
        guard start < end else { return nil }
        let base = buffer.baseAddress!
        guard let hit = memchr(base + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
        return base.distance(to: hit)
    }

    private mutating func refill() throws {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: pending) }
            start = 0
            end = pending
        }
        let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
        if n == 0 { atEnd = true } else { end += n }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
