#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one streaming XML pull tokenizer every XML track reader builds on (GPX, TCX, KML), in
/// constant memory: one buffer of ``maximumTokenLength`` + ``readSize`` bytes and small fixed
/// tables, whatever the size of the document.
///
/// `next()` returns one token at a time: a start tag (its qualified name, prefix and local name,
/// and attributes), an end tag (also after a self-closing tag), or a piece of text (references
/// decoded, CDATA literal; one element's text may come in several pieces of at most
/// ``readSize`` bytes). Comments, processing instructions and the XML declaration are skipped.
/// It checks structure (tags nest and match, attributes are quoted and separated, no control
/// bytes in text) but does not validate, and it stops with an ``XMLError`` naming the line and
/// byte offset on: a root element other than the expected one, text outside the root, UTF-16/32
/// input, a truncated document, a DOCTYPE that declares entities (entities are never expanded;
/// the five predefined ones and character references are decoded), nesting deeper than
/// ``maximumDepth``, a tag, comment, CDATA section or DOCTYPE longer than ``maximumTokenLength``,
/// and names longer than ``maximumNameLength``.
///
/// White space before the first markup is accepted (Strava writes TCX files with spaces before
/// `<?xml`). An unknown entity reference in text or an attribute becomes a zero byte, which no
/// number or time parses, so the value it spoils is reported, not guessed.
///
/// Readers with fast paths (GPX) read plain markup straight from ``buffer`` in extensions of
/// their own, keeping ``position``, ``depth`` and the open names as `next()` would have left them
/// (``settledAtMarkup()``, ``pushElement(nameAt:count:)``, ``popElement()``).
package struct XMLTokenizer {
    package enum Token: Equatable {
        case startTag
        case endTag
        case text
    }

    /// The longest single piece of markup accepted, in bytes.
    @inlinable @inline(__always)
    package static var maximumTokenLength: Int { 1 << 20 }
    /// The deepest element nesting accepted (real GPX is 5 or 6 deep; extensions a few more).
    @inlinable @inline(__always)
    package static var maximumDepth: Int { 256 }
    /// The longest element or attribute name accepted, in bytes.
    @inlinable @inline(__always)
    package static var maximumNameLength: Int { 256 }
    /// Bytes asked of the source per read; also the most text handed out in one piece.
    @inlinable @inline(__always)
    package static var readSize: Int { 1 << 16 }
    /// Attributes of a start tag kept for ``attribute(_:)`` (further ones are checked, not kept).
    @inlinable @inline(__always)
    package static var maximumAttributes: Int { 32 }

    // Byte classes, a table lookup in the scanning loops.
    @inlinable @inline(__always)
    package static var nameByte: UInt8 { 1 }
    @inlinable @inline(__always)
    package static var spaceByte: UInt8 { 2 }
    @inlinable @inline(__always)
    package static var textStop: UInt8 { 4 }

    /// The format's name in messages (`TCX`).
    package let format: String
    /// The local name the root element must have (`TrainingCenterDatabase`).
    package let root: String

    package private(set) var finished = false
    /// Open elements, counting the current start tag's (root = 1) and, for an end tag, the
    /// element it closes; for text, the element the text is in.
    package var depth = 0

    private let capacity: Int
    package let buffer: UnsafeMutablePointer<UInt8>
    package var position = 0
    package var end = 0
    var atEnd = false
    private var started = false
    /// Input bytes moved out of the buffer before offset 0 (for byte offsets in errors).
    package private(set) var consumed = 0

    private var lineCursor = 0
    private var lineAtCursor = 1
    /// A buffer offset whose line a reader may ask for later (``mark(at:)``), resolved before
    /// the buffer moves; -1 when none.
    package var markOffset = -1
    private var markedLineNumber = 0
    private var markAbsolute = 0

    /// The open elements' qualified names, end to end, and where each ends.
    package let names: UnsafeMutablePointer<UInt8>
    package let nameEnds: UnsafeMutablePointer<Int>
    package var namesCount = 0
    var rootSeen = false
    /// A self-closing tag was returned as a start tag; its end tag comes next.
    package var pendingEnd = false
    /// An end tag was returned; the element is popped when the next token is asked for.
    package var pendingPop = false

    // The current token's name (in `names`) and, for a start tag, its attributes (in `buffer`).
    private var tokenName = 0..<0
    /// Where the local name (after any prefix) starts in `names`.
    private var tokenLocal = 0
    /// The current start tag's first ``maximumAttributes`` attributes: name and value ranges in `buffer`.
    let attributeRanges: UnsafeMutablePointer<(name: Range<Int>, value: Range<Int>)>
    var attributeCount = 0
    /// ``nameByte``, ``spaceByte`` and ``textStop`` by byte value.
    package let classes: UnsafeMutablePointer<UInt8>

    // The current text piece: in the buffer, or decoded into `decoded`.
    private var textStart: UnsafePointer<UInt8>
    private var textCount = 0
    private let decoded: UnsafeMutablePointer<UInt8>
    /// Where the current token starts in the buffer.
    private(set) var tokenStart = 0

    package init(format: String, root: String) {
        self.format = format
        self.root = root
        capacity = Self.maximumTokenLength + Self.readSize
        buffer = .allocate(capacity: capacity)
        decoded = .allocate(capacity: Self.readSize)
        textStart = UnsafePointer(decoded)
        names = .allocate(capacity: Self.maximumDepth * Self.maximumNameLength)
        nameEnds = .allocate(capacity: Self.maximumDepth)
        attributeRanges = .allocate(capacity: Self.maximumAttributes)
        classes = .allocate(capacity: 256)
        for byte in 0...255 {
            let b = UInt8(byte)
            var bits: UInt8 = 0
            if XMLMarkup.isNameStart(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") {
                bits |= Self.nameByte
            }
            if XMLMarkup.isSpace(b) { bits |= Self.spaceByte }
            if b == UInt8(ascii: "<") || (b < 0x20 && !XMLMarkup.isSpace(b)) { bits |= Self.textStop }
            classes[byte] = bits
        }
    }

    /// Frees the buffers (a struct cannot free them by itself).
    package func deallocate() {
        buffer.deallocate()
        decoded.deallocate()
        names.deallocate()
        nameEnds.deallocate()
        attributeRanges.deallocate()
        classes.deallocate()
    }

    // MARK: Input

    /// Moves the unconsumed tail to the front and returns the space to read into.
    package mutating func inputSpace() throws -> UnsafeMutableRawBufferPointer {
        if position > 0 {
            if markOffset >= 0 {
                markedLineNumber = line(at: markOffset)
                markAbsolute = consumed + markOffset
                markOffset = -2  // resolved
            }
            _ = line(at: position)
            let pending = end - position
            if pending > 0 { memmove(buffer, buffer + position, pending) }
            lineCursor = 0
            consumed += position
            end = pending
            position = 0
        }
        if end > Self.maximumTokenLength { throw tooLong(at: 0) }
        return UnsafeMutableRawBufferPointer(start: buffer + end, count: min(capacity - end, Self.readSize))
    }

    package mutating func received(_ count: Int) {
        if count == 0 { atEnd = true } else { end += count }
    }

    // MARK: The current token

    /// The current tag's qualified name (`gx:Track`).
    package var name: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: names + tokenName.lowerBound, count: tokenName.count)
    }

    /// The current tag's local name (`Track` of `gx:Track`).
    package var localName: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: names + tokenLocal, count: tokenName.upperBound - tokenLocal)
    }

    /// True when the current tag's local name is `local`, whatever its prefix.
    @inline(__always)
    package func hasLocalName(_ local: StaticString) -> Bool {
        let count = local.utf8CodeUnitCount
        return tokenName.upperBound - tokenLocal == count && memcmp(names + tokenLocal, local.utf8Start, count) == 0
    }

    /// The decoded value of the current start tag's attribute whose local name is `local`.
    package func attribute(_ local: StaticString) -> String? {
        for index in 0..<attributeCount {
            let range = attributeRanges[index].name
            let all = UnsafeRawBufferPointer(start: buffer + range.lowerBound, count: range.count)
            let start = all.lastIndex(of: UInt8(ascii: ":")).map { $0 + 1 } ?? 0
            guard Self.same(UnsafeRawBufferPointer(rebasing: all[start...]), local) else { continue }
            let value = attributeRanges[index].value
            var bytes: [UInt8] = []
            Self.decode(UnsafeRawBufferPointer(start: buffer + value.lowerBound, count: value.count)) { bytes.append($0) }
            return String(decoding: bytes, as: UTF8.self)
        }
        return nil
    }

    /// The raw (undecoded) value of the current start tag's attribute named exactly `name`
    /// (prefix included; the last when repeated), valid until the next call to `next`.
    package func rawAttribute(exactly name: StaticString) -> UnsafeRawBufferPointer? {
        var found: UnsafeRawBufferPointer?
        for index in 0..<attributeCount {
            let range = attributeRanges[index].name
            guard Self.same(UnsafeRawBufferPointer(start: buffer + range.lowerBound, count: range.count), name) else { continue }
            let value = attributeRanges[index].value
            found = UnsafeRawBufferPointer(start: buffer + value.lowerBound, count: value.count)
        }
        return found
    }

    /// The current text piece, references decoded. Valid until the next call to `next`.
    package var text: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: textStart, count: textCount) }

    /// Where the current token starts: its 1-based line and its byte offset in the input.
    package mutating func location() -> XMLLocation {
        XMLLocation(line: line(at: tokenStart), offset: consumed + tokenStart)
    }

    /// Remembers where the current token starts, for ``markedLocation()`` after later reads.
    package mutating func markToken() { mark(at: tokenStart) }

    /// Remembers buffer offset `offset`, for ``markedLocation()`` after later reads; its line is
    /// counted only if asked for, or when the buffer moves.
    @inlinable @inline(__always)
    package mutating func mark(at offset: Int) {
        markOffset = offset
    }

    /// The line and byte offset of the last mark.
    package mutating func markedLocation() -> XMLLocation {
        if markOffset >= 0 { return XMLLocation(line: line(at: markOffset), offset: consumed + markOffset) }
        return XMLLocation(line: markedLineNumber, offset: markAbsolute)
    }

    // MARK: Lines and errors

    private mutating func line(at offset: Int) -> Int {
        var count = 0
        if offset >= lineCursor {
            var i = lineCursor
            while i < offset, let hit = memchr(buffer + i, 10, offset - i) {
                count += 1
                i = UnsafeMutablePointer<UInt8>(OpaquePointer(hit)) - buffer + 1
            }
            lineAtCursor += count
        } else {
            for i in offset..<lineCursor where buffer[i] == 10 { count += 1 }
            lineAtCursor -= count
        }
        lineCursor = offset
        return lineAtCursor
    }

    mutating func error(_ reason: String, at offset: Int) -> XMLError {
        XMLError(line: line(at: offset), offset: consumed + offset, reason: reason)
    }

    mutating func tooLong(at offset: Int) -> XMLError {
        error("a tag, comment, CDATA section or DOCTYPE longer than \(Self.maximumTokenLength) bytes", at: offset)
    }

    func show(_ start: Int, _ stop: Int, limit: Int = 40) -> String {
        let bytes = UnsafeRawBufferPointer(start: buffer + start, count: max(0, min(stop - start, limit)))
        return String(decoding: bytes, as: UTF8.self) + (stop - start > limit ? "…" : "")
    }

    func openName(_ level: Int) -> String {
        let start = level > 0 ? nameEnds[level - 1] : 0
        return String(decoding: UnsafeRawBufferPointer(start: names + start, count: nameEnds[level] - start), as: UTF8.self)
    }

    // MARK: Scanning

    /// The next token, or nil when the buffer holds no further complete token (then `finished`
    /// says whether the input is done, else it needs more bytes).
    package mutating func next() throws -> Token? {
        if pendingEnd {
            pendingEnd = false
            pendingPop = true
            return .endTag
        }
        if pendingPop { popElement() }
        if !started {
            guard try begin() else { return nil }
        }
        while true {
            if position >= end {
                if atEnd { try finish() }
                return nil
            }
            tokenStart = position
            if buffer[position] != UInt8(ascii: "<") {
                guard let stop = try textRun(from: position) else { return nil }
                let start = position
                position = stop
                if depth == 0 { continue }  // white space around the root
                deliverText(start, stop)
                return .text
            }
            guard let result = try markup(at: position) else {
                if atEnd { throw error("the document ends inside a tag, comment or declaration (truncated?)", at: position) }
                if end - position > Self.maximumTokenLength { throw tooLong(at: position) }
                return nil
            }
            if result.next - position > Self.maximumTokenLength { throw tooLong(at: position) }
            position = result.next
            if let token = result.token { return token }
        }
    }

    /// For fast paths: finishes a pending end tag's pop and says whether the next byte in the
    /// buffer is a `<` that `next()` would read as markup inside the root (no token pending).
    @inlinable @inline(__always)
    package mutating func settledAtMarkup() -> Bool {
        if pendingEnd { return false }
        if pendingPop { popElement() }
        return depth > 0 && position < end && buffer[position] == UInt8(ascii: "<")
    }

    /// Pushes an open element whose qualified name is at buffer `start..<start + count`.
    @inlinable @inline(__always)
    package mutating func pushElement(nameAt start: Int, count: Int) {
        (names + namesCount).update(from: buffer + start, count: count)
        namesCount += count
        nameEnds[depth] = namesCount
        depth += 1
    }

    /// Pops the innermost open element.
    @inlinable @inline(__always)
    package mutating func popElement() {
        pendingPop = false
        depth -= 1
        namesCount = depth > 0 ? nameEnds[depth - 1] : 0
    }

    /// Refuses UTF-16 and UTF-32 (by byte order mark, or `<` next to a zero byte) and skips a
    /// UTF-8 byte order mark.
    private mutating func begin() throws -> Bool {
        if end < 4 && !atEnd { return false }
        started = true
        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            position = 3
            return true
        }
        if end >= 2, (buffer[0] == 0xFE && buffer[1] == 0xFF) || (buffer[0] == 0xFF && buffer[1] == 0xFE)
            || (buffer[0] == 0 && buffer[1] == UInt8(ascii: "<")) || (buffer[0] == UInt8(ascii: "<") && buffer[1] == 0)
            || (buffer[0] == 0 && buffer[1] == 0) {
            throw XMLError(line: 1, offset: 0, reason: "the file is UTF-16 or UTF-32 encoded; \(format) is read as UTF-8 (re-save it as UTF-8)")
        }
        return true
    }

    private mutating func finish() throws {
        if depth > 0 {
            throw error("the document ends with <\(openName(depth - 1))> and \(depth - 1) enclosing element(s) still open (truncated?)", at: end)
        }
        if !rootSeen { throw error("no <\(root)> element: the file is empty or not XML", at: end) }
        finished = true
    }

    /// The end of the text run at `start`: the next `<`, or, when the buffer ends first, the
    /// last byte not in an unfinished reference, at most ``readSize`` bytes on. Nil when no
    /// byte can be handed out before more input. Checks for control bytes and, outside the
    /// root, for anything but white space.
    private mutating func textRun(from start: Int) throws -> Int? {
        let limit = min(end, start + Self.readSize)
        let outside = depth == 0
        var i = start
        while i < limit {
            let byte = buffer[i]
            if classes[Int(byte)] & Self.textStop == 0 && !outside {
                i += 1
                continue
            }
            if byte == UInt8(ascii: "<") { break }
            if outside && !XMLMarkup.isSpace(byte) {
                var stop = i
                while stop < end, stop - i < 20, buffer[stop] != UInt8(ascii: "<"), buffer[stop] != 0x0A, buffer[stop] != 0x0D { stop += 1 }
                throw error(rootSeen ? "text after the end of the <\(root)> element"
                                     : "not an XML document: '\(show(i, stop, limit: 20))' before the first element", at: i)
            }
            if byte < 0x20 && !XMLMarkup.isSpace(byte) {
                throw error("byte 0x\(String(byte, radix: 16, uppercase: true)) is not allowed in XML text (binary data?)", at: i)
            }
            i += 1
        }
        if i < end && buffer[i] == UInt8(ascii: "<") { return i }
        if atEnd && i == end { return i }
        // Do not split a reference: hold back from an `&` without its `;`.
        var k = i
        while k > start && i - k < 12 {
            k -= 1
            if buffer[k] == UInt8(ascii: ";") { break }
            if buffer[k] == UInt8(ascii: "&") { return k > start ? k : (i - start >= 12 ? i : nil) }
        }
        return i > start ? i : nil
    }

    /// Makes buffer `start..<stop` the current text piece, decoding references when there are any.
    private mutating func deliverText(_ start: Int, _ stop: Int) {
        guard memchr(buffer + start, Int32(UInt8(ascii: "&")), stop - start) != nil else {
            textStart = UnsafePointer(buffer + start)
            textCount = stop - start
            return
        }
        var count = 0
        let out = decoded
        Self.decode(UnsafeRawBufferPointer(start: buffer + start, count: stop - start)) { out[count] = $0; count += 1 }  // a reference never decodes longer than itself
        textStart = UnsafePointer(decoded)
        textCount = count
    }

    /// Makes buffer `start..<stop` (a CDATA section's content) the current text piece, literally.
    mutating func deliverLiteralText(_ start: Int, _ stop: Int) {
        textStart = UnsafePointer(buffer + start)
        textCount = stop - start
    }

    /// Marks the current start tag as self-closing (its end tag comes next) or records the
    /// root; called by the tag scanner.
    mutating func opened(nameStart: Int, nameStop: Int, selfClosing: Bool) throws {
        if depth == 0 {
            if rootSeen { throw error("a second root element <\(show(nameStart, nameStop))> after </\(root)>", at: tokenStart) }
            let local = (UnsafeRawBufferPointer(start: buffer + nameStart, count: nameStop - nameStart).lastIndex(of: UInt8(ascii: ":")).map { nameStart + $0 + 1 }) ?? nameStart
            guard show(local, nameStop, limit: 300) == root else {
                throw error("not a \(format) document: the root element is <\(show(nameStart, nameStop))>", at: tokenStart)
            }
            rootSeen = true
        }
        if depth >= Self.maximumDepth { throw error("elements nested deeper than \(Self.maximumDepth)", at: tokenStart) }
        let length = nameStop - nameStart
        tokenName = namesCount..<(namesCount + length)
        pushElement(nameAt: nameStart, count: length)
        tokenLocal = localStart(of: tokenName)
        pendingEnd = selfClosing
    }

    /// The end tag of the innermost open element was read; it is popped at the next token.
    mutating func closedInnermost() {
        let top = depth - 1
        let openStart = top > 0 ? nameEnds[top - 1] : 0
        tokenName = openStart..<nameEnds[top]
        tokenLocal = localStart(of: tokenName)
        pendingPop = true
    }

    /// The offset in `names` after the last `:` of the name at `range` (its start without one).
    private func localStart(of range: Range<Int>) -> Int {
        var i = range.upperBound
        while i > range.lowerBound {
            if names[i - 1] == UInt8(ascii: ":") { return i }
            i -= 1
        }
        return range.lowerBound
    }
}

/// Why an XML document could not be read: 1-based line, byte offset from 0, and what.
package struct XMLError: Error, Equatable {
    package var line: Int
    package var offset: Int
    package var reason: String
}

/// A place in an XML input: 1-based line, byte offset from 0.
package struct XMLLocation: Equatable {
    package var line: Int
    package var offset: Int

    package init(line: Int, offset: Int) {
        self.line = line
        self.offset = offset
    }
}
