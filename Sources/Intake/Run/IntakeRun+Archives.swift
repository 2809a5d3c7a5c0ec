import Tracks
import Unlocks

extension IntakeRun {
    /// An archive of the walk: surveyed first (member names, for the bundles it holds, and
    /// Strava's `activities.csv`), then each member planned like a file in a folder and read as
    /// a stream, known by the archive's fingerprint and the member's name (`#2` for a second
    /// member of the same name). An archive inside it is walked as a stream in turn, one level deep.
    mutating func takeArchive(_ file: WalkedFile, kind: ContainerKind) {
        let path = file.path
        let fingerprint: String
        do {
            let print = try Fingerprint.of(file)
            guard print.size > 0 else { return skip(path, .empty) }
            fingerprint = print.key
        } catch {
            return record(InputRecord(path: path, fingerprint: InputRecord.pathKey(path: path), format: kind.recordFormat),
                          failure: Self.inputError(error, path: path))
        }
        let open = { () throws -> ArchiveWalk in try Self.openArchive(file, kind: kind) }
        var names: [String] = []
        var tables: [String: ([String: ActivityLabel], InputError?)] = [:]
        do {
            // A survey that stops at damage still names what came before it; the walk reports it.
            try? open().forEachEntry { entry in
                names.append(entry.name)
                if entry.name == "activities.csv" || entry.name.hasSuffix("/activities.csv") {
                    tables[String(entry.name.dropLast("activities.csv".count))] = labels(from: { entry }, path: entry.path)
                }
            }
            var bundles = ExportBundle.recognise(names)
            for index in bundles.indices where bundles[index].kind == .strava {
                (bundles[index].labels, bundles[index].labelProblem) = tables[bundles[index].root] ?? ([:], nil)
            }
            walk(try open(), path: path, kind: kind, fingerprint: fingerprint, depth: 1, bundles: bundles)
        } catch {
            let problem = Self.inputError(error, path: path)
            admitFailure(InputRecord(path: path, fingerprint: fingerprint, format: kind.recordFormat), problem)
        }
    }

    static func openArchive(_ file: WalkedFile, kind: ContainerKind) throws -> ArchiveWalk {
        switch (kind, file.origin) {
        case let (.zip, .file(path)): return .zip(ZipArchive(random: try RandomAccessFile(descriptor: try path.openDescriptor(), path: file.path), path: file.path))
        case let (.zip, .memory(bytes)): return .zip(ZipArchive(random: RandomAccessMemory(bytes), path: file.path))
        case (.tar, _): return .tar(TarArchive(streaming: AnySource(try open(file)), path: file.path))
        case (.gzippedTar, _): return .tar(TarArchive(streaming: try GzipStream(wrapping: try open(file), path: file.path), path: file.path))
        }
    }

    /// An archive inside an archive, read forward through its member's bytes.
    static func openArchive(_ entry: ArchiveEntry, kind: ContainerKind) throws -> ArchiveWalk {
        switch kind {
        case .zip: return .zip(ZipArchive(streaming: entry, path: entry.path))
        case .tar: return .tar(TarArchive(streaming: entry, path: entry.path))
        case .gzippedTar: return .tar(TarArchive(streaming: try GzipStream(wrapping: entry, path: entry.path), path: entry.path))
        }
    }

    /// Plans and reads each member of `archive`. A damaged archive is listed with its damage (its
    /// members read before the damage, or recovered, stay counted); one with no file is listed as
    /// an empty archive.
    mutating func walk(_ archive: ArchiveWalk, path: String, kind: ContainerKind, fingerprint archiveFingerprint: String, depth: Int, bundles: [ExportBundle]) {
        var stopped: InputError?
        do {
            try archive.forEachEntry { entry in
                let fingerprint = archiveFingerprint + ":" + entry.name + (entry.occurrence > 1 ? "#\(entry.occurrence)" : "")
                take(entry, fingerprint: fingerprint, depth: depth, bundles: bundles)
            }
        } catch {
            stopped = Self.inputError(error, path: path)
        }
        if let problem = archive.damage ?? stopped {
            var record = InputRecord(path: path, fingerprint: archiveFingerprint, format: kind.recordFormat)
            // Members came out of it (recovered, or before the damage): the archive was read in part.
            if archive.membersOffered > 0 { record.status = .partial }
            admitFailure(record, problem)
        } else if archive.membersOffered == 0 {
            skip(path, .emptyArchive)
        }
    }

