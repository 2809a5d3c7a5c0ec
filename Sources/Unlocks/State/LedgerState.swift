import ChinaDatum
import RegionTables
import TextFormats

/// An error reading a state file, naming it.
public struct StateError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// The `--state` file: a ledger saved between runs, so a later run adds only new inputs, shards
/// can be merged (`unlocks merge`) and inputs forgotten (`unlocks forget`).
///
/// Layout (little-endian): magic `AUSTATE5`; UInt64 length of a JSON document; the JSON (the
/// options that change the evidence, the badge percents reported by id, the inputs forgotten,
/// and the inputs — every file met, skipped ones included, with status, reason, pins and labels,
/// and for an input that contributed something the length of its contribution); then each such
/// input's contribution in the JSON's order, as ``ContributionCodec`` writes it (self-contained:
/// its regions by code, visits, days, places, minutes, cells, tiles and pass candidates);
/// finally XXH64 of everything before. Regions are stored by code, not table index, so a state
/// survives a table rebuild.
///
/// Version 5 adds to version 4 what evidence that follows the movement and distance by movement
/// need (``PlaceSignature/flags``, ``RegionEvidence/loneBy``, ``MomentTally/vehicleDistanceMillimetres``)
/// and keeps each input's contribution in one piece. **Version 4 states are read**
/// (``LedgerState+Version4``) and written back as version 5: what they never recorded is decided
/// by documented rules (``InputContribution/upgradedFromVersion4(exploreMaxSpeed:)``). Versions
/// 1 to 3 are refused (see ``headerProblem(_:)``).
public enum LedgerState {
    static let magic = Array("AUSTATE5".utf8)
    /// The version before: read, and upgraded.
    static let versionFourMagic = Array("AUSTATE4".utf8)
    /// The magic of states whose inputs were known by size, head and tail: their records cannot be
    /// matched to content hashes, so every input would be counted again.
    static let versionOneMagic = Array("AUSTATE1".utf8)
    /// The magic of states that kept one ledger for all inputs: an input's share of it cannot be
    /// told apart, so overlaps, superseded files and `forget` could not be computed.
    static let versionTwoMagic = Array("AUSTATE2".utf8)
    /// The magic of states without explorer tiles, cell passes and reported badge percents: the
    /// tiles and passes of their inputs cannot be recovered without the tracks.
    static let versionThreeMagic = Array("AUSTATE3".utf8)
    /// The version this writes.
    static let version = 5
    /// The largest count, sum or time a state may hold: every integer up to it is exact as a JSON
    /// number, and sums of two stay far inside 64 bits.
    static let largestNumber: Double = 9_007_199_254_740_992  // 2^53
    /// The largest local day (days since 1970, either sign) of a time within ±2^53 ms.
    static let largestDay = Int64(largestNumber) / 86_400_000 + 1

    /// Checks the first bytes of a state file: nil when they are a state this version reads
    /// (version 5, or 4, which it upgrades), else why not.
    public static func headerProblem(_ prefix: [UInt8]) -> String? {
        if prefix.starts(with: magic) || prefix.starts(with: versionFourMagic) { return nil }
        if prefix.starts(with: versionOneMagic) {
            return "a state of version 1 (inputs known by size, head and tail), which this version cannot match to inputs; classify the inputs again into a new state"
        }
        if prefix.starts(with: versionTwoMagic) {
            return "a state of version 2 (one ledger for all inputs), from which this version cannot tell each input's share; classify the inputs again into a new state"
        }
        if prefix.starts(with: versionThreeMagic) {
            return "a state of version 3 (without explorer tiles, cell passes and reported badge percents), which this version cannot complete without the tracks; classify the inputs again into a new state"
        }
        // `AUSTATE` and a later version (digits, as this version writes its own).
        let later = prefix.dropFirst(7).prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
        if prefix.starts(with: magic.prefix(7)), !later.isEmpty, let number = Int(String(decoding: later, as: UTF8.self)), number > version {
            return "a state of version \(number), newer than this unlocks reads (version \(version)); use the unlocks that wrote it, or a newer one"
        }
        return "not an unlocks state file (it does not start with AUSTATE)"
    }

