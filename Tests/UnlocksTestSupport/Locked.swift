import Foundation

/// A value that several threads share (the workers of `DispatchQueue.concurrentPerform`, a
/// watchdog's thread and the test waiting on it): every access goes through `withLock`.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` on the value with the lock held.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value as it is now.
    public var current: Value { withLock { $0 } }
}
