#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// The GPX reader's fast path, an extension of the one tokenizer: the plain forms nearly every
/// point is written in (an unprefixed `<trkpt lat="…" lon="…">`, `<ele>`, `<time>` and `<hdop>`
/// children with nothing but white space between them, `</trkpt>`) read straight from the
/// buffer, numbers where they start (Clinger's fast path), times of the layout
/// `YYYY-MM-DDThh:mm:ss[.sss]Z` by position.
///
/// Each method reads one such piece completely or changes nothing and returns nil; what it read
/// leaves the tokenizer as `next()` would have (the point pushed as an open element, the
/// position after the piece), so `next()` reads on from the first byte that differs and every
/// rule of the general path holds unchanged.
extension XMLTokenizer {
    /// One child of a point read by the fast path, or the point's end tag.
    enum GPXPointChild {
        case elevation(Double)
        case time(Int64)
        case hdop(Double)
        /// `</trkpt>` (or `</rtept>`): the element is popped, and the white space after it skipped.
        case end
    }

    // The hot loop stays in this module: calls into `TextFormats` are not inlined across the
    // module boundary, so the few tokenizer steps the fast path takes are written out here on the
    // tokenizer's package state (measured: calling them cost 40% of the GPX reader's time).

    /// ``settledAtMarkup()``, inlined: a pending end tag's pop done, and a `<` next inside the root.
    @inline(__always)
    mutating func gpxSettledAtMarkup() -> Bool {
        if pendingEnd { return false }
        if pendingPop { gpxPop() }
        return depth > 0 && position < end && buffer[position] == UInt8(ascii: "<")
    }

    /// ``popElement()``, inlined.
    @inline(__always)
    private mutating func gpxPop() {
        pendingPop = false
        depth -= 1
        namesCount = depth > 0 ? nameEnds[depth - 1] : 0
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Whether the buffer holds `word` at `start` (before `end`).
    @inline(__always)
    private func holds(_ word: StaticString, at start: Int) -> Bool {
        let count = word.utf8CodeUnitCount
        guard start + count <= end else { return false }
        let expected = word.utf8Start
        for k in 0..<count where buffer[start + k] != expected[k] { return false }
        return true
    }

    /// How far ``simpleGPXPointStart()`` looks for the end of a tag before leaving it to `next()`.
    private static var simpleTagLimit: Int { 1024 }

    /// `<trkpt …>` or `<rtept …>` at the position (no prefix, not self-closing) whose `lat` and
    /// `lon` attributes are both present and hold just a number; other attributes are skipped, as
    /// `next()` does. The element is pushed and its start marked (``markedLocation()``).
    mutating func simpleGPXPointStart() -> (latitude: Double, longitude: Double)? {
        let start = position
        let limit = min(end, start + Self.simpleTagLimit)
        guard depth < 256, start + 7 <= limit,  // XMLTokenizer.maximumDepth
              holds("trkpt", at: start + 1) || holds("rtept", at: start + 1)
        else { return nil }
        var latitude: Double?, longitude: Double?
        var i = start + 6
        var attributes = 0
        while true {
            // More attributes than the tokenizer keeps are left to it, so both read the same ones.
            guard i < limit, attributes <= 32 else { return nil }  // XMLTokenizer.maximumAttributes
            if buffer[i] == UInt8(ascii: ">") { break }
            // White space, then `name="value"` (or `'value'`) or the tag's end.
            guard Self.isSpace(buffer[i]) else { return nil }
            repeat { i += 1 } while i < limit && Self.isSpace(buffer[i])
            guard i < limit else { return nil }
            if buffer[i] == UInt8(ascii: ">") { break }
            let nameStart = i
            guard classes[Int(buffer[i])] & 1 != 0, buffer[i] > UInt8(ascii: "9") || buffer[i] == UInt8(ascii: ":") else { return nil }  // a name's first byte
            while i < limit, classes[Int(buffer[i])] & 1 != 0 { i += 1 }  // name bytes
            guard i + 1 < limit, buffer[i] == UInt8(ascii: "="),
                  buffer[i + 1] == UInt8(ascii: "\"") || buffer[i + 1] == UInt8(ascii: "'") else { return nil }
            let isLat = i - nameStart == 3 && holds("lat", at: nameStart)
            let isLon = i - nameStart == 3 && holds("lon", at: nameStart)
            let quote = buffer[i + 1]
            i += 2
            attributes += 1
            if isLat || isLon {
                // The number, then the closing quote right after it.
                guard let number = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(start: buffer + i, count: limit - i)),
                      i + number.length < limit, buffer[i + number.length] == quote else { return nil }
                if isLat { latitude = number.value } else { longitude = number.value }
                i += number.length
            } else {
                while i < limit, buffer[i] != quote {
                    guard buffer[i] != UInt8(ascii: "<") else { return nil }
                    i += 1
                }
                guard i < limit else { return nil }
            }
            i += 1
        }
        guard let latitude, let longitude else { return nil }
        markOffset = start  // mark(at:)
        (names + namesCount).update(from: buffer + start + 1, count: 5)  // pushElement
        namesCount += 5
        nameEnds[depth] = namesCount
        depth += 1
        position = i + 1
        return (latitude, longitude)
    }

