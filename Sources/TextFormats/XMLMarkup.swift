#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte-level pieces of XML that the GPX reader and ``XMLScanner`` share: finding words,
/// the encoding a declaration names, and where a `<!DOCTYPE …>` ends. Both readers keep their
/// own loops (GPX has fast paths of its own); what the markup means is decided once, here.
package enum XMLMarkup {
    /// True when `buffer[start..<end]` begins with `word` (ASCII; `caseInsensitive` folds letters).
    @inlinable @inline(__always)
    package static func hasPrefix(_ word: StaticString, in buffer: UnsafePointer<UInt8>, at start: Int, end: Int, caseInsensitive: Bool = false) -> Bool {
        let count = word.utf8CodeUnitCount
        guard start + count <= end else { return false }
        let expected = word.utf8Start
        for k in 0..<count {
            let byte = buffer[start + k]
            if byte != expected[k] && !(caseInsensitive && byte | 0x20 == expected[k]) { return false }
        }
        return true
    }

    /// The offset of `word` in `buffer[from..<limit]`, or nil.
    package static func find(_ word: StaticString, in buffer: UnsafePointer<UInt8>, from: Int, limit: Int) -> Int? {
        let first = Int32(word.utf8Start[0])
        var i = from
        while i + word.utf8CodeUnitCount <= limit {
            guard let hit = memchr(buffer + i, first, limit - i) else { return nil }
            let offset = UnsafePointer<UInt8>(OpaquePointer(hit)) - buffer
            if offset + word.utf8CodeUnitCount > limit { return nil }
            if hasPrefix(word, in: buffer, at: offset, end: limit) { return offset }
            i = offset + 1
        }
        return nil
    }

    /// For the declaration `<?xml … ?>` at `start` (its `?>` at `close`): the encoding it names
    /// when that is one this reader does not read (UTF-16, UTF-32, UCS), lowercased; else nil.
    package static func unreadEncoding(in buffer: UnsafePointer<UInt8>, start: Int, close: Int) -> String? {
        guard hasPrefix("<?xml", in: buffer, at: start, end: close), start + 5 < close, isSpace(buffer[start + 5]),
              let key = find("encoding", in: buffer, from: start + 5, limit: close) else { return nil }
        var i = key + 8
        while i < close, isSpace(buffer[i]) || buffer[i] == UInt8(ascii: "=") { i += 1 }
        guard i < close, buffer[i] == UInt8(ascii: "\"") || buffer[i] == UInt8(ascii: "'") else { return nil }
        let quote = buffer[i]
        var j = i + 1
        while j < close, buffer[j] != quote { j += 1 }
        let encoding = String(decoding: UnsafeBufferPointer(start: buffer + i + 1, count: j - i - 1), as: UTF8.self).lowercased()
        return encoding.hasPrefix("utf-16") || encoding.hasPrefix("utf-32") || encoding.hasPrefix("ucs") ? encoding : nil
    }

    /// How a `<!DOCTYPE …>` at `start` ends.
    package enum Doctype: Equatable {
        /// Its `>` is not in the buffer yet.
        case incomplete
        /// It ends before this offset, and declares no entity.
        case ends(Int)
        /// Its internal subset declares an entity here: refused, so no entity is ever expanded
        /// (billion laughs, external entities).
        case declaresEntity(at: Int)
    }

    /// Scans the `<!DOCTYPE` at `start` (quoted strings and an internal subset included).
    package static func doctype(in buffer: UnsafePointer<UInt8>, at start: Int, end: Int) -> Doctype {
        var i = start + 9
        var quote: UInt8 = 0
        var inSubset = false
        while i < end {
            let byte = buffer[i]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if inSubset {
                if byte == UInt8(ascii: "]") {
                    inSubset = false
                } else if byte == UInt8(ascii: "<"), hasPrefix("<!ENTITY", in: buffer, at: i, end: end) {
                    return .declaresEntity(at: i)
                }
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: ">") {
                return .ends(i + 1)
            }
            i += 1
        }
        return .incomplete
    }

    /// XML white space.
    @inlinable @inline(__always)
    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// A byte that can start a name (ASCII letters, `_`, `:`, and any byte of a multi-byte character).
    @inlinable @inline(__always)
    package static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
    }
}
