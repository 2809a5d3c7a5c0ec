/// The FIT file CRC-16 as the FIT SDK computes it (a nibble table), for the FIT files the
/// benchmarks write. Written here rather than taken from the reader: the reader's is internal to
/// the package, and the files it is timed on should not be made with its own code.
struct FITFileCRC {
    private(set) var value: UInt16 = 0
    private static let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                                          0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]

    /// Folds `bytes` into the CRC, low nibble first.
    mutating func update(_ bytes: [UInt8]) {
        for byte in bytes {
            for nibble in [byte & 0x0F, byte >> 4] {
                let low = Self.table[Int(value & 0x0F)]
                value = (value >> 4) & 0x0FFF
                value ^= low ^ Self.table[Int(nibble)]
            }
        }
    }
}
