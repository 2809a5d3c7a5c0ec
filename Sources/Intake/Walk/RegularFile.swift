#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file read whole (a state, the CLI's badge catalog), opened so that a path that
/// is not a regular file (a device such as /dev/zero, a named pipe, a folder) is refused at once
/// instead of hanging the run or filling memory: opened without blocking, checked with `fstat`.
package final class RegularFile {
    /// Why a file could not be read; the caller names the file in its own error type.
    package struct Problem: Error {
        package let reason: String
    }

    private let descriptor: Int32
    /// Its size when opened.
    package let size: Int
    /// What ``fill(to:)`` has read (sized to the whole file at the first fill).
    package private(set) var bytes: [UInt8] = []

    /// Opens `path`; nil when nothing is there. `kind` completes "not a regular file (…); a … is".
    package init?(path: String, kind: String) throws(Problem) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Problem(reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Problem(reason: "cannot stat: \(reason)")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Problem(reason: "not a regular file (a device, pipe or folder); \(kind)")
        }
        descriptor = fd
        size = Int(status.st_size)
    }

    private var filled = 0

    /// Reads the file's first `count` bytes (up to its size when opened) into ``bytes``.
    package func fill(to count: Int) throws(Problem) {
        let count = min(count, size)
        if bytes.isEmpty { bytes = [UInt8](repeating: 0, count: size) }
        while filled < count {
            let start = filled, fd = descriptor
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start, count - start, off_t(start)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Problem(reason: "read failed at byte \(filled): \(String(cString: strerror(errno)))") }
            guard n > 0 else { throw Problem(reason: "truncated: it shrank to \(filled) bytes while being read") }
            filled += n
        }
    }

    /// The file's first `count` bytes (fewer when it is shorter), read without sizing ``bytes``.
    package func head(_ count: Int) throws(Problem) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: min(count, size))
        var filled = 0
        while filled < head.count {
            let start = filled, fd = descriptor
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start, $0.count - start, off_t(start)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Problem(reason: "read failed at byte \(filled): \(String(cString: strerror(errno)))") }
            guard n > 0 else { break }
            filled += n
        }
        return Array(head.prefix(filled))
    }

    deinit {
        close(descriptor)
    }
}
