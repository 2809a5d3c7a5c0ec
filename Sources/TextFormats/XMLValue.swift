/// The text of one element, gathered from the pieces ``XMLTokenizer`` hands out, up to a fixed
/// length (values read are short: times, numbers, names).
package struct XMLValue {
    private var storage: [UInt8]
    package private(set) var count = 0
    /// More text came than ``limit`` allows; the value is not to be trusted.
    package private(set) var overflow = false
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
        storage = [UInt8](repeating: 0, count: limit)
    }

    package var isEmpty: Bool { count == 0 }
    package var last: UInt8? { count > 0 ? storage[count - 1] : nil }

    package mutating func reset() {
        count = 0
        overflow = false
    }

    /// Appends a piece; white space before the value does not count against ``limit``.
    package mutating func append(_ piece: UnsafeRawBufferPointer) {
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
    package func withTrimmed<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        storage.withUnsafeBytes { all in
            var lower = 0, upper = count
            while lower < upper, XMLMarkup.isSpace(all[lower]) { lower += 1 }
            while upper > lower, XMLMarkup.isSpace(all[upper - 1]) { upper -= 1 }
            return body(UnsafeRawBufferPointer(rebasing: all[lower..<upper]))
        }
    }

    package var string: String { withTrimmed { String(decoding: $0, as: UTF8.self) } }

    /// The first bytes, for messages.
    package func prefix(_ length: Int) -> String { String(decoding: storage[0..<min(count, length)], as: UTF8.self) }
}
