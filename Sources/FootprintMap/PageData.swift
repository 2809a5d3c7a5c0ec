import CZlib
import Foundation

/// The bytes the page's script decodes (docs/footprint-format.md, "The page's data"): LEB128
/// varints, unsigned or zigzag-signed, appended in a fixed order the script reads back in the same
/// order. Coordinates are integers in a layer's quantum, each a delta from the one before.
struct PageDataWriter {
    private(set) var bytes: [UInt8] = []

    mutating func unsigned<T: BinaryInteger>(_ value: T) {
        var v = UInt64(value)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func signed<T: BinaryInteger>(_ value: T) {
        let v = Int64(value)
        unsigned(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    mutating func append(_ other: PageDataWriter) { bytes += other.bytes }
    mutating func append(_ raw: [UInt8]) { bytes += raw }
}

/// Raw deflate (RFC 1951) through the system zlib, at its best compression: the page's data is
/// inflated by the page's own script. Deterministic for one zlib build.
enum RawDeflate {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // windowBits −15: a raw stream, no zlib header or checksum (the script checks the length).
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            preconditionFailure("zlib refused its own parameters")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 64)
        var input = input
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        precondition(status == Z_STREAM_END, "deflate did not finish within its own bound")
        return Array(output.prefix(Int(stream.total_out)))
    }
}

/// Web Mercator (EPSG:3857) in world units 0…1 from the west and the north, as the page draws.
enum WebMercator {
    static let maximumLatitude = 85.05112878

    static func x(_ longitude: Double) -> Double { (longitude + 180) / 360 }

    static func y(_ latitude: Double) -> Double {
        let phi = min(maximumLatitude, max(-maximumLatitude, latitude)) * .pi / 180
        return 0.5 - log(tan(.pi / 4 + phi / 2)) / (2 * .pi)
    }

    /// A map's world width in pixels at `zoom` (256 px tiles).
    static func worldPixels(zoom: Double) -> Double { 256 * pow(2, zoom) }
}