    /// After white space, `<ele>`, `<time>` or `<hdop>` with its value (at most 128 bytes, no
    /// markup) and its end tag, when the value parses as it is, or the open point's end tag.
    /// A value that parses holds only digits, signs and the letters of a number or time, so the
    /// general path would find no fault in its text and take it unchanged.
    mutating func simpleGPXPointChild(times: inout TimestampStream) -> GPXPointChild? {
        guard depth < 256 else { return nil }  // XMLTokenizer.maximumDepth
        var start = position
        while start < end, Self.isSpace(buffer[start]) { start += 1 }
        guard start + 1 < end, buffer[start] == UInt8(ascii: "<") else { return nil }
        if buffer[start + 1] == UInt8(ascii: "/") {
            guard let next = simplePointEnd(at: start) else { return nil }
            // And the white space after it, which `next()` would pass over (no value is read).
            var i = next
            while i < end, Self.isSpace(buffer[i]) { i += 1 }
            position = i
            return .end
        }
        let which: UInt8, nameLength: Int
        switch buffer[start + 1] {
        case UInt8(ascii: "e") where holds("ele>", at: start + 1):
            which = 0
            nameLength = 3
        case UInt8(ascii: "t") where holds("time>", at: start + 1):
            which = 1
            nameLength = 4
        case UInt8(ascii: "h") where holds("hdop>", at: start + 1):
            which = 2
            nameLength = 4
        default:
            return nil
        }
        let valueStart = start + nameLength + 2
        let available = min(end - valueStart, 128 + 1)
        guard available > 0 else { return nil }
        // The value ends at the first '<': after the number, or found for a time.
        var number = 0.0
        let valueEnd: Int
        if which == 1 {
            // The first '<': where a time in the fixed layout (20 or 24 bytes) ends, else found.
            if available > 20, buffer[valueStart + 20] == UInt8(ascii: "<"), !Self.contains(UInt8(ascii: "<"), buffer + valueStart, 20) {
                valueEnd = valueStart + 20
            } else if available > 24, buffer[valueStart + 24] == UInt8(ascii: "<"), !Self.contains(UInt8(ascii: "<"), buffer + valueStart, 24) {
                valueEnd = valueStart + 24
            } else {
                guard let hit = memchr(buffer + valueStart, Int32(UInt8(ascii: "<")), available) else { return nil }
                valueEnd = UnsafeMutablePointer<UInt8>(OpaquePointer(hit)) - buffer
            }
        } else {
            guard let parsed = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(start: buffer + valueStart, count: available)) else { return nil }
            number = parsed.value
            valueEnd = valueStart + parsed.length
        }
        let tagEnd = valueEnd + nameLength + 3
        guard valueEnd > valueStart, tagEnd <= end, buffer[valueEnd] == UInt8(ascii: "<"), buffer[valueEnd + 1] == UInt8(ascii: "/") else { return nil }
        // The name and '>' (4 or 5 bytes, all before `tagEnd`), four at a time.
        let closing = UnsafeRawPointer(buffer + valueEnd + 2), opening = UnsafeRawPointer(buffer + start + 1)
        guard closing.loadUnaligned(as: UInt32.self) == opening.loadUnaligned(as: UInt32.self),
              nameLength == 3 || buffer[valueEnd + 6] == buffer[start + 5] else { return nil }
        let child: GPXPointChild
        switch which {
        case 1:
            guard let parsed = times.parse(UnsafeRawBufferPointer(start: buffer + valueStart, count: valueEnd - valueStart)) else { return nil }
            child = .time(parsed)
        case 0:
            child = .elevation(number)
        default:
            guard number >= 0 else { return nil }
            child = .hdop(number)
        }
        position = tagEnd
        return child
    }

    /// The end tag of the open point, `</name>` exactly, at `start`: pops it; the offset after it.
    private mutating func simplePointEnd(at start: Int) -> Int? {
        let top = depth - 1
        let openStart = top > 0 ? nameEnds[top - 1] : 0
        let length = nameEnds[top] - openStart
        guard start + length + 3 <= end, buffer[start + length + 2] == UInt8(ascii: ">") else { return nil }
        guard Self.equalBytes(names + openStart, buffer + start + 2, length) else { return nil }
        gpxPop()
        return start + length + 3
    }

    /// Whether `byte` is among the `count` (20 or 24) bytes at `p`, eight at a time: a word has
    /// it when the word xor `byte` in every lane has a zero byte (exact, borrows only move which
    /// lane shows it).
    @inline(__always)
    private static func contains(_ byte: UInt8, _ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let lanes: UInt64 = 0x0101_0101_0101_0101, pattern = lanes &* UInt64(byte)
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- lanes) & ~v & 0x8080_8080_8080_8080 != 0 }
        let raw = UnsafeRawPointer(p)
        var k = 0
        while k + 8 <= count {
            if hasZeroByte(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ pattern) { return true }
            k += 8
        }
        if k < count, hasZeroByte(UInt64(raw.loadUnaligned(fromByteOffset: k, as: UInt32.self)) ^ pattern | 0xFFFF_FFFF_0000_0000) { return true }
        return false
    }

    /// Whether the `count` bytes at `a` and at `b` are the same, compared four at a time.
    @inline(__always)
    private static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var k = 0
        while k + 4 <= count {
            if UnsafeRawPointer(a + k).loadUnaligned(as: UInt32.self) != UnsafeRawPointer(b + k).loadUnaligned(as: UInt32.self) { return false }
            k += 4
        }
        while k < count {
            if a[k] != b[k] { return false }
            k += 1
        }
        return true
    }
}
