import TextFormats
import Unlocks

/// Signs a logbook's rows with HMAC-SHA256 under the app's key: each input's row (its record and
/// contribution), the recording's batches as a chain (each MAC covers the one before), and the
/// store as a whole (its rules, the inputs' MACs in key order, what was forgotten, the
/// badge percents reported, the recording). Whoever lacks the key cannot change a figure, drop or
/// add an input, or splice rows from another store without the signature failing.
package struct LogbookSigner: Sendable {
    let key: [UInt8]

    package init(key: [UInt8]) { self.key = key }

    /// The MAC of an input's row.
    package func mac(of record: InputRecord, contribution: [UInt8]?) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(Array("input\u{0}".utf8))
        mac.update(Self.canonical(record))
        mac.update([0])
        if let contribution {
            mac.update([1])
            mac.update(contribution)
        }
        return mac.finish()
    }

    /// The MAC of a recording batch, chained to the previous one (empty for the first).
    package func mac(ofBatch points: [UInt8], after previous: [UInt8]) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(Array("batch\u{0}".utf8))
        mac.update(previous)
        mac.update(points)
        return mac.finish()
    }

    /// The store's signature over everything that is not derived.
    package func signature(rules: String, inputMACs: [String: [UInt8]],
                           forgotten: [String: String], badges: [String: Int], recording: LogbookStore.RecordingRow?, lastBatch: [UInt8]) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        func field(_ text: String) {
            mac.update(Array(text.utf8))
            mac.update([0])
        }
        field("AdminUnlocks logbook 1")
        field(rules)
        field("inputs")
        for (key, value) in inputMACs.sorted(by: { $0.key < $1.key }) {
            field(key)
            mac.update(value)
        }
        field("forgotten")
        for (key, path) in forgotten.sorted(by: { $0.key < $1.key }) { field(key); field(path) }
        field("badges")
        for (id, percent) in badges.sorted(by: { $0.key < $1.key }) { field(id); field(String(percent)) }
        field("recording")
        if let recording {
            field(recording.id); field(recording.name ?? "\u{1}"); field(recording.activityType ?? "\u{1}"); field(recording.datum?.rawValue ?? "\u{1}")
            mac.update(lastBatch)
        }
        return mac.finish()
    }

    /// An input record as fixed bytes: every field, in order, as compact JSON.
    static func canonical(_ r: InputRecord) -> [UInt8] {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        let value: JSONValue = .array([
            .string(r.fingerprint), .string(r.path), .string(r.format), .string(r.status.rawValue), text(r.error), text(r.skipReason?.description),
            text(r.duplicateOf), text(r.activityType), text(r.activityName), text(r.datum == .wgs84 ? nil : r.datum?.rawValue), text(r.datumHint?.datum.rawValue),
            text(r.datumHint?.reason), .number(Double(r.pins)), .number(Double(r.pointsRead)), .number(Double(r.pointsKept)),
            .number(Double(r.pointsInFlight)), .number(Double(r.pointsPlanned)),
            .object(DropReason.allCases.compactMap { reason in r.dropped[reason].map { (reason.rawValue, .number(Double($0))) } }),
        ])
        return value.compactRenderedUTF8()
    }
}

/// Constant-time comparison of two MACs (no early exit that a timing could reveal).
func macsEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}
