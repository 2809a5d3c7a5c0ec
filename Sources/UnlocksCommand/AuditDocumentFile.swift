#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Unlocks

/// An audit document written to a file: the body goes to a scratch file in the target's folder
/// (unlinked at once, so nothing is left behind if the run dies) while the run goes on; `finish`
/// writes head, body and tail to a temporary file and renames it over the target.
final class AuditDocumentFile: AuditDocument {
    let path: String
    private var body: Int32

    init(path: String) throws {
        self.path = path
        let scratch = path + ".body-\(getpid())"
        body = open(scratch, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard body >= 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot create \(scratch): \(String(cString: strerror(errno)))") }
        unlink(scratch)
    }

    deinit {
        if body >= 0 { close(body) }
    }

    func append(_ bytes: [UInt8]) throws {
        try AtomicFile.writeAll(bytes, to: body, path: path)
    }

    func finish(head: [UInt8], tail: [UInt8]) throws {
        try AtomicFile.write(to: path) { fd in
            try AtomicFile.writeAll(head, to: fd, path: path)
            guard lseek(body, 0, SEEK_SET) == 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot rewind the scratch file: \(String(cString: strerror(errno)))") }
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(body, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot read the scratch file back: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                try AtomicFile.writeAll(Array(chunk[0..<n]), to: fd, path: path)
            }
            try AtomicFile.writeAll(tail, to: fd, path: path)
        }
        close(body)
        body = -1
    }
}
