#if canImport(Glibc)
import Glibc
#endif
import CArchive
import Tracks

/// A `.zip` archive walked entry by entry, each entry streamed as a ``ByteSource`` straight out
/// of libarchive: nothing is unpacked to disk, memory stays constant.
///
/// Rules (see `docs/input-formats.md`, "Compressed files and archives"):
/// - Regular files are offered in archive order; directories are passed over silently. Two
///   entries with the same name are two entries.
/// - Names: with the UTF-8 flag (general purpose bit 11) as UTF-8; without it, as the bytes
///   stored (CP437, GBK, …: whatever the writer's code page was), valid UTF-8 read as such and
///   other bytes escaped as `\xNN` (``EscapedName``), never dropped. libarchive converts
///   flagged names to the current locale's charset, so each header is read under a UTF-8
///   locale set for the calling thread only (`uselocale`), never the process's global one.
/// - A zip inside a zip: ``ArchiveEntry/isZip``; open it with ``init(streaming:path:)`` (a
///   forward-only stream through the outer entry, constant memory). Other archives (`.tar`,
///   `.tgz`, `.tar.gz`, `.7z`, `.rar`, `.jar`) come with a ``ArchiveEntry/skipReason``, as do
///   encrypted entries and links. A `.gz` entry is an ordinary entry; wrap it in
///   ``GzipSource/init(wrapping:path:)`` to read it decompressed.
/// - An entry that breaks ``DecompressionLimits`` (measured against the compressed bytes read
///   for it) or whose data is corrupt throws from ``ArchiveEntry/read(into:)`` with the path
///   `archive.zip:entry/path`; the walk goes on with the next entry where libarchive can.
///   The limits also hold for the whole archive (all entries' output against the archive's
///   size), which stops bombs made of many entries or of entries sharing compressed data.
///   A damaged central directory or header stops the walk with an error naming the archive.
public final class ZipArchive {
    /// The archive as the user is shown it.
    public let path: String

    /// Entry names ending in these are archives this walk does not open.
    public static let otherArchiveSuffixes = [".tar", ".tgz", ".tar.gz", ".7z", ".rar", ".jar"]

    private enum Origin {
        /// A file, by the bytes of its name (which need not be UTF-8).
        case file([CChar])
        /// A forward-only stream (a zip inside a zip), walked once.
        case stream(Feeder)
    }
    private let origin: Origin

    /// Output of all entries so far, and the archive's size (compressed bytes read so far, for
    /// a stream).
    fileprivate var produced: Int64 = 0
    fileprivate private(set) var size: Int64 = 0
    private var walked = false

    /// The archive in the file at `path`.
    public convenience init(path: String) {
        self.init(fileName: Array(path.utf8), path: path)
    }

    /// The archive in the file whose name is the bytes `fileName`; `path` names it in errors.
    public init(fileName: [UInt8], path: String) {
        self.path = path
        origin = .file(fileName.map { CChar(bitPattern: $0) } + [0])
    }

    /// The archive `source` yields, read forward once (libarchive's streaming zip reader: local
    /// headers in order, no central directory). `path` names it (`outer.zip:inner.zip`).
    public init<Source: ByteSource>(streaming source: Source, path: String) {
        self.path = path
        origin = .stream(Feeder(source))
    }

