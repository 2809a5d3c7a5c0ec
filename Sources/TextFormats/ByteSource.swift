#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something bytes can be read from in chunks: a file, standard input, later a decompressor.
public protocol ByteSource {
    /// Fills up to `buffer.count` bytes; returns how many, 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// An error reading input, naming the input so the user can find it, with a ``Kind`` callers
/// switch on (never the text of ``reason``).
public struct InputError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, for callers that act on it.
    public enum Kind: Equatable, Sendable {
        /// The content breaks its format (the default for a reader's errors).
        case malformed
        /// Well-formed, but none of the structures the reader knows (a JSON file that is no
        /// track format): found in a folder, such a file is skipped rather than rejected.
        case unknownStructure
        /// The file could not be opened or read (a system error).
        case unreadable
        /// The data ends before its format says it does (a cut download).
        case truncated
        /// A container's structure or compressed data is damaged.
        case damaged
        /// A CRC-32 or length check failed: the damage may be anywhere in the data, so nothing
        /// of the input is counted.
        case checksumMismatch
        /// A decompression bomb (``DecompressionLimits``) or another size limit.
        case decompressionBomb
        /// A feature of the container that is not read (a compression method, encryption).
        case unsupported
        /// A photo (or its sidecar) that holds no position: no track, skipped rather than rejected.
        case noLocation
    }

    /// The file as the user named it (`-` for standard input).
    public let path: String
    /// 1-based line number, when the problem is on a line.
    public let line: Int?
    public let reason: String
    public let kind: Kind

    public init(path: String, line: Int? = nil, reason: String, kind: Kind = .malformed) {
        self.path = path
        self.line = line
        self.reason = reason
        self.kind = kind
    }

    /// `FILE:LINE: reason`, the form the CLI prints after `unlocks: `.
    public var description: String {
        if let line { return "\(path):\(line): \(reason)" }
        return "\(path): \(reason)"
    }
}

/// Reads a file (or standard input) through its descriptor, closing it when done if it opened it.
public final class FileSource: ByteSource {
    public let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading; `-` means standard input.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                throw InputError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))", kind: .unreadable)
            }
            var status = stat()
            if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw InputError(path: path, reason: "is a directory, expected a file")
            }
            descriptor = fd
            ownsDescriptor = true
        }
    }

    /// Reads an open descriptor and closes it when done (for files opened by the bytes of their
    /// name, which need not be UTF-8); `path` names it in errors.
    public init(descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = readDescriptor(descriptor, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw InputError(path: path, reason: "read failed: \(String(cString: strerror(errno)))", kind: .unreadable)
        }
    }
}

/// Reads bytes held in memory: what an app decompressed or unpacked itself (a `.gz` through
/// Apple's Compression framework, a zip entry, a download), for any reader (docs/embedding.md).
public struct MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
        }
        offset += count
        return count
    }
}

/// `read(2)`, named apart from ``FileSource/read(into:)``, which hides the C function inside the
/// type. Unqualified, so it is Glibc's on Linux and Darwin's on Apple platforms.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
