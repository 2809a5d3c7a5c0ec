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
/// Layout (little-endian): magic `AUSTATE4` (version 4: explorer tiles, cell passes and the badge
/// percents reported; version 3 had none of them, version 2 kept one ledger for all inputs,
/// version 1 knew inputs by size, head and tail; all are refused, see ``decode``); UInt64 length
/// of a JSON document; the JSON (the options that change the evidence, the codes of the regions
/// that cells and places name, the badge percents reported by id, and the inputs — every file met,
/// skipped ones included, with status, reason, pins and labels, and for an input that contributed
/// something its regions' visits by level and code, its days, and how many places, minutes and
/// cells follow for it in the binary part); then for each such input, in the JSON's order, as
/// varints: its places (country, province, city, county as positions + 1 in the JSON's
/// `countries` and `chinaRegions` lists, 0 for none; the kinds byte), its minutes sorted (zig-zag
/// minute delta from the previous; flags: bit 0 in-flight points follow, bit 1 flight distance
/// follows, the rest the number of place counts; points; distance mm; zig-zag of 60,000 minus the
/// duration ms; in-flight points; flight mm; per place count its palette position and points),
/// its cells: a palette of (country + 1, China region + 1) pairs (its count first), the zig-zag
/// second of its earliest timed cell, then per cell sorted by key the key delta, the seconds
/// after that earliest one + 1 (0: untimed) and its pair's palette position; then the **tiles
/// section**: for each such input again, in the same order, its z17 explorer tiles
/// (``SlippyTile``): their count, and when there are any the zig-zag second of the earliest timed
/// one, then per tile sorted by key the key delta and the seconds after that earliest one + 1
/// (0: untimed); then the **familiarity section**: for each such input again, in the same order,
/// per cell of its list (key order) one varint `zigzag(first − visit) << 2 | n` where n is its
/// number of pass candidates (``PassCandidates``) up to 3 (0: none, and then the whole varint is
/// 0), first the first candidate's second and visit the cell's visit second (0 when untimed);
/// when n is 3 the count minus 3 follows; then each further candidate's seconds after the one
/// before (at least 1); finally XXH64 of everything before. Cell visits are whole seconds (``CellVisit/time``), so two or three bytes
/// carry a cell's time within an input.
/// Regions are stored by code, not table index, so a state survives a table rebuild.
public enum LedgerState {
    static let magic = Array("AUSTATE4".utf8)
    /// The magic of states whose inputs were known by size, head and tail: their records cannot be
    /// matched to content hashes, so every input would be counted again.
    static let versionOneMagic = Array("AUSTATE1".utf8)
    /// The magic of states that kept one ledger for all inputs: an input's share of it cannot be
    /// told apart, so overlaps, superseded files and `forget` could not be computed.
    static let versionTwoMagic = Array("AUSTATE2".utf8)
    /// The magic of states without explorer tiles, cell passes and reported badge percents: the
    /// tiles and passes of their inputs cannot be recovered without the tracks.
    static let versionThreeMagic = Array("AUSTATE3".utf8)
    /// The largest count, sum or time a state may hold: every integer up to it is exact as a JSON
    /// number, and sums of two stay far inside 64 bits.
    static let largestNumber: Double = 9_007_199_254_740_992  // 2^53
    /// The largest local day (days since 1970, either sign) of a time within ±2^53 ms.
    static let largestDay = Int64(largestNumber) / 86_400_000 + 1

