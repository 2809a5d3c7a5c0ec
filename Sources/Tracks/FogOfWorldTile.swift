import Foundation
import TextFormats

/// Reads one tile of Fog of World's (世界迷雾) sync data: the explored pixels of one of the
/// 512 × 512 Web Mercator tiles that cover the world, each tile 128 × 128 blocks of 64 × 64
/// pixels (so the world is 2²² pixels across, zoom 22: a pixel is 9.55 m × cos φ on a side).
///
/// A tile file (in the app's `Sync/` folder) is named after its number `id = y × 512 + x`: four
/// hexadecimal characters, the decimal digits of `id` each written as a letter of `olhwjsktri`
/// (0–9), and the last two digits again as letters of `eizxdwknmo`; the name is the only place
/// the tile's position is written. Its content, once zlib-inflated (the intake does that), is a
/// header of 128 × 128 little-endian `UInt16` (block `i` = row `i / 128`, column `i % 128`; 0 for
/// no block, else the block's number from 1) and the blocks, 515 bytes each: a 64 × 64 bitmap in
/// rows of 8 bytes (bit `7 − x % 8` of byte `y × 8 + x / 8`) and 3 bytes holding the region code
/// Fog of World gave the block and `2 × (set bits) + 1` in the last 14 bits.
///
/// Each set pixel is delivered as an untimed point at the pixel's centre, after
/// ``TrackAnnotation/exploredArea`` (docs/input-formats.md, "Fog of World"). A block whose
/// count does not match its bitmap is damaged: one unreadable record, none of its pixels.
public enum FogOfWorldTile {
    public static let tilesPerSide = 512
    public static let blocksPerSide = 128
    public static let pixelsPerBlockSide = 64
    static let headerBytes = blocksPerSide * blocksPerSide * 2
    static let blockBytes = 64 * 64 / 8 + 3
    /// The largest inflated tile: the header and every block present.
    public static let maximumInflatedBytes = headerBytes + blocksPerSide * blocksPerSide * blockBytes
    static let digitLetters = Array("olhwjsktri".utf8)
    static let checkLetters = Array("eizxdwknmo".utf8)

