import RegionTables
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The track formats `classify` reads, and how it tells them apart.
enum TrackFormat: String {
    case gpx, csv, json, fit, tcx, kml, kmz, nmea

    /// By the name's extension (after a `.gz`), or nil when the name says nothing.
    init?(name: String) {
        var lower = name.lowercased()
        if lower.hasSuffix(".kmz") { self = .kmz; return }
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        if lower.hasSuffix(".gpx") { self = .gpx }
        else if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") { self = .csv }
        else if lower.hasSuffix(".json") || lower.hasSuffix(".geojson") { self = .json }
        else if lower.hasSuffix(".fit") { self = .fit }
        else if lower.hasSuffix(".tcx") { self = .tcx }
        else if lower.hasSuffix(".kml") { self = .kml }
        else if lower.hasSuffix(".nmea") || lower.hasSuffix(".nma") || lower.hasSuffix(".nme") { self = .nmea }
        else { return nil }
    }

    /// Names whose content decides: `.txt` (CSV or NMEA) and `.log` (NMEA or not a track).
    static func readsByContent(_ name: String) -> Bool {
        var lower = name.lowercased()
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        return lower.hasSuffix(".txt") || lower.hasSuffix(".log")
    }

    /// The format of a stream named `name` that begins with `bytes`: the name's, except that a
    /// `.txt` or `.log` beginning with an NMEA sentence is NMEA; by the content when the name
    /// says nothing and the file was named on the command line. Nil for a file found in a
    /// folder or archive whose name and content say it is no track (a `.log` that is not NMEA).
    init?(name: String, content bytes: ArraySlice<UInt8>, explicit: Bool) {
        let sniffed = TrackFormat(sniffing: bytes)
        if Self.readsByContent(name) {
            if sniffed == .nmea { self = .nmea; return }
            if let named = TrackFormat(name: name) { self = named; return }
            guard explicit else { return nil }
            self = sniffed
        } else if let named = TrackFormat(name: name) {
            self = named
        } else {
            guard explicit else { return nil }
            self = sniffed
        }
    }

    /// By the content: a FIT file header FIT; for `<`, the root element's name
    /// (`TrainingCenterDatabase` TCX, `kml` KML, anything else GPX); `{` or `[` JSON; an NMEA
    /// sentence in the first lines NMEA; else CSV.
    init(sniffing bytes: ArraySlice<UInt8>) {
        if FITReader.hasHeader(bytes) {
            self = .fit
            return
        }
        let start = bytes.firstIndex { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } ?? bytes.endIndex
        let first = start < bytes.endIndex ? bytes[start] : nil
        switch first {
        case UInt8(ascii: "<"):
            switch Self.rootElement(bytes[start...]) {
            case "TrainingCenterDatabase": self = .tcx
            case "kml": self = .kml
            default: self = .gpx
            }
        case UInt8(ascii: "{"), UInt8(ascii: "["): self = .json
        case _ where Self.beginsWithNMEA(bytes[start...]): self = .nmea
        default: self = .csv
        }
    }

    /// True when one of the first 5 lines is an NMEA sentence (`$`, a talker and a sentence
    /// type in capitals, a comma): loggers may write a line of their own first (`Start log …`).
    private static func beginsWithNMEA(_ bytes: ArraySlice<UInt8>) -> Bool {
        for line in bytes.split(separator: 0x0A, maxSplits: 5, omittingEmptySubsequences: true).prefix(5) {
            let text = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            guard text.count >= 7, text.first == UInt8(ascii: "$") else { continue }
            let address = text.dropFirst().prefix(5)
            if address.allSatisfy({ ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }),
               text[text.startIndex + 6] == UInt8(ascii: ",") {
                return true
            }
        }
        return false
    }

    /// The local name of the first element in `bytes`, past declarations, comments and a
    /// DOCTYPE; nil when it is not within them.
    private static func rootElement(_ bytes: ArraySlice<UInt8>) -> String? {
        var i = bytes.startIndex
        func skip(past terminator: [UInt8]) -> Bool {
            while i + terminator.count <= bytes.endIndex {
                if Array(bytes[i..<(i + terminator.count)]) == terminator { i += terminator.count; return true }
                i += 1
            }
            return false
        }
        while i < bytes.endIndex {
            let byte = bytes[i]
            if [0x20, 0x09, 0x0A, 0x0D].contains(byte) { i += 1; continue }
            guard byte == UInt8(ascii: "<"), i + 1 < bytes.endIndex else { return nil }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "?") {
                guard skip(past: Array("?>".utf8)) else { return nil }
            } else if next == UInt8(ascii: "!") {
                let comment = i + 4 <= bytes.endIndex && Array(bytes[i..<(i + 4)]) == Array("<!--".utf8)
                guard skip(past: comment ? Array("-->".utf8) : [UInt8(ascii: ">")]) else { return nil }
            } else {
                let nameStart = i + 1
                var nameEnd = nameStart
                while nameEnd < bytes.endIndex, !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[nameEnd])) { nameEnd += 1 }
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                return name.split(separator: ":").last.map(String.init)
            }
        }
        return nil
    }
}

/// A source whose first bytes were read ahead (to recognise the format) and are replayed.
struct ReplayingSource<Base: ByteSource>: ByteSource {
    var prefix: [UInt8]
    var prefixOffset = 0
    var base: Base

    /// Reads up to `count` bytes ahead from `base`.
    init(_ base: Base, lookahead count: Int = 4096) throws {
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
