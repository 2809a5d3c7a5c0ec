/// The FIT protocol's CRC-16 (CRC-16/ARC: polynomial 0x8005 reflected, initial value 0), which a
/// FIT file carries over its 14-byte header and over the whole file.
///
/// Four bytes a step (slicing by four tables), since the reader folds every byte of a file.
package struct FITCRC: Sendable {
    /// The CRC of the bytes folded in so far.
    package private(set) var value: UInt16 = 0

    package init() {}

    /// Folds `bytes` into the CRC.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let table = FITCRC.tables
        var crc = value
        var i = 0
        let count = bytes.count
        while i + 4 <= count {
            let x = crc ^ (UInt16(base[i]) | UInt16(base[i + 1]) << 8)
            crc = table[768 + Int(x & 0xFF)] ^ table[512 + Int(x >> 8)] ^ table[256 + Int(base[i + 2])] ^ table[Int(base[i + 3])]
            i += 4
        }
        while i < count {
            crc = (crc >> 8) ^ table[Int((crc ^ UInt16(base[i])) & 0xFF)]
            i += 1
        }
        value = crc
    }

    /// Folds `bytes` into the CRC.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Four 256-entry tables end to end: table k gives the CRC effect of a byte followed by k
    /// zero bytes. Built once and never freed (1 KiB).
    nonisolated(unsafe) private static let tables: UnsafeMutablePointer<UInt16> = {
        let tables = UnsafeMutablePointer<UInt16>.allocate(capacity: 1024)
        for byte in 0..<256 {
            var crc = UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
            tables[byte] = crc
        }
        for k in 1..<4 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()
}
