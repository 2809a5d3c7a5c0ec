// The one seeded generator, re-exported so a test importing the support has `SplitMix64`.
@_exported import SeededRandom
