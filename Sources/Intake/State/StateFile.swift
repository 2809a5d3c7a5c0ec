#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Unlocks

/// The `--state` file on disk: read only when it is a regular file whose header is a state of
/// this version, and updated under a lock so concurrent runs never lose each other's inputs.
public enum StateFile {
    /// An exclusive advisory lock (`flock`) on `STATE.lock` beside the state (beside a link's
    /// target, which is what is replaced: ``AtomicFile/target(of:)``), held from before the
    /// state is read until after it is replaced (the state itself cannot carry the lock: it is
    /// replaced by rename, and a second run would lock the new file while the first still holds
    /// the old one). Released when the value is dropped or the process ends, however it ends, so
    /// a killed run never leaves the state locked. A run that finds the lock taken says so
    /// (`waiting`, the CLI's note on standard error) and waits: the other run is making progress,
    /// and failing would only make the user run again. A path that holds something other than a
    /// state is refused before the lock file is made, so a wrong `--state` leaves nothing beside it.
    public final class Lock {
        public let path: String
        private var descriptor: Int32

        public init(statePath: String, waiting: (String) -> Void) throws {
            try StateFile.refuseNonState(statePath)
            path = try AtomicFile.target(of: statePath) + ".lock"
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw StateError(path: path, reason: "cannot create the state's lock file: \(String(cString: strerror(errno)))")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return }
            guard errno == EWOULDBLOCK else { throw failure("cannot lock") }
            waiting("note: \(statePath) is being updated by another run; waiting for it to finish")
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else { throw failure("cannot lock") }
            }
        }

        private func failure(_ what: String) -> StateError {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            descriptor = -1
            return StateError(path: path, reason: "\(what): \(reason)")
        }

        deinit {
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Throws when something is at `path` but it is not a state of this version: not a regular
    /// file, or a header that is not a state's (only the first 8 bytes are read).
    static func refuseNonState(_ path: String) throws {
        do {
            guard let file = try RegularFile(path: path, kind: "a state is a file written by 'unlocks classify --state'") else { return }
            if let problem = LedgerState.headerProblem(try file.head(8)) { throw StateError(path: path, reason: problem) }
        } catch let problem as RegularFile.Problem {
            throw StateError(path: path, reason: problem.reason)
        }
    }

    /// The state's bytes, or nil when there is no file at `path`. Refused before anything is read
    /// whole: a path that is not a regular file (a device such as /dev/zero, a named pipe, a
    /// folder; opened without blocking, so a pipe never hangs the run), a header that is not a
    /// state of this version, or a JSON length beyond the file's size.
    public static func read(_ path: String) throws -> [UInt8]? {
        do {
            guard let file = try RegularFile(path: path, kind: "a state is a file written by 'unlocks classify --state'") else { return nil }
            let size = file.size
            try file.fill(to: 16)
            if let problem = LedgerState.headerProblem(Array(file.bytes.prefix(8))) { throw StateError(path: path, reason: problem) }
            guard size >= 16 + 8 else { throw StateError(path: path, reason: "truncated: \(size) bytes") }
            let jsonLength = file.bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            guard jsonLength <= UInt64(size - 24) else {
                throw StateError(path: path, reason: "header gives \(jsonLength) bytes of JSON, beyond the file's \(size) bytes")
            }
            try file.fill(to: size)
            return file.bytes
        } catch let problem as RegularFile.Problem {
            throw StateError(path: path, reason: problem.reason)
        }
    }
}