    /// The options a state's evidence depends on; a run with different ones would mix rules.
    /// The worldview is one of them (absent in the default `china`, as in states made before there
    /// were two): a state made in one view refuses a run in another.
    package static func ruleValues(_ options: ClassifyOptions, worldview: Worldview) -> [(key: String, value: JSONValue)] {
        // A fixed offset keeps the member states always had; a named zone is stored by name.
        [options.timeZone.fixedMinutes.map { ("utcOffsetMinutes", .number(Double($0))) } ?? ("timeZone", .string(options.timeZone.description)),
         ("maximumAccuracy", .number(options.maximumAccuracy)),
         ("assumedAccuracy", .number(options.assumedAccuracy)),
         ("segmentGapMilliseconds", .number(Double(options.segmentGap))),
         ("fastSpeed", .number(options.fastSpeed)),
         ("flightSpeed", .number(options.flightSpeed)),
         ("implausibleSpeed", .number(options.implausibleSpeed)),
         ("minimumPointsPerSegment", .number(Double(options.minimumPointsPerSegment))),
         ("exploreMaxSpeed", .number(options.exploreMaxSpeed)),
         ("includePlans", .bool(options.includePlans)),
         ("familiarityLevels", .array([options.familiarityLevels.lit, options.familiarityLevels.bright, options.familiarityLevels.gold].map { .number(Double($0)) }))]
            + (worldview == .china ? [] : [("worldview", .string(worldview.rawValue))])
    }

