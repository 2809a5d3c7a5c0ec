import Foundation
import XCTest

/// Runs the built `unlocks` executable as a user would: arguments and standard input in; exit
/// status, standard output, standard error and the child's peak memory out.
public struct CommandRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// The child's peak resident set size (VmHWM), in bytes: the highest of its reads every
        /// 20 ms while the child runs and once all input was written, before end of input. (wait4's
        /// ru_maxrss is no use here: after a vfork-style spawn it includes the parent's own peak.)
        public let peakResidentBytes: Int
    }

    /// The `unlocks` under test: `ADMINUNLOCKS_TEST_EXECUTABLE` when set (the full `Scripts/test`
    /// runs the release build, the binary users install, which it builds anyway for the table
    /// rebuild), else the one built beside the test bundle.
    public static let executable: String = {
        if let path = ProcessInfo.processInfo.environment["ADMINUNLOCKS_TEST_EXECUTABLE"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else { fatalError("ADMINUNLOCKS_TEST_EXECUTABLE=\(path) is not an executable") }
            return path
        }
        // The test bundle sits next to the products it was built with (.build/<config>/).
        var directory = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("unlocks")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        fatalError("cannot find the unlocks executable near \(Bundle.main.bundleURL.path)")
    }()

    /// The clock every run is given unless a test names its own: days and streaks follow the
    /// system's zone (`TZ`), and the suite's expectations were written for Asia/Shanghai's
    /// (+08:00), so it is set explicitly rather than taken from the machine running the tests.
    public static let testZone = "Asia/Shanghai"

    /// Runs `unlocks arguments…`, writing `input` `inputRepeats` times to its standard input from
    /// another thread (so inputs far larger than a pipe buffer work).
    /// With `timeout` (seconds), a child still running then is killed (status 128 + SIGKILL).
    /// `environment` is added to (and overrides) the test process's; `TZ` is ``testZone`` unless given.
    public static func run(_ arguments: [String], input: Data = Data(), inputRepeats: Int = 1, timeout: Double? = nil,
                           environment: [String: String] = [:]) throws -> Result {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let settings = ProcessInfo.processInfo.environment.merging(["TZ": testZone].merging(environment) { $1 }) { $1 }
        let envp = settings.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }

        let collected = Collected()
        if let timeout {
            let child = pid, deadline = Date(timeIntervalSinceNow: timeout)
            // A thread of its own: the global queue's threads may all be blocked reading the pipes
            // below (two of them on a two-core machine), and a timer there fired only once the
            // child had ended by itself. Killed only while unreaped: the pid is its own then.
            Thread { while collected.killIfDue(child, at: deadline) { usleep(2_000) } }.start()
        }
        let inputDescriptor = inPipe[1]
        let childPID = pid
        // posix_spawn returns once the child has exec'd: what /proc says of it is its own.
        let poller = Thread {
            while collected.raisePeak({ Self.peakResidentBytes(of: childPID) }) { usleep(20_000) }
        }
        poller.start()
        let writer = Thread {
            let handle = FileHandle(fileDescriptor: inputDescriptor, closeOnDealloc: true)
            for _ in 0..<inputRepeats { try? handle.write(contentsOf: input) }
            collected.setPeak(Self.peakResidentBytes(of: childPID))
            try? handle.close()
            collected.writerDone.signal()
        }
        writer.start()
        let group = DispatchGroup()
        for (fd, isOut) in [(outPipe[0], true), (errPipe[0], false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        group.wait()
        collected.writerDone.wait()
        var status: Int32 = 0
        while true {
            // Waits without reaping, so the timeout's kill cannot reach a recycled pid.
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0 || errno != EINTR { break }
        }
        collected.markFinished()
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitStatus, stdout: String(decoding: collected.out, as: UTF8.self),
                      stderr: String(decoding: collected.err, as: UTF8.self),
                      peakResidentBytes: collected.peak)
    }

    /// VmHWM of a running process, from /proc (0 when unavailable).
    public static func peakResidentBytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var out = Data(), err = Data(), peak = 0
        let writerDone = DispatchSemaphore(value: 0)
        private var finished = false
        func markFinished() {
            lock.lock(); defer { lock.unlock() }
            finished = true
        }
        /// Kills `child` once `deadline` has passed, unless it has finished; true while there is
        /// still something to wait for.
        func killIfDue(_ child: pid_t, at deadline: Date) -> Bool {
            lock.lock(); defer { lock.unlock() }
            guard !finished else { return false }
            guard Date() >= deadline else { return true }
            kill(child, SIGKILL)
            return false
        }
        func setPeak(_ bytes: Int) {
            lock.lock(); defer { lock.unlock() }
            peak = max(peak, bytes)
        }
        /// Raises the peak to `read()` while the child is unreaped (its pid is its own); false once it is finished.
        func raisePeak(_ read: () -> Int) -> Bool {
            lock.lock(); defer { lock.unlock() }
            guard !finished else { return false }
            peak = max(peak, read())
            return true
        }
        func set(_ data: Data, isOut: Bool) {
            lock.lock(); defer { lock.unlock() }
            if isOut { out = data } else { err = data }
        }
    }
}