    /// The tile (x from the antimeridian eastwards, y from the north) that a file's name
    /// (without folders) gives, or nil when it is no tile name.
    public static func tile(named name: String) -> (x: Int, y: Int)? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 7, bytes.count <= 4 + 6 + 2 else { return nil }
        guard bytes[0..<4].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        var digits: [Int] = []
        for byte in bytes[4..<(bytes.count - 2)] {
            guard let digit = digitLetters.firstIndex(of: byte) else { return nil }
            digits.append(digit)
        }
        guard digits.count >= 1, digits.first != 0 || digits.count == 1 else { return nil }
        let id = digits.reduce(0) { $0 * 10 + $1 }
        guard id < tilesPerSide * tilesPerSide else { return nil }
        // The check letters are the id's last two digits (one, for ids below 10, as a one-digit
        // string's last two).
        let lastTwo = digits.suffix(2)
        guard lastTwo.count == 2, bytes[bytes.count - 2] == checkLetters[lastTwo.first!], bytes[bytes.count - 1] == checkLetters[lastTwo.last!] else {
            return nil
        }
        return (id % tilesPerSide, id / tilesPerSide)
    }

    /// The centre of pixel (`x`, `y`) of the world's 2²² × 2²² grid, in degrees (Web Mercator).
    public static func centre(x: Int, y: Int) -> (latitude: Double, longitude: Double) {
        let size = Double(1 << 22)
        let longitude = (Double(x) + 0.5) / size * 360 - 180
        let latitude = atan(sinh(Double.pi * (1 - 2 * (Double(y) + 0.5) / size))) * 180 / .pi
        return (latitude, longitude)
    }

    /// What one tile held.
    public struct Summary: Equatable, Sendable {
        public var blocks = 0
        public var pixels = 0
        public var damagedBlocks = 0
        public init() {}
    }

    /// Pixels any tile may hold whatever its size (16 whole blocks), and past them, pixels per
    /// byte of the tile's file. Recorded tiles hold 1.5–3 pixels per compressed byte (lines
    /// between fixes compress poorly); a crafted tile of whole blocks holds thousands per byte.
    public static let freePixels = 16 * 64 * 64
    public static let maximumPixelsPerFileByte = 200

    /// Reads an inflated tile (`data`, from a file of `fileBytes` bytes) at tile (`x`, `y`) into
    /// `sink`; `path` names it in errors. The header is checked whole before any pixel is
    /// delivered: a tile cut short, a block number beyond the data or named twice (Fog of World
    /// writes each block once), or more pixels than its file's size allows
    /// (``maximumPixelsPerFileByte``) is refused, and nothing of it is read.
    @discardableResult
    public static func read<Sink: TrackSink>(_ data: [UInt8], fileBytes: Int, tileX: Int, tileY: Int, path: String, into sink: inout Sink) throws -> Summary {
        guard data.count >= headerBytes else {
            throw InputError(path: path, reason: "Fog of World tile: \(data.count) bytes inflated, shorter than its \(headerBytes)-byte header", kind: .truncated)
        }
        guard data.count <= maximumInflatedBytes else {
            throw InputError(path: path, reason: "Fog of World tile: \(data.count) bytes inflated, more than a whole tile (\(maximumInflatedBytes))")
        }
        let blockCount = (data.count - headerBytes) / blockBytes
        // The header: each slot's block, each block in one slot.
        var slotOfBlock = [Int32](repeating: -1, count: blockCount)
        var slots: [(index: Int, start: Int)] = []
        for index in 0..<(blocksPerSide * blocksPerSide) {
            let number = Int(data[2 * index]) | Int(data[2 * index + 1]) << 8
            guard number != 0 else { continue }
            guard number <= blockCount else {
                throw InputError(path: path, reason: "Fog of World tile: block \(number) at header byte \(2 * index) is beyond the \(blockCount) blocks the tile holds")
            }
            let first = slotOfBlock[number - 1]
            guard first < 0 else {
                throw InputError(path: path, reason: "Fog of World tile: block \(number) is named at header bytes \(2 * Int(first)) and \(2 * index); "
                                 + "Fog of World writes each block once")
            }
            slotOfBlock[number - 1] = Int32(index)
            slots.append((index, headerBytes + (number - 1) * blockBytes))
        }
        // The pixels, counted before any is delivered, against the file's size.
        var pixels = 0
        for slot in slots { pixels += data[slot.start..<(slot.start + 512)].reduce(0) { $0 + $1.nonzeroBitCount } }
        let allowed = freePixels + maximumPixelsPerFileByte * fileBytes
        guard pixels <= allowed else {
            throw InputError(path: path, reason: "Fog of World tile: \(pixels) pixels from a \(fileBytes)-byte file, more than \(allowed) "
                             + "(\(maximumPixelsPerFileByte) a byte past \(freePixels)): no recorded tile is so dense", kind: .decompressionBomb)
        }
        var summary = Summary()
        sink.annotate(.exploredArea)
        for (index, start) in slots {
            let bitmap = data[start..<(start + 512)]
            let set = bitmap.reduce(0) { $0 + $1.nonzeroBitCount }
            let stored = (Int(data[start + 513]) << 8 | Int(data[start + 514])) & 0x3FFF
            summary.blocks += 1
            guard stored == 2 * set + 1 else {
                summary.damagedBlocks += 1
                sink.unreadablePoint(InputError(path: path, reason: "Fog of World tile: block at byte \(start) (inflated) has \(set) pixels, its count says \((stored - 1) / 2)"))
                continue
            }
            sink.segmentBreak()
            let originX = (tileX * blocksPerSide + index % blocksPerSide) * pixelsPerBlockSide
            let originY = (tileY * blocksPerSide + index / blocksPerSide) * pixelsPerBlockSide
            for row in 0..<64 {
                for column in 0..<64 where data[start + row * 8 + column / 8] & (0x80 >> (column % 8)) != 0 {
                    let position = centre(x: originX + column, y: originY + row)
                    sink.point(TrackPoint(latitude: position.latitude, longitude: position.longitude))
                    summary.pixels += 1
                }
            }
        }
        return summary
    }
}
