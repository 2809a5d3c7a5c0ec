import Foundation

/// A second thread that handles items in the order they are sent, so that a stage of a pipeline
/// (auditing points, writing episodes) runs beside the thread that feeds it. The queue holds
/// items of at most `capacity` in total `weight` (one heavier item at a time), so memory stays
/// bounded whichever side is slower. The first error `handle` throws stops the handling;
/// `failure` reports it and `finish` rethrows it. Unchecked `Sendable`: every field is behind the
/// condition's lock, and items pass from the sender to the one thread that handles them.
package final class WorkerQueue<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var head = 0
    private var queuedWeight = 0
    private var closed = false
    private var finished = false
    private var error: Error?
    private let capacity: Int
    private let weight: @Sendable (Item) -> Int
    private let handle: @Sendable (Item) throws -> Void

    package init(name: String, capacity: Int, weight: @escaping @Sendable (Item) -> Int = { _ in 1 }, handle: @escaping @Sendable (Item) throws -> Void) {
        self.capacity = capacity
        self.weight = weight
        self.handle = handle
        let thread = Thread { [self] in drain() }
        thread.name = name
        thread.start()
    }

    /// The first error `handle` threw, if any.
    package var failure: Error? {
        condition.lock()
        defer { condition.unlock() }
        return error
    }

    /// Queues an item, waiting while the queue is full; dropped once handling has failed.
    package func send(_ item: Item) {
        let w = weight(item)
        condition.lock()
        defer { condition.unlock() }
        while error == nil, queuedWeight > 0, queuedWeight + w > capacity { condition.wait() }
        guard error == nil else { return }
        queue.append(item)
        queuedWeight += w
        condition.broadcast()
    }

    /// Waits until every queued item is handled and the thread has ended; rethrows the first error.
    package func finish() throws {
        condition.lock()
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        if let error { throw error }
    }

    private func drain() {
        while true {
            condition.lock()
            while head == queue.count, !closed { condition.wait() }
            if head == queue.count {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let item = queue[head]
            head += 1
            // Drop the handled items once they are half the array (the queue may never run dry).
            if head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            let failedBefore = error != nil
            condition.unlock()
            var failed: Error?
            if !failedBefore {
                do { try handle(item) } catch { failed = error }
            }
            condition.lock()
            queuedWeight -= weight(item)
            if let failed, error == nil { error = failed }
            condition.broadcast()
            condition.unlock()
        }
    }
}
