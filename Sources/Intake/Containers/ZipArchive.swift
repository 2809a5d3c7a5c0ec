import Tracks

/// A `.zip` archive (PKWARE's APPNOTE: stored and deflated members, zip64, data descriptors)
/// walked member by member, each member's data streamed: nothing is unpacked to disk, memory
/// stays constant.
///
/// Rules (docs/input-formats.md, "Compressed files and archives"):
/// - A file (random access) is read through its central directory, members in the order of
///   their data in the file; a stream (a zip inside an archive) through its local headers, in
///   order. Directories are passed over; links and other special members are offered as
///   ``ArchiveEntry/Kind/notARegularFile``, encrypted members as encrypted, neither readable.
/// - A central directory that cannot be used (missing, cut off, damaged) does not lose the
///   archive: its members are recovered from their local headers, and ``damage`` names what
///   was wrong and where, so the archive is listed and named, never silently empty.
/// - Names: with the UTF-8 flag (general purpose bit 11) as UTF-8, without it as the bytes the
///   writer's code page made; either way bytes that are not UTF-8 are escaped as `\xNN`
///   (``EscapedName``), never dropped.
/// - Each member's CRC-32 and size are checked at its end (kind ``InputError/Kind/checksumMismatch``);
///   ``DecompressionLimits`` hold per member (against its compressed bytes) and for the whole
///   archive (all members' output against the archive's size).
public final class ZipArchive {
    /// The archive as the user is shown it.
    public let path: String
    private enum Origin {
        case random(any RandomAccessBytes)
        case stream(InputBuffer)
    }
    private let origin: Origin
    /// What was wrong with the archive's structure when its members had to be recovered from
    /// their local headers, or what stopped the walk; nil for a sound archive.
    public private(set) var damage: InputError?
    /// Members offered (files, links, encrypted; directories not counted).
    public private(set) var membersOffered = 0

    init(random bytes: any RandomAccessBytes, path: String) {
        self.path = path
        origin = .random(bytes)
    }

    /// The zip file at `path` (read at random: its central directory first).
    public convenience init(path: String) throws {
        self.init(random: try RandomAccessFile(descriptor: try InputPath(path).openDescriptor(), path: path), path: path)
    }

    /// A zip the app holds in memory.
    public convenience init(bytes: [UInt8], path: String) {
        self.init(random: RandomAccessMemory(bytes), path: path)
    }

    /// The archive `source` yields, read forward once (a zip inside an archive).
    public init(streaming source: some ByteSource, path: String) {
        self.path = path
        origin = .stream(InputBuffer(source))
    }

    /// Calls `body` with each member in turn (see the type's rules). An error `body` throws ends
    /// the walk and is rethrown; the walk's own problems end it too and are kept in ``damage``.
    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        switch origin {
        case let .random(bytes):
            let members: [ZipMember]
            do {
                members = try ZipCentralDirectory.members(of: bytes, path: path)
            } catch let problem as InputError where problem.kind == .damaged || problem.kind == .truncated {
                // Recovered through the local headers, from the start of the file.
                var walk = ZipLocalWalk(input: InputBuffer(RangeSource(bytes)), path: path, recovering: true)
                let tally = ArchiveTally(compressedBytes: { bytes.size })
                try walk.forEachEntry(tally: tally) { try offer($0, body) }
                damage = InputError(path: path, reason: problem.reason + "; \(membersOffered) entr\(membersOffered == 1 ? "y" : "ies") recovered from their local headers",
                                    kind: problem.kind)
                return
            }
            try walkCentralDirectory(members, bytes: bytes, body)
        case let .stream(input):
            var walk = ZipLocalWalk(input: input, path: path, recovering: false)
            let tally = ArchiveTally(compressedBytes: { input.offset })
            do {
                try walk.forEachEntry(tally: tally) { try offer($0, body) }
            } catch let problem as InputError where problem.path == path {
                damage = problem
                throw problem
            }
        }
    }

    private func offer(_ entry: ArchiveEntry, _ body: (ArchiveEntry) throws -> Void) throws {
        guard entry.kind != .directory else { return try entry.close() }
        membersOffered += 1
        do {
            try body(entry)
        } catch {
            try? entry.close()
            throw error
        }
        try entry.close()
    }

    private func walkCentralDirectory(_ members: [ZipMember], bytes: any RandomAccessBytes, _ body: (ArchiveEntry) throws -> Void) throws {
        var names = EntryNames()
        let tally = ArchiveTally(compressedBytes: { bytes.size })
        for member in members {
            let entryName = EntryName(member.name)
            let name = entryName.text
            let occurrence = names.occurrence(of: name)
            var data: (any EntryData)?
            let entryPath = "\(path):\(name)" + (occurrence > 1 ? "#\(occurrence)" : "")
            if let problem = entryName.problem(archivePath: path, occurrence: occurrence, at: member.localHeaderOffset) {
                data = FailingEntryData(problem)
            } else if member.kind == .file, !member.isEncrypted {
                data = try member.data(in: bytes, path: entryPath, tally: tally)
            }
            try offer(ArchiveEntry(name: name, archivePath: path, occurrence: occurrence, kind: member.kind,
                                   isEncrypted: member.isEncrypted, data: data), body)
        }
    }
}

/// What the central directory says of one member.
struct ZipMember {
    var name: [UInt8]
    var flags: UInt16
    var method: UInt16
    var crc: UInt32
    var compressedSize: Int64
    var size: Int64
    var localHeaderOffset: Int64
    var kind: ArchiveEntry.Kind
    var isEncrypted: Bool { flags & 1 != 0 }

    /// The member's data, from its local header on (a member whose local header is missing or
    /// whose method is not read throws when read, naming it; the walk goes on).
    func data(in bytes: any RandomAccessBytes, path: String, tally: ArchiveTally) throws -> any EntryData {
        guard let header = try bytes.bytes(at: localHeaderOffset, count: 30),
              ZipLocalWalk.uint32(header, 0) == ZipLocalWalk.localSignature else {
            return FailingEntryData(InputError(path: path, reason: "damaged zip entry: no local header at byte \(localHeaderOffset)", kind: .damaged))
        }
        guard let method = ZipLocalWalk.method(self.method) else {
            return FailingEntryData(ZipLocalWalk.unsupportedMethod(self.method, path: path))
        }
        let start = localHeaderOffset + 30 + Int64(ZipLocalWalk.uint16(header, 26)) + Int64(ZipLocalWalk.uint16(header, 28))
        return ZipEntryData(input: InputBuffer(RangeSource(bytes, from: start, count: compressedSize)), path: path, method: method,
                            compressedSize: compressedSize, crc: crc, size: size, descriptor: (false, false), forwardOnly: false, tally: tally)
    }
}

/// Data that cannot be read, and says why when asked; in a forward-only archive, the member's
/// own data (`passing`) is still passed over to reach the next.
final class FailingEntryData: EntryData {
    let problem: InputError
    let passing: (any EntryData)?
    init(_ problem: InputError, passing: (any EntryData)? = nil) {
        self.problem = problem
        self.passing = passing
    }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { throw problem }
    func passOver() throws { try passing?.passOver() }
}
