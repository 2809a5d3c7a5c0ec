#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock timing with the monotonic clock.
enum Stopwatch {
    /// Seconds on `clock`: the wall clock (monotonic), or `CLOCK_THREAD_CPUTIME_ID` for this
    /// thread's CPU time (which other load on a shared machine does not inflate).
    static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// The fastest of `repeats` runs, in seconds on `clock`: the least disturbed by a shared,
    /// noisy machine.
    static func best(of repeats: Int, clock: clockid_t = CLOCK_MONOTONIC, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<repeats {
            let start = now(clock)
            try body()
            best = min(best, now(clock) - start)
        }
        return best
    }
}

func millions(_ perSecond: Double) -> String { fixed(perSecond / 1e6, 2) }
func ratio(_ value: Double) -> String { fixed(value, 2) }
func scientific(_ value: Double) -> String {
    guard value > 0 else { return "0" }
    let exponent = Int(floor(log10(value)))
    return "\(fixed(value / pow(10, Double(exponent)), 1))e\(exponent)"
}
func fixed(_ value: Double, _ decimals: Int) -> String {
    let scale = pow(10, Double(decimals))
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return text
}
