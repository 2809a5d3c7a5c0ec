#if canImport(Glibc)
import Intake
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files replaced as one set (the audit's audit.json, audit.geojson and audit.html; the
/// map's footprint.geojson and footprint.html): each is written whole into a staging folder
/// `OUT/.audit-PID` (`.map-PID`; hidden, so an audit of `.` does not read it). Once all are
/// complete the folder is renamed `OUT/.audit-commit-PID` (one atomic step: from here the new
/// set is the one that counts), and its files are renamed into `OUT` one after another. No
/// rename of several files is atomic, so a run killed among those renames leaves `OUT` mixed for
/// a moment (the scheduler can stretch it to milliseconds; a CI run caught one); the next run
/// writing to the same `OUT` rolls such a commit forward before anything else, and removes the
/// staging folders of runs killed before their commit (whose old set was never touched).
struct OutputFileSet {
    static let auditNames = ["audit.json", "audit.geojson", "audit.html"]

    let out: String
    let staging: String
    let names: [String]
    let stagingMarker: String

    /// Removes stale staging folders in `out` and creates this run's.
    init(out: String, names: [String] = auditNames, stagingMarker: String = ".audit-") throws {
        self.out = out
        self.names = names
        self.stagingMarker = stagingMarker
        staging = out + "/" + stagingMarker + "\(getpid())"
        rollForwardInterruptedCommits(in: out)
        removeStaleStaging(in: out)
        guard mkdir(staging, 0o755) == 0 || errno == EEXIST else {
            throw AtomicFile.WriteError(path: staging, reason: "cannot create the staging folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Where document `name` is written during the run.
    func stagedPath(_ name: String) -> String { staging + "/" + name }

    /// Where a run's finished set waits while its files are renamed into `out`.
    private func commitFolder(pid: pid_t) -> String { out + "/" + stagingMarker + "commit-\(pid)" }

    /// Marks the finished set as committed (the staging folder renamed, atomically), renames its
    /// files into `out`, then removes the folder.
    func commit() throws {
        let committing = commitFolder(pid: getpid())
        guard rename(staging, committing) == 0 else {
            throw AtomicFile.WriteError(path: committing, reason: "cannot mark the set committed: \(String(cString: strerror(errno)))")
        }
        try moveFiles(from: committing)
        rmdir(committing)
    }

    /// Renames every file of the set still in `folder` into `out`.
    private func moveFiles(from folder: String) throws {
        for name in names where access(folder + "/" + name, F_OK) == 0 {
            guard rename(folder + "/" + name, out + "/" + name) == 0 else {
                throw AtomicFile.WriteError(path: out + "/" + name, reason: "cannot rename into place: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Finishes the commits of runs killed among their renames: their sets were complete, so
    /// the files they had not yet moved go into `out` now (a failure leaves the folder for the
    /// next run), then the folders are removed.
    func rollForwardInterruptedCommits(in out: String) {
        for folder in AtomicFile.staleEntries(in: out, prefix: stagingMarker + "commit-") {
            guard (try? moveFiles(from: folder)) != nil else { continue }
            removeContents(of: folder)
        }
    }

    /// Removes what this run staged (after a failure; after `commit` nothing is left to remove).
    func discard() {
        removeContents(of: staging)
    }

    /// Staging folders `out/` + the staging marker + a PID whose process no longer runs.
    func removeStaleStaging(in out: String) {
        AtomicFile.staleEntries(in: out, prefix: stagingMarker).forEach(removeContents(of:))
    }

    /// Removes the audit's files (and their temporary and body files) from `folder`, then the
    /// folder; anything else in it is left, and so is the folder.
    func removeContents(of folder: String) {
        guard let handle = opendir(folder) else { return }
        var files: [String] = []
        while let entry = readdir(handle) {
            let name = String(decoding: withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }, as: UTF8.self)
            if names.contains(where: { name == $0 || name.hasPrefix($0 + AtomicFile.temporaryMarker) || name.hasPrefix($0 + AuditDocumentFile.bodyMarker) }) {
                files.append(folder + "/" + name)
            }
        }
        closedir(handle)
        for file in files { unlink(file) }
        rmdir(folder)
    }
}
