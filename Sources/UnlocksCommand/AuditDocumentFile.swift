import Intake

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BorderAudit
import Unlocks

/// An audit document written into its set's staging folder (``OutputFileSet``): the body goes
/// to `NAME.body` while the run goes on. A document whose head went first (written as body) is
/// finished in place: the tail appended, flushed to disk and renamed `NAME`. One whose head comes
/// last is written whole to `NAME` (head, the body copied, tail), and the body removed. Both
/// files are created new in a folder this run made (``OutputFileSet/create(_:readable:)``):
/// nothing there is followed. `discard` removes the body file of a run that failed.
final class AuditDocumentFile: AuditDocument {
    let name: String
    private let outputs: OutputFileSet
    private var body: Int32

    /// What the body file's name adds to the document's: `.body`.
    static let bodySuffix = ".body"

    init(in set: OutputFileSet, name: String) throws {
        self.outputs = set
        self.name = name
        body = try set.create(name + Self.bodySuffix, readable: true)
    }

    private var path: String { outputs.stagedPath(name) }

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
            try outputs.rename(name + Self.bodySuffix, to: name)
            return
        }
        let fd = try outputs.create(name)
        defer { close(fd) }
        try AtomicFile.writeAll(head, to: fd, path: path)
        guard lseek(body, 0, SEEK_SET) == 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot rewind its body: \(String(cString: strerror(errno)))") }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(body, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot read its body back: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            try AtomicFile.writeAll(Array(chunk[0..<n]), to: fd, path: path)
        }
        try AtomicFile.writeAll(tail, to: fd, path: path)
        guard fsync(fd) == 0 else { throw AtomicFile.WriteError(path: path, reason: "cannot flush to disk: \(String(cString: strerror(errno)))") }
        discard()
    }

    /// Closes and removes the body file (after a failure, or once copied).
    func discard() {
        if body >= 0 { close(body) }
        body = -1
        outputs.remove(name + Self.bodySuffix)
    }
}
