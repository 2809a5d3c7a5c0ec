import Foundation
import Intake
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input as an input of `classify -` and `audit -`, and any path that is a stream rather
/// than a file (a pipe or FIFO, `<(zcat t.csv.gz)`'s `/dev/fd/63`, a character device, a
/// socket): copied to a temporary file first, read blocking to its end, because an input is
/// known by a hash of its whole content before it is read (so `--state` skips what it has
/// seen) and a zip is read from its central directory at the end. The copy goes to disk, never
/// to memory, in 1 MiB blocks.
///
/// On Linux the file is unlinked as soon as it is created and opened through `/dev/fd/N`, so
/// nothing is left behind even by a killed run; elsewhere it is removed when the process exits.
///
/// How it is read is decided by its first bytes, as for a file named on the command line whose
/// name says nothing (the intake's rule): gzip is decompressed, a zip or tar walked like any
/// archive, anything else recognised by its content (docs/input-formats.md).
struct StandardInputCopy {
    /// The copy's path to open, shown as `-`.
    let path: InputPath
    let size: Int64

    /// The most copied (8 GiB; `$ADMINUNLOCKS_STDIN_LIMIT` bytes): a stream of zeros never fills the disk.
    static let limit = ProcessInfo.processInfo.environment["ADMINUNLOCKS_STDIN_LIMIT"].flatMap { Int64($0) } ?? 8 << 30

    /// Standard input's copy.
    static func make() throws -> StandardInputCopy { try make(descriptor: 0, display: "-") }

    /// Whether `path` is a stream to copy (not a regular file, not a folder): `stat` follows
    /// links, so `/dev/stdin` and `/dev/fd/N` are what they lead to.
    static func isStream(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }

    /// The copy of the stream at `path` (opened blocking: a FIFO waits for its writer, as `cat` would).
    static func make(path: String) throws -> StandardInputCopy {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))", kind: .unreadable) }
        defer { close(fd) }
        return try make(descriptor: fd, display: path)
    }

    /// Copies what `descriptor` yields to its end; `display` names it in errors and reports.
    static func make(descriptor source: Int32, display: String) throws -> StandardInputCopy {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/unlocks-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let name = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else {
            throw InputError(path: display, reason: "cannot copy the stream: cannot create a file in \(folder): \(String(cString: strerror(errno))) (set TMPDIR)")
        }
        #if os(Linux)
        unlink(name)
        let opened = "/dev/fd/\(fd)"
        #else
        Self.removeAtExit(name)
        let opened = name
        #endif
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let n = block.withUnsafeMutableBytes { read(source, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw InputError(path: display, reason: "read failed at byte \(total): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            guard total + Int64(n) <= limit else {
                throw InputError(path: display, reason: display == "-" ? "standard input is larger than \(limit) bytes (the copy's limit); name the file instead"
                                 : "the stream is larger than \(limit) bytes (the copy's limit); write it to a file and name the file instead")
            }
            var written = 0
            while written < n {
                let w = block.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else {
                    throw InputError(path: display, reason: "cannot copy the stream to \(name) at byte \(total + Int64(written)): \(String(cString: strerror(errno)))")
                }
                written += w
            }
            total += Int64(n)
        }
        // The descriptor stays open for the run: on Linux it is the only way to the file.
        return StandardInputCopy(path: InputPath(bytes: Array(opened.utf8), display: display), size: total)
    }

    #if !os(Linux)
    private static func removeAtExit(_ name: String) {
        copies.append(name)
        if copies.count == 1 { atexit { StandardInputCopy.copies.forEach { unlink($0) } } }
    }

    nonisolated(unsafe) private static var copies: [String] = []
    #endif
}
