import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes read at any offset: a zip's central directory is at its end, its entries wherever it
/// says. A file through `pread`, or bytes an app holds.
protocol RandomAccessBytes: AnyObject {
    var size: Int64 { get }
    /// Fills up to `buffer.count` bytes from `offset`; 0 at the end.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension RandomAccessBytes {
    /// Exactly `count` bytes at `offset`, or nil when the data ends first.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size - Int64(count) else { return nil }  // never `offset + count`: it may overflow
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try result.withUnsafeMutableBytes { try read(at: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if n == 0 { return nil }
            filled += n
        }
        return result
    }
}

/// An open file read with `pread` (the descriptor is closed with the value).
final class RandomAccessFile: RandomAccessBytes {
    private let descriptor: Int32
    let size: Int64
    let path: String

    init(descriptor: Int32, path: String) throws {
        self.descriptor = descriptor
        self.path = path
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw InputError(path: path, reason: "cannot stat: \(reason)", kind: .unreadable)
        }
        size = Int64(status.st_size)
    }

    deinit { close(descriptor) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw InputError(path: path, reason: "read failed at byte \(offset): \(String(cString: strerror(errno)))", kind: .unreadable)
        }
    }
}

/// Bytes an app holds (a download, a picked file's data).
final class RandomAccessMemory: RandomAccessBytes {
    let bytes: [UInt8]
    var size: Int64 { Int64(bytes.count) }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset >= 0, offset < size else { return 0 }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: n) }
        return n
    }
}

/// A stretch of random-access bytes read forward (a zip entry's data, or the whole archive).
struct RangeSource: ByteSource {
    let bytes: any RandomAccessBytes
    var offset: Int64
    let end: Int64

    init(_ bytes: any RandomAccessBytes, from offset: Int64 = 0, count: Int64? = nil) {
        self.bytes = bytes
        self.offset = offset
        // `count` is at most the archive's size (``FileIntegers``), but the sum is not taken unchecked.
        end = count.map { $0 >= bytes.size - offset ? bytes.size : offset + $0 } ?? bytes.size
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let want = Int(min(Int64(buffer.count), max(end - offset, 0)))
        guard want > 0 else { return 0 }
        let n = try bytes.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        offset += Int64(n)
        return n
    }
}
