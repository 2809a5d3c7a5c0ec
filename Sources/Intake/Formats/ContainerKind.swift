import Tracks

/// The archives the intake opens: zip (and KMZ, a zip whose KML documents are its tracks, and Fog
/// of World's `.fwss` snapshot, a zip of its tiles), and tar, on its own or through gzip (`.tgz`,
/// `.tar.gz`).
enum ContainerKind: Equatable {
    case zip
    case tar
    case gzippedTar

    /// By the name (any case).
    init?(name: String) {
        let lower = name.lowercased()
        // A Fog of World snapshot (`.fwss`) is a zip of its tiles (`Model/*/…`).
        if lower.hasSuffix(".zip") || lower.hasSuffix(".kmz") || lower.hasSuffix(".fwss") { self = .zip }
        else if lower.hasSuffix(".tar") { self = .tar }
        else if lower.hasSuffix(".tgz") || lower.hasSuffix(".tar.gz") { self = .gzippedTar }
        else { return nil }
    }

    /// Archive formats inside archives that are not opened.
    static let otherArchiveSuffixes = [".7z", ".rar", ".jar"]

    /// By the first bytes of a stream whose name says nothing (standard input, a file named on the
    /// command line): a zip's local header or end record, a tar's `ustar` magic. (gzip, `1f 8b`,
    /// is undone first, and what it holds recognised in turn.)
    init?(content bytes: [UInt8]) {
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) { self = .zip }
        else if bytes.count >= 262, bytes[257..<262].elementsEqual(Array("ustar".utf8)) { self = .tar }
        else { return nil }
    }

    static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x1F, 0x8B]) }

    var recordFormat: String { self == .zip ? "zip" : "tar" }
}

/// A zip or tar archive, walked alike.
enum ArchiveWalk {
    case zip(ZipArchive)
    case tar(TarArchive)

    func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        switch self {
        case let .zip(archive): try archive.forEachEntry(body)
        case let .tar(archive): try archive.forEachEntry(body)
        }
    }

    /// What was wrong with the archive's structure (members recovered, or the walk stopped).
    var damage: InputError? {
        switch self {
        case let .zip(archive): archive.damage
        case let .tar(archive): archive.damage
        }
    }

    var membersOffered: Int {
        switch self {
        case let .zip(archive): archive.membersOffered
        case let .tar(archive): archive.membersOffered
        }
    }
}

/// Any byte source as one concrete type, so each reader is compiled once for the intake's sink
/// and the per-chunk call goes through the existential (a call per 64 KiB or more).
struct AnySource: ByteSource {
    var base: any ByteSource
    init(_ base: any ByteSource) { self.base = base }
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try base.read(into: buffer) }
}

/// A source whose first bytes were read ahead (to recognise the format) and are replayed.
struct ReplayingSource<Base: ByteSource>: ByteSource {
    var prefix: [UInt8]
    var prefixOffset = 0
    var base: Base

    /// Reads up to `count` bytes ahead from `base`.
    init(_ base: Base, lookahead count: Int = 4096) throws {
        var base = base
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try buffer.withUnsafeMutableBytes { try base.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if n == 0 { break }
            filled += n
        }
        self.base = base
        prefix = Array(buffer[0..<filled])
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if prefixOffset < prefix.count {
            let n = min(buffer.count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + prefixOffset, byteCount: n) }
            prefixOffset += n
            return n
        }
        return try base.read(into: buffer)
    }
}
