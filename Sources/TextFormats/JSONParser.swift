/// Why a JSON document could not be read, and where (byte offset from the start).
public struct JSONError: Error, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "byte \(offset): \(reason)" }
}

/// A strict JSON (RFC 8259) parser of a whole document in memory into a ``JSONValue``, with
/// limits so hostile input cannot exhaust the stack or memory. It is the one JSON grammar,
/// ``JSONStreamReader``, over the bytes, building the document as
/// ``JSONStreamReader/value(from:member:maximumBytes:)`` builds a record, but strictly: a number
/// beyond `Double`'s range and any value nested ``maximumDepth`` deep are errors.
public struct JSONParser {
    /// Deepest nesting accepted (GeoJSON needs 8 or so; hostile files nest millions deep).
    public static let maximumDepth = 512

    /// Parses one complete JSON document; trailing non-space bytes are an error.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        var reader = JSONStreamReader(BufferSource(bytes), limits: JSONStreamLimits(maximumDepth: maximumDepth, maximumTokenBytes: .max),
                                      chunkSize: min(max(bytes.count, 16), 1 << 20))
        do {
            return try reader.document()
        } catch let error as JSONStreamError {
            // This parser has always named a string's first byte of content (after the quote)
            // for bad UTF-8; the stream names the quote.
            throw JSONError(offset: error.kind == .invalidUTF8 ? error.offset + 1 : error.offset, reason: error.reason)
        }
    }

    /// Parses a byte array.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { try parse($0) }
    }
}

/// Bytes the caller holds for the duration of a parse, as a ``ByteSource``.
private struct BufferSource: ByteSource {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        offset += count
        return count
    }
}
