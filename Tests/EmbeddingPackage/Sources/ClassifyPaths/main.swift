// Classifies the paths given (files, folders, .zip, .gz, .tgz/.tar archives, export bundles)
// through the library alone, as an app would: the bundled tables, the default options, one
// worker; prints the JSON report on standard output. Scripts/check-embedding requires it
// byte-identical to `unlocks classify PATH... --format json --jobs 1`.
import AdminUnlocks
import Foundation

do {
    let paths = Array(CommandLine.arguments.dropFirst())
    // The radius `unlocks classify` opens its tables with (lookups reused along a walk).
    let locator = try RegionLocator.bundled(marginRadius: 120)
    let options = IntakeOptions()
    var intake = IntakeRun(locator: locator, options: options, events: IntakeEvents(message: { message in
        FileHandle.standardError.write(Data(("ClassifyPaths: \(message)\n").utf8))
    }))
    try intake.take(paths.map { IntakeSource.path($0) })
    let outcome = intake.finish()
    let report = try ClassifyReport(ledger: outcome.ledger, tables: locator.tables, options: options.classify, lenient: false)
    print(report.json().rendered())
} catch {
    FileHandle.standardError.write(Data("ClassifyPaths: \(error)\n".utf8))
    exit(1)
}
