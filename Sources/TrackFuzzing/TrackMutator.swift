import SeededRandom

/// One mutated input: its bytes, the name suffix it must keep, and what was done to it.
public struct Mutant: Sendable {
    public let index: Int
    public let seed: String
    public let suffix: String
    public let bytes: [UInt8]
    /// The mutations applied, in order, in words (for the failure report).
    public let operations: [String]
    /// Written as `mutant-…/Sync/NAME` (a Fog of World tile, whose name is its position).
    public var inFolder = false
}

/// Makes mutants of seed files: bit flips, truncation, insertion of random and of structural
/// bytes, huge numbers, deep nesting, odd line ends, non-UTF-8 bytes, repeated slices, integer
/// boundaries (0, 1, 2^31, 2^32, 2^63−1, 2^64−1) in the length, size, offset and count fields of
/// the containers and binary formats (``IntegerFields``), and gzip around the result. Mutant `index` of campaign `seed` depends on nothing else, so a failure
/// reproduces from its two numbers.
public enum TrackMutator {
    /// Bytes that mean something in one of the formats read.
    static let structural: [[UInt8]] = [
        "{", "}", "[", "]", "\"", ":", ",", ";", "\t", "\n", "\r", "\r\n", "<", ">", "/>", "</", "<trkpt lat=\"", "\" lon=\"", "</trkpt>",
        "<trkseg>", "<![CDATA[", "]]>", "<!--", "-->", "&", "&#x", "<!DOCTYPE gpx [<!ENTITY a \"b\">]>", "\\", "\\u", "\\ud800",
        "null", "true", "-", ".", "e", "E+", "Z", "T", "+08:00", "N", "S", "W", "°", "geo:", "\"latitudeE7\":", "\"timestampMs\":",
        "\"timelinePath\":[", "\"point\":\"", "\"coordinates\":[[", "\"timelineObjects\":[{\"activitySegment\":{\"simplifiedRawPath\":{\"points\":[",
        "lat,lon,time\n", "$GPRMC,", "*", ".FIT", "PK\u{3}\u{4}", "\u{1F}\u{8B}\u{8}",
    ].map { Array($0.utf8) }
    static let hugeNumbers: [[UInt8]] = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616", "1e400", "-1e400", "1e-400",
        "99999999999999999999999999999", "4294967296", "2147483648", "-0", "0.0000000000000000000000001", "NaN", "Infinity",
        "170141183460469231731687303715884105727", "253402300800000", "1e16", "100000000000",
    ].map { Array($0.utf8) }
    static let lineEnds: [[UInt8]] = ["\r", "\r\n", "\n\r", "\u{85}", "\u{2028}", "\u{2029}", "", "\n\n\n"].map { Array($0.utf8) }
    static let invalidUTF8: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xC2], [0x85], [0x00], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x80], [0xFE, 0xFF], [0xEF, 0xBB, 0xBF]]

    public static func mutant(of seed: FuzzSeed, index: Int, campaignSeed: UInt64) throws -> Mutant {
        var random = SplitMix64(seed: campaignSeed &* 0x2545_F491_4F6C_DD1D &+ UInt64(index))
        var bytes = seed.bytes
        var operations: [String] = []
        for _ in 0..<(1 + random.below(3)) {
            operations.append(mutate(&bytes, &random))
        }
        if seed.fogOfWorld, random.below(3) == 0 {
            operations.append(IntegerFields.mutate(&bytes, fields: IntegerFields.fogOfWorldFields(in: bytes), &random))
        }
        var suffix = seed.suffix
        if seed.fogOfWorld {
            bytes = Zlib.compress(bytes)
            if random.below(4) == 0 {
                operations.append("zlib, then " + mutate(&bytes, &random))
            } else {
                operations.append("zlib")
            }
        } else if seed.gzipped {
            if random.below(4) == 0 {
                // Damage the compressed stream itself.
                bytes = try Gzip.compress(bytes)
                operations.append("gzip, then " + mutate(&bytes, &random))
            } else {
                bytes = try Gzip.compress(bytes)
                operations.append("gzip")
            }
        } else if random.below(10) == 0, !suffix.hasSuffix(".zip") {
            bytes = try Gzip.compress(bytes)
            suffix += ".gz"
            operations.append("gzip")
        }
        return Mutant(index: index, seed: seed.path, suffix: suffix, bytes: bytes, operations: operations, inFolder: seed.fogOfWorld)
    }

    /// One mutation of `bytes`, described.
    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
        let position = bytes.isEmpty ? 0 : random.below(bytes.count + 1)
        switch random.below(11) {
        case 10:
            return IntegerFields.mutate(&bytes, fields: IntegerFields.fields(in: bytes), &random)
        case 0:
            guard !bytes.isEmpty else { return "nothing (empty)" }
            let flips = 1 + random.below(8)
            for _ in 0..<flips { bytes[random.below(bytes.count)] ^= UInt8(1) << UInt8(random.below(8)) }
            return "\(flips) bit flips"
        case 1:
            bytes.removeSubrange(position...)
            return "truncated at \(position)"
        case 2:
            let count = 1 + random.below(64)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
            return "\(count) random bytes at \(position)"
        case 3:
            let token = structural[random.below(structural.count)]
            let repeats = 1 + random.below(4)
            for _ in 0..<repeats { bytes.insert(contentsOf: token, at: position) }
            return "structural '\(String(decoding: token, as: UTF8.self))' ×\(repeats) at \(position)"
        case 4:
            return hugeNumber(&bytes, &random)
        case 5:
            let openers: [[UInt8]] = [Array("[".utf8), Array("{\"a\":".utf8), Array("<a>".utf8), Array("<trkseg>".utf8), Array("{\"timelinePath\":[".utf8)]
            let opener = openers[random.below(openers.count)]
            let depth = [100, 600, 5_000, 60_000][random.below(4)]
            var nested = [UInt8]()
            nested.reserveCapacity(opener.count * depth)
            for _ in 0..<depth { nested.append(contentsOf: opener) }
            bytes.insert(contentsOf: nested, at: position)
            return "nesting '\(String(decoding: opener, as: UTF8.self))' ×\(depth) at \(position)"
        case 6:
            let end = lineEnds[random.below(lineEnds.count)]
            let all = random.below(2) == 0
            var result = [UInt8]()
            result.reserveCapacity(bytes.count)
            var replaced = 0
            for byte in bytes {
                if byte == 0x0A, all || random.below(8) == 0 {
                    result.append(contentsOf: end)
                    replaced += 1
                } else if byte != 0x0D || !all {
                    result.append(byte)
                }
            }
            bytes = result
            return "\(replaced) line ends → \(end.map { String($0, radix: 16) })"
        case 7:
            let invalid = invalidUTF8[random.below(invalidUTF8.count)]
            bytes.insert(contentsOf: invalid, at: position)
            return "bytes \(invalid.map { String($0, radix: 16) }) at \(position)"
        case 8:
            guard !bytes.isEmpty else { return "nothing (empty)" }
            let start = random.below(bytes.count)
            let length = min(bytes.count - start, 1 + random.below(256))
            let slice = Array(bytes[start..<(start + length)])
            let repeats = 1 + random.below(50)
            for _ in 0..<repeats { bytes.insert(contentsOf: slice, at: position) }
            return "slice \(start)+\(length) ×\(repeats) at \(position)"
        default:
            guard !bytes.isEmpty else { return "nothing (empty)" }
            let start = random.below(bytes.count)
            let length = min(bytes.count - start, random.below(512))
            bytes.removeSubrange(start..<(start + length))
            return "removed \(start)+\(length)"
        }
    }

    /// Replaces a run of digits (the n-th from a random start) with a huge or odd number.
    static func hugeNumber(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
        let number = hugeNumbers[random.below(hugeNumbers.count)]
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        var start = bytes.isEmpty ? 0 : random.below(bytes.count)
        while start < bytes.count, !isDigit(bytes[start]) { start += 1 }
        guard start < bytes.count else {
            bytes.append(contentsOf: number)
            return "number \(String(decoding: number, as: UTF8.self)) appended"
        }
        var end = start
        while end < bytes.count, isDigit(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        while start > 0, isDigit(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: "-") { start -= 1 }
        bytes.replaceSubrange(start..<end, with: number)
        return "number at \(start) → \(String(decoding: number, as: UTF8.self))"
    }
}
