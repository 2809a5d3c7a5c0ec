import Foundation

/// A fixed set of threads that handle jobs and keep each result under the ticket its job was
/// given, so that the thread which sends them can take the results back in the order it sent
/// them, whichever worker finished first (`jobs` > 1). Unchecked `Sendable`: every field is
/// behind the condition's lock. The sender bounds how many jobs are
/// in flight (sent, result not yet taken); nothing here queues without limit.
final class OrderedWorkers<Job, Result>: @unchecked Sendable {
    private let condition = NSCondition()
    private var queued: [(ticket: Int, job: Job)] = []
    private var head = 0
    private var results: [Int: Result] = [:]
    private var nextTicket = 0
    private var closed = false
    private var running = 0
    private let work: @Sendable (Job) -> Result

    /// Starts `count` threads named `name` that handle jobs with `work`.
    init(name: String, count: Int, work: @escaping @Sendable (Job) -> Result) {
        self.work = work
        running = count
        for index in 0..<count {
            let thread = Thread { [self] in serve() }
            thread.name = "\(name) \(index + 1)"
            thread.start()
        }
    }

    /// Queues a job; its ticket takes the result back.
    func send(_ job: Job) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        queued.append((ticket, job))
        condition.broadcast()
        return ticket
    }

    /// True when the result of `ticket` is ready (`result(_:)` would not wait).
    func isReady(_ ticket: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return results[ticket] != nil
    }

    /// The result of `ticket` when it is ready within `seconds` (handed over once), else nil.
    func result(_ ticket: Int, waitingAtMost seconds: Double) -> Result? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while results[ticket] == nil {
            if !condition.wait(until: deadline) { break }
        }
        return results.removeValue(forKey: ticket)
    }

    /// Lets the threads end once the queued jobs are handled, and waits for them.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func serve() {
        condition.lock()
        while true {
            while head == queued.count, !closed { condition.wait() }
            guard head < queued.count else { break }
            let (ticket, job) = queued[head]
            head += 1
            if head * 2 >= queued.count {
                queued.removeFirst(head)
                head = 0
            }
            condition.unlock()
            let result = work(job)
            condition.lock()
            results[ticket] = result
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
