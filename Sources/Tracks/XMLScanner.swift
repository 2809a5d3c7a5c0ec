import TextFormats

/// ``XMLTokenizer`` for one named input: the tokenizer's errors become ``InputError``s naming
/// the file, the line and the byte offset (`FILE:LINE: byte N: reason`). The TCX and KML readers
/// read through it; the GPX reader holds the tokenizer itself, for its fast path.
struct XMLScanner {
    typealias Token = XMLTokenizer.Token

    static var maximumTokenLength: Int { XMLTokenizer.maximumTokenLength }
    static var maximumDepth: Int { XMLTokenizer.maximumDepth }
    static var maximumNameLength: Int { XMLTokenizer.maximumNameLength }

    let path: String
    private var tokenizer: XMLTokenizer

    init(path: String, format: String, root: String) {
        self.path = path
        tokenizer = XMLTokenizer(format: format, root: root)
    }

    func deallocate() { tokenizer.deallocate() }

    var finished: Bool { tokenizer.finished }
    var depth: Int { tokenizer.depth }
    var name: UnsafeRawBufferPointer { tokenizer.name }
    var text: UnsafeRawBufferPointer { tokenizer.text }

    func hasLocalName(_ local: StaticString) -> Bool { tokenizer.hasLocalName(local) }
    func attribute(_ local: StaticString) -> String? { tokenizer.attribute(local) }
    mutating func location() -> XMLLocation { tokenizer.location() }

    mutating func next() throws -> Token? {
        do { return try tokenizer.next() } catch let error as XMLError { throw InputError(path: path, xml: error) }
    }

    mutating func inputSpace() throws -> UnsafeMutableRawBufferPointer {
        do { return try tokenizer.inputSpace() } catch let error as XMLError { throw InputError(path: path, xml: error) }
    }

    mutating func received(_ count: Int) { tokenizer.received(count) }

    /// A problem at `location`, for ``TrackSink/unreadablePoint(_:)`` or to throw.
    func problem(_ reason: String, at location: XMLLocation) -> InputError {
        InputError(path: path, line: location.line, reason: "byte \(location.offset): \(reason)")
    }
}

extension InputError {
    /// The tokenizer's error for the input at `path`: `FILE:LINE: byte N: reason`.
    init(path: String, xml error: XMLError) {
        self.init(path: path, line: error.line, reason: "byte \(error.offset): \(error.reason)")
    }
}
