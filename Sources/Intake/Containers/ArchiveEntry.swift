import Tracks

/// One member of a zip or tar archive, offered by the archive's walk and readable only during
/// the call that offers it (an archive is read forward; whatever the call leaves unread is
/// skipped).
public final class ArchiveEntry: ByteSource {
    public enum Kind: Sendable {
        case file, directory
        /// A link, device, FIFO or another special member: never read.
        case notARegularFile
    }

    /// The member's name in the archive (escaped where its bytes are not UTF-8, ``EscapedName``).
    public let name: String
    /// `archive.zip:member/path`, the name used in errors and reports; `#2`, `#3`, … appended for
    /// a later member of the same name (two members are two inputs).
    public let path: String
    /// 1 for the first member of its name in the archive, 2 for the next, …
    public let occurrence: Int
    public let kind: Kind
    public let isEncrypted: Bool
    private var data: (any EntryData)?
    private var open = true

    init(name: String, archivePath: String, occurrence: Int, kind: Kind, isEncrypted: Bool, data: (any EntryData)?) {
        self.name = name
        path = "\(archivePath):\(name)" + (occurrence > 1 ? "#\(occurrence)" : "")
        self.occurrence = occurrence
        self.kind = kind
        self.isEncrypted = isEncrypted
        self.data = data
    }

    /// Fills `buffer` with the member's (decompressed) bytes; 0 at its end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard open else { throw InputError(path: path, reason: "read after the archive walk moved on", kind: .unreadable) }
        guard let data else { throw InputError(path: path, reason: "not a readable member", kind: .unsupported) }
        guard buffer.count > 0 else { return 0 }
        return try data.read(into: buffer)
    }

    /// Ends the call: what was not read is passed over (for a stream, read through).
    func close() throws {
        open = false
        try data?.passOver()
        data = nil
    }
}

/// The bytes of one archive member, as the archive delivers them.
protocol EntryData: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Reads past whatever is left of the member (a forward-only archive must, to reach the next).
    func passOver() throws
}

/// Counts an archive's decompressed output against its compressed size, so that a bomb made of
/// many members, or of members sharing compressed data, is stopped as one.
final class ArchiveTally {
    var produced: Int64 = 0
    /// The archive's compressed bytes: its size, or for a stream what was read of it so far.
    let compressedBytes: () -> Int64

    init(compressedBytes: @escaping () -> Int64) {
        self.compressedBytes = compressedBytes
    }

    func add(_ n: Int, path: String) throws {
        produced += Int64(n)
        if let bomb = DecompressionLimits.check(output: produced, input: compressedBytes(), path: path,
                                                what: "the archive's entries so far decompress") {
            throw bomb
        }
    }
}

/// A member's name as the walk offers it. A name longer than any path a file system holds
/// (``maximumBytes``, Linux's `PATH_MAX`; a 1 MiB GNU or pax long name is no path anyone
/// extracted) is shown by its first and last bytes (so its extension still decides whether it
/// is a track), and the member is listed but not read: its name would otherwise be copied into
/// every record and report line that names it.
struct EntryName {
    static let maximumBytes = 4096
    /// The bytes of an overlong name shown from its start, and from its end.
    static let headBytes = 160
    static let tailBytes = 40

    /// A name's bytes as the archive gave them: whole, or (a long name read in passing) its
    /// first bytes, its last bytes and its length.
    struct Parts {
        var head: [UInt8]
        var tail: [UInt8]?
        var length: Int

        init(_ bytes: some Collection<UInt8>) {
            head = Array(bytes)
            tail = nil
            length = head.count
        }

        init(head: [UInt8], tail: [UInt8], length: Int) {
            self.head = head
            self.tail = tail
            self.length = length
        }

        var last: UInt8? { tail?.last ?? head.last }

        /// `./name` is `name`.
        mutating func dropLeadingDotSlash() {
            guard head.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) else { return }
            head.removeFirst(2)
            length -= 2
        }
    }

    /// The name as shown (escaped where not UTF-8, ``EscapedName``), shortened when too long.
    let text: String
    /// The length the archive states, when it is past ``maximumBytes``.
    let overlongBytes: Int?

    init(_ parts: Parts) {
        guard parts.length > Self.maximumBytes else {
            text = EscapedName.string(from: parts.head)
            overlongBytes = nil
            return
        }
        overlongBytes = parts.length
        text = EscapedName.string(from: parts.head.prefix(Self.headBytes)) + "…" + EscapedName.string(from: (parts.tail ?? parts.head).suffix(Self.tailBytes))
    }

    init(_ bytes: [UInt8]) { self.init(Parts(bytes)) }

    /// Why the member cannot be read, for an overlong name.
    func problem(archivePath: String, occurrence: Int, at offset: Int64?) -> InputError? {
        guard let overlongBytes else { return nil }
        return InputError(path: "\(archivePath):\(text)" + (occurrence > 1 ? "#\(occurrence)" : ""),
                          reason: "a member name of \(overlongBytes) bytes\(offset.map { " (header at byte \($0))" } ?? ""), longer than any path a file system holds "
                          + "(\(Self.maximumBytes) bytes): not read", kind: .unsupported)
    }
}

/// Entry names, counted so a repeated one gets its `#2`.
struct EntryNames {
    private var seen: [String: Int] = [:]

    mutating func occurrence(of name: String) -> Int {
        seen[name, default: 0] += 1
        return seen[name]!
    }
}
