#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into lines in constant memory.
///
/// Every line ending in use is understood: LF and CRLF (a `\r` before the `\n` is dropped), CR
/// alone (classic Mac OS, some loggers' firmware), NEL (U+0085, UTF-8 `C2 85`) and the Unicode
/// line and paragraph separators (U+2028, U+2029, UTF-8 `E2 80 A8`/`A9`). A file uses one: the
/// first ending found decides, and the rest of the file is split on it alone (so a U+2028 inside
/// a field of an LF file stays part of its line). A line longer than ``maximumLineLength`` is an
/// error rather than a reason to grow without bound.
public struct LineReader<Source: ByteSource> {
    /// The longest line accepted, in bytes.
    public static var maximumLineLength: Int { 1 << 20 }

    /// The line ending a file uses.
    enum Ending: Equatable {
        /// `\n`, with an optional `\r` before it.
        case lineFeed
        /// `\r` alone.
        case carriageReturn
        /// U+0085 NEL, `C2 85`.
        case nextLine
        /// U+2028 or U+2029, `E2 80 A8` or `E2 80 A9`.
        case unicodeSeparator
    }

    private var source: Source
    private let path: String
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The file's line ending, once one was seen.
    private(set) var ending: Ending?
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
    /// The bytes are valid only during the call. A line longer than ``maximumLineLength`` stops
    /// the file with an error.
    public mutating func forEachLine(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        try forEachLine(overlong: nil, body)
    }

    /// As ``forEachLine(_:)``, but a line longer than ``maximumLineLength`` is passed over in
    /// constant memory (read to its end, never held) and `overlong` called with its number;
    /// the lines after it are read on (`convert` and `locate`: a bad line is reported and skipped).
    public mutating func forEachLine(overlong: ((Int) throws -> Void)?, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        var skipping = false
        while true {
            if let found = findLineEnd() {
                lineNumber += 1
                if skipping || found.lineEnd - start > Self.maximumLineLength {
                    // Checked here too: a read can bring in an overlong line's ending with the rest of it.
                    guard let overlong else { lineNumber -= 1; throw overlongError() }
                    skipping = false
                    start = found.next
                    try overlong(lineNumber)
                    continue
                }
                try body(UnsafeRawBufferPointer(rebasing: buffer[start..<found.lineEnd]), lineNumber)
                start = found.next
                continue
            }
            if end - start > Self.maximumLineLength {
                guard overlong != nil else { throw overlongError() }
                // The line's bytes so far are dropped, all but the last two (a line ending may begin there).
                skipping = true
                start = end - 2
            }
            if atEnd {
                if end > start {
                    var lineEnd = end
                    if ending != .carriageReturn, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                    lineNumber += 1
                    if skipping {
                        try overlong?(lineNumber)
                    } else {
                        try body(UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), lineNumber)
                    }
                    start = end
                }
                return
            }
            try refill()
        }
    }

    /// The error for the line after the last one returned, longer than the limit.
    private func overlongError() -> InputError {
        InputError(path: path, line: lineNumber + 1, reason: "line longer than \(Self.maximumLineLength) bytes")
    }

    /// The end of the line at `start` and where the next begins, or nil when more input is needed.
    private mutating func findLineEnd() -> (lineEnd: Int, next: Int)? {
        guard start < end else { return nil }
        if ending == nil {
            guard let decided = detectEnding() else { return nil }
            ending = decided
        }
        let base = buffer.baseAddress!
        switch ending! {
        case .lineFeed:
            guard let hit = memchr(base + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
            let newline = base.distance(to: hit)
            let lineEnd = newline > start && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            return (lineEnd, newline + 1)
        case .carriageReturn:
            guard let hit = memchr(base + start, Int32(UInt8(ascii: "\r")), end - start) else { return nil }
            let index = base.distance(to: hit)
            return (index, index + 1)
        case .nextLine:
            return findSequence(lead: 0xC2) { $0 == 0x85 ? 2 : nil }
        case .unicodeSeparator:
            return findSequence(lead: 0xE2) { second in second == 0x80 ? 3 : nil }
        }
    }

    /// A multi-byte ending that starts with `lead`: `length(b)` says, from the byte after the
    /// lead, how long the ending is (nil: not an ending). Nil when none is complete in the buffer.
    private func findSequence(lead: UInt8, length: (UInt8) -> Int?) -> (lineEnd: Int, next: Int)? {
        let base = buffer.baseAddress!
        var from = start
        while from < end, let hit = memchr(base + from, Int32(lead), end - from) {
            let index = base.distance(to: hit)
            guard index + 1 < end else { return nil }
            if let count = length(buffer[index + 1]) {
                guard index + count <= end else { return nil }
                if count == 2 || buffer[index + 2] == 0xA8 || buffer[index + 2] == 0xA9 {
                    return (index, index + count)
                }
            }
            from = index + 1
        }
        return nil
    }

    /// The first line ending in the buffer, or nil when the buffered bytes do not yet say
    /// (no ending yet, or one cut at the buffer's end). At the end of input without any ending,
    /// the file is one line.
    private func detectEnding() -> Ending? {
        var index = start
        while index < end {
            switch buffer[index] {
            case 0x0A:
                return .lineFeed
            case 0x0D:
                guard index + 1 < end else { return atEnd ? .carriageReturn : nil }
                return buffer[index + 1] == 0x0A ? .lineFeed : .carriageReturn
            case 0xC2:
                guard index + 1 < end else { return atEnd ? .lineFeed : nil }
                if buffer[index + 1] == 0x85 { return .nextLine }
            case 0xE2:
                guard index + 2 < end else { return atEnd ? .lineFeed : nil }
                if buffer[index + 1] == 0x80, buffer[index + 2] == 0xA8 || buffer[index + 2] == 0xA9 { return .unicodeSeparator }
            default:
                break
            }
            index += 1
        }
        return atEnd ? .lineFeed : nil
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
