#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The grammar's bytes: white space, literals, numbers, strings and their escapes, refills.
extension JSONStreamReader {
    func error(_ reason: String, kind: JSONStreamError.Kind = .syntax) -> JSONStreamError {
        JSONStreamError(offset: base + position, line: line, kind: kind, reason: reason)
    }

    mutating func markToken() {
        tokenOffset = base + position
        tokenLine = line
        tokenLive = false
        tokenInScratch = false
        tokenCount = 0
    }

    mutating func close(_ event: JSONEvent) -> JSONEvent {
        markToken()
        position += 1
        containers.removeLast()
        expectation = .afterValue
        return event
    }

    mutating func open(_ tag: UInt8) throws {
        guard containers.count < limits.maximumDepth else {
            throw error("nesting deeper than \(limits.maximumDepth)", kind: .tooDeep)
        }
        containers.append(tag)
        position += 1
    }

    mutating func value() throws -> JSONEvent {
        guard let byte = try peek() else { throw error("unexpected end of input, expected a value", kind: .expectedValue) }
        markToken()
        switch byte {
        case UInt8(ascii: "{"):
            try open(Self.objectTag)
            expectation = .firstKey
            return .objectStart
        case UInt8(ascii: "["):
            try open(Self.arrayTag)
            expectation = .firstArrayValue
            return .arrayStart
        case UInt8(ascii: "\""):
            try scanString()
            expectation = .afterValue
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            expectation = .afterValue
            return .number
        case UInt8(ascii: "t"):
            try literal("true")
            expectation = .afterValue
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            expectation = .afterValue
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            expectation = .afterValue
            return .null
        default:
            throw error("unexpected character '\(printable(byte))', expected a value", kind: .expectedValue)
        }
    }

    mutating func key() throws -> JSONEvent {
        guard try peek() == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
        markToken()
        try scanString()
        try skipSpace()
        guard try peek() == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
        position += 1
        expectation = .value
        return .key
    }

    /// The byte at `position`, refilling as needed; nil at the end of input.
    mutating func peek() throws -> UInt8? {
        if position == end {
            try refill()
            if position == end { return nil }
        }
        return buffer[position]
    }

    /// The byte at buffer index `index` (which moves if the buffer is compacted); nil at the end.
    @inline(__always)
    mutating func byte(at index: inout Int) throws -> UInt8? {
        if index < end { return buffer[index] }
        return try byteAfterRefill(at: &index)
    }

