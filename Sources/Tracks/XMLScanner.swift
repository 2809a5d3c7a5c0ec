#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small streaming XML pull scanner for the XML track formats other than GPX (TCX, KML), with
/// the GPX scanner's safety model, in constant memory.
///
/// `next()` returns one token at a time: a start tag (its qualified name, prefix and local name,
/// and attributes), an end tag (also after a self-closing tag), or a piece of text (references
/// decoded, CDATA literal; one element's text may come in several pieces). Comments, processing
/// instructions and the XML declaration are skipped. It checks structure (tags nest and match,
/// attributes are quoted, no control bytes in text) but does not validate, and it stops with an
/// ``InputError`` naming the line and byte offset on: a root element other than the expected
/// one, text outside the root, UTF-16/32 input, a truncated document, a DOCTYPE that declares
/// entities (entities are never expanded; the five predefined ones and character references are
/// decoded), nesting deeper than ``maximumDepth``, a tag, comment, CDATA section or DOCTYPE
/// longer than ``maximumTokenLength``, and names longer than ``maximumNameLength``.
///
/// White space before the first markup is accepted (Strava writes TCX files with spaces before
/// `<?xml`). An unknown entity reference in text or an attribute becomes a zero byte, which no
/// number or time parses, so the value it spoils is reported, not guessed.
struct XMLScanner {
    enum Token: Equatable {
        case startTag
        case endTag
        case text
    }

    /// The longest single piece of markup accepted, in bytes.
    static var maximumTokenLength: Int { 1 << 20 }
    /// The deepest element nesting accepted.
    static var maximumDepth: Int { 256 }
    /// The longest element or attribute name accepted, in bytes.
    static var maximumNameLength: Int { 256 }
    /// Bytes asked of the source per read; also the most text handed out in one piece.
    static var readSize: Int { 1 << 16 }
    /// Attributes of a start tag kept for ``attribute(_:)`` (further ones are checked, not kept).
    private static var maximumAttributes: Int { 32 }

    let path: String
    /// The format's name in messages (`TCX`).
    let format: String
    /// The local name the root element must have (`TrainingCenterDatabase`).
    let root: String

    private(set) var finished = false
    /// Open elements, counting the current start tag's (root = 1) and, for an end tag, the
    /// element it closes; for text, the element the text is in.
    private(set) var depth = 0

    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var position = 0
    private var end = 0
    private var atEnd = false
    private var started = false
    /// Input bytes moved out of the buffer before offset 0 (for byte offsets in errors).
    private var consumed = 0

    private var lineCursor = 0
    private var lineAtCursor = 1

    private let names: UnsafeMutablePointer<UInt8>
    private let nameEnds: UnsafeMutablePointer<Int>
    private var namesCount = 0
    private var rootSeen = false
    /// A self-closing tag was returned as a start tag; its end tag comes next.
    private var pendingEnd = false
    /// An end tag was returned; the element is popped when the next token is asked for.
    private var pendingPop = false

    // The current token's name (in `names`) and, for a start tag, its attributes (in `buffer`).
    private var tokenName = 0..<0
    /// Where the local name (after any prefix) starts in `names`.
    private var tokenLocal = 0
    /// The current start tag's first ``maximumAttributes`` attributes: name and value ranges in `buffer`.
    private let attributeRanges: UnsafeMutablePointer<(name: Range<Int>, value: Range<Int>)>
    private var attributeCount = 0
    /// Bytes that may continue a name, by value.
    private let nameBytes: UnsafeMutablePointer<Bool>

    // The current text piece: in the buffer, or decoded into `decoded`.
    private var textStart: UnsafePointer<UInt8>
    private var textCount = 0
    private let decoded: UnsafeMutablePointer<UInt8>

    init(path: String, format: String, root: String) {
        self.path = path
        self.format = format
        self.root = root
        capacity = Self.maximumTokenLength + Self.readSize
        buffer = .allocate(capacity: capacity)
        decoded = .allocate(capacity: Self.readSize)
        textStart = UnsafePointer(decoded)
        names = .allocate(capacity: Self.maximumDepth * Self.maximumNameLength)
        nameEnds = .allocate(capacity: Self.maximumDepth)
        attributeRanges = .allocate(capacity: Self.maximumAttributes)
        nameBytes = .allocate(capacity: 256)
        for byte in 0...255 { nameBytes[byte] = Self.isNameByte(UInt8(byte)) }
    }

