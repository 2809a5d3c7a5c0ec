import Foundation
import Intake

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One self-overwriting status line on standard error, shown only when it is a terminal. The
/// intake's workers report to it from their threads: its state is only touched under `lock`.
final class ProgressLine: @unchecked Sendable {
    let enabled: Bool
    private let lock = NSLock()
    private var lastUpdate = 0.0
    private let started: Double
    private var shown = false

    /// Shown when `enabled` (by default when standard error is a terminal).
    init(enabled: Bool = isatty(2) == 1) {
        self.enabled = enabled
        started = Self.now()
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Redraws at most five times a second: inputs done, points, rate, and an ETA from the bytes
    /// of the inputs done so far.
    func show(_ progress: IntakeProgress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Self.now()
        guard now - lastUpdate >= 0.2 else { return }
        lastUpdate = now
        let elapsed = max(now - started, 1e-3)
        var line = "inputs \(progress.inputsDone)/\(progress.inputsTotal)  \(progress.points) points  \(Self.rate(Double(progress.points) / elapsed)) points/s"
        if progress.bytesDone > 0, progress.bytesTotal > progress.bytesDone {
            let remaining = elapsed * Double(progress.bytesTotal - progress.bytesDone) / Double(progress.bytesDone)
            line += "  ETA \(Int(remaining) / 60):" + (Int(remaining) % 60 < 10 ? "0" : "") + "\(Int(remaining) % 60)"
        }
        writeToStandardError("\r\u{1B}[K" + line)
        shown = true
    }

    /// Clears the line before other output.
    func clear() {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        writeToStandardError("\r\u{1B}[K")
        shown = false
    }

    static func rate(_ value: Double) -> String {
        value >= 1e6 ? "\((value / 1e5).rounded() / 10) M" : value >= 1e3 ? "\((value / 100).rounded() / 10) k" : "\(Int(value))"
    }
}
