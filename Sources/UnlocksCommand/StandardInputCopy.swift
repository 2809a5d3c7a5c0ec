import Foundation
import Intake
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input as an input of `classify -` and `audit -`: copied to a temporary file first,
/// because an input is known by a hash of its whole content before it is read (so `--state`
/// skips what it has seen) and a zip is read from its central directory at the end. The copy
/// goes to disk, never to memory, in 1 MiB blocks.
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

    static func make() throws -> StandardInputCopy {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/unlocks-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let name = String(cString: template)
        guard fd >= 0 else {
            throw InputError(path: "-", reason: "cannot copy standard input: cannot create a file in \(folder): \(String(cString: strerror(errno))) (set TMPDIR)")
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
            let n = block.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw InputError(path: "-", reason: "read failed at byte \(total): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            guard total + Int64(n) <= limit else { throw InputError(path: "-", reason: "standard input is larger than \(limit) bytes (the copy's limit); name the file instead") }
            var written = 0
            while written < n {
                let w = block.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else {
                    throw InputError(path: "-", reason: "cannot copy standard input to \(name) at byte \(total + Int64(written)): \(String(cString: strerror(errno)))")
                }
                written += w
            }
            total += Int64(n)
        }
        // The descriptor stays open for the run: on Linux it is the only way to the file.
        return StandardInputCopy(path: InputPath(bytes: Array(opened.utf8), display: "-"), size: total)
    }

    #if !os(Linux)
    private static func removeAtExit(_ name: String) {
        copies.append(name)
        if copies.count == 1 { atexit { StandardInputCopy.copies.forEach { unlink($0) } } }
    }

    nonisolated(unsafe) private static var copies: [String] = []
    #endif
}
