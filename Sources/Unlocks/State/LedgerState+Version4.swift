import RegionTables
import TextFormats

// Reading version 4 states (`AUSTATE4`): one JSON part with each input's regions' visits and
// days, then its places, minutes and cells, then all inputs' tiles, then all inputs' pass
// candidates, regions named by position in the JSON's `countries` and `chinaRegions` lists. What
// version 4 never recorded is decided on reading (``InputContribution/upgradedFromVersion4(exploreMaxSpeed:)``);
// the state is written back as version 5.

extension LedgerState {
    /// The contributions of a version 4 state whose JSON `document` ends at `offset`; the records
    /// are in `ledger` already.
    static func readVersionFour(_ document: JSONValue, _ raw: UnsafeRawBufferPointer, _ offset: inout Int, end: Int, into ledger: UnlockLedger,
                                regions codes: ContributionCodec.Regions, fail: (String) -> StateError) throws -> UnlockLedger {
        var ledger = ledger
        let world = codes.world, china = codes.china
        func strings(_ name: String) throws -> [String] {
            guard let items = document[name]?.arrayValue else { throw fail("missing \(name)") }
            return try items.map { guard let s = $0.stringValue else { throw fail("bad \(name) entry") }; return s }
        }
        func lookup(_ code: String, _ table: [String: Int32], _ what: String) throws -> Int32 {
            guard let index = table[code] else { throw fail("\(what) \(code) is not in the region tables (were they rebuilt from another source?)") }
            return index
        }
        let countryMap = try strings("countries").map { try lookup($0, world, "country") }
        let chinaMap = try strings("chinaRegions").map { try lookup($0, china, "region") }
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
            guard let fingerprint = item["fingerprint"]?.stringValue, let path = item["path"]?.stringValue else { throw fail("bad input entry") }
            guard let regions = item["regions"] else { continue }
            var part = InputContribution()
            for entry in regions.arrayValue ?? [] {
                guard let fields = entry.arrayValue, fields.count == 5, let code = fields[1].stringValue,
                      let level = RegionLevel(rawValue: UInt8(clamping: try integer(fields[0], "region level"))) else {
                    throw fail("input \(path): bad region entry \(entry.compactRendered())")
                }
                let index = level == .country ? try lookup(code, world, "country") : try lookup("\(level.rawValue):\(code)", china, "region")
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
                part.places.append(PlaceSignature(regions: (regions.0, regions.1, regions.2, regions.3, -1), kinds: UInt16(kinds)))
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
            var pairs: [ContributionCodec.CellRegions] = []
            for _ in 0..<pairCount {
                let country = try position("cell country", within: countryMap.count)
                let region = try position("cell region", within: chinaMap.count)
                pairs.append(ContributionCodec.CellRegions(country: country == 0 ? -1 : countryMap[country - 1], chinaRegion: region == 0 ? -1 : chinaMap[region - 1]))
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
        return ledger
    }
}

extension InputContribution {
    /// A contribution read from a version 4 state, with what that version never recorded decided
    /// by rule: a place inside or at the edge of a region the input confirmed confirms it (the
    /// points' own verdicts were not kept); no point is lone (it was not known); and a minute's
    /// ground distance is by vehicle when its average speed over the minute's recorded duration
    /// exceeds `exploreMaxSpeed` (m/s, the state's own `--explore-max-speed`), human-powered
    /// otherwise (untimed legs, at most 200 m each, are human-powered).
    public func upgradedFromVersion4(exploreMaxSpeed: Double) -> InputContribution {
        var part = self
        part.recordedBeforeSubdivisions = true
        part.places = places.map { place in
            var flags: UInt8 = 0
            for (position, entry) in zip(PlaceSignature.levels, place.regionList).enumerated() {
                let kind = PlaceSignature.Kind(rawValue: UInt8((place.kinds >> (2 * UInt16(position))) & 3)) ?? .none
                guard entry.1 >= 0, kind == .inside || kind == .edge else { continue }
                if regions[RegionKey(level: entry.0, index: entry.1)]?.confirmedBy != nil { flags |= 1 << UInt8(position) }
            }
            return PlaceSignature(regions: place.regions, kinds: place.kinds, flags: flags)
        }
        for (minute, tally) in moments where minute != MomentTally.untimedMinute {
            let ground = tally.distanceMillimetres - tally.flightDistanceMillimetres
            if ground > 0, Double(ground) > exploreMaxSpeed * Double(tally.durationMilliseconds) {
                part.moments[minute]!.vehicleDistanceMillimetres = ground
            }
        }
        return part
    }
}
