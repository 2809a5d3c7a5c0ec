import AdminUnlocks
import Dispatch
import Foundation

/// An `au_logbook`: a ``Logbook`` (the library's actor over one SQLite store) and the tables it
/// was opened over, kept alive with it. Every call goes through the actor, so calls from many
/// threads on one handle are taken one at a time, in the order they reach it.
final class LogbookHandle: @unchecked Sendable {
    let logbook: Logbook
    /// The tables the logbook's locator reads (their memory must outlive it).
    let tables: TablesHandle

    init(logbook: Logbook, tables: TablesHandle) {
        self.logbook = logbook
        self.tables = tables
    }

    static func from(_ pointer: OpaquePointer?) throws -> LogbookHandle {
        guard let pointer else { throw ArgumentError("logbook is NULL") }
        return Unmanaged<LogbookHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

/// Runs an async call of the library to its end and returns what it returned, blocking the
/// calling thread meanwhile: how the C ABI, whose callers (Python's threads) have no Swift
/// concurrency, calls the ``Logbook`` actor.
///
/// Why it is safe: the work runs in a detached task on Swift's global executor, and the caller
/// waits on a semaphore. The caller's thread is its own (a Python thread, a C program's), not one
/// of the few threads Swift's tasks share, so blocking it takes nothing the task needs; an import
/// reads its files on threads of its own (``Logbook/importSources(_:options:report:events:)``).
/// The one way to deadlock would be a caller that *is* one of those threads, blocking it while the
/// task waits for it: a call made from inside a Swift task is therefore refused (a Swift caller
/// awaits the actor directly). The semaphore orders the task's write of the result before the
/// caller's read of it, and the task lets go of the work (and the logbook it captured) before it
/// signals, so that `au_logbook_close` right after a call releases the last reference and the
/// store is closed then, its WAL checkpointed into the file, not whenever the task ends.
func awaitBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    guard !withUnsafeCurrentTask(body: { $0 != nil }) else {
        throw ArgumentError("a logbook call of the C ABI was made from a Swift task; from Swift, await the Logbook actor itself")
    }
    let call = BlockingCall(work)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await call.run()
        done.signal()
    }
    done.wait()
    return try call.result!.get()
}

/// ``awaitBlocking(_:)``'s work and its result: the work taken and released by the task, the
/// result written once by the task before it signals and read by the caller after the wait.
private final class BlockingCall<T: Sendable>: @unchecked Sendable {
    private var work: (@Sendable () async throws -> T)?
    var result: Result<T, any Error>?

    init(_ work: @escaping @Sendable () async throws -> T) { self.work = work }

    /// Runs the work; what it captured is released when this returns.
    func run() async {
        guard let job = work else { return }
        work = nil
        do { result = .success(try await job()) } catch { result = .failure(error) }
    }
}

/// Text handed to the caller through `char **text` (and its byte length through `size_t *length`
/// when not NULL), NUL-terminated, freed with `au_string_free`.
func handOver(_ bytes: [UInt8], to text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, length: UnsafeMutablePointer<Int>?) throws {
    guard let buffer = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { throw ArgumentError("out of memory for \(bytes.count) bytes of JSON") }
    if !bytes.isEmpty { bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) } }
    buffer[bytes.count] = 0
    text.pointee = buffer
    length?.pointee = bytes.count
}
