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

/// The `--state` file: a ledger saved between runs, so a later run adds only new inputs and
/// shards can be merged (`unlocks merge`).
///
/// Layout (little-endian): magic `AUSTATE2` (version 2: inputs known by a hash of their whole
/// content; version 1 knew them by size, head and tail and is refused, see ``decode``); UInt64 length of a JSON document (options that
/// change the evidence, the codes of the regions cells name, regions with their evidence by level
/// and code, days, sums, inputs — every file met, skipped ones included, with status, reason,
/// pins and labels; states from before skipped files were kept read as having none);
/// the JSON; UInt64 cell count; cells sorted by key, each as varints: key delta from the previous
/// key, zig-zag time delta from the previous cell's time, country + 1, China region + 1 (indices
/// into the JSON's `countries` and `chinaRegions` lists, the latter as `level:code`); finally XXH64
/// of everything before.
/// Regions are stored by code, not table index, so a state survives a table rebuild.
public enum LedgerState {
    static let magic = Array("AUSTATE2".utf8)
    /// The magic of states whose inputs were known by size, head and tail: their records cannot be
    /// matched to content hashes, so every input would be counted again.
    static let versionOneMagic = Array("AUSTATE1".utf8)
    /// The largest count, sum or time a state may hold: every integer up to it is exact as a JSON
    /// number, and sums of two stay far inside 64 bits.
    static let largestNumber: Double = 9_007_199_254_740_992  // 2^53

    /// Checks the first bytes of a state file: nil when they are a state of this version, else why not.
    public static func headerProblem(_ prefix: [UInt8]) -> String? {
        if prefix.starts(with: magic) { return nil }
        if prefix.starts(with: versionOneMagic) {
            return "a state of version 1 (inputs known by size, head and tail), which this version cannot match to inputs; classify the inputs again into a new state"
        }
        return "not an unlocks state file (bad magic)"
    }

