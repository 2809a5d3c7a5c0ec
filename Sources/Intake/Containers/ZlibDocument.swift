import CZlib
import Tracks

/// A small zlib stream (RFC 1950) inflated whole: Fog of World's tiles, whose size is bounded by
/// their format (``FogOfWorldTile/maximumInflatedBytes``), so the bytes are held, not streamed.
enum ZlibDocument {
    /// Reads all of `source` (at most `maximumCompressed` bytes) and inflates it to at most
    /// `limit` bytes; an error names `path`, what failed and the byte offset. Returns the bytes
    /// and the size of the compressed stream (what bounds the reader's work).
    static func inflate(_ source: inout some ByteSource, path: String, maximumCompressed: Int, limit: Int) throws -> (bytes: [UInt8], compressedBytes: Int) {
        var compressed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            compressed.append(contentsOf: buffer[0..<n])
            if compressed.count > maximumCompressed {
                throw InputError(path: path, reason: "more than \(maximumCompressed) compressed bytes: larger than its format allows", kind: .decompressionBomb)
            }
        }
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw InputError(path: path, reason: "zlib could not start", kind: .damaged)
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: limit + 1)
        let status = compressed.withUnsafeMutableBytes { input in
            output.withUnsafeMutableBytes { out -> Int32 in
                stream.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        let made = Int(stream.total_out), used = Int(stream.total_in)
        switch status {
        case Z_STREAM_END:
            if used < compressed.count {
                throw InputError(path: path, reason: "\(compressed.count - used) bytes after the zlib stream at byte \(used)", kind: .damaged)
            }
            output.removeSubrange(made...)
            return (output, compressed.count)
        case Z_BUF_ERROR where made > limit:
            throw InputError(path: path, reason: "inflates to more than \(limit) bytes: larger than its format allows", kind: .decompressionBomb)
        case Z_BUF_ERROR:
            throw InputError(path: path, reason: "zlib stream truncated at byte \(used) (after \(made) inflated bytes)", kind: .truncated)
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw InputError(path: path, reason: "damaged zlib stream: \(message) at byte \(used) (after \(made) inflated bytes)", kind: .damaged)
        }
    }
}
