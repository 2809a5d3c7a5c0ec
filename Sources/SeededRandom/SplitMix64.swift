/// A small seeded generator (SplitMix64, Steele, Lea and Flood 2014): the same seed gives the same
/// numbers on every machine, so sampled checks, generated inputs, fuzz mutants and test data
/// reproduce. The one copy, used by the build's agreement sampling, the fuzzer, the benchmarks and
/// the tests (not by any run-time module).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (`bound` > 0; the modulo bias is negligible for the bounds used).
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Uniform in [`low`, `high`), from the top 53 bits.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}