    /// Checks the first bytes of a state file: nil when they are a state of this version, else why not.
    public static func headerProblem(_ prefix: [UInt8]) -> String? {
        if prefix.starts(with: magic) { return nil }
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
        let version = prefix.dropFirst(7).prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
        if prefix.starts(with: magic.prefix(7)), !version.isEmpty, let number = Int(String(decoding: version, as: UTF8.self)), number > 4 {
            return "a state of version \(number), newer than this unlocks reads (version 4); use the unlocks that wrote it, or a newer one"
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

    /// Serialises a ledger. Deterministic: equal ledgers give equal bytes.
    public static func encode(_ ledger: UnlockLedger, options: ClassifyOptions, tables: TableSet) -> [UInt8] {
        let world = tables.world, china = tables.china
        func visitJSON(_ v: Visit?) -> JSONValue {
            guard let v else { return .null }
            return .array([v.time.map { .number(Double($0)) } ?? .null, .number(v.latitude), .number(v.longitude)])
        }
        let fingerprints = ledger.inputs.keys.sorted()
        let parts = fingerprints.compactMap { fingerprint in ledger.contributions[fingerprint].map { (fingerprint, $0) } }
        // Only the regions cells and places name are listed; they refer to them by position.
        var countrySet = Set<Int32>(), chinaSet = Set<Int32>()
        for (_, part) in parts {
            part.cells.forEachCell { _, visit in
                if visit.country >= 0 { countrySet.insert(visit.country) }
                if visit.chinaRegion >= 0 { chinaSet.insert(visit.chinaRegion) }
            }
            for place in part.places {
                if place.regions.0 >= 0 { countrySet.insert(place.regions.0) }
                for region in [place.regions.1, place.regions.2, place.regions.3] where region >= 0 { chinaSet.insert(region) }
            }
        }
        let countries = countrySet.sorted(), chinaRegions = chinaSet.sorted()
        let countryPosition = Dictionary(uniqueKeysWithValues: countries.enumerated().map { ($1, UInt64($0) + 1) })
        let chinaPosition = Dictionary(uniqueKeysWithValues: chinaRegions.enumerated().map { ($1, UInt64($0) + 1) })
        func country(_ index: Int32) -> UInt64 { index < 0 ? 0 : countryPosition[index]! }
        func chinaRegion(_ index: Int32) -> UInt64 { index < 0 ? 0 : chinaPosition[index]! }

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
            for (key, value) in [("reason", r.skipReason), ("duplicateOf", r.duplicateOf), ("activityType", r.activityType), ("activityName", r.activityName)] {
                if let value { members.append((key, .string(value))) }
            }
            // The input's datum and hint (absent: WGS-84, no hint).
            if let datum = r.datum, datum != .wgs84 { members.append(("datum", .string(datum.rawValue))) }
            if let hint = r.datumHint { members.append(("datumHint", .array([.string(hint.datum.rawValue), .string(hint.reason)]))) }
            if let part = ledger.contributions[fingerprint] {
                let regions: [JSONValue] = part.regions.keys.sorted().map { key in
                    let e = part.regions[key]!
                    let table = key.level == .country ? world : china
                    return .array([.number(Double(key.level.rawValue)), .string(table.region(key.index).code),
                                   visitJSON(e.confirmedBy), visitJSON(e.tentativeBy), visitJSON(e.passedBy)])
                }
                members += [("regions", .array(regions)), ("days", .array(part.days.sorted().map { .number(Double($0)) })),
                            ("places", .number(Double(part.places.count))), ("minutes", .number(Double(part.moments.count))),
                            ("cells", .number(Double(part.cells.count)))]
            }
            return .object(members)
        }
        var members: [(key: String, value: JSONValue)] = [
            ("rules", .object(ruleValues(options, worldview: tables.worldview))),
            ("countries", .array(countries.map { .string(world.region($0).code) })),
            ("chinaRegions", .array(chinaRegions.map { let r = china.region($0); return .string("\(r.level.rawValue):\(r.code)") })),
            ("inputs", .array(inputs)),
            ("badgesReported", .object(ledger.reportedBadgePercents.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })),
        ]
        // Absent when nothing was forgotten: states without it read as before.
        if !ledger.forgotten.isEmpty {
            members.append(("forgotten", .object(ledger.forgotten.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        let document: JSONValue = .object(members)
        let json = Array(document.compactRendered().utf8)
        var bytes = magic
        append(UInt64(json.count), to: &bytes)
        bytes += json
        func varint(_ value: UInt64) { UnsignedVarint.append(value, to: &bytes) }
        func count(_ value: Int64) { varint(UInt64(max(0, value))) }
        for (_, part) in parts {
            for place in part.places {
                varint(country(place.regions.0))
                varint(chinaRegion(place.regions.1))
                varint(chinaRegion(place.regions.2))
                varint(chinaRegion(place.regions.3))
                varint(UInt64(place.kinds))
            }
            var previousMinute: Int64 = 0
            for minute in part.moments.keys.sorted() {
                let t = part.moments[minute]!
                varint(ZigZag.encode(minute &- previousMinute))
                previousMinute = minute
                varint((t.inFlight > 0 ? 1 : 0) | (t.flightDistanceMillimetres > 0 ? 2 : 0) | UInt64(t.places.count) << 2)
                count(t.points)
                count(t.distanceMillimetres)
                varint(ZigZag.encode(60_000 &- t.durationMilliseconds))
                if t.inFlight > 0 { count(t.inFlight) }
                if t.flightDistanceMillimetres > 0 { count(t.flightDistanceMillimetres) }
                for entry in t.places {
                    varint(UInt64(entry.place))
                    count(entry.points)
                }
            }
            // Cells: the input's palette of (country, region) pairs, its first visit second, then
            // per cell the key delta, the second after the first (+ 1; 0 untimed), the pair's position.
            let keys = part.cells.keys, cells = part.cells.visits
            let pairs = Set(cells.map { CellRegions(country: $0.country, chinaRegion: $0.chinaRegion) }).sorted()
            let pairPosition = Dictionary(uniqueKeysWithValues: pairs.enumerated().map { ($1, UInt64($0)) })
            varint(UInt64(pairs.count))
            for pair in pairs {
                varint(country(pair.country))
                varint(chinaRegion(pair.chinaRegion))
            }
            let firstSecond = cells.lazy.filter { $0.time != Int64.max }.map { $0.time / 1000 }.min() ?? 0
            varint(ZigZag.encode(firstSecond))
            var previousKey: Int64 = 0
            for (key, cell) in zip(keys, cells) {
                varint(UInt64(bitPattern: key &- previousKey))
                varint(cell.time == Int64.max ? 0 : UInt64(bitPattern: cell.time / 1000 &- firstSecond) &+ 1)
                varint(pairPosition[CellRegions(country: cell.country, chinaRegion: cell.chinaRegion)]!)
                previousKey = key
            }
        }
        // The tiles section: each input's z17 tiles, with times as the cells'.
        for (_, part) in parts {
            let tiles = part.tiles
            varint(UInt64(tiles.count))
            guard tiles.count > 0 else { continue }
            let firstSecond = tiles.times.lazy.filter { $0 != Int64.max }.map { $0 / 1000 }.min() ?? 0
            varint(ZigZag.encode(firstSecond))
            var previousKey: Int64 = 0
            for (key, time) in zip(tiles.keys, tiles.times) {
                varint(UInt64(bitPattern: key &- previousKey))
                varint(time == Int64.max ? 0 : UInt64(bitPattern: time / 1000 &- firstSecond) &+ 1)
                previousKey = key
            }
        }
        // The familiarity section: each input's pass candidates along its cells.
        for (_, part) in parts {
            let passes = part.passes, cells = part.cells
            var p = 0
            for (key, visit) in zip(cells.keys, cells.visits) {
                var n = 0
                while p + n < passes.count, passes.keys[p + n] == key { n += 1 }
                guard n > 0 else { varint(0); continue }
                let base = visit.time == Int64.max ? 0 : visit.time / 1000
                varint(ZigZag.encode(passes.seconds[p] &- base) << 2 | UInt64(min(n, 3)))
                if n >= 3 { varint(UInt64(n - 3)) }
                for k in 1..<n { varint(UInt64(bitPattern: passes.seconds[p + k] &- passes.seconds[p + k - 1])) }
                p += n
            }
        }
        append(bytes.withUnsafeBytes { XXH64.hash($0) }, to: &bytes)
        return bytes
    }

    /// Reads a state written by `encode`, mapping region codes to the given tables' indices.
    /// Fails with a clear error on damage, on other rules than `options`, on a number out of
    /// range, or on a region the tables do not have.
    public static func decode(_ bytes: [UInt8], path: String, options: ClassifyOptions, tables: TableSet) throws -> UnlockLedger {
        let world = tables.world, china = tables.china
        func fail(_ reason: String) -> StateError { StateError(path: path, reason: reason) }
        if let problem = headerProblem(Array(bytes.prefix(magic.count))) { throw fail(problem) }
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
            let worldIndex = Dictionary(world.regions.map { ($0.code, $0.index) }, uniquingKeysWith: { a, _ in a })
            // China codes repeat across levels (a municipality is its own city), so they carry the level.
            let chinaIndex = Dictionary(china.regions.map { ("\($0.level.rawValue):\($0.code)", $0.index) }, uniquingKeysWith: { a, _ in a })
            func strings(_ name: String) throws -> [String] {
                guard let items = document[name]?.arrayValue else { throw fail("missing \(name)") }
                return try items.map { guard let s = $0.stringValue else { throw fail("bad \(name) entry") }; return s }
            }
            func lookup(_ code: String, _ table: [String: Int32], _ what: String) throws -> Int32 {
                guard let index = table[code] else { throw fail("\(what) \(code) is not in the region tables (were they rebuilt from another source?)") }
                return index
            }
            let countryMap = try strings("countries").map { try lookup($0, worldIndex, "country") }
            let chinaMap = try strings("chinaRegions").map { try lookup($0, chinaIndex, "region") }

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
            /// Inputs with a contribution, in order, with the counts of what follows for each.
            var sized: [(fingerprint: String, places: Int64, minutes: Int64, cells: Int64)] = []
            for item in document["inputs"]?.arrayValue ?? [] {
                guard let fingerprint = item["fingerprint"]?.stringValue, let path = item["path"]?.stringValue,
                      let format = item["format"]?.stringValue,
                      let status = item["status"]?.stringValue.flatMap(Self.status) else { throw fail("bad input entry") }
                guard ledger.inputs[fingerprint] == nil else { throw fail("input \(path) is listed twice") }
                var record = InputRecord(path: path, fingerprint: fingerprint, format: format, status: status, error: item["error"]?.stringValue)
                record.pins = try integer(item["pins"], "pins of \(path)")
                record.pointsPlanned = try integer(item["planned"], "planned points of \(path)")
                record.skipReason = item["reason"]?.stringValue
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
                guard let regions = item["regions"] else { continue }
                var part = InputContribution()
                for entry in regions.arrayValue ?? [] {
                    guard let fields = entry.arrayValue, fields.count == 5, let code = fields[1].stringValue,
                          let level = RegionLevel(rawValue: UInt8(clamping: try integer(fields[0], "region level"))) else {
                        throw fail("input \(path): bad region entry \(entry.compactRendered())")
                    }
                    let index = level == .country ? try lookup(code, worldIndex, "country") : try lookup("\(level.rawValue):\(code)", chinaIndex, "region")
                    var evidence = RegionEvidence()
                    evidence.confirmedBy = try visit(fields[2])
                    evidence.tentativeBy = try visit(fields[3])
                    evidence.passedBy = try visit(fields[4])
                    part.regions[RegionKey(level: level, index: index)] = evidence
                }
                part.days = Set(try (item["days"]?.arrayValue ?? []).map { value in
                    let day = try integer(value, "day of \(path)", signed: true)
                    // The days of times within ±2^53 ms (and a day of offset either side).
                    guard abs(day) <= largestDay else { throw fail("day \(day) of \(path) is beyond the days of ±2^53 ms") }
                    return day
                })
                ledger.contributions[fingerprint] = part
                sized.append((fingerprint, try integer(item["places"], "place count of \(path)", optional: false),
                              try integer(item["minutes"], "minute count of \(path)", optional: false),
                              try integer(item["cells"], "cell count of \(path)", optional: false)))
            }

            func next(_ what: String) throws -> UInt64 {
                guard let value = UnsignedVarint.read(raw, &offset, end: end) else { throw fail("bad \(what) at byte \(offset)") }
                return value
            }
            /// A count or sum as a varint: at most 2^53.
            func amount(_ what: String) throws -> Int64 {
                let value = try next(what)
                guard value <= UInt64(largestNumber) else { throw fail("\(what) \(value) at byte \(offset) is beyond 2^53") }
                return Int64(value)
            }
            func position(_ what: String, within count: Int) throws -> Int {
                let value = try next(what)
                guard value <= UInt64(count) else { throw fail("\(what) \(value) at byte \(offset) names no listed region") }
                return Int(value)
            }
            let largestMinute = Int64(largestNumber) / 60_000
            let largestCellKey = ExploredGrid.key(row: ExploredGrid.maximumRow, column: (1 << 23) - 1)
            for (fingerprint, placeCount, minuteCount, cellCount) in sized {
                let path = ledger.inputs[fingerprint]!.path
                // Each place, minute and cell takes at least 2 bytes: counts beyond the file are damage.
                guard placeCount + minuteCount + cellCount <= Int64(end - offset) / 2 else {
                    throw fail("input \(path): \(placeCount) places, \(minuteCount) minutes and \(cellCount) cells do not fit in the file")
                }
                var part = ledger.contributions[fingerprint]!
                part.places.reserveCapacity(Int(placeCount))
                for _ in 0..<placeCount {
                    func china() throws -> Int32 { let p = try position("place region", within: chinaMap.count); return p == 0 ? -1 : chinaMap[p - 1] }
                    let c = try position("place country", within: countryMap.count)
                    let regions = (c == 0 ? -1 : countryMap[c - 1], try china(), try china(), try china())
                    let kinds = try next("place kinds")
                    guard kinds <= 255 else { throw fail("input \(path): place kinds \(kinds) is not a byte") }
                    part.places.append(PlaceSignature(regions: regions, kinds: UInt8(kinds)))
                }
                var minute: Int64 = 0, first = true
                for _ in 0..<minuteCount {
                    let following = minute &+ ZigZag.decode(try next("minute"))
                    guard following == MomentTally.untimedMinute || (following >= -largestMinute && following <= largestMinute), first || following > minute else {
                        throw fail("input \(path): minute \(following) out of order or beyond ±2^53 ms")
                    }
                    minute = following
                    first = false
                    var t = MomentTally()
                    let flags = try next("minute flags")
                    guard flags >> 2 <= UInt64(max(part.places.count, 0)) else { throw fail("input \(path): minute \(minute) counts more places than it has") }
                    t.points = try amount("points of minute \(minute)")
                    t.distanceMillimetres = try amount("distance of minute \(minute)")
                    t.durationMilliseconds = 60_000 &- ZigZag.decode(try next("duration"))
                    guard t.durationMilliseconds >= 0, t.durationMilliseconds <= (minute == MomentTally.untimedMinute ? 0 : 60_000) else {
                        throw fail("input \(path): duration \(t.durationMilliseconds) ms of minute \(minute) is not within the minute")
                    }
                    if flags & 1 != 0 { t.inFlight = try amount("in-flight points of minute \(minute)") }
                    if flags & 2 != 0 { t.flightDistanceMillimetres = try amount("flight distance of minute \(minute)") }
                    guard t.inFlight <= t.points, t.flightDistanceMillimetres <= t.distanceMillimetres else {
                        throw fail("input \(path): minute \(minute) has more in flight than in all")
                    }
                    for _ in 0..<(flags >> 2) {
                        let place = try next("place position")
                        guard place < UInt64(part.places.count) else { throw fail("input \(path): place \(place) of minute \(minute) is not in its palette") }
                        t.places.append((Int32(place), try amount("place points of minute \(minute)")))
                    }
                    part.moments[minute] = t
                }
                var keys: [Int64] = [], visits: [CellVisit] = []
                keys.reserveCapacity(Int(cellCount))
                visits.reserveCapacity(Int(cellCount))
                let pairCount = try next("cell region count")
                guard pairCount <= UInt64(end - offset) / 2 else { throw fail("input \(path): \(pairCount) cell regions do not fit in the file") }
                var pairs: [CellRegions] = []
                for _ in 0..<pairCount {
                    let country = try position("cell country", within: countryMap.count)
                    let region = try position("cell region", within: chinaMap.count)
                    pairs.append(CellRegions(country: country == 0 ? -1 : countryMap[country - 1], chinaRegion: region == 0 ? -1 : chinaMap[region - 1]))
                }
                let firstSecond = ZigZag.decode(try next("first cell second"))
                let largestSecond = Int64(largestNumber) / 1000
                guard firstSecond >= -largestSecond, firstSecond <= largestSecond else { throw fail("input \(path): first cell second \(firstSecond) beyond ±2^53 ms") }
                var key: Int64 = 0, row = Int64.min, columns: Int64 = 0
                for n in 0..<cellCount {
                    key &+= Int64(bitPattern: try next("cell key"))
                    guard n == 0 || key > keys[keys.count - 1] else { throw fail("input \(path): cells out of order or listed twice at byte \(offset)") }
                    // A cell of the grid: a row from pole to pole, a column of that row.
                    guard key >= 0, key <= largestCellKey else { throw fail("input \(path): cell key \(key) at byte \(offset) is not on the grid") }
                    let cell = ExploredGrid.cell(ofKey: key)
                    if cell.row != row {
                        row = cell.row
                        columns = ExploredGrid.columnCount(row: row)
                    }
                    guard cell.column < columns else { throw fail("input \(path): cell key \(key) at byte \(offset) is not on the grid") }
                    let second = try next("cell time")
                    guard second == 0 || second - 1 <= UInt64(largestSecond - firstSecond) else {
                        throw fail("input \(path): cell time at byte \(offset) beyond 2^53 ms")
                    }
                    let pair = try next("cell region pair")
                    guard pair < UInt64(pairs.count) else { throw fail("input \(path): cell region pair \(pair) at byte \(offset) is not in its palette") }
                    let time = second == 0 ? Int64.max : (firstSecond + Int64(second - 1)) * 1000
                    keys.append(key)
                    visits.append(CellVisit(time: time, country: pairs[Int(pair)].country, chinaRegion: pairs[Int(pair)].chinaRegion))
                }
                part.cells = CellList(sortedKeys: keys, visits: visits)
                ledger.contributions[fingerprint] = part
            }
            // The tiles section.
            let zoom = SlippyTile.storedZoom
            let largestKey = SlippyTile.key(x: (1 << zoom) - 1, y: (1 << zoom) - 1, zoom: zoom)
            for (fingerprint, _, _, _) in sized {
                let path = ledger.inputs[fingerprint]!.path
                let tileCount = try next("tile count")
                guard tileCount <= UInt64(end - offset) / 2 else { throw fail("input \(path): \(tileCount) tiles do not fit in the file") }
                guard tileCount > 0 else { continue }
                let firstSecond = ZigZag.decode(try next("first tile second"))
                let largestSecond = Int64(largestNumber) / 1000
                guard firstSecond >= -largestSecond, firstSecond <= largestSecond else { throw fail("input \(path): first tile second \(firstSecond) beyond ±2^53 ms") }
                var keys: [Int64] = [], times: [Int64] = []
                keys.reserveCapacity(Int(tileCount))
                times.reserveCapacity(Int(tileCount))
                var key: Int64 = 0
                for n in 0..<tileCount {
                    let delta = try next("tile key")
                    guard n == 0 || delta > 0 else { throw fail("input \(path): tiles out of order or listed twice at byte \(offset)") }
                    guard delta <= UInt64(largestKey - key) else { throw fail("input \(path): tile key at byte \(offset) is beyond zoom \(zoom)") }
                    key += Int64(delta)
                    let second = try next("tile time")
                    guard second == 0 || second - 1 <= UInt64(largestSecond - firstSecond) else {
                        throw fail("input \(path): tile time at byte \(offset) beyond 2^53 ms")
                    }
                    keys.append(key)
                    times.append(second == 0 ? Int64.max : (firstSecond + Int64(second - 1)) * 1000)
                }
                ledger.contributions[fingerprint]!.tiles = TileList(sortedKeys: keys, times: times)
            }
            // The familiarity section.
            let passSecondLimit = Int64(largestNumber) / 1000
            for (fingerprint, _, _, _) in sized {
                var part = ledger.contributions[fingerprint]!
                let path = ledger.inputs[fingerprint]!.path
                var keys: [Int64] = [], seconds: [Int64] = []
                for (key, visit) in zip(part.cells.keys, part.cells.visits) {
                    let head = try next("cell passes")
                    var n = head & 3
                    guard n > 0 else {
                        guard head == 0 else { throw fail("input \(path): bad cell passes \(head) at byte \(offset)") }
                        continue
                    }
                    if n == 3 {
                        // Each further pass takes a byte at least: a count beyond the file is damage
                        // (checked before it is added, which could otherwise overflow).
                        let more = try next("cell pass count")
                        guard more <= UInt64(end - offset) else { throw fail("input \(path): \(more) more passes of a cell do not fit in the file") }
                        n += more
                    }
                    let base = visit.time == Int64.max ? 0 : visit.time / 1000
                    var second = base &+ ZigZag.decode(head >> 2)
                    for k in 0..<n {
                        if k > 0 {
                            let step = try next("cell pass time")
                            guard step >= 1, step <= UInt64(2 * passSecondLimit) else { throw fail("input \(path): cell pass times out of order at byte \(offset)") }
                            second &+= Int64(step)
                        }
                        guard second >= -passSecondLimit, second <= passSecondLimit else { throw fail("input \(path): cell pass time at byte \(offset) beyond ±2^53 ms") }
                        keys.append(key)
                        seconds.append(second)
                    }
                }
                part.passes = PassCandidates(sortedKeys: keys, seconds: seconds)
                ledger.contributions[fingerprint] = part
            }
            guard offset == end else { throw fail("\(end - offset) stray bytes after the cell passes") }
            do {
                _ = try ledger.combined()
            } catch {
                throw fail("\(error)")
            }
            return ledger
        }
    }

    /// A cell's regions, as the state's per-input palette lists them.
    struct CellRegions: Hashable, Comparable {
        var country: Int32
        var chinaRegion: Int32
        static func < (a: CellRegions, b: CellRegions) -> Bool { (a.country, a.chinaRegion) < (b.country, b.chinaRegion) }
    }

    /// A stored status; `ok` is what states written before skipped files were recorded call `read`.
    static func status(_ text: String) -> InputRecord.Status? {
        text == "ok" ? .read : InputRecord.Status(rawValue: text)
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
