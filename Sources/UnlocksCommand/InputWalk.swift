import RegionTables
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's path as the bytes the system knows it by, and as the user is shown it. Names found
/// in folders are bytes and need not be UTF-8; ``display`` escapes what is not
/// (``EscapedName``), ``bytes`` opens the file.
struct InputPath: Hashable {
    /// The path's bytes, without a terminating NUL.
    let bytes: [UInt8]
    /// The path as text, for reports and errors.
    let display: String

    /// A path the user typed (command-line arguments reach Swift as text).
    init(_ text: String) {
        bytes = Array(text.utf8)
        display = text
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
        display = EscapedName.string(from: bytes)
    }

    /// A path opened by one name and shown by another (standard input's copy, shown as `-`).
    init(bytes: [UInt8], display: String) {
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

    /// The file opened for reading.
    func openFile() throws -> FileSource {
        let fd = withCString { open($0, O_RDONLY) }
        guard fd >= 0 else { throw InputError(path: display, reason: "cannot open: \(String(cString: strerror(errno)))") }
        return FileSource(descriptor: fd, path: display)
    }
}

/// Finds the files under the paths the user gave: folders are walked recursively in name order
/// (by bytes, so runs are deterministic). Every file met is returned, the ones not to be read
/// with the reason:
/// - each file and folder is visited once, known by its device and inode: a folder reached again
///   (a symbolic link to `.` or to a parent) is not walked again, a file reached again is a
///   `duplicate` of the first path it was found by;
/// - names are read as bytes: one that is not UTF-8 is found like any other and shown escaped;
/// - hidden entries (names starting with a dot) are not read; a hidden folder is listed once,
///   not walked.
enum InputWalk {
    struct Found {
        var path: InputPath
        var size: Int64
        /// Given on the command line (read whatever its name), or found in a folder (read only
        /// when its name is a track format or an archive).
        var explicit: Bool
        /// Why the file is not to be read (it repeats an earlier one, it is hidden), or nil.
        var skipReason: SkipReason? = nil
        /// For a duplicate: the path it was first found by.
        var duplicateOf: String? = nil
        /// The name that decides how the file is read, when not its path: standard input's,
        /// `-`, `-.gz` or `-.zip` by its first bytes (``StandardInputCopy``).
        var formatName: String? = nil
    }

    /// A file's identity on its device.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    private struct Walk {
        var found: [Found] = []
        var folders: Set<FileIdentity> = []
        var files: [FileIdentity: String] = [:]

        mutating func add(_ path: InputPath, _ status: stat, explicit: Bool) {
            let identity = FileIdentity(status)
            if let first = files[identity] {
                found.append(Found(path: path, size: Int64(status.st_size), explicit: explicit, skipReason: .duplicate, duplicateOf: first))
            } else {
                files[identity] = path.display
                found.append(Found(path: path, size: Int64(status.st_size), explicit: explicit))
            }
        }

        mutating func walk(_ directory: InputPath) throws {
            guard let handle = directory.withCString({ opendir($0) }) else {
                throw InputError(path: directory.display, reason: "cannot list: \(String(cString: strerror(errno)))")
            }
            var names: [[UInt8]] = []
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
                if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
            }
            closedir(handle)
            for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let path = directory.appending(name)
                guard let status = path.status() else {
                    // A dangling link or an entry that vanished: a file the run cannot open.
                    found.append(Found(path: path, size: 0, explicit: false))
                    continue
                }
                let isFolder = (status.st_mode & S_IFMT) == S_IFDIR
                if name.first == UInt8(ascii: ".") {
                    found.append(Found(path: path, size: isFolder ? 0 : Int64(status.st_size), explicit: false,
                                       skipReason: isFolder ? .hiddenFolder : .hidden))
                } else if isFolder {
                    if folders.insert(FileIdentity(status)).inserted { try walk(path) }
                } else if (status.st_mode & S_IFMT) == S_IFREG {
                    add(path, status, explicit: false)
                } else {
                    found.append(Found(path: path, size: 0, explicit: false, skipReason: .notARegularFile))
                }
            }
        }
    }

    /// The files under `paths`; `-` is standard input, copied first (``StandardInputCopy``).
    static func files(under paths: [String]) throws -> [Found] {
        var walk = Walk()
        guard paths.filter({ $0 == "-" }).count <= 1 else {
            throw UsageError(message: "'-' (standard input) given more than once")
        }
        for text in paths {
            if text == "-" {
                let copy = try StandardInputCopy.make()
                walk.found.append(Found(path: copy.path, size: copy.size, explicit: true, formatName: copy.formatName))
                continue
            }
            let path = InputPath(text)
            guard let status = path.status() else {
                throw InputError(path: text, reason: "cannot open: \(String(cString: strerror(errno)))")
            }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                if walk.folders.insert(FileIdentity(status)).inserted { try walk.walk(path) }
            } else {
                walk.add(path, status, explicit: true)
            }
        }
        return walk.found
    }

    /// The file's identity by content: its size and XXH64 over every byte, block by block
    /// (1 MiB blocks, each block's hash the seed of the next), as `c1-SIZE-HASH`. Two files are
    /// one input only when their whole contents agree, never by a sample of them: a logger file
    /// that grew, or two files equal at both ends, are different inputs. The first pass costs a
    /// read of the file, which the reader then takes from the page cache.
    static func fingerprint(_ path: InputPath, size: Int64) throws -> String {
        let fd = path.withCString { open($0, O_RDONLY | O_NONBLOCK) }
        guard fd >= 0 else { throw InputError(path: path.display, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var hash: UInt64 = 0, total: Int64 = 0
        while true {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw InputError(path: path.display, reason: "read failed at byte \(total): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            hash = block.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[0..<n]), seed: hash) }
            total += Int64(n)
        }
        return "c1-\(total)-" + String(hash, radix: 16)
    }
}
