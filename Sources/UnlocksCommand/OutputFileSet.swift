import Intake

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files replaced as one set (the audit's audit.json, audit.geojson and audit.html; the
/// map's footprint and tile files): each is written whole into a staging folder `OUT/.audit-PID`
/// (`.map-PID`; hidden, so an audit of `.` does not read it). Once all are complete the folder is
/// renamed `OUT/.audit-commit-PID` (one atomic step: from here the new set is the one that
/// counts), and its files are renamed into `OUT` one after another. No rename of several files
/// is atomic, so a run killed among those renames leaves `OUT` mixed for a moment; the next run
/// writing to the same `OUT` rolls such a commit forward before anything else, and removes the
/// staging folders of runs killed before their commit (whose old set was never touched).
///
/// Nothing outside `OUT` is written, moved or removed, whatever a folder holds (issue 35):
/// - every operation inside `OUT` goes through descriptors (`openat`, `mkdirat`, `renameat`,
///   `unlinkat`) relative to `OUT`'s, opened once, and no link inside it is followed: the
///   staging folder is made new (`mkdirat`, never one that exists), and each file in it is
///   created new (`O_CREAT | O_EXCL | O_NOFOLLOW`);
/// - a leftover is cleaned only when it is provably a run's own: a real folder (not a link) of
///   this user, named with the marker and the PID of a process that no longer runs, or this
///   process's own PID (a killed run whose PID came round again, as PID 1 does in a container:
///   this run has made nothing yet). In it, only the set's own names are removed, and only
///   regular files are rolled forward into `OUT`; the folder itself goes only once empty.
final class OutputFileSet {
    static let auditNames = ["audit.json", "audit.geojson", "audit.html"]

    let out: String
    let names: [String]
    let stagingMarker: String
    /// `OUT`, and this run's staging folder in it, by descriptor.
    private let outFolder: Int32
    private var stagingFolder: Int32 = -1
    private let stagingName: String
    /// Committed or discarded: the descriptors are closed.
    private var closed = false

    /// Rolls interrupted commits forward, removes stale staging folders in `out` and creates this run's.
    init(out: String, names: [String] = auditNames, stagingMarker: String = ".audit-") throws {
        self.out = out
        self.names = names
        self.stagingMarker = stagingMarker
        outFolder = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard outFolder >= 0 else { throw AtomicFile.WriteError(path: out, reason: "cannot open the folder: \(String(cString: strerror(errno)))") }
        stagingName = stagingMarker + "\(getpid())"
        rollForwardInterruptedCommits()
        removeStaleStaging()
        guard mkdirat(outFolder, stagingName, 0o700) == 0 else {
            let reason = errno == EEXIST ? "is in the way (a link, another user's folder, or one holding files that are not this tool's): remove it"
                : "cannot create the staging folder: \(String(cString: strerror(errno)))"
            throw AtomicFile.WriteError(path: out + "/" + stagingName, reason: reason)
        }
        stagingFolder = openat(outFolder, stagingName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard stagingFolder >= 0 else {
            throw AtomicFile.WriteError(path: out + "/" + stagingName, reason: "cannot open the staging folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Where document `name` is staged, for messages.
    func stagedPath(_ name: String) -> String { out + "/" + stagingName + "/" + name }

    /// Creates `name` in the staging folder, new (never an existing file or a link), for writing.
    func create(_ name: String, readable: Bool = false) throws -> Int32 {
        let fd = openat(stagingFolder, name, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.WriteError(path: stagedPath(name), reason: "cannot create: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Writes document `name` of the set whole, flushed to disk.
    func write(_ bytes: [UInt8], as name: String) throws {
        let fd = try create(name)
        defer { close(fd) }
        try AtomicFile.writeAll(bytes, to: fd, path: stagedPath(name))
        guard fsync(fd) == 0 else { throw AtomicFile.WriteError(path: stagedPath(name), reason: "cannot flush to disk: \(String(cString: strerror(errno)))") }
    }

    /// Renames staged file `from` to `to`, both in the staging folder.
    func rename(_ from: String, to: String) throws {
        guard renameat(stagingFolder, from, stagingFolder, to) == 0 else {
            throw AtomicFile.WriteError(path: stagedPath(to), reason: "cannot rename into place: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes staged file `name` (if there).
    func remove(_ name: String) {
        unlinkat(stagingFolder, name, 0)
    }

    /// Where a run's finished set waits while its files are renamed into `out`.
    private func commitName(pid: pid_t) -> String { stagingMarker + "commit-\(pid)" }

    /// Marks the finished set as committed (the staging folder renamed, atomically), renames its
    /// files into `out`, then removes the folder.
    func commit() throws {
        let committing = commitName(pid: getpid())
        guard fsync(stagingFolder) == 0 || errno == EINVAL, renameat(outFolder, stagingName, outFolder, committing) == 0 else {
            throw AtomicFile.WriteError(path: out + "/" + committing, reason: "cannot mark the set committed: \(String(cString: strerror(errno)))")
        }
        try moveFiles(from: stagingFolder, named: committing)
        unlinkat(outFolder, committing, AT_REMOVEDIR)
        closeFolders()
    }

    private func closeFolders() {
        guard !closed else { return }
        closed = true
        if stagingFolder >= 0 { close(stagingFolder) }
        close(outFolder)
    }

    deinit { closeFolders() }

    /// Renames every regular file of the set still in `folder` (named `name` in `out`) into `out`.
    private func moveFiles(from folder: Int32, named name: String) throws {
        for file in names where Self.isRegularFile(file, in: folder) {
            guard renameat(folder, file, outFolder, file) == 0 else {
                throw AtomicFile.WriteError(path: out + "/" + file, reason: "cannot rename into place from \(name): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Finishes the commits of runs killed among their renames: their sets were complete, so
    /// the files they had not yet moved go into `out` now (a failure leaves the folder for the
    /// next run), then the folders are removed.
    private func rollForwardInterruptedCommits() {
        for name in leftovers(prefix: stagingMarker + "commit-") {
            guard let folder = openOwnFolder(name) else { continue }
            defer { close(folder) }
            guard (try? moveFiles(from: folder, named: name)) != nil else { continue }
            removeContents(of: folder, named: name)
        }
    }

    /// Removes what this run staged (after a failure; after `commit` nothing is left to remove).
    func discard() {
        guard !closed else { return }
        removeContents(of: stagingFolder, named: stagingName)
        closeFolders()
    }

    /// Staging folders of runs killed before their commit.
    private func removeStaleStaging() {
        for name in leftovers(prefix: stagingMarker) {
            guard let folder = openOwnFolder(name) else { continue }
            removeContents(of: folder, named: name)
            close(folder)
        }
    }

    /// Entries of `out` named `prefix` + a PID whose process no longer runs, or this process's
    /// own (this run has made nothing yet: one of that name was left by an earlier process that
    /// had the same PID). Only names of exactly this form.
    private func leftovers(prefix: String) -> [String] {
        let handle = fdopendir(dup(outFolder))
        guard let handle else { return [] }
        defer { closedir(handle) }
        rewinddir(handle)
        let prefix = Array(prefix.utf8)
        var found: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            guard name.count > prefix.count, name.starts(with: prefix) else { continue }
            let digits = name[prefix.count...]
            guard digits.count <= 10, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let pid = pid_t(String(decoding: digits, as: UTF8.self)), pid > 0 else { continue }
            if pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH) { found.append(String(decoding: name, as: UTF8.self)) }
        }
        return found.sorted()
    }

    /// The folder `name` of `out` opened, when it is a real folder (no link is followed) of this user.
    private func openOwnFolder(_ name: String) -> Int32? {
        let fd = openat(outFolder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == geteuid() else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Removes the set's files (and the temporary and body files of its documents) from
    /// `folder`, then the folder (`name` in `out`) when nothing else is in it. A link among them
    /// is removed itself, never what it points to.
    private func removeContents(of folder: Int32, named name: String) {
        guard let handle = fdopendir(dup(folder)) else { return }
        rewinddir(handle)
        var files: [String] = []
        while let entry = readdir(handle) {
            let file = String(decoding: withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }, as: UTF8.self)
            if names.contains(where: { file == $0 || file.hasPrefix($0 + AtomicFile.temporaryMarker) || file == $0 + AuditDocumentFile.bodySuffix }) {
                files.append(file)
            }
        }
        closedir(handle)
        for file in files { unlinkat(folder, file, 0) }
        unlinkat(outFolder, name, AT_REMOVEDIR)
    }

    /// Whether `name` in `folder` is a regular file (a link is not followed).
    private static func isRegularFile(_ name: String, in folder: Int32) -> Bool {
        var status = stat()
        return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}
