import Foundation
import XCTest
@testable import Intake
import RegionTables
import Unlocks
import UnlocksTestSupport

/// Runs the intake in-process on the repository's tables, in a temporary folder of the test's own.
enum IntakeHarness {
    /// The repository's tables, opened once (shared), with the radius `unlocks classify` uses.
    static var locator: RegionLocator { BundledTables.locator(marginRadius: 120) }

    /// The outcome of taking `sources` in (messages collected), with `options` (one job by default).
    static func run(_ sources: [IntakeSource], options: IntakeOptions = IntakeOptions(), ledger: UnlockLedger = UnlockLedger(),
                    messages: inout [String]) throws -> IntakeOutcome {
        var said: [String] = []
        var run = IntakeRun(locator: locator, options: options, ledger: ledger, events: IntakeEvents(message: { said.append($0.description) }))
        try run.take(sources)
        let outcome = run.finish()
        messages = said
        return outcome
    }

    static func run(_ sources: [IntakeSource], options: IntakeOptions = IntakeOptions(), ledger: UnlockLedger = UnlockLedger()) throws -> IntakeOutcome {
        var messages: [String] = []
        return try run(sources, options: options, ledger: ledger, messages: &messages)
    }

    /// Records by path (the report's view of the inputs).
    static func records(_ ledger: UnlockLedger) -> [String: InputRecord] {
        Dictionary(ledger.inputs.values.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Runs a Python 3 script in `folder` (archives are made with Python's zipfile, gzip, tarfile).
    static func python(_ script: String, in folder: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python failed: \(script)")
        return String(decoding: output, as: UTF8.self)
    }

    /// A timed CSV walk of `n` points 1 s apart in Beijing (Python writes the same rows).
    static let csvWalk = """
    def walk(n, lat=39.90, start=1714525200):
        import datetime
        rows = ["lat,lon,time"]
        for i in range(n):
            t = datetime.datetime.fromtimestamp(start + i, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            rows.append("%.6f,%.6f,%s" % (lat + i * 0.00001, 116.40, t))
        return ("\\n".join(rows) + "\\n").encode()

    """
}