    /// Frees the buffers (a struct cannot free them by itself).
    func deallocate() {
        buffer.deallocate()
        decoded.deallocate()
        names.deallocate()
        nameEnds.deallocate()
        attributeRanges.deallocate()
        nameBytes.deallocate()
    }

    // MARK: Input

    /// Moves the unconsumed tail to the front and returns the space to read into.
    mutating func inputSpace() throws -> UnsafeMutableRawBufferPointer {
        if position > 0 {
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

    mutating func received(_ count: Int) {
        if count == 0 { atEnd = true } else { end += count }
    }

    // MARK: The current token

    /// The current tag's qualified name (`gx:Track`).
    var name: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: names + tokenName.lowerBound, count: tokenName.count)
    }

    /// True when the current tag's local name is `local`, whatever its prefix.
    @inline(__always)
    func hasLocalName(_ local: StaticString) -> Bool {
        let count = local.utf8CodeUnitCount
        return tokenName.upperBound - tokenLocal == count && memcmp(names + tokenLocal, local.utf8Start, count) == 0
    }

    /// The decoded value of the current start tag's attribute whose local name is `local`.
    func attribute(_ local: StaticString) -> String? {
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

    /// The current text piece, references decoded. Valid until the next call to `next`.
    var text: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: textStart, count: textCount) }

    /// Where the current token starts: its 1-based line and its byte offset in the input.
    mutating func location() -> XMLLocation {
        XMLLocation(line: line(at: tokenStart), offset: consumed + tokenStart)
    }
    private var tokenStart = 0

    /// A problem at `location`, for ``TrackSink/unreadablePoint(_:)`` or to throw.
    func problem(_ reason: String, at location: XMLLocation) -> InputError {
        InputError(path: path, line: location.line, reason: "byte \(location.offset): \(reason)")
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

    private mutating func error(_ reason: String, at offset: Int) -> InputError {
        InputError(path: path, line: line(at: offset), reason: "byte \(consumed + offset): \(reason)")
    }

    private mutating func tooLong(at offset: Int) -> InputError {
        error("a tag, comment, CDATA section or DOCTYPE longer than \(Self.maximumTokenLength) bytes", at: offset)
    }

    private func show(_ start: Int, _ stop: Int, limit: Int = 40) -> String {
        let bytes = UnsafeRawBufferPointer(start: buffer + start, count: max(0, min(stop - start, limit)))
        return String(decoding: bytes, as: UTF8.self) + (stop - start > limit ? "…" : "")
    }

    private func openName(_ level: Int) -> String {
        let start = level > 0 ? nameEnds[level - 1] : 0
        return String(decoding: UnsafeRawBufferPointer(start: names + start, count: nameEnds[level] - start), as: UTF8.self)
    }

    // MARK: Scanning

    /// The next token, or nil when the buffer holds no further complete token (then `finished`
    /// says whether the input is done, else it needs more bytes).
    mutating func next() throws -> Token? {
        if pendingEnd {
            pendingEnd = false
            pendingPop = true
            return .endTag
        }
        if pendingPop {
            pendingPop = false
            depth -= 1
            namesCount = depth > 0 ? nameEnds[depth - 1] : 0
        }
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

    /// Refuses UTF-16 and UTF-32 (by byte order mark or zero bytes) and skips a UTF-8 byte order mark.
    private mutating func begin() throws -> Bool {
        if end < 4 && !atEnd { return false }
        started = true
        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            position = 3
            return true
        }
        let head = UnsafeRawBufferPointer(start: buffer, count: min(end, 4))
        if (end >= 2 && ((buffer[0] == 0xFE && buffer[1] == 0xFF) || (buffer[0] == 0xFF && buffer[1] == 0xFE))) || head.contains(0) {
            throw InputError(path: path, line: 1, reason: "byte 0: the file is UTF-16 or UTF-32 encoded; \(format) is read as UTF-8 (re-save it as UTF-8)")
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
        var i = start
        while i < limit {
            let byte = buffer[i]
            if byte == UInt8(ascii: "<") { break }
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                throw error("byte 0x\(String(byte, radix: 16, uppercase: true)) is not allowed in XML text (binary data?)", at: i)
            }
            if depth == 0 && !XMLMarkup.isSpace(byte) {
                var stop = i
                while stop < end, stop - i < 20, buffer[stop] != UInt8(ascii: "<"), buffer[stop] != 0x0A, buffer[stop] != 0x0D { stop += 1 }
                throw error(rootSeen ? "text after the end of the <\(root)> element"
                                     : "not an XML document: '\(show(i, stop, limit: 20))' before the first element", at: i)
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
        let bytes = UnsafeRawBufferPointer(start: buffer + start, count: stop - start)
        guard memchr(buffer + start, Int32(UInt8(ascii: "&")), stop - start) != nil else {
            textStart = UnsafePointer(buffer + start)
            textCount = stop - start
            return
        }
        var count = 0
        let out = decoded
        Self.decode(bytes) { out[count] = $0; count += 1 }  // a reference never decodes longer than itself
        textStart = UnsafePointer(decoded)
        textCount = count
    }

    /// Handles the markup at `start` (a `<`): the offset after it and the token it makes, or nil
    /// when it does not end inside the buffer.
    private mutating func markup(at start: Int) throws -> (next: Int, token: Token?)? {
        guard end - start >= 2 else { return nil }
        switch buffer[start + 1] {
        case UInt8(ascii: "/"):
            return try endTag(at: start).map { ($0, .endTag) }
        case UInt8(ascii: "?"):
            guard let close = find("?>", from: start + 2) else { return nil }
            try checkDeclaration(start, close)
            return (close + 2, nil)
        case UInt8(ascii: "!"):
            if hasPrefix("<!--", at: start) {
                guard let close = find("-->", from: start + 4) else { return nil }
                return (close + 3, nil)
            }
            if hasPrefix("<![CDATA[", at: start) {
                guard let close = find("]]>", from: start + 9) else { return nil }
                if depth == 0 { throw error("a CDATA section outside the <\(root)> element", at: start) }
                textStart = UnsafePointer(buffer + start + 9)
                textCount = close - start - 9
                return (close + 3, .text)
            }
            if hasPrefix("<!DOCTYPE", at: start) { return try doctype(at: start).map { ($0, nil) } }
            if end - start < 9 && !atEnd { return nil }
            throw error("unexpected markup '\(show(start, end, limit: 12))'", at: start)
        default:
            return try startTag(at: start).map { ($0, .startTag) }
        }
    }

    private mutating func checkDeclaration(_ start: Int, _ close: Int) throws {
        if let encoding = XMLMarkup.unreadEncoding(in: buffer, start: start, close: close) {
            throw error("declared encoding '\(encoding)' is not read; re-save the file as UTF-8", at: start)
        }
    }

    /// `<!DOCTYPE …>`: accepted without entity declarations; one stops the file, so no entity
    /// is ever expanded.
    private mutating func doctype(at start: Int) throws -> Int? {
        if rootSeen { throw error("a DOCTYPE inside the document", at: start) }
        switch XMLMarkup.doctype(in: buffer, at: start, end: end) {
        case .incomplete: return nil
        case .ends(let next): return next
        case .declaresEntity(let at): throw error("the DOCTYPE declares entities; entity expansion is refused (billion laughs, external entities)", at: at)
        }
    }

    /// The end of the name starting at `start` (bytes of the name class).
    private func nameEnd(from start: Int) -> Int {
        var i = start
        while i < end, nameBytes[Int(buffer[i])] { i += 1 }
        return i
    }

    private mutating func startTag(at start: Int) throws -> Int? {
        let nameStart = start + 1
        guard XMLMarkup.isNameStart(buffer[nameStart]) else {
            throw error("malformed tag '\(show(start, min(end, start + 20)))'", at: start)
        }
        let nameStop = nameEnd(from: nameStart)
        guard nameStop < end else { return nil }
        if nameStop - nameStart > Self.maximumNameLength {
            throw error("an element name longer than \(Self.maximumNameLength) bytes", at: start)
        }
        attributeCount = 0
        var i = nameStop
        var selfClosing = false
        while true {
            let gapStart = i
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            let byte = buffer[i]
            if byte == UInt8(ascii: ">") { break }
            if byte == UInt8(ascii: "/") {
                guard i + 1 < end else { return nil }
                guard buffer[i + 1] == UInt8(ascii: ">") else { throw error("malformed tag <\(show(nameStart, nameStop))>", at: start) }
                selfClosing = true
                i += 1
                break
            }
            guard i > gapStart, XMLMarkup.isNameStart(byte) else {
                throw error("malformed attribute in <\(show(nameStart, nameStop))>", at: start)
            }
            let attributeStart = i
            let attributeStop = nameEnd(from: i)
            i = attributeStop
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            guard buffer[i] == UInt8(ascii: "=") else { throw error("attribute without a value in <\(show(nameStart, nameStop))>", at: start) }
            i += 1
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            let quote = buffer[i]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw error("unquoted attribute value in <\(show(nameStart, nameStop))>", at: start)
            }
            let valueStart = i + 1
            guard let close = memchr(buffer + valueStart, Int32(quote), end - valueStart) else { return nil }
            let valueStop = UnsafeMutablePointer<UInt8>(OpaquePointer(close)) - buffer
            if memchr(buffer + valueStart, Int32(UInt8(ascii: "<")), valueStop - valueStart) != nil {
                throw error("'<' in an attribute value of <\(show(nameStart, nameStop))>", at: start)
            }
            if attributeCount < Self.maximumAttributes {
                attributeRanges[attributeCount] = (attributeStart..<attributeStop, valueStart..<valueStop)
                attributeCount += 1
            }
            i = valueStop + 1
        }
        let tagEnd = i + 1
        if tagEnd - start > Self.maximumTokenLength { throw tooLong(at: start) }
        if depth == 0 {
            if rootSeen { throw error("a second root element <\(show(nameStart, nameStop))> after </\(root)>", at: start) }
            let local = (UnsafeRawBufferPointer(start: buffer + nameStart, count: nameStop - nameStart).lastIndex(of: UInt8(ascii: ":")).map { nameStart + $0 + 1 }) ?? nameStart
            guard show(local, nameStop, limit: 300) == root else {
                throw error("not a \(format) document: the root element is <\(show(nameStart, nameStop))>", at: start)
            }
            rootSeen = true
        }
        if depth >= Self.maximumDepth { throw error("elements nested deeper than \(Self.maximumDepth)", at: start) }
        let length = nameStop - nameStart
        (names + namesCount).update(from: buffer + nameStart, count: length)
        tokenName = namesCount..<(namesCount + length)
        tokenLocal = localStart(of: tokenName)
        namesCount += length
        nameEnds[depth] = namesCount
        depth += 1
        pendingEnd = selfClosing
        return tagEnd
    }

    private mutating func endTag(at start: Int) throws -> Int? {
        // The usual case: exactly `</name>` of the open element.
        if depth > 0 {
            let top = depth - 1
            let openStart = top > 0 ? nameEnds[top - 1] : 0
            let openLength = nameEnds[top] - openStart
            if start + openLength + 3 <= end, buffer[start + openLength + 2] == UInt8(ascii: ">"),
               memcmp(buffer + start + 2, names + openStart, openLength) == 0 {
                tokenName = openStart..<(openStart + openLength)
                tokenLocal = localStart(of: tokenName)
                pendingPop = true
                return start + openLength + 3
            }
        }
        var i = start + 2
        while i < end, !XMLMarkup.isSpace(buffer[i]), buffer[i] != UInt8(ascii: ">") { i += 1 }
        let nameStop = i
        while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
        guard i < end else { return nil }
        guard buffer[i] == UInt8(ascii: ">") else { throw error("malformed end tag '\(show(start, i + 1))'", at: start) }
        guard depth > 0 else { throw error("end tag '\(show(start, i + 1))' without a matching start tag", at: start) }
        let top = depth - 1
        let openStart = top > 0 ? nameEnds[top - 1] : 0
        let openLength = nameEnds[top] - openStart
        var matches = openLength == nameStop - start - 2
        var k = 0
        while matches && k < openLength {
            matches = names[openStart + k] == buffer[start + 2 + k]
            k += 1
        }
        guard matches else { throw error("'\(show(start, i + 1))' does not close <\(openName(top))>", at: start) }
        tokenName = openStart..<(openStart + openLength)
        tokenLocal = localStart(of: tokenName)
        pendingPop = true
        return i + 1
    }

    // MARK: Bytes

    /// The offset in `names` after the last `:` of the name at `range` (its start without one).
    private func localStart(of range: Range<Int>) -> Int {
        var i = range.upperBound
        while i > range.lowerBound {
            if names[i - 1] == UInt8(ascii: ":") { return i }
            i -= 1
        }
        return range.lowerBound
    }

    /// Calls `emit` with the bytes of `raw`, the five predefined entities and character
    /// references decoded; an unknown or malformed reference emits a zero byte.
    static func decode(_ raw: UnsafeRawBufferPointer, _ emit: (UInt8) -> Void) {
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "&") else {
                emit(byte)
                i += 1
                continue
            }
            var j = i + 1
            while j < raw.count, raw[j] != UInt8(ascii: ";"), j - i < 12 { j += 1 }
            guard j < raw.count, raw[j] == UInt8(ascii: ";"), let scalar = reference(UnsafeRawBufferPointer(rebasing: raw[(i + 1)..<j])) else {
                emit(0)
                i += 1
                continue
            }
            for unit in String(Character(scalar)).utf8 { emit(unit) }
            i = j + 1
        }
    }

    private static func reference(_ name: UnsafeRawBufferPointer) -> Unicode.Scalar? {
        let text = String(decoding: name, as: UTF8.self)
        switch text {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard text.hasPrefix("#") else { return nil }
            let hex = text.hasPrefix("#x")
            let digits = text.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, let value = UInt32(digits, radix: hex ? 16 : 10), value != 0 else { return nil }
            return Unicode.Scalar(value)
        }
    }

    private static func same(_ bytes: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = word.utf8Start
        for k in 0..<count where bytes[k] != expected[k] { return false }
        return true
    }

    private func hasPrefix(_ word: StaticString, at start: Int) -> Bool {
        XMLMarkup.hasPrefix(word, in: buffer, at: start, end: end)
    }

    /// The offset of `word` at or after `from` (and before `before`), or nil.
    private func find(_ word: StaticString, from: Int, before: Int? = nil) -> Int? {
        XMLMarkup.find(word, in: buffer, from: from, limit: before ?? end)
    }



    private static func isNameByte(_ byte: UInt8) -> Bool {
        XMLMarkup.isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}

