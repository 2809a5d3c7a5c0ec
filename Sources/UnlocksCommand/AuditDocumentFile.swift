#if canImport(Glibc)
import Intake
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BorderAudit
import Unlocks

/// An audit document written to a file: the body goes to `FILE.body-PID` beside the target while
/// the run goes on. A document whose head went first (written as body) is finished in place: the
/// tail appended, flushed to disk and renamed over the target. One whose head comes last is
/// written whole to a temporary file (head, the body copied, tail) that is renamed over the
/// target. Either way the target is the old file or the complete new one; `discard` removes the
/// body file of a run that failed.
final class AuditDocumentFile: AuditDocument {
    let path: String
    private let bodyPath: String
    private var body: Int32

    /// What the body file's name adds to the target's: `.body-PID` (a killed run's is removed by
    /// the next audit writing the same target, as ``AtomicFile/removeStaleTemporaries(of:marker:)``).
    static let bodyMarker = ".body-"

    init(path: String) throws {
        self.path = path
        AtomicFile.removeStaleTemporaries(of: path, marker: Self.bodyMarker)
        bodyPath = path + Self.bodyMarker + "\(getpid())"
        body = open(bodyPath, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard body >= 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot create \(bodyPath): \(String(cString: strerror(errno)))") }
    }

    func append(_ bytes: [UInt8]) throws {
        try AtomicFile.writeAll(bytes, to: body, path: path)
    }

    func finish(head: [UInt8], tail: [UInt8]) throws {
        if head.isEmpty {
            try AtomicFile.writeAll(tail, to: body, path: path)
            guard fsync(body) == 0, close(body) == 0 else {
                body = -1
                throw AtomicFile.WriteError(path: path, reason: "cannot flush to disk: \(String(cString: strerror(errno)))")
            }
            body = -1
            guard rename(bodyPath, path) == 0 else {
                throw AtomicFile.WriteError(path: path, reason: "cannot rename into place: \(String(cString: strerror(errno)))")
            }
            return
        }
        try AtomicFile.write(to: path) { fd in
            try AtomicFile.writeAll(head, to: fd, path: path)
            guard lseek(body, 0, SEEK_SET) == 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot rewind \(bodyPath): \(String(cString: strerror(errno)))") }
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(body, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot read \(bodyPath) back: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                try AtomicFile.writeAll(Array(chunk[0..<n]), to: fd, path: path)
            }
            try AtomicFile.writeAll(tail, to: fd, path: path)
        }
        discard()
    }

    /// Closes and removes the body file (after a failure, or once copied).
    func discard() {
        if body >= 0 { close(body) }
        body = -1
        unlink(bodyPath)
    }
}
