import Foundation
import Unlocks

/// Hands the audit's episodes to a second thread, which checks and writes them (`AuditReport.add`)
/// while the calling thread goes on reading and classifying. The queue between the two holds at
/// most `capacity` points (one larger episode at a time), so memory stays bounded whichever side
/// is slower. The first error the writer meets stops the writing; `failure` reports it.
final class EpisodePipeline {
    private let condition = NSCondition()
    private var queue: [AuditEpisode] = []
    private var head = 0
    private var queuedPoints = 0
    private var closed = false
    private var finished = false
    private var error: Error?
    private let capacity: Int
    private let write: (AuditEpisode) throws -> Void

    init(capacity: Int = 100_000, write: @escaping (AuditEpisode) throws -> Void) {
        self.capacity = capacity
        self.write = write
        let thread = Thread { [unowned self] in self.drain() }
        thread.name = "audit writer"
        thread.start()
    }

    /// The writer's first error, if any (checked between inputs, so a failing run stops early).
    var failure: Error? {
        condition.lock()
        defer { condition.unlock() }
        return error
    }

    /// Queues an episode, waiting while the queue is full.
    func send(_ episode: AuditEpisode) {
        condition.lock()
        defer { condition.unlock() }
        while error == nil, queuedPoints > 0, queuedPoints + episode.points.count > capacity { condition.wait() }
        guard error == nil else { return }
        queue.append(episode)
        queuedPoints += episode.points.count
        condition.broadcast()
    }

    /// Waits until every queued episode is written; rethrows the writer's error.
    func finish() throws {
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
            let episode = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            var failed: Error?
            do { try write(episode) } catch { failed = error }
            condition.lock()
            queuedPoints -= episode.points.count
            if let failed, error == nil { error = failed }
            condition.broadcast()
            condition.unlock()
        }
    }
}
