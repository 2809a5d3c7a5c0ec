import CZlib
import Tracks

/// A raw deflate stream (RFC 1951) decoded with zlib's `inflate`, the one piece of C the
/// containers use: zlib is a public system library on iOS, macOS and Linux alike.
final class Inflater {
    private var stream = z_stream()
    /// Output of the current stream so far, and its CRC-32 (zlib's `crc32`).
    private(set) var produced: Int64 = 0
    private(set) var crc: UInt32 = 0
    private(set) var ended = false

    init() {
        // -15: raw deflate, a 32 KiB window, no zlib or gzip wrapper (the containers parse theirs).
        let status = inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib inflateInit2 failed: \(status)")
    }

    deinit { inflateEnd(&stream) }

    /// Starts the next stream (a gzip member after the last).
    func reset() {
        inflateReset(&stream)
        produced = 0
        crc = 0
        ended = false
    }

    /// What went wrong when ``inflate(from:into:limit:)`` throws: the kind, and zlib's message.
    enum Failure: Error {
        case damaged(String)
        case truncated
    }

    /// Decodes from `input`'s window into `buffer`, reading more input as needed, taking at most
    /// `limit` compressed bytes; returns the bytes produced (0 only at the stream's end, ``ended``).
    func inflate(from input: InputBuffer, into buffer: UnsafeMutableRawBufferPointer, limit: Int64 = .max) throws(Failure) -> Int {
        guard !ended, buffer.count > 0 else { return 0 }
        var left = limit
        while true {
            if input.count == 0 {
                do {
                    if !(try input.fill()) { throw Failure.truncated }
                } catch let failure as Failure {
                    throw failure
                } catch {
                    throw Failure.damaged("\(error)")
                }
            }
            // `limit` comes from a file (a zip entry's compressed size, checked by ``FileIntegers``);
            // nothing left of it is the stream cut short, whatever the value.
            guard left > 0 else { throw Failure.truncated }
            let offered = Int(min(Int64(input.count), left, Int64(UInt32.max)))
            let window = input.available
            stream.next_in = UnsafeMutablePointer(mutating: window.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(offered)
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(min(buffer.count, Int(UInt32.max)))
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let used = offered - Int(stream.avail_in)
            let made = min(buffer.count, Int(UInt32.max)) - Int(stream.avail_out)
            input.consume(used)
            left -= Int64(used)
            if made > 0 {
                crc = UInt32(crc32(uLong(crc), buffer.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(made)))
                produced += Int64(made)
            }
            switch status {
            case Z_STREAM_END:
                ended = true
                return made
            case Z_OK, Z_BUF_ERROR:
                if made > 0 { return made }
                // No progress: more input is needed.
                if used == 0 && input.count > 0 && offered == input.count { throw Failure.damaged("inflate made no progress") }
            default:
                throw Failure.damaged(stream.msg.map { String(cString: $0) } ?? "zlib error \(status)")
            }
        }
    }
}

/// CRC-32 (ISO 3309, as gzip and zip use it) of `bytes`, continuing `crc`.
func crc32Update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
    return UInt32(crc32(uLong(crc), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
}
