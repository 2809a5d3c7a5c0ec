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

/// Entry names, counted so a repeated one gets its `#2`.
struct EntryNames {
    private var seen: [String: Int] = [:]

    mutating func occurrence(of name: String) -> Int {
        seen[name, default: 0] += 1
        return seen[name]!
    }
}
