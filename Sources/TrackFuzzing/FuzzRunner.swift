import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `unlocks classify FILES… --format json` as a child process and checks what it did:
/// no crash (an exit status in ``allowedStatuses``, never a signal), no hang (killed after
/// ``timeLimit``), bounded memory (peak RSS from `wait4`'s rusage), and in the JSON report
/// `read = kept + dropped` for the totals and for each input.
public struct FuzzRunner: Sendable {
    public let executable: String
    public let tables: String
    /// Wall-clock seconds one file may take; a run of several gets this per file.
    public var timeLimit: Double
    public var memoryLimitBytes: Int
    /// 0 (read), 1 (an error before the report) and 3 (an input rejected or read in part).
    public var allowedStatuses: Set<Int32> = [0, 1, 3]
    /// The subcommand run over the files (`classify`; `merge` for state mutants).
    public var command = "classify"

    public init(executable: String, tables: String, timeLimit: Double = 20, memoryLimitBytes: Int = 300 << 20) {
        self.executable = executable
        self.tables = tables
        self.timeLimit = timeLimit
        self.memoryLimitBytes = memoryLimitBytes
    }

    /// What one run did.
    public struct Outcome: Sendable {
        public var status: Int32?
        public var signal: Int32?
        public var timedOut = false
        /// The child's peak resident memory, in bytes: on Linux its `VmHWM` (the high-water mark
        /// of its own memory since it started the executable), polled while it runs; and
        /// `wait4`'s `ru_maxrss` when that exceeds this process's own peak (below it, the figure
        /// is this process's peak inherited through the spawn, not the child's).
        public var peakResidentBytes = 0
        public var seconds = 0.0
        public var report = Data()
        public var standardError = ""
    }

    /// Runs ``command`` over `files` (in `directory`, which holds its output files).
    public func run(_ files: [String], in directory: String) -> Outcome {
        var outcome = Outcome()
        let stdoutPath = directory + "/stdout.json", stderrPath = directory + "/stderr.txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let arguments = [executable, command] + files + ["--format", "json", "--tables", tables]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let started = Date()
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            outcome.standardError = "cannot start \(executable)"
            outcome.status = -1
            return outcome
        }
        let deadline = started.addingTimeInterval(timeLimit * Double(max(files.count, 1)))
        var status: Int32 = 0
        var usage = rusage()
        var highWater = 0
        while true {
            #if os(Linux)
            highWater = max(highWater, Self.highWaterBytes(pid))
            #endif
            let result = wait4(pid, &status, WNOHANG, &usage)
            if result == pid { break }
            if result < 0, errno != EINTR { break }
            if Date() > deadline, !outcome.timedOut {
                outcome.timedOut = true
                kill(pid, SIGKILL)
                while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
                break
            }
            usleep(2_000)
        }
        outcome.seconds = Date().timeIntervalSince(started)
        // A spawned child's `ru_maxrss` starts from this process's own high-water mark (the
        // kernel carries the pre-exec peak over), so it says something about the child only
        // when it is above that mark; otherwise the polled `VmHWM` is all there is.
        let reported = Int(usage.ru_maxrss) * 1024
        var own = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &own)
        #else
        getrusage(RUSAGE_SELF, &own)
        #endif
        outcome.peakResidentBytes = reported > Int(own.ru_maxrss) * 1024 ? max(reported, highWater) : highWater
        if status & 0x7F == 0 { outcome.status = (status >> 8) & 0xFF } else { outcome.signal = status & 0x7F }
        outcome.report = FileManager.default.contents(atPath: stdoutPath) ?? Data()
        outcome.standardError = String(decoding: (FileManager.default.contents(atPath: stderrPath) ?? Data()).prefix(4000), as: UTF8.self)
        return outcome
    }

    #if os(Linux)
    /// `VmHWM` of a running process, bytes (0 when it cannot be read: the process has ended, or
    /// has not yet exec'd). Until its exec a child spawned by `posix_spawn` (a vfork) shares this
    /// process's memory and reads as this process's high-water mark: the test process, grown past
    /// the limit by the tests before, once had a fuzz group blamed for its 302 MB.
    static func highWaterBytes(_ pid: pid_t) -> Int {
        func executable(_ link: String) -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: link) }
        guard let child = executable("/proc/\(pid)/exe"), child != executable("/proc/self/exe"),
              let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) * 1024
    }
    #endif

    /// What is wrong with `outcome`, in words; empty when nothing is.
    public func problems(_ outcome: Outcome) -> [String] {
        var problems: [String] = []
        if outcome.timedOut { problems.append("hang: killed after \(String(format: "%.1f", outcome.seconds)) s") }
        else if let signal = outcome.signal { problems.append("crash: signal \(signal)") }
        else if let status = outcome.status, !allowedStatuses.contains(status) { problems.append("exit status \(status)") }
        if outcome.peakResidentBytes > memoryLimitBytes {
            problems.append("memory: peak RSS \(outcome.peakResidentBytes >> 20) MB over \(memoryLimitBytes >> 20) MB")
        }
        guard problems.isEmpty else { return problems }
        if outcome.report.isEmpty {
            if outcome.status != 1 { problems.append("no report on standard output (exit \(outcome.status ?? -1))") }
            return problems
        }
        return problems + Self.reportProblems(outcome.report)
    }

    /// `read = kept + dropped` for the totals and each input; the inputs (superseded readings
    /// apart) add up to the totals.
    public static func reportProblems(_ report: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: report) as? [String: Any] else { return ["the report is not a JSON object"] }
        guard let points = root["points"] as? [String: Any], let read = points["read"] as? Int, let kept = points["kept"] as? Int,
              let dropped = points["dropped"] as? [String: Int] else { return ["the report has no points.read, kept and dropped"] }
        var problems: [String] = []
        let droppedSum = dropped.values.reduce(0, +)
        if read != kept + droppedSum { problems.append("points: read \(read) ≠ kept \(kept) + dropped \(droppedSum)") }
        let files = (root["inputs"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        var readSum = 0, keptSum = 0
        // Skipped files carry no points (an empty file, a member that is no track).
        for file in files where file["status"] as? String != "skipped" {
            let name = file["path"] as? String ?? "?"
            guard let fileRead = file["pointsRead"] as? Int, let fileKept = file["pointsKept"] as? Int else {
                problems.append("\(name): no pointsRead and pointsKept")
                continue
            }
            // A superseded reading counts nothing in the totals.
            if file["status"] as? String != "superseded" {
                readSum += fileRead
                keptSum += fileKept
            }
            if fileKept > fileRead || fileKept < 0 { problems.append("\(name): kept \(fileKept) of \(fileRead) read") }
            if let fileDropped = file["dropped"] as? [String: Int], fileRead != fileKept + fileDropped.values.reduce(0, +) {
                problems.append("\(name): read \(fileRead) ≠ kept \(fileKept) + dropped \(fileDropped.values.reduce(0, +))")
            }
        }
        if readSum != read || keptSum != kept {
            problems.append("inputs add up to read \(readSum), kept \(keptSum); the totals say \(read), \(kept)")
        }
        return problems
    }
}
