import Intake

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refuses a run one of whose outputs is one of its inputs (`merge a.st b.st --out a.st`,
/// `classify walk.gpx --out walk.gpx`): writing it would replace the input. Files are compared by
/// device and inode, links followed, before anything is written. A file found in a folder counts
/// only when it would be read (``WalkedFile/isReadAsInput``): a name no format reads
/// (`audit.html`) and the tool's own outputs are skipped, and replacing them is what a second
/// run is for.
enum OutputClash {
    /// An output that is an input: the input's path, and the option and path of the output.
    struct Refusal: Error, CustomStringConvertible {
        let input: String
        let option: String
        let output: String
        var description: String {
            "\(input): is also an output (\(option) \(output), the same file): writing it would replace this input; nothing was written"
        }
    }

    /// Throws for the first of `outputs` (option shown, path if given) that is a file named in
    /// `named` (read whatever it holds) or a file of `files` the run reads.
    static func check(_ outputs: [(label: String, path: String?)], files: [WalkedFile] = [], named: [String] = []) throws(Refusal) {
        var identities: [FileIdentity: (label: String, path: String)] = [:]
        for case let (label, path?) in outputs {
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, identities[FileIdentity(status)] == nil {
                identities[FileIdentity(status)] = (label, path)
            }
        }
        guard !identities.isEmpty else { return }
        for path in named {
            var status = stat()
            if stat(path, &status) == 0, let output = identities[FileIdentity(status)] {
                throw Refusal(input: path, option: output.label, output: output.path)
            }
        }
        for file in files {
            guard let identity = file.identity, let output = identities[identity], file.isReadAsInput else { continue }
            throw Refusal(input: file.path, option: output.label, output: output.path)
        }
    }

    /// Marks the file that is this run's standard output as the tool's own output: `classify . >
    /// report.json` in the track folder, where the shell creates the empty report before the run.
    static func skipStandardOutput(in files: inout [WalkedFile]) {
        var output = stat()
        guard fstat(1, &output) == 0, (output.st_mode & S_IFMT) == S_IFREG else { return }
        for index in files.indices where files[index].identity == FileIdentity(output) {
            files[index].skipReason = .ownOutput
        }
    }
}
