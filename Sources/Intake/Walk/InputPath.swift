import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's path as the bytes the system knows it by, and as the user is shown it. Names found
/// in folders are bytes and need not be UTF-8; ``display`` escapes what is not
/// (``EscapedName``), ``bytes`` opens the file.
public struct InputPath: Hashable, Sendable {
    /// The path's bytes, without a terminating NUL.
    public let bytes: [UInt8]
    /// The path as text, for reports and errors.
    public let display: String

    /// A path the user typed (command-line arguments reach Swift as text).
    public init(_ text: String) {
        bytes = Array(text.utf8)
        display = text
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
        display = EscapedName.string(from: bytes)
    }

    /// A path opened by one name and shown by another (standard input's copy, shown as `-`).
    public init(bytes: [UInt8], display: String) {
        self.bytes = bytes
        self.display = display
    }

    /// This folder's entry `name`.
    func appending(_ name: [UInt8]) -> InputPath {
        InputPath(bytes: bytes.last == UInt8(ascii: "/") ? bytes + name : bytes + [UInt8(ascii: "/")] + name)
    }

    /// Calls `body` with the path as a C string.
    func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `stat` of the file (following links), or nil with `errno` set.
    func status() -> stat? {
        var status = stat()
        return withCString { stat($0, &status) } == 0 ? status : nil
    }

    /// The file's descriptor, opened for reading.
    func openDescriptor() throws -> Int32 {
        let fd = withCString { open($0, O_RDONLY) }
        guard fd >= 0 else { throw InputError(path: display, reason: "cannot open: \(String(cString: strerror(errno)))", kind: .unreadable) }
        return fd
    }

    /// The file opened for reading.
    func openFile() throws -> FileSource {
        FileSource(descriptor: try openDescriptor(), path: display)
    }
}

/// A file's identity on its device.
/// A file as the system knows it (device and inode): the same file whatever path reaches it.
package struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
    package init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

extension String {
    /// Byte order of the UTF-8 text: the order that decides between copies (deterministic and
    /// the same on every platform and locale).
    func precedesInBytes(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }
}