    mutating func byteAfterRefill(at index: inout Int) throws -> UInt8? {
        if tokenLive, index - tokenStart >= limits.maximumTokenBytes {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .tooLong, reason: "token longer than \(limits.maximumTokenBytes) bytes")
        }
        index -= try refill()
        return index < end ? buffer[index] : nil
    }

    /// Reads more input after compacting; returns how far buffer indices moved down.
    @discardableResult
    mutating func refill() throws -> Int {
        if sourceEnded { return 0 }
        let keep = tokenLive ? min(tokenStart, position) : position
        if keep > 0 {
            if end > keep { memmove(buffer, buffer + keep, end - keep) }
            end -= keep
            position -= keep
            if tokenLive { tokenStart -= keep }
            base += keep
        }
        if capacity - end < chunkSize / 2 {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = grown
            capacity *= 2
            peakBufferBytes = max(peakBufferBytes, capacity)
        }
        let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end))
        if count == 0 { sourceEnded = true }
        end += count
        return keep
    }

    mutating func skipByteOrderMark() throws {
        var index = position
        guard try byte(at: &index) == 0xEF else { return }
        index += 1
        guard try byte(at: &index) == 0xBB else { return }
        index += 1
        guard try byte(at: &index) == 0xBF else { return }
        position = index + 1
    }

    /// Skips white space; most calls find a token at once, so that case is inlined.
    @inline(__always)
    mutating func skipSpace() throws {
        if position < end, buffer[position] > 0x20 { return }
        // One space between tokens (`": "`, `", "`) is the next most common case.
        if position + 1 < end, buffer[position] == 0x20, buffer[position + 1] > 0x20 {
            position += 1
            return
        }
        try skipSpaceRun()
    }

    mutating func skipSpaceRun() throws {
        while true {
            let bytes = buffer
            let limit = end
            var i = position
            var lines = 0
            while i < limit {
                // Indentation: eight spaces at a time.
                while i + 8 <= limit, UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { i += 8 }
                guard i < limit else { break }
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0D {
                    i += 1
                } else if b == 0x0A {
                    lines += 1
                    i += 1
                } else {
                    break
                }
            }
            position = i
            line += lines
            if i < limit { return }
            try refill()
            if position == end { return }
        }
    }

    /// Moves `index` past a run of ASCII digits, refilling as needed.
    mutating func skipDigits(_ index: inout Int) throws {
        while true {
            let bytes = buffer
            let limit = end
            var i = index
            while i < limit, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            index = i
            if i < limit || sourceEnded { return }
            if index - tokenStart >= limits.maximumTokenBytes {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .tooLong, reason: "token longer than \(limits.maximumTokenBytes) bytes")
            }
            index -= try refill()
            if index == end { return }
        }
    }

    mutating func literal(_ word: StaticString) throws {
        var index = position
        for i in 0..<word.utf8CodeUnitCount {
            guard try byte(at: &index) == word.utf8Start[i] else {
                throw error("invalid literal, expected '\(word)'")
            }
            index += 1
        }
        position = index
    }

    mutating func scanNumber() throws {
        tokenStart = position
        tokenLive = true
        var index = position
        func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
        if try byte(at: &index) == UInt8(ascii: "-") { index += 1 }
        let first = try byte(at: &index)
        guard isDigit(first) else {
            position = index
            throw error("invalid number")
        }
        index += 1
        if first != UInt8(ascii: "0") {
            try skipDigits(&index)
        }
        if try byte(at: &index) == UInt8(ascii: ".") {
            index += 1
            guard isDigit(try byte(at: &index)) else {
                position = index
                throw error("invalid number: no digits after '.'")
            }
            try skipDigits(&index)
        }
        let e = try byte(at: &index)
        if e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            let sign = try byte(at: &index)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard isDigit(try byte(at: &index)) else {
                position = index
                throw error("invalid number: no digits in exponent")
            }
            try skipDigits(&index)
        }
        tokenCount = index - tokenStart
        guard tokenCount <= limits.maximumTokenBytes else {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .tooLong, reason: "number longer than \(limits.maximumTokenBytes) bytes")
        }
        position = index
    }

    /// Scans a string whose `"` is at `position`; leaves its content as the token.
    mutating func scanString() throws {
        tokenStart = position + 1
        tokenLive = true
        var index = tokenStart
        var high: UInt8 = 0
        while true {
            // The hot loop: locals only, so nothing is reloaded or spilled per byte.
            let bytes = buffer
            let limit = end
            var i = index
            var seen = high
            // Eight bytes at a time while none ends the string or needs a look.
            while i + 8 <= limit {
                let word = UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)
                if hasByteBelow0x20(word) || hasZeroByte(word ^ 0x2222_2222_2222_2222) || hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C) { break }
                if word & 0x8080_8080_8080_8080 != 0 { seen |= 0x80 }
                i += 8
            }
            while i < limit {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
                seen |= b
                i += 1
            }
            index = i
            high = seen
            if index == end {
                guard index - tokenStart < limits.maximumTokenBytes else { throw stringTooLong() }
                index -= try refill()
                if index == end { throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string") }
                continue
            }
            let b = buffer[index]
            if b == UInt8(ascii: "\"") {
                tokenCount = index - tokenStart
                guard tokenCount <= limits.maximumTokenBytes else { throw stringTooLong() }
                position = index + 1
                if high >= 0x80, !isValidUTF8(UnsafeRawBufferPointer(start: buffer + tokenStart, count: tokenCount)) {
                    throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .invalidUTF8, reason: "string is not valid UTF-8")
                }
                return
            }
            if b < 0x20 {
                position = index
                throw error("control character in string")
            }
            return try scanEscapedString(from: index, high: high)
        }
    }

    /// The rest of a string from its first backslash at `index`, unescaped into `scratch`.
    mutating func scanEscapedString(from start: Int, high: UInt8) throws {
        var index = start
        var high = high
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: buffer + tokenStart, count: index - tokenStart))
        while true {
            guard let b = try byte(at: &index) else {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string")
            }
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 {
                position = index
                throw error("control character in string")
            }
            index += 1
            if b != UInt8(ascii: "\\") {
                high |= b
                scratch.append(b)
                continue
            }
            guard let escape = try byte(at: &index) else {
                throw JSONStreamError(offset: tokenOffset, line: tokenLine, reason: "unterminated string")
            }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4(&index)
                if (0xD800..<0xDC00).contains(code) {
                    guard try byte(at: &index) == UInt8(ascii: "\\") else { position = index; throw error("unpaired surrogate in \\u escape") }
                    index += 1
                    guard try byte(at: &index) == UInt8(ascii: "u") else { position = index; throw error("unpaired surrogate in \\u escape") }
                    index += 1
                    let low = try hex4(&index)
                    guard (0xDC00..<0xE000).contains(low) else { position = index; throw error("invalid low surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    position = index
                    throw error("unpaired surrogate in \\u escape")
                }
                scratch.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
            default:
                position = index - 1
                throw error("invalid escape '\\\(printable(escape))'")
            }
            if index - tokenStart > limits.maximumTokenBytes { throw stringTooLong() }
        }
        guard index - tokenStart <= limits.maximumTokenBytes else { throw stringTooLong() }
        position = index + 1
        tokenInScratch = true
        tokenCount = scratch.count
        if high >= 0x80, !scratch.withUnsafeBytes({ isValidUTF8($0) }) {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .invalidUTF8, reason: "string is not valid UTF-8")
        }
    }

    mutating func hex4(_ index: inout Int) throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let b = try byte(at: &index) else {
                position = index
                throw error("truncated \\u escape")
            }
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default:
                position = index
                throw error("invalid hex digit in \\u escape")
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    func stringTooLong() -> JSONStreamError {
        JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .tooLong, reason: "string longer than \(limits.maximumTokenBytes) bytes")
    }

    func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}

/// Whether any byte of `word` is zero.
@inline(__always)
private func hasZeroByte(_ word: UInt64) -> Bool {
    (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
}

/// Whether any byte of `word` is below 0x20 (a control character).
@inline(__always)
private func hasByteBelow0x20(_ word: UInt64) -> Bool {
    (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0
}

/// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
        let b0 = bytes[i]
        if b0 < 0x80 { i += 1; continue }
        func continuation(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
        switch b0 {
        case 0xC2...0xDF:
            guard continuation(1) else { return false }
            i += 2
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { return false }
            let b1 = bytes[i + 1]
            if b0 == 0xE0, b1 < 0xA0 { return false }   // overlong
            if b0 == 0xED, b1 >= 0xA0 { return false }  // surrogate
            i += 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { return false }
            let b1 = bytes[i + 1]
            if b0 == 0xF0, b1 < 0x90 { return false }   // overlong
            if b0 == 0xF4, b1 >= 0x90 { return false }  // past U+10FFFF
            i += 4
        default:
            return false
        }
    }
    return true
}