    /// The options a state's evidence depends on; a run with different ones would mix rules.
    static func ruleValues(_ options: ClassifyOptions) -> [(key: String, value: JSONValue)] {
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
         ("includePlans", .bool(options.includePlans))]
    }

    /// Serialises a ledger. Deterministic: equal ledgers give equal bytes.
    public static func encode(_ ledger: UnlockLedger, options: ClassifyOptions, world: RegionTable, china: RegionTable) -> [UInt8] {
        func visitJSON(_ v: Visit?) -> JSONValue {
            guard let v else { return .null }
            return .array([v.time.map { .number(Double($0)) } ?? .null, .number(v.latitude), .number(v.longitude)])
        }
        let regions: [JSONValue] = ledger.regions.keys.sorted().map { key in
            let e = ledger.regions[key]!
            let table = key.level == .country ? world : china
            var entry: [JSONValue] = [.number(Double(key.level.rawValue)), .string(table.region(key.index).code), visitJSON(e.confirmedBy),
                                      visitJSON(e.tentativeBy), .number(Double(e.insidePoints)), .number(Double(e.edgePoints))]
            // Vehicle-only evidence, when there is some: the earliest such point and their count.
            if e.passedBy != nil || e.passedPoints > 0 { entry += [visitJSON(e.passedBy), .number(Double(e.passedPoints))] }
            return .array(entry)
        }
        let inputs: [JSONValue] = ledger.inputs.keys.sorted().map { fingerprint in
            let r = ledger.inputs[fingerprint]!
            var members: [(key: String, value: JSONValue)] = [
                ("fingerprint", .string(r.fingerprint)), ("path", .string(r.path)), ("format", .string(r.format)),
                ("status", .string(r.status.rawValue)), ("error", r.error.map { .string($0) } ?? .null),
                ("read", .number(Double(r.pointsRead))), ("kept", .number(Double(r.pointsKept))),
                ("inFlight", .number(Double(r.pointsInFlight))),
                ("dropped", .object(DropReason.allCases.compactMap { reason in r.dropped[reason].map { (reason.rawValue, .number(Double($0))) } })),
            ]
            // Members added with the skipped files and labels (absent in older states, read as none).
            if r.pins > 0 { members.append(("pins", .number(Double(r.pins)))) }
            if r.pointsPlanned > 0 { members.append(("planned", .number(Double(r.pointsPlanned)))) }
            for (key, value) in [("reason", r.skipReason), ("duplicateOf", r.duplicateOf), ("activityType", r.activityType), ("activityName", r.activityName)] {
                if let value { members.append((key, .string(value))) }
            }
            // The input's datum and hint (absent: WGS-84, no hint).
            if let datum = r.datum, datum != .wgs84 { members.append(("datum", .string(datum.rawValue))) }
            if let hint = r.datumHint { members.append(("datumHint", .array([.string(hint.datum.rawValue), .string(hint.reason)]))) }
            return .object(members)
        }
        // Only the regions the cells name are listed; cells refer to them by position.
        let countries = Set(ledger.cells.map(\.value.country)).filter { $0 >= 0 }.sorted()
        let chinaRegions = Set(ledger.cells.map(\.value.chinaRegion)).filter { $0 >= 0 }.sorted()
        let countryPosition = Dictionary(uniqueKeysWithValues: countries.enumerated().map { ($1, Int32($0)) })
        let chinaPosition = Dictionary(uniqueKeysWithValues: chinaRegions.enumerated().map { ($1, Int32($0)) })
        let document: JSONValue = .object([
            ("rules", .object(ruleValues(options))),
            ("countries", .array(countries.map { .string(world.region($0).code) })),
            ("chinaRegions", .array(chinaRegions.map { let r = china.region($0); return .string("\(r.level.rawValue):\(r.code)") })),
            ("regions", .array(regions)),
            ("days", .array(ledger.days.sorted().map { .number(Double($0)) })),
            ("distanceMillimetres", .number(Double(ledger.distanceMillimetres))),
            ("flightDistanceMillimetres", .number(Double(ledger.flightDistanceMillimetres))),
            ("durationMilliseconds", .number(Double(ledger.durationMilliseconds))),
            ("inputs", .array(inputs)),
        ])
        var bytes = magic
        let json = Array(document.compactRendered().utf8)
        append(UInt64(json.count), to: &bytes)
        bytes += json
        append(UInt64(ledger.cells.count), to: &bytes)
        var previousKey: Int64 = 0, previousTime: Int64 = 0
        for key in ledger.cells.sortedKeys() {
            let cell = ledger.cells[key]!
            UnsignedVarint.append(UInt64(key - previousKey), to: &bytes)
            UnsignedVarint.append(ZigZag.encode(cell.time &- previousTime), to: &bytes)
            UnsignedVarint.append(UInt64(cell.country < 0 ? 0 : countryPosition[cell.country]! + 1), to: &bytes)
            UnsignedVarint.append(UInt64(cell.chinaRegion < 0 ? 0 : chinaPosition[cell.chinaRegion]! + 1), to: &bytes)
            previousKey = key
            previousTime = cell.time
        }
        append(bytes.withUnsafeBytes { XXH64.hash($0) }, to: &bytes)
        return bytes
    }

    /// Reads a state written by `encode`, mapping region codes to the given tables' indices.
    /// Fails with a clear error on damage, on other rules than `options`, or on a region the
    /// tables do not have.
    public static func decode(_ bytes: [UInt8], path: String, options: ClassifyOptions, world: RegionTable, china: RegionTable) throws -> UnlockLedger {
        func fail(_ reason: String) -> StateError { StateError(path: path, reason: reason) }
        if let problem = headerProblem(Array(bytes.prefix(magic.count))) { throw fail(problem) }
        guard bytes.count >= magic.count + 24 else { throw fail("truncated: \(bytes.count) bytes") }
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
            guard let rules = document["rules"], rules == .object(ruleValues(options)) else {
                throw fail("made with other classify options (\(document["rules"]?.compactRendered() ?? "none")); use the same --time-zone (or --utc-offset) and defaults, or a new state")
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
            for item in document["regions"]?.arrayValue ?? [] {
                guard let parts = item.arrayValue, parts.count == 6 || parts.count == 8, let code = parts[1].stringValue,
                      let level = RegionLevel(rawValue: UInt8(clamping: try integer(parts[0], "region level"))) else {
                    throw fail("bad region entry \(item.compactRendered())")
                }
                let index = level == .country ? try lookup(code, worldIndex, "country") : try lookup("\(level.rawValue):\(code)", chinaIndex, "region")
                var evidence = RegionEvidence()
                evidence.confirmedBy = try visit(parts[2])
                evidence.tentativeBy = try visit(parts[3])
                evidence.insidePoints = try integer(parts[4], "inside point count of \(code)", optional: false)
                evidence.edgePoints = try integer(parts[5], "edge point count of \(code)", optional: false)
                if parts.count == 8 {
                    evidence.passedBy = try visit(parts[6])
                    evidence.passedPoints = try integer(parts[7], "passed point count of \(code)", optional: false)
                }
                ledger.regions[RegionKey(level: level, index: index)] = evidence
            }
            ledger.days = Set(try (document["days"]?.arrayValue ?? []).map { try integer($0, "day", signed: true) })
            ledger.distanceMillimetres = try integer(document["distanceMillimetres"], "distance")
            ledger.flightDistanceMillimetres = try integer(document["flightDistanceMillimetres"], "flight distance")
            ledger.durationMilliseconds = try integer(document["durationMilliseconds"], "duration")
            guard ledger.flightDistanceMillimetres <= ledger.distanceMillimetres else {
                throw fail("flight distance \(ledger.flightDistanceMillimetres) mm exceeds the distance \(ledger.distanceMillimetres) mm")
            }
            for item in document["inputs"]?.arrayValue ?? [] {
                guard let fingerprint = item["fingerprint"]?.stringValue, let path = item["path"]?.stringValue,
                      let format = item["format"]?.stringValue,
                      let status = item["status"]?.stringValue.flatMap(Self.status) else { throw fail("bad input entry") }
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
                guard record.pointsKept <= record.pointsRead, record.pointsInFlight <= record.pointsRead else {
                    throw fail("input \(path) keeps more points than it read")
                }
                ledger.inputs[fingerprint] = record
            }

            let count = try word()
            guard count <= UInt64(end - offset) / 4 else { throw fail("cell count \(count) beyond the file") }
            ledger.cells = CellTable(minimumCapacity: Int(count))
            var key: Int64 = 0, time: Int64 = 0
            for _ in 0..<Int(count) {
                guard let dk = UnsignedVarint.read(raw, &offset, end: end), let dt = UnsignedVarint.read(raw, &offset, end: end),
                      let country = UnsignedVarint.read(raw, &offset, end: end), let region = UnsignedVarint.read(raw, &offset, end: end),
                      country <= UInt64(countryMap.count), region <= UInt64(chinaMap.count)
                else { throw fail("bad cell record at byte \(offset)") }
                key &+= Int64(bitPattern: dk)
                time &+= ZigZag.decode(dt)
                ledger.cells.explore(key, CellVisit(time: time, country: country == 0 ? -1 : countryMap[Int(country - 1)],
                                                    chinaRegion: region == 0 ? -1 : chinaMap[Int(region - 1)]))
            }
            guard offset == end else { throw fail("\(end - offset) stray bytes after the cells") }
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
