import Tracks
import Unlocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file met by the walk: where its bytes are, how it is shown, and whether it is to be read.
public struct WalkedFile: Sendable {
    enum Origin: Sendable {
        case file(InputPath)
        case memory([UInt8])
    }
    let origin: Origin
    /// The path as reports show it.
    public let path: String
    public let size: Int64
    /// Given by the caller (read whatever its name), or found in a folder (read only when its
    /// name is a track format or an archive).
    public let explicit: Bool
    /// Why the file is not to be read (it repeats another, it is hidden), or nil.
    public var skipReason: SkipReason?
    /// For a duplicate: the path of the copy that is read.
    public var duplicateOf: String?
    /// The name that decides how the file is read: its path, except standard input's copy (`-`).
    let name: String

    init(origin: Origin, path: String, size: Int64, explicit: Bool, skipReason: SkipReason? = nil, name: String? = nil) {
        self.origin = origin
        self.path = path
        self.size = size
        self.explicit = explicit
        self.skipReason = skipReason
        self.name = name ?? path
    }
}

/// Finds the files under the sources: folders are walked recursively in name order (by bytes,
/// so runs are deterministic). Every file met is returned, the ones not to be read with the
/// reason:
/// - each file and folder is visited once, known by its device and inode: a folder reached again
///   (a symbolic link to `.` or to a parent) is not walked again; a file reached by several paths
///   is read by the first of them in byte order, the others are its `duplicate`s (whatever the
///   order the paths were given in);
/// - names are read as bytes: one that is not UTF-8 is found like any other and shown escaped;
/// - hidden entries (names starting with a dot) are not read; a hidden folder is listed once,
///   not walked;
/// - a pipe, FIFO, device or socket, found or named, is listed as not a regular file, never read
///   (a stream can be read once only; callers copy it first, as `unlocks` does).
enum InputWalk {
    private struct Walk {
        var found: [WalkedFile] = []
        var folders: Set<FileIdentity> = []
        var files: [FileIdentity: [Int]] = [:]

        mutating func add(_ path: InputPath, _ status: stat, explicit: Bool, name: String? = nil) {
            files[FileIdentity(status), default: []].append(found.count)
            found.append(WalkedFile(origin: .file(path), path: path.display, size: Int64(status.st_size), explicit: explicit, name: name))
        }

        mutating func walk(_ directory: InputPath) throws(IntakeError) {
            guard let handle = directory.withCString({ opendir($0) }) else {
                throw IntakeError(kind: .cannotList, path: directory.display, reason: "cannot list: \(String(cString: strerror(errno)))")
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
                    found.append(WalkedFile(origin: .file(path), path: path.display, size: 0, explicit: false))
                    continue
                }
                let isFolder = (status.st_mode & S_IFMT) == S_IFDIR
                if name.first == UInt8(ascii: ".") {
                    found.append(WalkedFile(origin: .file(path), path: path.display, size: isFolder ? 0 : Int64(status.st_size), explicit: false,
                                            skipReason: isFolder ? .hiddenFolder : .hidden))
                } else if isFolder {
                    if folders.insert(FileIdentity(status)).inserted { try walk(path) }
                } else if (status.st_mode & S_IFMT) == S_IFREG {
                    add(path, status, explicit: false)
                } else {
                    found.append(WalkedFile(origin: .file(path), path: path.display, size: 0, explicit: false, skipReason: .notARegularFile))
                }
            }
        }

        /// A file reached by several paths is read by the first in byte order.
        mutating func markDuplicates() {
            for indices in files.values where indices.count > 1 {
                let first = indices.min { found[$0].path.precedesInBytes(found[$1].path) }!
                for index in indices where index != first {
                    found[index].skipReason = .duplicate
                    found[index].duplicateOf = found[first].path
                }
            }
        }
    }

    /// The files of `sources`, in order.
    static func files(of sources: [IntakeSource]) throws(IntakeError) -> [WalkedFile] {
        var walk = Walk()
        for source in sources {
            switch source.kind {
            case let .memory(name, bytes):
                walk.found.append(WalkedFile(origin: .memory(bytes), path: name, size: Int64(bytes.count), explicit: true))
            case let .path(path, name):
                guard let status = path.status() else {
                    throw IntakeError(kind: .notFound, path: path.display, reason: "cannot open: \(String(cString: strerror(errno)))")
                }
                if (status.st_mode & S_IFMT) == S_IFDIR {
                    if walk.folders.insert(FileIdentity(status)).inserted { try walk.walk(path) }
                } else if (status.st_mode & S_IFMT) == S_IFREG {
                    walk.add(path, status, explicit: true, name: name)
                } else {
                    // A pipe, FIFO, device or socket is a stream, read once: never fingerprinted
                    // and read as a file (a pipe read so gives nothing, or EAGAIN). A caller
                    // copies it first and gives the copy (`unlocks` does, as for `-`).
                    walk.found.append(WalkedFile(origin: .file(path), path: path.display, size: 0, explicit: true, skipReason: .notARegularFile))
                }
            }
        }
        walk.markDuplicates()
        return walk.found
    }
}

extension WalkedFile {
    /// Whether it is a file on disk (not bytes an app handed over, not standard input's copy).
    public var isOnDisk: Bool {
        if case .file = origin, name == path { return true }
        return false
    }

    /// The key an input with these bytes has in a ledger (``Fingerprint``).
    public func contentKey() throws -> String { try Fingerprint.of(self).key }

    /// The file on disk it is (links followed), for a caller that must not write over an input;
    /// nil for bytes in memory, a hidden file, or a file that is gone.
    package var identity: FileIdentity? {
        guard case let .file(path) = origin, skipReason != .hidden, let status = path.status() else { return nil }
        return FileIdentity(status)
    }

    /// Whether the run reads its bytes: it was named, or it was found in a folder and is a track
    /// format or an archive by its name and not the tool's own output (a report, a state, a map's
    /// files), which a second run replaces.
    package var isReadAsInput: Bool {
        if explicit { return true }
        guard case let .file(path) = origin, FormatTable.nameDecides(name) || ContainerKind(name: name) != nil else { return false }
        return !Self.isOwnOutput(path)
    }

    /// Whether the file's first bytes are the tool's own output (``OwnOutput``).
    static func isOwnOutput(_ path: InputPath) -> Bool {
        guard let fd = try? path.openDescriptor() else { return false }
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: 4096)
        let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 && OwnOutput.recognises(Array(prefix[0..<n]))
    }
}
