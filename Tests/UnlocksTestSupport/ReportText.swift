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
