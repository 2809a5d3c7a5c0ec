import RegionTables
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The track formats `classify` reads, and how it tells them apart.
enum TrackFormat: String {
    case gpx, csv, json, fit

    /// By the name's extension (after a `.gz`), or nil when the name says nothing.
    init?(name: String) {
        var lower = name.lowercased()
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        if lower.hasSuffix(".gpx") { self = .gpx }
        else if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") { self = .csv }
        else if lower.hasSuffix(".json") || lower.hasSuffix(".geojson") { self = .json }
        else if lower.hasSuffix(".fit") { self = .fit }
        else { return nil }
    }

    /// By a FIT file header, else by the first byte that is not white space or a byte-order mark.
    init(sniffing bytes: ArraySlice<UInt8>) {
        if FITReader.hasHeader(bytes) {
            self = .fit
            return
        }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        switch first {
        case UInt8(ascii: "<"): self = .gpx
        case UInt8(ascii: "{"), UInt8(ascii: "["): self = .json
        default: self = .csv
        }
    }
}

/// A source whose first bytes were read ahead (to recognise the format) and are replayed.
struct ReplayingSource<Base: ByteSource>: ByteSource {
    var prefix: [UInt8]
    var prefixOffset = 0
    var base: Base

    /// Reads up to `count` bytes ahead from `base`.
    init(_ base: Base, lookahead count: Int = 512) throws {
        var base = base
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try buffer.withUnsafeMutableBytes { try base.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if n == 0 { break }
            filled += n
        }
        self.base = base
        prefix = Array(buffer[0..<filled])
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if prefixOffset < prefix.count {
            let n = min(buffer.count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + prefixOffset, byteCount: n) }
            prefixOffset += n
            return n
        }
        return try base.read(into: buffer)
    }
}
