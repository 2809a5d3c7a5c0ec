#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refuses a run one of whose outputs is one of its inputs (`merge a.st b.st --out a.st`,
/// `classify walk.gpx --out walk.gpx`): writing it would replace the input. Files are compared by
/// device and inode, links followed, before anything is written. A file found in a folder counts
/// only when it would be read: a name no format reads (`audit.html`) and the tool's own outputs
/// (a report, a state, a map's files) are skipped, and replacing them is what a second run is for.
public enum OutputClash {
    /// Throws `.outputIsInput` for the first of `outputs` (option shown, path if given) that
    /// is a file named in `named` (read whatever it holds) or a file of `files` the run reads.
    public static func check(_ outputs: [(label: String, path: String?)], files: [WalkedFile] = [], named: [String] = []) throws(IntakeError) {
        var identities: [FileIdentity: (label: String, path: String)] = [:]
        for case let (label, path?) in outputs {
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, identities[FileIdentity(status)] == nil {
                identities[FileIdentity(status)] = (label, path)
            }
        }
        guard !identities.isEmpty else { return }
        func refuse(_ output: (label: String, path: String), _ input: String) -> IntakeError {
            IntakeError(kind: .outputIsInput, path: input,
                        reason: "is also an output (\(output.label) \(output.path), the same file): writing it would replace this input; nothing was written")
        }
        for path in named {
            var status = stat()
            if stat(path, &status) == 0, let output = identities[FileIdentity(status)] { throw refuse(output, path) }
        }
        for file in files {
            guard case let .file(path) = file.origin, file.skipReason != .hidden, let status = path.status(),
                  let output = identities[FileIdentity(status)] else { continue }
            let read = FormatTable.nameDecides(file.name) || ContainerKind(name: file.name) != nil
            if file.explicit || (read && !isOwnOutput(path)) { throw refuse(output, file.path) }
        }
    }

    /// Marks the file that is this run's standard output as the tool's own output: `classify . >
    /// report.json` in the track folder, where the shell creates the empty report before the run.
    public static func skipStandardOutput(in files: inout [WalkedFile]) {
        var output = stat()
        guard fstat(1, &output) == 0, (output.st_mode & S_IFMT) == S_IFREG else { return }
        for index in files.indices {
            guard case let .file(path) = files[index].origin, let status = path.status(),
                  FileIdentity(status) == FileIdentity(output) else { continue }
            files[index].skipReason = .ownOutput
        }
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
