import Foundation
import Intake
import LogbookStore
import Tracks
import Unlocks
import UnlocksTestSupport

/// A person's footprint for the rule suites, through the library's one type (``Logbook``) in this
/// process: the committed tables at the command line's margin radius (120 m), the rules given.
/// The suites assert typed values; only UnlocksCommandTests spawn the binary, for its contract.
enum Footprints {
    /// The rules with local days in a fixed zone `hours` east of UTC.
    static func rules(utcOffsetHours hours: Int) -> ClassifyOptions {
        var rules = ClassifyOptions()
        rules.timeZone = .fixed(minutesEast: hours * 60)
        return rules
    }

    /// A logbook stored at `path`, or in memory when nil.
    static func logbook(at path: String? = nil, rules: ClassifyOptions) throws -> Logbook {
        let locator = BundledTables.locator(marginRadius: 120)
        guard let path else { return try Logbook(inMemoryWith: locator, rules: rules) }
        return try Logbook(at: URL(fileURLWithPath: path), locator: locator, configuration: Logbook.Configuration(rules: rules))
    }

    /// The report of `files` imported into a new in-memory logbook.
    static func report(of files: [String], rules: ClassifyOptions) async throws -> ClassifyReport {
        try await logbook(rules: rules).importSources(files.map { IntakeSource.path($0) }).report
    }
}