    /// Calls `body` with each file entry in turn. The entry can be read only during the call;
    /// whatever `body` leaves unread is skipped. An error `body` throws ends the walk and is
    /// rethrown, so catch per-entry errors inside `body` to go on. A file archive can be walked
    /// again; a stream only once.
    ///
    /// - Throws: ``InputError`` naming the archive when it cannot be opened or its structure
    ///   is damaged beyond the current entry.
    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        guard let archive = archive_read_new() else { throw InputError(path: path, reason: "libarchive: out of memory") }
        defer { archive_read_free(archive) }
        produced = 0
        var occurrences: [String: Int] = [:]
        switch origin {
        case let .file(name):
            archive_read_support_format_zip(archive)
            guard archive_read_open_filename(archive, name, 1 << 16) == ARCHIVE_OK else {
                throw InputError(path: path, reason: "not readable as a zip archive: \(GzipSource.message(archive))")
            }
            var status = stat()
            size = stat(name, &status) == 0 ? Int64(status.st_size) : 0
        case let .stream(feeder):
            guard !walked else { throw InputError(path: path, reason: "a streamed archive can be walked only once") }
            walked = true
            archive_read_support_format_zip_streamable(archive)
            guard archive_read_open(archive, Unmanaged.passUnretained(feeder).toOpaque(), nil, feederRead, nil) == ARCHIVE_OK else {
                if let failure = feeder.failure { throw failure }
                throw InputError(path: path, reason: "not readable as a zip archive: \(GzipSource.message(archive))")
            }
        }
        while true {
            var header: OpaquePointer?
            let status = EntryNames.withUTF8Locale { archive_read_next_header(archive, &header) }
            if case let .stream(feeder) = origin {
                if let failure = feeder.failure { throw failure }
                size = feeder.consumed
            }
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let header else {
                throw InputError(path: path, reason: "damaged zip archive: \(GzipSource.message(archive))")
            }
            let readName = EntryNames.name(of: header)
            let name = readName ?? "?"
            let type = archive_entry_filetype(header)
            if type == 0o040000 { continue }  // AE_IFDIR
            let encrypted = archive_entry_is_encrypted(header) != 0
            occurrences[name, default: 0] += 1
            let occurrence = occurrences[name]!
            let entry = ArchiveEntry(owner: self, archive: archive, name: name,
                                     path: "\(path):\(name)" + (occurrence > 1 ? "#\(occurrence)" : ""), occurrence: occurrence,
                                     isRegularFile: type == 0o100000, isEncrypted: encrypted, hasUnreadableName: readName == nil,
                                     skipReason: Self.skipReason(name: name, type: type, encrypted: encrypted))
            defer { entry.close() }
            try body(entry)
        }
    }

    /// For a stream: its compressed bytes so far stand in for the archive's size.
    fileprivate func refreshSize() {
        if case let .stream(feeder) = origin { size = feeder.consumed }
    }

    static func skipReason(name: String, type: mode_t, encrypted: Bool) -> String? {
        if encrypted { return "encrypted entry; not read" }
        if type != 0o100000 { return "not a regular file; not read" }  // AE_IFREG
        let lower = name.lowercased()
        if otherArchiveSuffixes.contains(where: { lower.hasSuffix($0) }) {
            return "archive format not read (unpack it and pass it on its own)"
        }
        return nil
    }
}

/// Entry names as text, whatever their encoding (see ``ZipArchive``).
enum EntryNames {
    #if canImport(Glibc)
    /// A UTF-8 character type for the threads reading headers; nil when the system has none
    /// (flagged names then come out as libarchive converts them).
    nonisolated(unsafe) static let utf8Locale: locale_t? = {
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] {
            if let locale = newlocale(LC_CTYPE_MASK, name, nil) { return locale }
        }
        return nil
    }()
    #endif

    /// Runs `body` with the calling thread's locale set to UTF-8, then restores it.
    static func withUTF8Locale<T>(_ body: () -> T) -> T {
        #if canImport(Glibc)
        guard let utf8Locale else { return body() }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        #endif
        return body()
    }

    /// The entry's name: its bytes (UTF-8 for flagged names, read under ``withUTF8Locale``), as
    /// UTF-8 where valid and escaped where not. Nil for a name flagged UTF-8 that is not: libarchive
    /// keeps nothing of it.
    static func name(of header: OpaquePointer) -> String? {
        guard let raw = archive_entry_pathname(header) else { return nil }
        return EscapedName.string(from: UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
    }
}

/// One entry of a ``ZipArchive``, readable only during the ``ZipArchive/forEachEntry(_:)``
/// call that offers it.
public final class ArchiveEntry: ByteSource {
    /// The entry's path inside the archive.
    public let name: String
    /// `archive.zip:entry/path`, the name used in errors and reports; for the second and later
    /// entries of the same name `archive.zip:entry/path#2`, … (two entries are two inputs).
    public let path: String
    /// 1 for the first entry of its name in the archive, 2 for the next, …
    public let occurrence: Int
    public let isRegularFile: Bool
    public let isEncrypted: Bool
    /// The name is flagged UTF-8 but is not (a broken writer): libarchive gives none, so the entry
    /// is named `?` and cannot be told by its name.
    public let hasUnreadableName: Bool
    /// Why the entry is not read (an archive other than zip, encrypted, not a file), or nil.
    public let skipReason: String?
    /// A zip inside this zip (open it with ``ZipArchive/init(streaming:path:)``).
    public var isZip: Bool { isRegularFile && !isEncrypted && name.lowercased().hasSuffix(".zip") }

    private unowned let owner: ZipArchive
    private let archive: OpaquePointer
    private var open = true
    private var produced: Int64 = 0
    private let consumedAtStart: Int64

    init(owner: ZipArchive, archive: OpaquePointer, name: String, path: String, occurrence: Int,
         isRegularFile: Bool, isEncrypted: Bool, hasUnreadableName: Bool, skipReason: String?) {
        self.owner = owner
        self.hasUnreadableName = hasUnreadableName
        self.occurrence = occurrence
        self.isRegularFile = isRegularFile
        self.isEncrypted = isEncrypted
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
        owner.refreshSize()
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
