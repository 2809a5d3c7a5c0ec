import CArchive
import Tracks

/// Limits that keep a hostile archive from running away with time or disk (memory is constant
/// anyway: everything streams).
public enum DecompressionLimits {
    /// Output below this many bytes is never questioned.
    public static var freeBytes: Int64 { 64 << 20 }
    /// Past ``freeBytes``, output may be at most this many times the compressed bytes read.
    /// Real tracks compress 5–20:1 (a 200 MB GPX gzips 8.4:1, a CSV 5:1), so 200:1 leaves a
    /// tenfold margin; deflate's own ceiling is about 1032:1, so a rule at 1000:1 would stop only
    /// all-zero streams, while a crafted stream of repeated records sits between the two.
    public static var maximumRatio: Int64 { 200 }

    /// The error when `output` bytes came out of `input` compressed bytes, or nil when fine.
    static func check(output: Int64, input: Int64, path: String, what: String = "decompresses") -> InputError? {
        guard output > freeBytes, output > maximumRatio * max(input, 1) else { return nil }
        return InputError(path: path, reason: "\(what) to more than \(maximumRatio) times its compressed size "
                          + "(\(output) bytes from \(input)): refused as a decompression bomb")
    }
}

/// The decompressed bytes of a gzip (`.gz`) stream, read through libarchive as they are needed:
/// nothing is unpacked to disk and memory stays constant.
///
/// Concatenated gzip members read as one stream. A stream that is not gzip, is truncated or
/// corrupt, or breaks ``DecompressionLimits`` makes ``read(into:)`` throw an ``InputError``
/// naming `path` and the decompressed byte offset reached.
public final class GzipSource: ByteSource {
    /// The name used in errors (for a `.gz` inside a zip: `archive.zip:entry.gpx.gz`).
    public let path: String
    private let archive: OpaquePointer
    private let feeder: Feeder
    private var produced: Int64 = 0
    private var finished = false

    /// Opens the gzip file at `path`.
    public convenience init(path: String) throws {
        try self.init(wrapping: try FileSource(path: path), path: path)
    }

    /// Decompresses the bytes `source` yields; `path` names them in errors.
    public init<Source: ByteSource>(wrapping source: Source, path: String) throws {
        self.path = path
        guard let archive = archive_read_new() else { throw InputError(path: path, reason: "libarchive: out of memory") }
        self.archive = archive
        feeder = Feeder(source)
        archive_read_support_filter_gzip(archive)
        archive_read_support_format_raw(archive)
        archive_read_support_format_empty(archive)  // a gzip of nothing
        let opened = archive_read_open(archive, Unmanaged.passUnretained(feeder).toOpaque(), nil, feederRead, nil)
        var entry: OpaquePointer?
        // Every property is set, so on a throw from here `deinit` frees the archive.
        let status = opened == ARCHIVE_OK ? archive_read_next_header(archive, &entry) : opened
        if let failure = feeder.failure { throw failure }
        guard opened == ARCHIVE_OK else {
            throw InputError(path: path, reason: "not readable as gzip: \(Self.message(archive))")
        }
        guard archive_filter_count(archive) > 1, archive_filter_code(archive, 0) == ARCHIVE_FILTER_GZIP else {
            throw InputError(path: path, reason: "not gzip data (no gzip header)")
        }
        if status == ARCHIVE_EOF {
            finished = true
        } else if status != ARCHIVE_OK {
            throw InputError(path: path, reason: "not readable as gzip: \(Self.message(archive))")
        }
    }

    deinit { archive_read_free(archive) }

    /// Fills `buffer` with decompressed bytes; 0 at the end of the stream.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        let n = archive_read_data(archive, buffer.baseAddress, buffer.count)
        if n < 0 {
            finished = true
            if let failure = feeder.failure { throw failure }
            throw InputError(path: path, reason: "gzip data unreadable after \(produced) decompressed bytes: \(Self.message(archive))")
        }
        if n == 0 { finished = true }
        produced += Int64(n)
        if let bomb = DecompressionLimits.check(output: produced, input: feeder.consumed, path: path) {
            finished = true
            throw bomb
        }
        return n
    }

    static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}

/// Hands a `ByteSource`'s bytes to libarchive's read callback, counting them and keeping the
/// source's own error (which a C callback cannot throw).
final class Feeder {
    private var source: any ByteSource
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    private(set) var consumed: Int64 = 0
    private(set) var failure: Error?

    init(_ source: any ByteSource) {
        self.source = source
    }

    deinit { buffer.deallocate() }

    func next(_ block: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
        do {
            let n = try source.read(into: buffer)
            consumed += Int64(n)
            block.pointee = UnsafeRawPointer(buffer.baseAddress)
            return n
        } catch {
            failure = error
            return -1
        }
    }
}

func feederRead(_ archive: OpaquePointer?, _ context: UnsafeMutableRawPointer?,
                        _ block: UnsafeMutablePointer<UnsafeRawPointer?>?) -> la_ssize_t {
    guard let context, let block else { return -1 }
    return la_ssize_t(Unmanaged<Feeder>.fromOpaque(context).takeUnretainedValue().next(block))
}
