import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import TrackArchives
import Tracks
import Unlocks

/// `unlocks classify`: a track archive in, the unlock ledger, explored area and badge metrics out.
enum ClassifyCommand {
    enum Format: String, CaseIterable { case json, text }

    static let spec = CommandSpec(
        name: "classify",
        abstract: "Classify a track archive into unlocks, explored area and badge metrics.",
        usage: "PATH... [--out FILE] [--format json|text] [--lenient] [--utc-offset ±HH:MM] [--datum wgs84|gcj02|bd09] [--state FILE] [--tables DIR]",
        options: [
            .value("out", "FILE", "Write the report to FILE (atomically) instead of standard output."),
            .value("format", "FORMAT", "json (default) or text (a summary for a terminal)."),
            .flag("lenient", "Count tentative unlocks (edge-only or border-straddling evidence) too."),
            .value("utc-offset", "±HH:MM", "Local time for days and streaks, and of CSV times written without an offset (default +08:00)."),
            .value("datum", "DATUM", "Datum of the input coordinates: wgs84 (GPS, default), gcj02 or bd09 (Chinese map apps)."),
            .value("state", "FILE", "Keep the ledger in FILE between runs: inputs already in it are skipped, new ones added."),
            .value("tables", "DIR", "Folder with world.bin and china.bin (default Data/regions)."),
        ],
        discussion: """
        PATH may be files, folders (read recursively, in name order) and .zip or .gz archives
        (read as streams, never unpacked to disk). Formats: GPX 1.0/1.1, CSV (lat,lon[,time]
        [,accuracy] and loggers' dialects; times without an offset are at --utc-offset), Google
        Takeout Records.json and Semantic Location History, Google Timeline exports, the app
        backup JSON and GeoJSON (docs/input-formats.md). In folders and archives only names ending in .gpx, .csv,
        .txt, .json or .geojson (optionally .gz) are read; other files are counted as skipped.

        Points are filtered (accuracy > 50 m, invalid, (0,0), duplicate times), split into
        segments at gaps over 5 minutes, flights removed, then located at every level. The
        report (docs/report-format.md) lists inputs, points kept and dropped by reason, unlocks
        per level with first visit and evidence, and the badge metrics. A file that cannot be
        read is reported as 'unlocks: FILE:LINE: reason' (the points before the error are kept)
        and the exit code is 3; every other file is still read.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "give at least one file, folder or archive to classify") }
        let format = try arguments.choice("format", as: Format.self) ?? .json
        var options = try ruleOptions(arguments)
        options.inputDatum = try arguments.choice("datum", as: Datum.self) ?? .wgs84
        let lenient = arguments.flags.contains("lenient")
        // Margins matter for evidence only up to the worst accuracy a kept point may have (50 m),
        // but a wider radius lets consecutive points reuse a lookup for longer (see
        // TrackClassifier.place): 120 m measured fastest on walks (Scripts/bench classify).
        let locator = try RegionLocator(directory: arguments.value("tables") ?? "Data/regions", marginRadius: 120)

        let statePath = arguments.value("state")
        let found = try InputWalk.files(under: arguments.positionals)
        // The state's ledger goes straight into the classifier: a second reference to it would
        // make the first new cell copy every stored one.
        var run = ClassifyRun(classifier: TrackClassifier(locator: locator, options: options,
                                                          ledger: try statePath.flatMap(AtomicFile.readIfPresent).map {
                                                              try LedgerState.decode($0, path: statePath!, options: options, world: locator.world, china: locator.china)
                                                          } ?? UnlockLedger()),
                              threaded: ProcessInfo.processInfo.activeProcessorCount > 1, inputsTotal: found.count, bytesTotal: found.reduce(0) { $0 + $1.size },
                              utcOffsetMinutes: options.utcOffsetMinutes)
        for file in found {
            try run.classify(file)
        }
        run.progress.clear()
        let ledger = run.takeLedger()

        if let statePath {
            try AtomicFile.write(LedgerState.encode(ledger, options: options, world: locator.world, china: locator.china), to: statePath)
        }
        try emit(ClassifyReport(ledger: ledger, world: locator.world, china: locator.china, options: options, lenient: lenient),
                 format: format, to: arguments.value("out"))
        if run.skipped > 0 || run.alreadyCounted > 0 {
            var parts: [String] = []
            if run.skipped > 0 { parts.append(run.skipped == 1 ? "1 file skipped (not a track format)" : "\(run.skipped) files skipped (not a track format)") }
            if run.alreadyCounted > 0 { parts.append("\(run.alreadyCounted) input\(run.alreadyCounted == 1 ? "" : "s") already in the state") }
            reportError("note: " + parts.joined(separator: ", "))
        }
        return run.failedInputs > 0 ? .inputsRejected : .success
    }

    /// The options that shape the ledger, from the command line (shared with `merge`).
    static func ruleOptions(_ arguments: ParsedArguments) throws -> ClassifyOptions {
        var options = ClassifyOptions()
        if let text = arguments.value("utc-offset") {
            guard let minutes = parseOffset(text) else { throw UsageError(message: "--utc-offset '\(text)' is not ±HH:MM (e.g. +08:00, -05:30)") }
            options.utcOffsetMinutes = minutes
        }
        return options
    }

    /// Writes the report as JSON or text to `out` (atomically) or to standard output.
    static func emit(_ report: ClassifyReport, format: Format, to out: String?) throws {
        let text = format == .json ? report.json().rendered() + "\n" : report.text()
        if let out {
            try AtomicFile.write(text, to: out)
        } else {
            let output = BufferedOutput()
            try output.write(text)
            try output.flush()
        }
    }

    /// `±HH:MM`, `±HHMM` or `±HH` → minutes east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") else { return nil }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              bytes.count == 3 || (bytes.count == 5 && !bytes.contains(UInt8(ascii: ":"))) || (bytes.count == 6 && bytes[3] == UInt8(ascii: ":"))
        else { return nil }
        let value = digits.map { Int($0) - 48 }
        let hours = value[0] * 10 + value[1], minutes = digits.count == 4 ? value[2] * 10 + value[3] : 0
        guard hours <= 14, minutes < 60 else { return nil }
        return (bytes[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }
}

/// The sink readers fill during a run: the classifier, plus progress and the first few
/// unreadable records of each input on standard error.
struct RunSink: TrackSink {
    var classifier: ClassifierFeed
    let progress: ProgressLine
    var points: Int64 = 0
    /// Points (readable or not) of the current input.
    var pointsInInput = 0
    var problemsShown = 0
    static let problemsPerInput = 5

    mutating func segmentBreak() { classifier.segmentBreak() }

    mutating func point(_ point: TrackPoint) {
        classifier.point(point)
        points += 1
        pointsInInput += 1
        if points & 0xFFFF == 0, progress.enabled { progress.update(points: points) }
    }

    mutating func unreadablePoint(_ problem: InputError) {
        classifier.unreadablePoint(problem)
        points += 1
        pointsInInput += 1
        problemsShown += 1
        if problemsShown <= Self.problemsPerInput {
            progress.clear()
            reportError(problem.description + " (point skipped)")
        }
    }
}

/// One `classify` run over the inputs: dispatches each file to its reader, which feeds the
/// classifier (on a thread of its own when `threaded`); `takeLedger` waits for it.
struct ClassifyRun {
    var sink: RunSink
    var progress: ProgressLine { sink.progress }
    var skipped = 0
    var alreadyCounted = 0
    var failedInputs = 0
    /// `--utc-offset`: the local time of CSV times written without an offset.
    let utcOffsetMinutes: Int

    init(classifier: TrackClassifier, threaded: Bool, inputsTotal: Int, bytesTotal: Int64, utcOffsetMinutes: Int) {
        sink = RunSink(classifier: ClassifierFeed(classifier, threaded: threaded), progress: ProgressLine(inputsTotal: inputsTotal, bytesTotal: bytesTotal))
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// The ledger once every input read has been classified.
    mutating func takeLedger() -> UnlockLedger {
        sink.classifier.takeLedger()
    }

    mutating func classify(_ file: InputWalk.Found) throws {
        defer { progress.finished(inputBytes: file.size, points: sink.points) }
        if file.path.lowercased().hasSuffix(".zip") {
            return try classifyArchive(file)
        }
        let named = TrackFormat(name: file.path)
        guard named != nil || file.explicit else {
            skipped += 1
            return
        }
        let fingerprint = try InputWalk.fingerprint(file.path, size: file.size)
        guard !sink.classifier.knows(fingerprint) else {
            alreadyCounted += 1
            return
        }
        do {
            if file.path.lowercased().hasSuffix(".gz") {
                let source = try ReplayingSource(try GzipSource(path: file.path))
                read(source, format: named ?? TrackFormat(sniffing: source.prefix[...]), path: file.path, fingerprint: fingerprint, explicit: file.explicit)
            } else {
                let source = try ReplayingSource(try FileSource(path: file.path))
                read(source, format: named ?? TrackFormat(sniffing: source.prefix[...]), path: file.path, fingerprint: fingerprint, explicit: file.explicit)
            }
        } catch let error as InputError {
            record(InputRecord(path: file.path, fingerprint: fingerprint, format: named?.rawValue ?? "unknown"), failure: error)
        }
    }

    /// A zip archive: each member whose name is a track format (optionally `.gz`) is an input,
    /// known by the archive's fingerprint and the member's name. Nested archives are skipped.
    mutating func classifyArchive(_ file: InputWalk.Found) throws {
        let archiveFingerprint = try InputWalk.fingerprint(file.path, size: file.size)
        let archive = ZipArchive(path: file.path)
        do {
            try archive.forEachEntry { entry in
                guard entry.skipReason == nil, let format = TrackFormat(name: entry.name) else {
                    if let reason = entry.skipReason {
                        progress.clear()
                        reportError("note: \(entry.path): skipped (\(reason))")
                    }
                    skipped += 1
                    return
                }
                let fingerprint = archiveFingerprint + ":" + entry.name
                guard !sink.classifier.knows(fingerprint) else {
                    alreadyCounted += 1
                    return
                }
                do {
                    if entry.name.lowercased().hasSuffix(".gz") {
                        read(try GzipSource(wrapping: entry, path: entry.path), format: format, path: entry.path, fingerprint: fingerprint, explicit: false)
                    } else {
                        read(entry, format: format, path: entry.path, fingerprint: fingerprint, explicit: false)
                    }
                } catch let error as InputError {
                    record(InputRecord(path: entry.path, fingerprint: fingerprint, format: format.rawValue), failure: error)
                }
            }
        } catch let error as InputError {
            // The archive itself is damaged: the members read so far stay counted.
            record(InputRecord(path: file.path, fingerprint: archiveFingerprint, format: "zip"), failure: error)
        }
    }

    /// Reads one stream with the reader for `format`; an error keeps the points before it.
    ///
    /// A JSON file found in a folder or archive (not named on the command line) whose structure is
    /// none of the track formats is skipped, not rejected: exports such as Google Takeout hold
    /// many JSON files that are not tracks.
    mutating func read<Source: ByteSource>(_ source: Source, format: TrackFormat, path: String, fingerprint: String, explicit: Bool = true) {
        sink.classifier.begin(InputRecord(path: path, fingerprint: fingerprint, format: format.rawValue))
        sink.problemsShown = 0
        sink.pointsInInput = 0
        var formatName = format.rawValue
        do {
            switch format {
            case .gpx: try GPXReader.read(source, path: path, into: &sink)
            case .csv: try TrackCSVReader.read(source, path: path, utcOffsetMinutes: utcOffsetMinutes, into: &sink)
            case .json: formatName = try "json/" + JSONTrackReader.read(source, path: path, into: &sink).rawValue
            }
        } catch {
            if !explicit, let problem = error as? InputError, problem.reason.hasSuffix(JSONTrackReader.unknownStructure),
               sink.pointsInInput == 0 {
                sink.classifier.discard()
                skipped += 1
                return
            }
            // The report names the input already; its error says where and what.
            if let problem = error as? InputError {
                sink.classifier.fail((problem.line.map { "line \($0): " } ?? "") + problem.reason)
            } else {
                sink.classifier.fail("\(error)")
            }
            failedInputs += 1
            progress.clear()
            reportError("\(error)")
        }
        if sink.problemsShown > RunSink.problemsPerInput {
            reportError("\(path): \(sink.problemsShown - RunSink.problemsPerInput) more unreadable points")
        }
        sink.classifier.setFormat(formatName)
        sink.classifier.finish(fingerprint)
    }

    /// An input that could not even be opened.
    mutating func record(_ record: InputRecord, failure: InputError) {
        sink.classifier.begin(record)
        sink.classifier.fail(failure.reason)
        sink.classifier.finish(record.fingerprint)
        failedInputs += 1
        progress.clear()
        reportError(failure.description)
    }
}