    /// One member of an archive.
    mutating func take(_ entry: ArchiveEntry, fingerprint: String, depth: Int, bundles: [ExportBundle]) {
        if entry.isEncrypted { return skip(entry.path, .encrypted) }
        if entry.kind == .notARegularFile { return skip(entry.path, .notARegularFile) }
        switch plan(name: entry.name, role: ExportBundle.role(of: entry.name, in: bundles), explicit: false, depth: depth) {
        case let .skip(reason, label):
            skip(entry.path, reason, label: label)
        case let .reject(problem):
            record(InputRecord(path: entry.path, fingerprint: InputRecord.pathKey(path: entry.path), format: "csv"), failure: problem)
        case let .container(kind):
            do {
                walk(try Self.openArchive(entry, kind: kind), path: entry.path, kind: kind, fingerprint: fingerprint, depth: depth + 1, bundles: [])
            } catch {
                admitFailure(InputRecord(path: entry.path, fingerprint: fingerprint, format: kind.recordFormat), Self.inputError(error, path: entry.path))
            }
        case let .read(label), let .sniff(label):
            // A member up to `HeldMember.limit` is known by its content, as a file is, so the
            // same bytes inside and outside an archive are copies (docs/report-format.md,
            // "Copies"); a larger one, one cut by damage, or an empty one by the archive's
            // fingerprint and its name.
            let held = HeldMember(entry)
            let key = held.wholeBytes.map { Fingerprint.of(bytes: $0).key } ?? fingerprint
            guard case let .read(replacing) = admit(entry.path, key) else { return }
            do {
                try read(held, name: entry.name, path: entry.path, fingerprint: key, label: label, explicit: false, replacing: replacing)
            } catch {
                record(InputRecord(path: entry.path, fingerprint: key, format: Self.plannedFormat(entry.name)),
                       failure: Self.inputError(error, path: entry.path), replacing: replacing)
            }
        }
    }

    /// Records a container that could not be read whole, by the copies rule: a byte-identical
    /// copy of a damaged archive is listed as its duplicate, never lost.
    mutating func admitFailure(_ record: InputRecord, _ problem: InputError) {
        guard case let .read(replacing) = admit(record.path, record.fingerprint) else { return }
        var record = record
        if record.status == .partial {
            record.error = problem.reason
            var single = UnlockLedger()
            single.inputs[record.fingerprint] = record
            if replacing != nil { sink.classifier.forgetInput(record.fingerprint) }
            sink.classifier.append(single)
            if let replacing { skip(replacing, .duplicate, duplicateOf: record.path) }
            failedInputs += 1
            sink.messages.say(.inputFailed(problem))
        } else {
            self.record(record, failure: problem, replacing: replacing)
        }
    }
}

/// An archive member's first bytes, read ahead to know a small member by its content: up to
/// ``limit`` bytes are held, then handed out before the rest of the member; an error met while
/// reading ahead is thrown after the bytes before it (so a damaged member still delivers what it
/// held, as when it is streamed).
final class HeldMember: ByteSource {
    /// Members up to this size are fingerprinted by content (8 MiB: tracks, tiles, photos; a
    /// Takeout `Records.json` streams as before).
    static let limit = 8 << 20

    private let entry: ArchiveEntry
    private var held: [UInt8] = []
    private var offset = 0
    private var pendingError: (any Error)?
    private var ended = false

    init(_ entry: ArchiveEntry) {
        self.entry = entry
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        do {
            while held.count <= Self.limit {
                let n = try chunk.withUnsafeMutableBytes { try entry.read(into: $0) }
                if n == 0 { ended = true; break }
                held.append(contentsOf: chunk[0..<n])
            }
        } catch {
            pendingError = error
        }
    }

    /// The member's whole bytes when it ended within the limit, without error, and is not empty.
    var wholeBytes: [UInt8]? {
        ended && pendingError == nil && !held.isEmpty ? held : nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if offset < held.count {
            let n = min(buffer.count, held.count - offset)
            held.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
            return n
        }
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        if ended { return 0 }
        return try entry.read(into: buffer)
    }
}