    /// Serialises a ledger (always as version 5). Deterministic: equal ledgers give equal bytes.
    public static func encode(_ ledger: UnlockLedger, options: ClassifyOptions, tables: TableSet) -> [UInt8] {
        let fingerprints = ledger.inputs.keys.sorted()
        var blobs: [[UInt8]] = []
        let inputs: [JSONValue] = fingerprints.map { fingerprint in
            let r = ledger.inputs[fingerprint]!
            var members: [(key: String, value: JSONValue)] = [
                ("fingerprint", .string(r.fingerprint)), ("path", .string(r.path)), ("format", .string(r.format)),
                ("status", .string(r.status.rawValue)), ("error", r.error.map { .string($0) } ?? .null),
                ("read", .number(Double(r.pointsRead))), ("kept", .number(Double(r.pointsKept))),
                ("inFlight", .number(Double(r.pointsInFlight))),
                ("dropped", .object(DropReason.allCases.compactMap { reason in r.dropped[reason].map { (reason.rawValue, .number(Double($0))) } })),
            ]
            if r.pins > 0 { members.append(("pins", .number(Double(r.pins)))) }
            if r.pointsPlanned > 0 { members.append(("planned", .number(Double(r.pointsPlanned)))) }
            for (key, value) in [("reason", r.skipReason?.description), ("duplicateOf", r.duplicateOf), ("activityType", r.activityType), ("activityName", r.activityName)] {
                if let value { members.append((key, .string(value))) }
            }
            // The input's datum and hint (absent: WGS-84, no hint).
            if let datum = r.datum, datum != .wgs84 { members.append(("datum", .string(datum.rawValue))) }
            if let hint = r.datumHint { members.append(("datumHint", .array([.string(hint.datum.rawValue), .string(hint.reason)]))) }
            if let part = ledger.contributions[fingerprint] {
                let blob = ContributionCodec.encode(part, tables: tables)
                members.append(("contribution", .number(Double(blob.count))))
                blobs.append(blob)
            }
            return .object(members)
        }
        var members: [(key: String, value: JSONValue)] = [
            ("rules", .object(ruleValues(options, worldview: tables.worldview))),
            ("inputs", .array(inputs)),
            ("badgesReported", .object(ledger.reportedBadgePercents.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })),
        ]
        // Absent when nothing was forgotten.
        if !ledger.forgotten.isEmpty {
            members.append(("forgotten", .object(ledger.forgotten.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        let json = Array(JSONValue.object(members).compactRendered().utf8)
        var bytes = magic
        append(UInt64(json.count), to: &bytes)
        bytes += json
        for blob in blobs { bytes += blob }
        append(bytes.withUnsafeBytes { XXH64.hash($0) }, to: &bytes)
        return bytes
    }

    /// Reads a state written by `encode` (or by version 4, upgraded), mapping region codes to the
    /// given tables' indices. Fails with a clear error on damage, on other rules than `options`,
    /// on a number out of range, or on a region the tables do not have.
    public static func decode(_ bytes: [UInt8], path: String, options: ClassifyOptions, tables: TableSet) throws -> UnlockLedger {
        func fail(_ reason: String) -> StateError { StateError(path: path, reason: reason) }
        if let problem = headerProblem(Array(bytes.prefix(magic.count))) { throw fail(problem) }
        let versionFour = bytes.starts(with: versionFourMagic)
        guard bytes.count >= magic.count + 16 else { throw fail("truncated: \(bytes.count) bytes") }
        let stored = bytes.withUnsafeBytes { raw -> UInt64 in raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self) }
        guard bytes.withUnsafeBytes({ XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[0..<(bytes.count - 8)])) }) == UInt64(littleEndian: stored) else {
            throw fail("checksum mismatch: the state file is damaged")
        }
        return try bytes.withUnsafeBytes { raw -> UnlockLedger in
            var offset = magic.count
            let end = bytes.count - 8
            func word() throws -> UInt64 {
                guard offset + 8 <= end else { throw fail("truncated at byte \(offset)") }
                defer { offset += 8 }
                return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            let jsonLength = try word()
            guard jsonLength <= UInt64(end - offset) else { throw fail("JSON length \(jsonLength) beyond the file") }
            let document: JSONValue
            do {
                document = try JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(jsonLength))]))
            } catch {
                throw fail("\(error)")
            }
            offset += Int(jsonLength)
            let stateView = document["rules"]?["worldview"]?.stringValue ?? Worldview.china.rawValue
            guard stateView == tables.worldview.rawValue else {
                throw fail("made in the \(stateView) worldview; this run uses the \(tables.worldview.rawValue) worldview: run with --worldview \(stateView), or use a new state")
            }
            guard let rules = document["rules"], rules == .object(ruleValues(options, worldview: tables.worldview)) else {
                throw fail(ruleMismatch(document["rules"], options, worldview: tables.worldview))
            }
            let regions = ContributionCodec.Regions(tables: tables)

            var ledger = UnlockLedger()
            guard case let .object(reported)? = document["badgesReported"] else { throw fail("missing badgesReported") }
            for (id, percent) in reported {
                guard !id.isEmpty, ledger.reportedBadgePercents[id] == nil, let number = percent.numberValue, number == number.rounded(), (0...100).contains(number) else {
                    throw fail("bad badgesReported entry \"\(id)\": \(percent.compactRendered()) (a whole percent 0–100 per badge id, each once)")
                }
                ledger.reportedBadgePercents[id] = Int(number)
            }
            if let forgotten = document["forgotten"] {
                guard case let .object(entries) = forgotten else { throw fail("forgotten is not an object") }
                for (fingerprint, path) in entries {
                    guard !fingerprint.isEmpty, ledger.forgotten[fingerprint] == nil, let path = path.stringValue else {
                        throw fail("bad forgotten entry \"\(fingerprint)\" (a path per fingerprint, each once)")
                    }
                    ledger.forgotten[fingerprint] = path
                }
            }
            /// A whole number within ±2^53 (0 or more unless `signed`); `nil` reads as 0 where a
            /// member may be absent.
            func integer(_ value: JSONValue?, _ what: String, signed: Bool = false, optional: Bool = true) throws -> Int64 {
                guard let value else {
                    if optional { return 0 }
                    throw fail("missing \(what)")
                }
                guard let number = value.numberValue, number == number.rounded(.towardZero),
                      number <= largestNumber, number >= (signed ? -largestNumber : 0) else {
                    throw fail("\(what) \(value.compactRendered()) is not a whole number in 0...2^53" + (signed ? " (or its negative)" : ""))
                }
                return Int64(number)
            }
            func visit(_ value: JSONValue) throws -> Visit? {
                if value == .null { return nil }
                guard let parts = value.arrayValue, parts.count == 3, let lat = parts[1].numberValue, let lon = parts[2].numberValue,
                      abs(lat) <= 90, abs(lon) <= 180 else {
                    throw fail("bad visit \(value.compactRendered())")
                }
                let time = parts[0] == .null ? nil : try integer(parts[0], "visit time", signed: true)
                return Visit(time: time, latitude: lat, longitude: lon)
            }
            /// Inputs with a contribution, in order, with its length (version 5).
            var sized: [(fingerprint: String, length: Int64)] = []
            for item in document["inputs"]?.arrayValue ?? [] {
                guard let fingerprint = item["fingerprint"]?.stringValue, let path = item["path"]?.stringValue,
                      let format = item["format"]?.stringValue,
                      let status = item["status"]?.stringValue.flatMap(Self.status) else { throw fail("bad input entry") }
                guard ledger.inputs[fingerprint] == nil else { throw fail("input \(path) is listed twice") }
                var record = InputRecord(path: path, fingerprint: fingerprint, format: format, status: status, error: item["error"]?.stringValue)
                record.pins = try integer(item["pins"], "pins of \(path)")
                record.pointsPlanned = try integer(item["planned"], "planned points of \(path)")
                record.skipReason = item["reason"]?.stringValue.map(SkipReason.init(description:))
                record.duplicateOf = item["duplicateOf"]?.stringValue
                record.activityType = item["activityType"]?.stringValue
                record.activityName = item["activityName"]?.stringValue
                if let datum = item["datum"] {
                    guard let value = datum.stringValue.flatMap(Datum.init(rawValue:)) else { throw fail("input \(path): bad datum \(datum.compactRendered())") }
                    record.datum = value
                }
                if let hint = item["datumHint"] {
                    guard let parts = hint.arrayValue, parts.count == 2, let datum = parts[0].stringValue.flatMap(Datum.init(rawValue:)),
                          let reason = parts[1].stringValue else { throw fail("input \(path): bad datumHint \(hint.compactRendered())") }
                    record.datumHint = DatumHint(datum: datum, reason: reason)
                }
                record.pointsRead = try integer(item["read"], "points read of \(path)")
                record.pointsKept = try integer(item["kept"], "points kept of \(path)")
                record.pointsInFlight = try integer(item["inFlight"], "points in flight of \(path)")
                for reason in DropReason.allCases {
                    if let n = item["dropped"]?[reason.rawValue] { record.dropped[reason] = try integer(n, "\(reason.rawValue) points of \(path)") }
                }
                guard record.pointsKept <= record.pointsRead, record.pointsInFlight <= record.pointsKept else {
                    throw fail("input \(path) keeps more points than it read")
                }
                // Every point read is kept or dropped for a reason (each count is at most 2^53: no overflow).
                let accounted = record.dropped.values.reduce(record.pointsKept, +)
                guard accounted == record.pointsRead else {
                    throw fail("input \(path) read \(record.pointsRead) points but keeps \(record.pointsKept) and drops \(accounted - record.pointsKept): every point read is kept or dropped")
                }
                ledger.inputs[fingerprint] = record
                if !versionFour, item["contribution"] != nil {
                    sized.append((fingerprint, try integer(item["contribution"], "contribution length of \(path)")))
                }
            }
            if versionFour {
                ledger = try readVersionFour(document, raw, &offset, end: end, into: ledger, regions: regions, fail: fail)
                for (fingerprint, part) in ledger.contributions {
                    ledger.contributions[fingerprint] = part.upgradedFromVersion4(exploreMaxSpeed: options.exploreMaxSpeed)
                }
            } else {
                for (fingerprint, length) in sized {
                    let path = ledger.inputs[fingerprint]!.path
                    guard length <= Int64(end - offset) else { throw fail("input \(path): its contribution of \(length) bytes does not fit in the file") }
                    do {
                        ledger.contributions[fingerprint] = try ContributionCodec.decode(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(length))]), regions: regions)
                    } catch {
                        throw fail("input \(path), its contribution from byte \(offset): \(error)")
                    }
                    offset += Int(length)
                }
            }
            guard offset == end else { throw fail("\(end - offset) stray bytes after the contributions") }
            do {
                _ = try ledger.combined()
            } catch {
                throw fail("\(error)")
            }
            return ledger
        }
    }

    /// A stored status; `ok` is what states written before skipped files were recorded call `read`.
    static func status(_ text: String) -> InputRecord.Status? {
        text == "ok" ? .read : InputRecord.Status(rawValue: text)
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
