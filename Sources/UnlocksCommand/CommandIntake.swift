import ChinaDatum
import Foundation
import Intake
import LogbookStore
import RegionTables
import Tracks
import Unlocks

/// What classify, map and audit share: their inputs taken in through the intake, with progress
/// on standard error (a terminal only), its messages there, and the run's notes and exit code.
enum CommandIntake {
    /// The sources on the command line: `-` is standard input, copied first (``StandardInputCopy``),
    /// and so is a path that is a stream (a pipe such as `<(zcat t.csv.gz)`, a FIFO, a device),
    /// shown by its path, its format decided by its name or its content.
    static func sources(_ positionals: [String]) throws -> [IntakeSource] {
        guard positionals.filter({ $0 == "-" }).count <= 1 else { throw UsageError(message: "'-' (standard input) given more than once") }
        return try positionals.map { text in
            if text == "-" { return .file(try StandardInputCopy.make().path, name: "-") }
            if StandardInputCopy.isStream(text) { return .file(try StandardInputCopy.make(path: text).path, name: text) }
            return CommandLineBytes.source(text)
        }
    }

    /// The files of `positionals`, standard output's marked the tool's own; refused if an output is an input (``OutputClash``).
    static func walk(_ positionals: [String], outputs: [(String, String?)], named: [String] = []) throws -> [WalkedFile] {
        var files = try IntakeRun.walk(try sources(positionals))
        OutputClash.skipStandardOutput(in: &files)
        try ReportFiles.refuseInputs(outputs, files: files, named: named)
        return files
    }

    /// The intake's options from the command line: the rules, `--datum`, `--datum-for`, `--include-virtual`.
    static func options(_ arguments: ParsedArguments) throws -> IntakeOptions {
        let rules = try RuleOptions.parse(arguments)
        var options = IntakeOptions(classify: rules)
        do {
            options.datums = try DatumRules(arguments.values["datum-for"] ?? [], fallback: rules.inputDatum)
        } catch {
            throw UsageError(message: error.message)
        }
        options.includeVirtual = arguments.flags.contains("include-virtual")
        return options
    }

    /// Takes `files` in through `run`, the progress line on standard error while it runs.
    static func take(_ files: [WalkedFile], into run: inout IntakeRun, progress: ProgressLine) -> IntakeOutcome {
        run.take(files)
        progress.clear()
        return run.finish()
    }

    /// Imports `files` into `logbook` as the command line asks (`--datum`, `--datum-for`,
    /// `--include-virtual`, `--jobs`), the progress line and the inputs' messages on standard error.
    static func take(_ files: [WalkedFile], into logbook: Logbook, arguments: ParsedArguments, report: ReportOptions) async throws -> ImportResult {
        let intake = try options(arguments)
        let importOptions = ImportOptions(datum: intake.classify.inputDatum, datums: intake.datums, includeVirtual: intake.includeVirtual,
                                          jobs: try RuleOptions.jobCount(arguments))
        let progress = ProgressLine()
        let result = try await logbook.importFiles(files, options: importOptions, report: report) { event in
            switch event {
            case let .message(message):
                progress.clear()
                reportError(text(message))
            case let .progress(state):
                progress.show(state)
            }
        }
        progress.clear()
        return result
    }

    /// Events that clear the progress line before each message.
    static func events(_ progress: ProgressLine) -> IntakeEvents {
        IntakeEvents(message: { message in
            progress.clear()
            reportError(text(message))
        }, progress: progress.enabled ? { progress.show($0) } : nil)
    }

    /// A message of the intake as the command line says it: a datum hint names the option that
    /// reads the input in the other datum.
    static func text(_ message: IntakeMessage) -> String {
        if case let .datumHint(path, hint, readAs) = message {
            return "note: \(path): \(hint.reason); read as \(readAs.displayName): if its points are \(hint.datum.displayName), classify it with --datum-for '\(path)=\(hint.datum.rawValue)'"
        }
        return message.description
    }

    /// The notes on standard error once the report is written, and the exit code: 3 when a
    /// track file of this run was rejected or read in part, or when the report holds no track
    /// point at all (nothing to classify: say why rather than report an empty archive as fine).
    static func conclude(_ result: ImportResult, includePlans: Bool = false) -> ExitCode {
        conclude(skippedByReason: result.skippedByReason, alreadyInState: result.alreadyInLogbook, inputs: result.report.inputs,
                 failedInputs: result.failedInputs, includePlans: includePlans)
    }

    static func conclude(_ outcome: IntakeOutcome, includePlans: Bool = false) -> ExitCode {
        conclude(skippedByReason: outcome.skippedByReason, alreadyInState: outcome.alreadyInState, inputs: Array(outcome.ledger.inputs.values),
                 failedInputs: outcome.failedInputs, includePlans: includePlans)
    }

    static func conclude(skippedByReason: [SkipReason: Int], alreadyInState already: Int, inputs: [InputRecord], failedInputs: Int, includePlans: Bool) -> ExitCode {
        var parts: [String] = []
        let skipped = skippedByReason.values.reduce(0, +)
        if skipped > 0 {
            parts.append((skipped == 1 ? "1 file skipped (" : "\(skipped) files skipped (")
                         + skippedByReason.sorted { $0.key.description < $1.key.description }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")")
        }
        if already > 0 { parts.append("\(already) input\(already == 1 ? "" : "s") already in the state") }
        let planned = inputs.filter { $0.status == .planned }.count
        if planned > 0 && !includePlans {
            parts.append("\(planned) input\(planned == 1 ? " is a plan" : "s are plans") (a route or no times), unlocking nothing; --include-plans counts \(planned == 1 ? "it" : "them")")
        }
        if !parts.isEmpty { reportError("note: " + parts.joined(separator: ", ")) }
        if inputs.allSatisfy({ $0.pointsRead == 0 }) {
            let read = inputs.filter { $0.status != .skipped }.count, pins = inputs.reduce(0) { $0 + $1.pins }
            reportError("no track points found in any input (\(read) read, \(inputs.count - read) skipped"
                        + (pins > 0 ? ", \(pins) pin\(pins == 1 ? "" : "s")" : "") + "; the report lists every file)")
            return .inputsRejected
        }
        return failedInputs > 0 ? .inputsRejected : .success
    }
}
