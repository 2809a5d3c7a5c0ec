import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writes to a file descriptor (standard output by default), in constant memory.
final class BufferedOutput {
    private let descriptor: Int32
    private let storage: UnsafeMutableRawPointer
    private let capacity: Int
    private var count = 0
    /// Room kept free beyond `capacity` so one number or byte never needs a bounds check.
    private static let slack = 64

    init(descriptor: Int32 = 1, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = capacity
        storage = .allocate(byteCount: capacity + Self.slack, alignment: 16)
    }

    deinit {
        try? flush()
        storage.deallocate()
    }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    func write(_ raw: UnsafeRawBufferPointer) throws {
        var remaining = raw
        while !remaining.isEmpty {
            let n = min(remaining.count, capacity - count)
            if n > 0 {
                (storage + count).copyMemory(from: remaining.baseAddress!, byteCount: n)
                count += n
                remaining = UnsafeRawBufferPointer(rebasing: remaining[n...])
            }
            if count >= capacity { try flush() }
        }
    }

    func write(byte: UInt8) throws {
        storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        if count >= capacity { try flush() }
    }

    /// Appends `value` with exactly `decimals` (≤ 15) digits after the point, rounded half away
    /// from zero; no exponent, no locale. For |value| · 10^decimals < 9.2e18.
    func write(fixed value: Double, decimals: Int) throws {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        precondition(scaled < 9.2e18, "value too large for fixed formatting")
        var units = UInt64(scaled)
        if value < 0, units != 0 {
            storage.storeBytes(of: UInt8(ascii: "-"), toByteOffset: count, as: UInt8.self)
            count += 1
        }
        // Digits are produced right to left into a scratch area, then copied in order.
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let length = withUnsafeMutableBytes(of: &scratch) { digits -> Int in
            var position = digits.count
            var produced = 0
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") + UInt8(units % 10)
                units /= 10
                produced += 1
                if produced == decimals {
                    position -= 1
                    digits[position] = UInt8(ascii: ".")
                }
            } while units > 0 || produced <= decimals
            let length = digits.count - position
            (storage + count).copyMemory(from: digits.baseAddress! + position, byteCount: length)
            return length
        }
        count += length
        if count >= capacity { try flush() }
    }

    func flush() throws {
        var offset = 0
        while offset < count {
            let n = Glibc.write(descriptor, storage + offset, count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                count = 0
                throw OutputError(reason: "write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        count = 0
    }
}

/// Writing the output failed (disk full, closed pipe).
struct OutputError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "output: \(reason)" }
}

/// Prints `unlocks: message` on standard error, one line: control characters from the inputs
/// (a NUL would cut it, ESC drive the terminal) escaped.
func reportError(_ message: String) {
    writeToStandardError("unlocks: \(EscapedName.printable(message))\n")
}

/// Writes `text` to standard error at once, as C's unbuffered `stderr` does, but through file
/// descriptor 2 (`stderr` is a mutable C global, which Swift 6 does not let concurrent code read).
/// A failed write is ignored, as `fputs`'s is.
func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = write(2, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
