import AdminUnlocks
import Foundation

/// `au_classify`'s options: a JSON object whose keys are the long options of `unlocks classify`
/// in camel case, with typed values (a zone's name or an offset in minutes, days since
/// 1970-01-01), so that a caller's layer passes what its own types hold and nothing is parsed
/// twice. Unknown keys and wrong types are argument errors naming the key.
struct ClassifyRequest {
    var intake = IntakeOptions()
    var lenient = false
    var includePassedThrough = false
    var badges: BadgeCatalog?

    static let keys: Set<String> = ["timeZone", "utcOffsetMinutes", "datum", "datumFor", "since", "until", "lenient", "includePlans",
                                    "includePassedThrough", "includeVirtual", "exploreMaxSpeedKmh", "familiarityLevels", "badges", "jobs"]

    init(json text: String?) throws {
        guard let text else { return }
        let value = try Self.object(text, keys: Self.keys)
        var rules = ClassifyOptions()
        try Self.applyRules(value, to: &rules)
        if let datum = try Self.datum(value, "datum") { rules.inputDatum = datum }
        rules.since = try Self.integer(value, "since").map(Int64.init)
        rules.until = try Self.integer(value, "until").map(Int64.init)
        if let since = rules.since, let until = rules.until, since > until { throw ArgumentError("options: since (\(since)) is after until (\(until))") }
        intake = IntakeOptions(classify: rules, datums: try DatumRules(try Self.strings(value, "datumFor") ?? [], fallback: rules.inputDatum))
        intake.includeVirtual = try Self.bool(value, "includeVirtual") ?? false
        if let jobs = try Self.integer(value, "jobs") {
            guard (1...256).contains(jobs) else { throw ArgumentError("options: jobs \(jobs) is not a number of jobs from 1 to 256") }
            intake.jobs = jobs
        }
        lenient = try Self.bool(value, "lenient") ?? false
        includePassedThrough = try Self.bool(value, "includePassedThrough") ?? false
        if let path = try Self.string(value, "badges") { badges = try Self.badgeCatalog(path) }
    }

    /// The JSON object of `text`, its keys checked against `keys`.
    static func object(_ text: String, keys: Set<String>) throws -> JSONValue {
        let value = try JSONParser.parse(Array(text.utf8))
        guard case let .object(members) = value else { throw ArgumentError("options: expected a JSON object") }
        for member in members where !keys.contains(member.key) {
            throw ArgumentError("options: unknown key '\(member.key)' (expected one of \(keys.sorted().joined(separator: ", ")))")
        }
        return value
    }

    /// The rules a ledger is classified by (what a logbook keeps), those given in `value` over
    /// `rules`: timeZone or utcOffsetMinutes, includePlans, exploreMaxSpeedKmh, familiarityLevels.
    static func applyRules(_ value: JSONValue, to rules: inout ClassifyOptions) throws {
        if value["timeZone"] != nil, value["utcOffsetMinutes"] != nil { throw ArgumentError("options: give timeZone or utcOffsetMinutes, not both") }
        if let name = try string(value, "timeZone") {
            guard let zone = LocalTimeZone(identifier: name) else {
                throw ArgumentError("options: timeZone '\(name)' is not a time zone of the tz database (an IANA name such as Europe/Berlin)")
            }
            rules.timeZone = zone
        }
        if let minutes = try integer(value, "utcOffsetMinutes") {
            guard abs(minutes) <= 14 * 60 else { throw ArgumentError("options: utcOffsetMinutes \(minutes) is beyond ±14 hours") }
            rules.timeZone = .fixed(minutesEast: minutes)
        }
        if let plans = try bool(value, "includePlans") { rules.includePlans = plans }
        if let kmh = try number(value, "exploreMaxSpeedKmh") {
            guard kmh > 0, kmh <= 1000 else { throw ArgumentError("options: exploreMaxSpeedKmh \(kmh) is not a speed in km/h between 0 and 1000") }
            rules.exploreMaxSpeed = kmh / 3.6
        }
        if let levels = value["familiarityLevels"], levels != .null {
            guard let parts = levels.arrayValue?.compactMap({ $0.numberValue }), parts.count == 3, parts.allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 }),
                  let familiarity = FamiliarityLevels(lit: Int32(parts[0]), bright: Int32(parts[1]), gold: Int32(parts[2])) else {
                throw ArgumentError("options: familiarityLevels is not three whole numbers [lit, bright, gold] with 1 ≤ lit ≤ bright ≤ gold")
            }
            rules.familiarityLevels = familiarity
        }
    }

    /// A badge catalog file (at most 4 MiB, as `--badges` reads it).
    static func badgeCatalog(_ path: String) throws -> BadgeCatalog {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BadgeCatalogError(path: path, reason: "cannot open the file") }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: (4 << 20) + 1) ?? Data()
        guard data.count <= 4 << 20 else { throw BadgeCatalogError(path: path, reason: "over 4 MiB; a badge catalog is at most 4 MiB") }
        return try BadgeCatalog(json: [UInt8](data), path: path)
    }

    /// A datum by its name (wgs84, gcj02, bd09).
    static func datum(named name: String, _ what: String) throws -> Datum {
        guard let datum = Datum(rawValue: name) else { throw ArgumentError("\(what) '\(name)': expected wgs84, gcj02 or bd09") }
        return datum
    }

    static func datum(_ object: JSONValue, _ key: String) throws -> Datum? {
        try string(object, key).map { try datum(named: $0, "options: \(key)") }
    }

    static func string(_ object: JSONValue, _ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw ArgumentError("options: \(key) is not a string") }
        return text
    }

    static func strings(_ object: JSONValue, _ key: String) throws -> [String]? {
        guard let value = object[key], value != .null else { return nil }
        guard let items = value.arrayValue, case let texts = items.compactMap(\.stringValue), texts.count == items.count else {
            throw ArgumentError("options: \(key) is not an array of strings")
        }
        return texts
    }

    static func number(_ object: JSONValue, _ key: String) throws -> Double? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.numberValue, number.isFinite else { throw ArgumentError("options: \(key) is not a number") }
        return number
    }

    static func integer(_ object: JSONValue, _ key: String) throws -> Int? {
        guard let number = try number(object, key) else { return nil }
        guard number == number.rounded(), abs(number) < 1e15 else { throw ArgumentError("options: \(key) is not a whole number") }
        return Int(number)
    }

    static func bool(_ object: JSONValue, _ key: String) throws -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case let .bool(flag) = value else { throw ArgumentError("options: \(key) is not true or false") }
        return flag
    }
}
