#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Markup: tags, comments, CDATA, declarations, DOCTYPE, and references.
extension XMLTokenizer {
    /// Handles the markup at `start` (a `<`): the offset after it and the token it makes, or nil
    /// when it does not end inside the buffer.
    mutating func markup(at start: Int) throws -> (next: Int, token: Token?)? {
        guard end - start >= 2 else { return nil }
        switch buffer[start + 1] {
        case UInt8(ascii: "/"):
            return try endTag(at: start).map { ($0, .endTag) }
        case UInt8(ascii: "?"):
            guard let close = find("?>", from: start + 2) else { return nil }
            if let encoding = XMLMarkup.unreadEncoding(in: buffer, start: start, close: close) {
                throw error("declared encoding '\(encoding)' is not read; re-save the file as UTF-8", at: start)
            }
            return (close + 2, nil)
        case UInt8(ascii: "!"):
            if hasPrefix("<!--", at: start) {
                guard let close = find("-->", from: start + 4) else { return nil }
                return (close + 3, nil)
            }
            if hasPrefix("<![CDATA[", at: start) {
                guard let close = find("]]>", from: start + 9) else { return nil }
                if depth == 0 { throw error("a CDATA section outside the <\(root)> element", at: start) }
                deliverLiteralText(start + 9, close)
                return (close + 3, .text)
            }
            if hasPrefix("<!DOCTYPE", at: start) { return try doctype(at: start).map { ($0, nil) } }
            if end - start < 9 && !atEnd { return nil }
            throw error("unexpected markup '\(show(start, end, limit: 12))'", at: start)
        default:
            return try startTag(at: start).map { ($0, .startTag) }
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
        while i < end, classes[Int(buffer[i])] & Self.nameByte != 0 { i += 1 }
        return i
    }

    private mutating func startTag(at start: Int) throws -> Int? {
        let nameStart = start + 1
        let nameStop = nameEnd(from: nameStart)
        guard nameStop < end else { return nil }
        guard nameStop > nameStart, XMLMarkup.isNameStart(buffer[nameStart]) else {
            throw error("'<' is not followed by an element name", at: start)
        }
        let after = buffer[nameStop]
        guard classes[Int(after)] & Self.spaceByte != 0 || after == UInt8(ascii: ">") || after == UInt8(ascii: "/") else {
            throw error("'\(show(nameStart, nameStop + 1))' is not an element name", at: start)
        }
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
                guard buffer[i + 1] == UInt8(ascii: ">") else { throw error("'/' inside a tag not followed by '>'", at: start) }
                selfClosing = true
                i += 1
                break
            }
            guard i > gapStart else {
                throw error("attributes in <\(show(nameStart, nameStop))> are not separated by white space", at: start)
            }
            guard XMLMarkup.isNameStart(byte) else {
                throw error("malformed attribute in <\(show(nameStart, nameStop))>", at: start)
            }
            let attributeStart = i
            let attributeStop = nameEnd(from: i)
            i = attributeStop
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            guard buffer[i] == UInt8(ascii: "=") else {
                throw error("attribute '\(show(attributeStart, attributeStop))' in <\(show(nameStart, nameStop))> has no value", at: start)
            }
            i += 1
            while i < end, XMLMarkup.isSpace(buffer[i]) { i += 1 }
            guard i < end else { return nil }
            let quote = buffer[i]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw error("unquoted attribute value: '\(show(attributeStart, attributeStop))' in <\(show(nameStart, nameStop))> is not quoted", at: start)
            }
            let valueStart = i + 1
            guard let close = memchr(buffer + valueStart, Int32(quote), end - valueStart) else { return nil }
            let valueStop = UnsafeMutablePointer<UInt8>(OpaquePointer(close)) - buffer
            if memchr(buffer + valueStart, Int32(UInt8(ascii: "<")), valueStop - valueStart) != nil {
                throw error("'<' in the value of attribute '\(show(attributeStart, attributeStop))' of <\(show(nameStart, nameStop))>", at: start)
            }
            if attributeCount < Self.maximumAttributes {
                attributeRanges[attributeCount] = (attributeStart..<attributeStop, valueStart..<valueStop)
                attributeCount += 1
            }
            i = valueStop + 1
        }
        let tagEnd = i + 1
        if tagEnd - start > Self.maximumTokenLength { throw tooLong(at: start) }
        try opened(nameStart: nameStart, nameStop: nameStop, selfClosing: selfClosing)
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
                closedInnermost()
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
        guard openLength == nameStop - start - 2, memcmp(buffer + start + 2, names + openStart, openLength) == 0 else {
            throw error("'\(show(start, i + 1))' does not close <\(openName(top))>", at: start)
        }
        closedInnermost()
        return i + 1
    }

    // MARK: References and bytes

    /// Calls `emit` with the bytes of `raw`, the five predefined entities and character
    /// references decoded; an unknown or malformed reference emits a zero byte.
    package static func decode(_ raw: UnsafeRawBufferPointer, _ emit: (UInt8) -> Void) {
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

    static func same(_ bytes: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = word.utf8Start
        for k in 0..<count where bytes[k] != expected[k] { return false }
        return true
    }

    private func hasPrefix(_ word: StaticString, at start: Int) -> Bool {
        XMLMarkup.hasPrefix(word, in: buffer, at: start, end: end)
    }

    /// The offset of `word` at or after `from`, or nil.
    private func find(_ word: StaticString, from: Int) -> Int? {
        XMLMarkup.find(word, in: buffer, from: from, limit: end)
    }
}
