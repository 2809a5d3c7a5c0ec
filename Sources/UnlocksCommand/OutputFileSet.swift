#if canImport(Glibc)
import Intake
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files replaced as one set (the audit's audit.json, audit.geojson and audit.html; the
/// map's footprint.geojson and footprint.html): each is written whole into a staging folder
/// `OUT/.audit-PID` (`.map-PID`; hidden, so an audit of `.` does not read it), and only once all
/// are complete are they renamed into `OUT`, one after another. A run killed before that leaves
/// the old set untouched; the renames take microseconds, so the only moment a kill could mix old
/// and new is between two of them. The staging folder of a killed run is removed by the next run
/// writing to the same `OUT`.
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
        removeStaleStaging(in: out)
        guard mkdir(staging, 0o755) == 0 || errno == EEXIST else {
            throw AtomicFile.WriteError(path: staging, reason: "cannot create the staging folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Where document `name` is written during the run.
    func stagedPath(_ name: String) -> String { staging + "/" + name }

    /// Renames the three finished files into `out`, then removes the staging folder.
    func commit() throws {
        for name in names {
            guard rename(stagedPath(name), out + "/" + name) == 0 else {
                throw AtomicFile.WriteError(path: out + "/" + name, reason: "cannot rename into place: \(String(cString: strerror(errno)))")
            }
        }
        rmdir(staging)
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
