import AdminUnlocks

/// The options of the logbook calls, JSON objects as `au_classify`'s (``ClassifyRequest``): the
/// keys are the long options of `unlocks classify` in camel case; unknown keys and wrong types
/// are argument errors naming the key.
enum LogbookRequest {
    /// `au_logbook_open`: the rules (a new logbook's; for an existing one those given must be its
    /// own, as with `--state`) and how it is opened.
    struct Open {
        var given: JSONValue = .object([])
        /// The datum the reports name as the run's (`--datum` with `--state`); each input keeps its own.
        var datum = Datum.wgs84
        var readOnly = false
        var create = true

        static let keys: Set<String> = ["timeZone", "utcOffsetMinutes", "includePlans", "exploreMaxSpeedKmh", "familiarityLevels", "datum", "readOnly", "create"]

        init(json text: String?) throws {
            guard let text else { return }
            given = try ClassifyRequest.object(text, keys: Self.keys)
            readOnly = try ClassifyRequest.bool(given, "readOnly") ?? false
            create = try ClassifyRequest.bool(given, "create") ?? !readOnly
            datum = try ClassifyRequest.datum(given, "datum") ?? .wgs84
            // Checked now, so that a bad value is an argument error whether or not the store exists.
            var rules = ClassifyOptions()
            try ClassifyRequest.applyRules(given, to: &rules)
        }

        /// The rules to open with: those given over the store's own (or the defaults), as
        /// `unlocks classify --state` takes them.
        func rules(over stored: ClassifyOptions?) throws -> ClassifyOptions {
            var rules = stored ?? ClassifyOptions()
            rules.inputDatum = datum
            try ClassifyRequest.applyRules(given, to: &rules)
            return rules
        }
    }

    /// `au_logbook_report`, `au_logbook_changes` and the report a change returns.
    static let reportKeys: Set<String> = ["lenient", "includePassedThrough", "badges"]

    static func report(json text: String?) throws -> ReportOptions {
        guard let text else { return ReportOptions() }
        return try report(ClassifyRequest.object(text, keys: reportKeys))
    }

    static func report(_ value: JSONValue) throws -> ReportOptions {
        ReportOptions(lenient: try ClassifyRequest.bool(value, "lenient") ?? false,
                      includePassedThrough: try ClassifyRequest.bool(value, "includePassedThrough") ?? false,
                      badges: try ClassifyRequest.string(value, "badges").map(ClassifyRequest.badgeCatalog))
    }

    /// `au_logbook_import`: how the inputs are read, and the report's options.
    static func importing(json text: String?) throws -> (ImportOptions, ReportOptions) {
        guard let text else { return (ImportOptions(), ReportOptions()) }
        let value = try ClassifyRequest.object(text, keys: reportKeys.union(["datum", "datumFor", "includeVirtual", "jobs"]))
        var options = ImportOptions()
        options.datum = try ClassifyRequest.datum(value, "datum") ?? .wgs84
        if let globs = try ClassifyRequest.strings(value, "datumFor") { options.datums = try DatumRules(globs, fallback: options.datum) }
        options.includeVirtual = try ClassifyRequest.bool(value, "includeVirtual") ?? false
        if let jobs = try ClassifyRequest.integer(value, "jobs") {
            guard (1...256).contains(jobs) else { throw ArgumentError("options: jobs \(jobs) is not a number of jobs from 1 to 256") }
            options.jobs = jobs
        }
        return (options, try report(value))
    }

    /// A key's bytes (`key`, `length`; NULL for none).
    static func key(_ bytes: UnsafePointer<UInt8>?, _ length: Int) throws -> [UInt8]? {
        guard let bytes else {
            guard length == 0 else { throw ArgumentError("key is NULL with a length of \(length)") }
            return nil
        }
        guard length >= 1, length <= 1 << 20 else { throw ArgumentError("key: \(length) bytes; a key is 1 byte to 1 MiB") }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}
