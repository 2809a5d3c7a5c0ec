import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole files atomically: a temporary file in the same folder, flushed to disk, then
/// renamed over the target, so an interrupted run leaves the old file or the new one, never half.
enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "\(path): \(reason)" }

        init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// A target that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a named pipe)
    /// is written in place: renaming over it would replace the device with a file.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let path = try target(of: path)
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw WriteError(path: path, reason: "is a directory") }
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw WriteError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            try writeAll(bytes, to: fd, path: path)
            return
        }
        try write(to: path) { fd in try writeAll(bytes, to: fd, path: path) }
    }

    /// Writes a regular file atomically with `produce`, which writes the contents to the open
    /// file descriptor of a temporary file in the same folder; on success the temporary file is
    /// flushed to disk and renamed over `path`, on failure removed.
    static func write(to path: String, _ produce: (Int32) throws -> Void) throws {
        let path = try target(of: path)
        removeStaleTemporaries(of: path, marker: temporaryMarker)
        let temporary = path + temporaryMarker + "\(getpid())"
        // Created new, never through a link: one of this name is a killed run's whose PID came
        // round again, or a link planted there; the name is removed (a link itself, never what it
        // points to) and the file made anew.
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0, errno == EEXIST, unlink(temporary) == 0 {
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw WriteError(path: path, reason: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        do {
            try produce(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard fsync(fd) == 0, close(fd) == 0 else {
            unlink(temporary)
            throw WriteError(path: path, reason: "cannot flush to disk: \(String(cString: strerror(errno)))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(path: path, reason: "cannot rename into place: \(reason)")
        }
    }

    /// Where writing `path` lands: a symbolic link is written through to its final target (as the
    /// shell's `>` writes), so the link stays a link; any other path is itself, as is a link to
    /// something with no path (a pipe). A link that leads nowhere (its target missing, a loop) is
    /// refused, naming the target and the reason.
    static func target(of path: String) throws -> String {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else { return path }
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let reason = String(cString: strerror(errno))
        // A target that exists but has no name to resolve to (the pipe or socket behind
        // `/dev/stdout` → `/proc/self/fd/1`) is written in place through the link.
        var followed = stat()
        if stat(path, &followed) == 0 { return path }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        let link = n > 0 ? EscapedName.string(from: Array(buffer[0..<n])) : "?"
        throw WriteError(path: path, reason: "is a symbolic link to \(link), which cannot be written through: \(reason)")
    }

    /// What a temporary file's name adds to its target's: `.tmp-PID`.
    static let temporaryMarker = ".tmp-"

    /// Removes the temporary files a killed run left beside `path`: names `path` + `marker` +
    /// a process id, whose process no longer runs. A run killed with SIGKILL cannot clean up, so
    /// the next run writing the same target does (a live run's files are kept: its process
    /// answers `kill(pid, 0)`). Only names of exactly this form are touched.
    static func removeStaleTemporaries(of path: String, marker: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + marker
        for file in staleEntries(in: folder, prefix: prefix) { unlink(file) }
    }

    /// The paths of the entries of `folder` named `prefix` + a process id whose process no longer
    /// runs (not this one; a live run answers `kill(pid, 0)`). Only names of exactly this form.
    static func staleEntries(in folder: String, prefix: String) -> [String] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        let prefix = Array(prefix.utf8)
        var stale: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            guard name.count > prefix.count, name.starts(with: prefix) else { continue }
            let digits = name[prefix.count...]
            guard digits.count <= 10, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let pid = pid_t(String(decoding: digits, as: UTF8.self)), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.append(folder + "/" + String(decoding: name, as: UTF8.self)) }
        }
        return stale
    }

    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var written = 0
        while written < bytes.count {
            #if canImport(Glibc)
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            #else
            let n = bytes.withUnsafeBytes { Darwin.write(fd, $0.baseAddress! + written, bytes.count - written) }
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(path: path, reason: "write failed: \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }

    static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// The whole file, or nil when it does not exist.
    static func readIfPresent(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw WriteError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(path: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }
}