/// A place in an XML input: 1-based line, byte offset from 0.
struct XMLLocation {
    var line: Int
    var offset: Int
}

/// The text of one element, gathered from the pieces ``XMLScanner`` hands out, up to a fixed
/// length (values read are short: times, numbers, names).
struct XMLValue {
    private var storage: [UInt8]
    private(set) var count = 0
    /// More text came than ``limit`` allows; the value is not to be trusted.
    private(set) var overflow = false
    let limit: Int

    init(limit: Int) {
        self.limit = limit
        storage = [UInt8](repeating: 0, count: limit)
    }

    var isEmpty: Bool { count == 0 }
    var last: UInt8? { count > 0 ? storage[count - 1] : nil }

    mutating func reset() {
        count = 0
        overflow = false
    }

    /// Appends a piece; white space before the value does not count against ``limit``.
    mutating func append(_ piece: UnsafeRawBufferPointer) {
        guard !overflow else { return }
        var start = 0
        if count == 0 {
            while start < piece.count, XMLMarkup.isSpace(piece[start]) { start += 1 }
        }
        let length = piece.count - start
        guard length > 0 else { return }
        guard count + length <= limit else {
            overflow = true
            return
        }
        let at = count
        storage.withUnsafeMutableBytes { ($0.baseAddress! + at).copyMemory(from: piece.baseAddress! + start, byteCount: length) }
        count += length
    }

    /// Calls `body` with the value stripped of surrounding white space.
    func withTrimmed<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        storage.withUnsafeBytes { all in
            var lower = 0, upper = count
            while lower < upper, XMLMarkup.isSpace(all[lower]) { lower += 1 }
            while upper > lower, XMLMarkup.isSpace(all[upper - 1]) { upper -= 1 }
            return body(UnsafeRawBufferPointer(rebasing: all[lower..<upper]))
        }
    }

    var string: String { withTrimmed { String(decoding: $0, as: UTF8.self) } }

    /// The first bytes, for messages.
    func prefix(_ length: Int) -> String { String(decoding: storage[0..<min(count, length)], as: UTF8.self) }
}
