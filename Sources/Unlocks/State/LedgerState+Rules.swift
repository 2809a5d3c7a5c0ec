import RegionTables
import TextFormats
import Tracks

// The rules a state was made with, read back: the zone a run without `--time-zone` takes from
// it, and why a run's rules differ, said as the options a person types.

extension LedgerState {
    /// The zone the state `bytes` was made with (its rules' `timeZone` or `utcOffsetMinutes`), or
    /// nil when they are not a readable state of this version or name a zone this system lacks.
    /// A run given no zone takes it, so a state's days stay on the clock they were counted on.
    public static func timeZone(of bytes: [UInt8]) -> LocalTimeZone? {
        guard headerProblem(Array(bytes.prefix(magic.count))) == nil, bytes.count >= magic.count + 16 else { return nil }
        return bytes.withUnsafeBytes { raw -> LocalTimeZone? in
            let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: magic.count, as: UInt64.self))
            let start = magic.count + 8
            guard length <= UInt64(bytes.count - 8 - start),
                  let document = try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<(start + Int(length))])),
                  let rules = document["rules"] else { return nil }
            return zone(rules)
        }
    }

    /// The rules the state `bytes` was made with (its JSON's `rules`), nil when they are not a
    /// readable state of this version.
    package static func rules(of bytes: [UInt8]) -> JSONValue? {
        guard headerProblem(Array(bytes.prefix(magic.count))) == nil, bytes.count >= magic.count + 16 else { return nil }
        return bytes.withUnsafeBytes { raw -> JSONValue? in
            let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: magic.count, as: UInt64.self))
            let start = magic.count + 8
            guard length <= UInt64(bytes.count - 8 - start),
                  let document = try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<(start + Int(length))])) else { return nil }
            return document["rules"]
        }
    }

    /// The zone of stored rules, nil when they name none this system has.
    static func zone(_ rules: JSONValue) -> LocalTimeZone? {
        if let name = rules["timeZone"]?.stringValue { return LocalTimeZone(identifier: name) }
        if let minutes = rules["utcOffsetMinutes"]?.numberValue, minutes == minutes.rounded(), abs(minutes) <= 24 * 60 {
            return .fixed(minutesEast: Int(minutes))
        }
        return nil
    }

    /// Why the stored `rules` differ from `options`', one clause per option that differs, in the
    /// words of the command line ("the state was made with --time-zone Asia/Shanghai; this run
    /// uses Europe/Paris"); rules no option sets are named as another version's.
    package static func ruleMismatch(_ rules: JSONValue?, _ options: ClassifyOptions, worldview: Worldview = .china) -> String {
        guard let rules, case .object(let stored) = rules else { return "made without classify rules; start a new state" }
        let current = ruleValues(options, worldview: worldview)
        var clauses: [String] = []
        let zoneKeys: Set<String> = ["timeZone", "utcOffsetMinutes"]
        let storedZone = stored.first { zoneKeys.contains($0.key) }, currentZone = current.first { zoneKeys.contains($0.key) }
        if storedZone?.key != currentZone?.key || storedZone?.value != currentZone?.value {
            clauses.append("the state was made with \(storedZone.map(zoneOption) ?? "no time zone"); this run uses \(zoneText(options.timeZone))")
        }
        for (key, value) in current where !zoneKeys.contains(key) {
            let old = stored.last { $0.key == key }?.value
            guard old != value else { continue }
            switch key {
            case "exploreMaxSpeed":
                clauses.append("the state was made with --explore-max-speed \(old?.numberValue.map { kmh($0) } ?? "?"); this run uses \(kmh(options.exploreMaxSpeed))")
            case "includePlans":
                clauses.append(old == .bool(true) ? "the state was made with --include-plans; this run is without it" : "the state was made without --include-plans; this run has it")
            case "familiarityLevels":
                let levels = options.familiarityLevels
                clauses.append("the state was made with --familiarity-levels \(old?.arrayValue?.map { $0.compactRendered() }.joined(separator: ",") ?? "?"); this run uses \(levels.lit),\(levels.bright),\(levels.gold)")
            default:
                clauses.append("the state was made by another version of unlocks (its built-in rule \(key) is \(old?.compactRendered() ?? "absent"), this version's \(value.compactRendered()))")
            }
        }
        if clauses.isEmpty { clauses.append("the state's rules hold other members (\(rules.compactRendered()))") }
        return "made with other classify options: " + clauses.joined(separator: "; and ")
            + "; run with the state's options (days and streaks are counted in its zone), or start a new state"
    }

    /// `--time-zone NAME` or `--utc-offset ±HH:MM` for a stored zone member.
    private static func zoneOption(_ member: (key: String, value: JSONValue)) -> String {
        if member.key == "timeZone" { return "--time-zone " + (member.value.stringValue ?? member.value.compactRendered()) }
        guard let minutes = member.value.numberValue, minutes == minutes.rounded(), abs(minutes) <= 24 * 60 else {
            return "--utc-offset " + member.value.compactRendered() + " minutes"
        }
        return "--utc-offset " + LocalTimeZone.offsetText(Int(minutes))
    }

    private static func zoneText(_ zone: LocalTimeZone) -> String {
        zone.fixedMinutes.map { "UTC" + LocalTimeZone.offsetText($0) } ?? zone.description
    }

    /// m/s as the km/h `--explore-max-speed` takes, to 0.001.
    private static func kmh(_ metresPerSecond: Double) -> String {
        let value = (metresPerSecond * 3.6 * 1000).rounded() / 1000
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension LedgerState {
    /// The options that stored `rules` describe (the zone, `--explore-max-speed`,
    /// `--include-plans`, `--familiarity-levels`, the worldview), or nil when they are not rules
    /// this version writes (another version's built-in thresholds, a zone this system lacks).
    package static func options(fromRules rules: JSONValue) -> (options: ClassifyOptions, worldview: Worldview)? {
        guard case .object = rules, let zone = zone(rules) else { return nil }
        var options = ClassifyOptions()
        options.timeZone = zone
        if let speed = rules["exploreMaxSpeed"]?.numberValue { options.exploreMaxSpeed = speed }
        if let plans = rules["includePlans"], case let .bool(value) = plans { options.includePlans = value }
        if let levels = rules["familiarityLevels"]?.arrayValue, levels.count == 3,
           let values = Optional(levels.compactMap { $0.numberValue.flatMap { Int32(exactly: $0) } }), values.count == 3,
           let familiarity = FamiliarityLevels(lit: values[0], bright: values[1], gold: values[2]) {
            options.familiarityLevels = familiarity
        }
        let worldview = rules["worldview"].map { $0.stringValue.flatMap(Worldview.init(rawValue:)) } ?? .china
        guard let worldview, JSONValue.object(ruleValues(options, worldview: worldview)) == rules else { return nil }
        return (options, worldview)
    }
}
