import Foundation
import Intake
import LogbookStore
import RegionTables
import Unlocks

/// Opening the logbook a command works on: `--state FILE` (created when missing, or required),
/// else one in memory; its rules the store's with the ones given on the command line over them
/// (a store refuses rules other than its own); `--state-key FILE` its signing key.
enum LogbookAccess {
    static let keyOption = OptionSpec.value("state-key", "FILE", "Sign the --state logbook's figures with the key in FILE (any bytes, e.g. 32 random ones) and refuse it when they were changed without the key.")

    /// The logbook of `--state` (nil: in memory), with the tables of `locator`.
    static func open(_ statePath: String?, _ arguments: ParsedArguments, locator: RegionLocator, create: Bool = true) throws -> Logbook {
        guard let statePath else {
            return try Logbook(inMemoryWith: locator, rules: try RuleOptions.parse(arguments))
        }
        let url = URL(fileURLWithPath: try resolve(statePath))
        let stored = try Logbook.storedRules(at: url, locator: locator)
        if stored == nil, !create { throw LogbookError(.notALogbook, path: statePath, reason: "no such logbook") }
        let rules = try RuleOptions.parse(arguments, base: stored ?? ClassifyOptions())
        let configuration = Logbook.Configuration(rules: rules, key: try key(arguments), createIfMissing: create)
        let logbook = try Logbook(at: url, locator: locator, configuration: configuration)
        if let kept = logbook.migratedFrom {
            reportError("note: \(statePath) was a state of the previous format; it is now a logbook (SQLite), the old file kept as \(kept.path)")
        }
        return logbook
    }

    /// `--state-key FILE`: the key's bytes (a regular file of 1 byte to 1 MiB).
    static func key(_ arguments: ParsedArguments) throws -> [UInt8]? {
        guard let path = arguments.value("state-key") else { return nil }
        guard let file = try RegularFile(path: path, kind: "a key file holds the key's bytes") else {
            throw UsageError(message: "--state-key \(path): no such file")
        }
        guard file.size >= 1, file.size <= 1 << 20 else { throw UsageError(message: "--state-key \(path): \(file.size) bytes; a key is 1 byte to 1 MiB") }
        try file.fill(to: file.size)
        return file.bytes
    }

    /// The store's own path: a link followed once, here (the store is then opened without
    /// following links, so one planted later is refused); a folder, a device or a FIFO refused
    /// before anything is opened (SQLite would wait on a FIFO forever).
    static func resolve(_ path: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return path }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw LogbookError(.notALogbook, path: path, reason: "not a regular file (a logbook is one SQLite file, written by unlocks classify --state)")
        }
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}

extension LogbookAccess {
    /// What to do on the command line about an error of this kind (the library's sentence says what
    /// happened in its own terms).
    static func hint(for kind: LogbookError.Kind) -> String? {
        switch kind {
        case .notALogbook: "unlocks classify TRACKS --state FILE makes a logbook"
        case .unmigratableState: "run any unlocks command with --state on it to migrate it"
        case .worldviewDiffers: "run with the logbook's --worldview, or give another --state"
        case .rulesDiffer: "run with the logbook's rules (unlocks show FILE lists them), or give another --state"
        case .signatureMismatch: "move it aside and run unlocks classify TRACKS --state NEW --state-key KEY"
        case .keyRequired: "give its key with --state-key FILE"
        case .notSigned: "run without --state-key, or classify its tracks into a new --state with --state-key"
        case .nothingMatched: "unlocks show FILE lists its inputs"
        case .unreadableInputs: "put the files back, or add --keep-unreadable to keep those inputs as they are"
        default: nil
        }
    }

    /// Whether `path` is a logbook (an SQLite file with the logbook's application id) or a state
    /// file of the previous format, by its first bytes.
    static func isLogbook(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }  // never open a pipe to look
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 72) else { return false }
        try? handle.close()
        let bytes = [UInt8](head)
        if bytes.starts(with: Array("AUSTATE".utf8)) { return true }
        return bytes.count == 72 && bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) && Array(bytes[68..<72]) == Array("AULB".utf8)
    }
}
