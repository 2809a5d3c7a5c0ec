#if canImport(Glibc)
import Glibc
#endif
import CArchive
import Tracks

/// A `.zip` archive walked entry by entry, each entry streamed as a ``ByteSource`` straight out
/// of libarchive: nothing is unpacked to disk, memory stays constant.
///
/// Rules (see `docs/input-formats.md`, "Compressed files and archives"):
/// - Regular files are offered in archive order; directories are passed over silently.
/// - Nested archives (`.zip`, `.tar`, `.tgz`, `.tar.gz`, `.7z`, `.rar`, `.jar`) are not opened:
///   their entries come with a ``ArchiveEntry/skipReason``, as do encrypted entries and links.
///   A `.gz` entry is an ordinary entry; wrap it in ``GzipSource/init(wrapping:path:)`` to read
///   it decompressed (one level of gzip inside a zip).
/// - An entry that breaks ``DecompressionLimits`` (measured against the compressed bytes read
///   for it) or whose data is corrupt throws from ``ArchiveEntry/read(into:)`` with the path
///   `archive.zip:entry/path`; the walk goes on with the next entry where libarchive can.
///   The limits also hold for the whole archive (all entries' output against the archive's
///   size), which stops bombs made of many entries or of entries sharing compressed data.
///   A damaged central directory or header stops the walk with an error naming the archive.
public final class ZipArchive {
    /// The archive as the user named it.
    public let path: String

    /// Entry names ending in these are archives themselves and are not opened.
    public static let nestedArchiveSuffixes = [".zip", ".tar", ".tgz", ".tar.gz", ".7z", ".rar", ".jar"]

    /// Output of all entries so far, and the archive's size on disk.
    fileprivate var produced: Int64 = 0
    fileprivate private(set) var size: Int64 = 0

    public init(path: String) {
        self.path = path
    }

    /// Calls `body` with each file entry in turn. The entry can be read only during the call;
    /// whatever `body` leaves unread is skipped. An error `body` throws ends the walk and is
    /// rethrown, so catch per-entry errors inside `body` to go on.
    ///
    /// - Throws: ``InputError`` naming the archive when it cannot be opened or its structure
    ///   is damaged beyond the current entry.
    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        guard let archive = archive_read_new() else { throw InputError(path: path, reason: "libarchive: out of memory") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            throw InputError(path: path, reason: "not readable as a zip archive: \(GzipSource.message(archive))")
        }
        var status = stat()
        size = stat(path, &status) == 0 ? Int64(status.st_size) : 0
        produced = 0
        while true {
            var header: OpaquePointer?
            let status = archive_read_next_header(archive, &header)
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let header else {
                throw InputError(path: path, reason: "damaged zip archive: \(GzipSource.message(archive))")
            }
            let name = archive_entry_pathname_utf8(header).map { String(cString: $0) }
                ?? archive_entry_pathname(header).map { String(cString: $0) } ?? "?"
            let type = archive_entry_filetype(header)
            if type == 0o040000 { continue }  // AE_IFDIR
            let entry = ArchiveEntry(owner: self, archive: archive, name: name, path: "\(path):\(name)",
                                     skipReason: Self.skipReason(name: name, type: type, encrypted: archive_entry_is_encrypted(header) != 0))
            defer { entry.close() }
            try body(entry)
        }
    }

    static func skipReason(name: String, type: mode_t, encrypted: Bool) -> String? {
        if encrypted { return "encrypted entry; not read" }
        if type != 0o100000 { return "not a regular file; not read" }  // AE_IFREG
        let lower = name.lowercased()
        if nestedArchiveSuffixes.contains(where: { lower.hasSuffix($0) }) {
            return "archive inside an archive; not opened (unpack it and pass it on its own)"
        }
        return nil
    }
}

/// One entry of a ``ZipArchive``, readable only during the ``ZipArchive/forEachEntry(_:)``
/// call that offers it.
public final class ArchiveEntry: ByteSource {
    /// The entry's path inside the archive.
    public let name: String
    /// `archive.zip:entry/path`, the name used in errors and reports.
    public let path: String
    /// Why the entry is not read (nested archive, encrypted, not a file), or nil.
    public let skipReason: String?

    private unowned let owner: ZipArchive
    private let archive: OpaquePointer
    private var open = true
    private var produced: Int64 = 0
    private let consumedAtStart: Int64

    init(owner: ZipArchive, archive: OpaquePointer, name: String, path: String, skipReason: String?) {
        self.owner = owner
        self.archive = archive
        self.name = name
        self.path = path
        self.skipReason = skipReason
        consumedAtStart = archive_filter_bytes(archive, -1)
    }

    func close() { open = false }

    /// Fills `buffer` with the entry's decompressed bytes; 0 at its end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let skipReason { throw InputError(path: path, reason: skipReason) }
        guard open else { throw InputError(path: path, reason: "read after the archive walk moved on") }
        guard buffer.count > 0 else { return 0 }
        let n = archive_read_data(archive, buffer.baseAddress, buffer.count)
        if n < 0 {
            open = false
            throw InputError(path: path, reason: "entry data unreadable after \(produced) bytes: \(GzipSource.message(archive))")
        }
        produced += Int64(n)
        owner.produced += Int64(n)
        let consumed = archive_filter_bytes(archive, -1) - consumedAtStart
        if let bomb = DecompressionLimits.check(output: produced, input: consumed, path: path) {
            // Refused on its own, so its output does not count against the other entries.
            owner.produced -= produced
            open = false
            throw bomb
        }
        if let bomb = DecompressionLimits.check(output: owner.produced, input: owner.size, path: path,
                                                what: "the archive's entries so far decompress") {
            open = false
            throw bomb
        }
        return n
    }
}
