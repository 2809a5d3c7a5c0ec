/// Classify reports as tests compare them.
public enum ReportText {
    /// The JSON report without its `changes` member (only a run through `--state` has it), so a
    /// run through a state compares byte for byte with a fresh run. The member is the lines from
    /// `  "changes": {` to the next line `  },` (the renderer's two-space indent).
    public static func withoutChanges(_ text: String) -> String {
        var lines: [Substring] = [], skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !skipping, line.hasPrefix("  \"changes\": {") { skipping = !line.hasSuffix("},"); continue }
            if skipping { skipping = line != "  },"; continue }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

extension ReportText {
    /// What a logbook holds, as `unlocks show STATE --format json` reports it: how tests compare
    /// two logbooks (SQLite files are not byte-for-byte reproducible; their reports are).
    public static func shown(_ state: String, tables: String) throws -> String {
        let result = try CommandRunner.run(["show", state, "--tables", tables, "--format", "json"])
        guard result.status == 0 else { return "show failed (\(result.status)): \(result.stderr)" }
        return result.stdout
    }
}
