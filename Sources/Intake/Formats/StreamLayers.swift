import Tracks

/// What a stream's first bytes say about the layers around its text, checked the same way for
/// every format before its reader sees them (issue 35: each said something unclear, or read
/// nothing, format by format):
/// - gzip data in a stream not named `.gz` is decompressed (a download saved without its
///   `.gz`); gzip inside gzip (compressed twice) is refused, naming what to do: one layer is
///   read, as one level of archive nesting is, so a bomb cannot multiply its ratio;
/// - two UTF-8 byte order marks (text converted to UTF-8 twice) are refused, naming the bytes;
/// - UTF-16 or UTF-32 text (by its byte order mark) is read by the CSV and JSON readers, which
///   convert it (``UTF16TextSource``); any other text format says it reads UTF-8 and to re-save.
enum StreamLayers {
    /// The formats that read UTF-16 text themselves.
    static let readsUTF16: Set<String> = ["csv", "json"]
    /// The formats whose content is binary (no byte order mark applies).
    static let binary: Set<String> = ["photo", "fit", "fogofworld"]

    /// Why a stream whose format is `format` and which begins with `prefix` is not read, or nil.
    static func problem(_ prefix: [UInt8], format: String, path: String) -> InputError? {
        guard !binary.contains(format) else { return nil }
        if prefix.starts(with: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) {
            return InputError(path: path, reason: "the text begins with two UTF-8 byte order marks (EF BB BF EF BB BF at byte 0): it was converted "
                              + "to UTF-8 twice; remove the first three bytes (or re-save it as UTF-8)")
        }
        if let encoding = byteOrderMark(prefix), !readsUTF16.contains(format) {
            return InputError(path: path, reason: "the text is \(encoding) (its byte order mark at byte 0); \(format) is read as UTF-8: re-save it as UTF-8",
                              kind: .unsupported)
        }
        return nil
    }

    /// The encoding a UTF-16 or UTF-32 byte order mark names, or nil.
    static func byteOrderMark(_ prefix: [UInt8]) -> String? {
        if prefix.starts(with: [0xFF, 0xFE, 0, 0]) || prefix.starts(with: [0, 0, 0xFE, 0xFF]) { return "UTF-32" }
        if prefix.starts(with: [0xFF, 0xFE]) || prefix.starts(with: [0xFE, 0xFF]) { return "UTF-16" }
        return nil
    }

    /// The error for gzip data found inside gzip data.
    static func compressedTwice(_ path: String) -> InputError {
        InputError(path: path, reason: "gzip data inside gzip data (compressed twice): decompress it once (gunzip) and give the result; "
                   + "one layer of gzip is read", kind: .unsupported)
    }
}
