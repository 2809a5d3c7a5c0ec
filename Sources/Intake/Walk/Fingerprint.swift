import RegionTables
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An input's identity by content: its size and XXH64 over every byte, block by block (1 MiB
/// blocks, each block's hash the seed of the next), as `c1-SIZE-HASH`. Two files are one input
/// only when their whole contents agree, never by a sample of them: a logger file that grew, or
/// two files equal at both ends, are different inputs. The pass costs a read of the file, which
/// the reader then takes from the page cache.
public enum Fingerprint {
    static let blockSize = 1 << 20

    /// The key and the size of a walked file's bytes.
    static func of(_ file: WalkedFile) throws -> (key: String, size: Int64) {
        switch file.origin {
        case let .memory(bytes):
            return of(bytes: bytes)
        case let .file(path):
            return try of(path)
        }
    }

    /// The key and size of bytes in memory (an app's, or an archive member held whole): the same
    /// key a file of these bytes has.
    static func of(bytes: [UInt8]) -> (key: String, size: Int64) {
        var hash: UInt64 = 0
        bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(start + blockSize, all.count)
                hash = XXH64.hash(UnsafeRawBufferPointer(rebasing: all[start..<end]), seed: hash)
                start = end
            }
        }
        return ("c1-\(bytes.count)-" + String(hash, radix: 16), Int64(bytes.count))
    }

    public static func of(_ path: InputPath) throws -> (key: String, size: Int64) {
        let fd = path.withCString { open($0, O_RDONLY | O_NONBLOCK) }
        guard fd >= 0 else { throw InputError(path: path.display, reason: "cannot open: \(String(cString: strerror(errno)))", kind: .unreadable) }
        defer { close(fd) }
        var block = [UInt8](repeating: 0, count: blockSize)
        var hash: UInt64 = 0
        var total: Int64 = 0
        while true {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw InputError(path: path.display, reason: "read failed at byte \(total): \(String(cString: strerror(errno)))", kind: .unreadable)
            }
            if n == 0 { break }
            hash = block.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[0..<n]), seed: hash) }
            total += Int64(n)
        }
        return ("c1-\(total)-" + String(hash, radix: 16), total)
    }
}
