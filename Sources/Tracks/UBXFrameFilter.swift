#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// A byte source that hands out its base's bytes without the binary UBX frames u-blox receivers
/// write between their NMEA sentences (u-center's logs, gpsd's, a logger recording the serial
/// port): each frame — `B5 62`, class, id, a little-endian 16-bit payload length, the payload and
/// a two-byte Fletcher checksum (u-blox's interface description, "UBX frame structure") — is
/// skipped by its length, so a payload byte that happens to be `$`, a zero or a line end is never
/// read as text. Only the frame's line feeds are kept, so the lines after it keep their numbers in
/// the file.
///
/// A `B5 62` whose checksum does not match, or whose frame the data ends inside, is no frame:
/// its bytes are handed out as they are (the NMEA reader then finds no sentence in them).
struct UBXFrameFilter<Base: ByteSource>: ByteSource {
    private var base: Base
    /// Bytes read from the base and not yet handed out, from ``next``.
    private var held: [UInt8] = []
    private var next = 0
    private var ended = false
    /// Where the base's bytes are read into (one chunk, allocated once).
    private var scratch: [UInt8] = []
    /// Line feeds of skipped frames still to hand out.
    private var lineFeeds = 0
    private static var chunk: Int { 1 << 16 }

    init(_ base: Base) {
        self.base = base
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var written = 0
        while written < buffer.count {
            if lineFeeds > 0 {
                buffer[written] = 0x0A
                written += 1
                lineFeeds -= 1
                continue
            }
            if next == held.count {
                guard try more() else { break }
                continue
            }
            if held[next] == 0xB5 {
                if let frame = try frameLength() {
                    lineFeeds = held[next..<(next + frame)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                    next += frame
                } else {
                    buffer[written] = 0xB5
                    written += 1
                    next += 1
                }
                continue
            }
            // The run up to the next possible frame, at most what fits.
            let count = min(buffer.count - written, held.count - next)
            let run = held.withUnsafeBytes { bytes -> Int in
                let from = bytes.baseAddress! + next
                guard let hit = memchr(from, 0xB5, count) else { return count }
                return from.distance(to: UnsafeRawPointer(hit))
            }
            held.withUnsafeBytes { bytes in
                (buffer.baseAddress! + written).copyMemory(from: bytes.baseAddress! + next, byteCount: run)
            }
            written += run
            next += run
        }
        return written
    }

    /// The length of the UBX frame at ``next`` (header, payload and checksum), or nil when the
    /// bytes there are no whole frame with a matching checksum.
    private mutating func frameLength() throws -> Int? {
        guard try have(6), held[next + 1] == 0x62 else { return nil }
        let frame = 8 + (Int(held[next + 4]) | Int(held[next + 5]) << 8)
        guard try have(frame) else { return nil }
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in held[(next + 2)..<(next + frame - 2)] {
            a &+= byte
            b &+= a
        }
        return held[next + frame - 2] == a && held[next + frame - 1] == b ? frame : nil
    }

    /// Whether `count` bytes from ``next`` are held, reading more from the base as needed.
    private mutating func have(_ count: Int) throws -> Bool {
        while held.count - next < count {
            guard try more() else { return false }
        }
        return true
    }

    /// Reads another chunk from the base (dropping what was handed out); false at the end.
    private mutating func more() throws -> Bool {
        guard !ended else { return false }
        if next > 0 {
            held.removeSubrange(0..<next)
            next = 0
        }
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: Self.chunk) }
        let n = try scratch.withUnsafeMutableBytes { try base.read(into: $0) }
        held.append(contentsOf: scratch[0..<n])
        if n == 0 { ended = true }
        return n > 0
    }

    /// `bytes` without the UBX frames it holds whole (for recognising a file by its first bytes).
    static func removingFrames(_ bytes: [UInt8]) -> [UInt8] where Base == MemorySource {
        var filter = UBXFrameFilter(MemorySource(bytes))
        var out = [UInt8](repeating: 0, count: bytes.count)
        var count = 0
        while count < out.count {
            let n = (try? out.withUnsafeMutableBytes { try filter.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }) ?? 0
            if n == 0 { break }
            count += n
        }
        return Array(out[0..<count])
    }
}

