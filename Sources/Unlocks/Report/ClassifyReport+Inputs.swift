// The inputs in the report: how each fared, and their totals (accumulated once, checked).

extension ClassifyReport {
    /// The inputs' totals by status and their pins (a superseded reading's apart), the sum checked (a crafted state's counts
    /// near 2^63 are refused, ``LedgerOverflow``, never wrapped or trapped).
    static func totals(of inputs: [InputRecord], standing: [String: InputStanding]) throws(LedgerOverflow) -> InputTotals {
        var counts = InputTotals()
        for input in inputs {
            if standing[input.fingerprint]?.supersededBy != nil {
                counts.superseded += 1
            } else {
                switch input.status {
                case .read: counts.read += 1
                case .partial: counts.partial += 1
                case .rejected: counts.rejected += 1
                case .skipped: counts.skipped += 1
                case .planned: counts.planned += 1
                }
            }
            if input.status == .skipped { counts.skippedByReason[input.skipReason ?? .other(""), default: 0] += 1 }
            // A superseded reading's pins are the later reading's again: it counts nothing.
            if standing[input.fingerprint]?.supersededBy == nil { counts.pins = try LedgerOverflow.sum(counts.pins, input.pins, "pin count") }
        }
        return counts
    }

    /// Inputs with `status` (superseded readings excluded).
    public func count(_ status: InputRecord.Status) -> Int {
        switch status {
        case .read: return inputTotals.read
        case .partial: return inputTotals.partial
        case .rejected: return inputTotals.rejected
        case .skipped: return inputTotals.skipped
        case .planned: return inputTotals.planned
        }
    }

    /// An earlier reading of a path whose later reading covers its span: it counts nothing.
    public func isSuperseded(_ input: InputRecord) -> Bool {
        standing[input.fingerprint]?.supersededBy != nil
    }

    /// Superseded readings.
    public var supersededCount: Int { inputTotals.superseded }

    /// The report's status of an input: its own, or `superseded`.
    public func status(of input: InputRecord) -> String {
        isSuperseded(input) ? "superseded" : input.status.rawValue
    }

    /// The other inputs that recorded some of the same minutes, by path, with the seconds shared.
    public func overlaps(of input: InputRecord) -> [(path: String, seconds: Int64)] {
        guard let shared = standing[input.fingerprint]?.overlaps, !shared.isEmpty else { return [] }
        return shared.map { (fingerprint: $0.key, path: pathByFingerprint[$0.key] ?? $0.key, seconds: $0.value * 60) }
            .sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
            .map { (path: $0.path, seconds: $0.seconds) }
    }

    /// Skipped files per reason, by reason.
    public var skippedByReason: [(reason: SkipReason, count: Int)] {
        inputTotals.skippedByReason.sorted { $0.key.description < $1.key.description }.map { (reason: $0.key, count: $0.value) }
    }

    /// Up to this many skipped files, the text report names each; beyond, it counts them by reason.
    public static let skippedNamedInText = 10
}
