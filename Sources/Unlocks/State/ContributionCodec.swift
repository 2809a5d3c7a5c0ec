import RegionTables

/// One input's contribution (``InputContribution``) as bytes, for a store that keeps each input
/// in a row of its own (the logbook): the sections of the `--state` file's binary part
/// (``LedgerState``), for one input, with regions named by ``RegionReferences`` and the visits in
/// binary. Every number is range-checked on decoding, as the state file's are.
///
/// Layout (varints unless said): version (1); regions: count, then per region its reference and a
/// presence byte (bit 0 confirmed, 1 tentative, 2 passed) and per visit present its time
/// (zig-zag + 1, 0 untimed) and latitude and longitude (8 bytes each, IEEE bits, little-endian);
/// days: count, the first zig-zag, then the deltas; places: count, then per place four region
/// references (0: none) and the kinds; minutes: count, then as the state file; cells: count, the
/// palette of (country, China region) references, the first second, then per cell key delta,
/// seconds + 1 (0 untimed), palette position; tiles: count, then as the state file; the cells'
/// pass candidates as the state file's familiarity section.
package enum ContributionCodec {
    static let version: UInt64 = 1

    /// Why bytes are not a contribution: what and where.
    package struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    package static func encode(_ part: InputContribution, references: inout RegionReferences) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + part.cells.count * 6 + part.moments.count * 8)
        func varint(_ value: UInt64) { UnsignedVarint.append(value, to: &bytes) }
        func count(_ value: Int64) { varint(UInt64(max(0, value))) }
        func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        varint(version)

        varint(UInt64(part.regions.count))
        for key in part.regions.keys.sorted() {
            let evidence = part.regions[key]!
            varint(references.reference(key))
            let visits = [evidence.confirmedBy, evidence.tentativeBy, evidence.passedBy]
            varint(visits.enumerated().reduce(0) { $0 | ($1.element == nil ? 0 : 1 << UInt64($1.offset)) })
            for visit in visits.compactMap({ $0 }) {
                varint(visit.time.map { ZigZag.encode($0) &+ 1 } ?? 0)
                double(visit.latitude)
                double(visit.longitude)
            }
        }

        let days = part.days.sorted()
        varint(UInt64(days.count))
        var previousDay: Int64 = 0
        for day in days {
            varint(ZigZag.encode(day &- previousDay))
            previousDay = day
        }

        varint(UInt64(part.places.count))
        for place in part.places {
            varint(references.reference(country: place.regions.0))
            varint(references.reference(china: place.regions.1))
            varint(references.reference(china: place.regions.2))
            varint(references.reference(china: place.regions.3))
            varint(UInt64(place.kinds))
        }

        varint(UInt64(part.moments.count))
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

        let keys = part.cells.keys, cells = part.cells.visits
        varint(UInt64(keys.count))
        let pairs = Set(cells.map { LedgerState.CellRegions(country: $0.country, chinaRegion: $0.chinaRegion) }).sorted()
        let pairPosition = Dictionary(uniqueKeysWithValues: pairs.enumerated().map { ($1, UInt64($0)) })
        varint(UInt64(pairs.count))
        for pair in pairs {
            varint(references.reference(country: pair.country))
            varint(references.reference(china: pair.chinaRegion))
        }
        let firstSecond = cells.lazy.filter { $0.time != Int64.max }.map { $0.time / 1000 }.min() ?? 0
        varint(ZigZag.encode(firstSecond))
        var previousKey: Int64 = 0
        for (key, cell) in zip(keys, cells) {
            varint(UInt64(bitPattern: key &- previousKey))
            varint(cell.time == Int64.max ? 0 : UInt64(bitPattern: cell.time / 1000 &- firstSecond) &+ 1)
            varint(pairPosition[LedgerState.CellRegions(country: cell.country, chinaRegion: cell.chinaRegion)]!)
            previousKey = key
        }

        let tiles = part.tiles
        varint(UInt64(tiles.count))
        if tiles.count > 0 {
            let firstTileSecond = tiles.times.lazy.filter { $0 != Int64.max }.map { $0 / 1000 }.min() ?? 0
            varint(ZigZag.encode(firstTileSecond))
            var previous: Int64 = 0
            for (key, time) in zip(tiles.keys, tiles.times) {
                varint(UInt64(bitPattern: key &- previous))
                varint(time == Int64.max ? 0 : UInt64(bitPattern: time / 1000 &- firstTileSecond) &+ 1)
                previous = key
            }
        }

        let passes = part.passes
        var p = 0
        for (key, visit) in zip(keys, cells) {
            var n = 0
            while p + n < passes.count, passes.keys[p + n] == key { n += 1 }
            guard n > 0 else { varint(0); continue }
            let base = visit.time == Int64.max ? 0 : visit.time / 1000
            varint(ZigZag.encode(passes.seconds[p] &- base) << 2 | UInt64(min(n, 3)))
            if n >= 3 { varint(UInt64(n - 3)) }
            for k in 1..<n { varint(UInt64(bitPattern: passes.seconds[p + k] &- passes.seconds[p + k - 1])) }
            p += n
        }
        return bytes
    }

    /// The contribution `bytes` holds; regions by `references`. Fails on any number out of
    /// range, anything out of order, a reference not stored, or bytes left over.
    package static func decode(_ bytes: [UInt8], references: RegionReferences) throws(Problem) -> InputContribution {
        do {
            return try bytes.withUnsafeBytes { raw in
                var reader = Reader(raw: raw, references: references)
                return try reader.contribution()
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(reason: "\(error)")
        }
    }

    private struct Reader {
        let raw: UnsafeRawBufferPointer
        let references: RegionReferences
        var offset = 0
        var end: Int { raw.count }

        init(raw: UnsafeRawBufferPointer, references: RegionReferences) {
            self.raw = raw
            self.references = references
        }

        static let largest = Int64(LedgerState.largestNumber)
        static let largestSecond = largest / 1000
        static let largestMinute = largest / 60_000

        func fail(_ reason: String) -> Problem { Problem(reason: "\(reason) at byte \(offset)") }

        mutating func next(_ what: String) throws(Problem) -> UInt64 {
            guard let value = UnsignedVarint.read(raw, &offset, end: end) else { throw fail("bad \(what)") }
            return value
        }

        /// A count or sum: at most 2^53.
        mutating func amount(_ what: String) throws(Problem) -> Int64 {
            let value = try next(what)
            guard value <= UInt64(Self.largest) else { throw fail("\(what) \(value) is beyond 2^53") }
            return Int64(value)
        }

        /// A count of items each taking at least `bytes` bytes: more than the rest could hold is damage.
        mutating func count(_ what: String, bytes: Int = 1) throws(Problem) -> Int {
            let value = try next(what)
            guard value <= UInt64((end - offset) / bytes) else { throw fail("\(value) \(what) do not fit in the rest") }
            return Int(value)
        }

        mutating func double(_ what: String) throws(Problem) -> Double {
            guard end - offset >= 8 else { throw fail("truncated \(what)") }
            defer { offset += 8 }
            return Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        }

        func country(_ reference: UInt64) throws(Problem) -> Int32 {
            if reference == 0 { return -1 }
            guard let key = references.key(reference), key.level == .country else { throw fail("country reference \(reference) names no stored country") }
            return key.index
        }

        func china(_ reference: UInt64) throws(Problem) -> Int32 {
            if reference == 0 { return -1 }
            guard let key = references.key(reference), key.level != .country else { throw fail("region reference \(reference) names no stored China region") }
            return key.index
        }

        /// A time within ±2^53 ms, whole seconds from `base` + 1 (0: untimed, `Int64.max`).
        mutating func secondTime(_ what: String, base: Int64) throws(Problem) -> Int64 {
            let second = try next(what)
            if second == 0 { return Int64.max }
            guard second - 1 <= UInt64(Self.largestSecond - base) else { throw fail("\(what) beyond 2^53 ms") }
            return (base + Int64(second - 1)) * 1000
        }

        mutating func firstSecond(_ what: String) throws(Problem) -> Int64 {
            let second = ZigZag.decode(try next(what))
            guard second >= -Self.largestSecond, second <= Self.largestSecond else { throw fail("\(what) \(second) beyond ±2^53 ms") }
            return second
        }

        mutating func contribution() throws(Problem) -> InputContribution {
            let version = try next("version")
            guard version == ContributionCodec.version else { throw fail("contribution version \(version), this unlocks reads version \(ContributionCodec.version)") }
            var part = InputContribution()

            let regionCount = try count("regions", bytes: 2)
            var previousKey: RegionKey?
            for _ in 0..<regionCount {
                let reference = try next("region reference")
                guard let key = references.key(reference) else { throw fail("region reference \(reference) names no stored region") }
                guard previousKey.map({ $0 < key }) ?? true else { throw fail("regions out of order or listed twice") }
                previousKey = key
                let present = try next("visit flags")
                guard present > 0, present < 8 else { throw fail("visit flags \(present)") }
                var visits: [Visit?] = []
                for bit in 0..<3 {
                    guard present & (1 << UInt64(bit)) != 0 else { visits.append(nil); continue }
                    let code = try next("visit time")
                    var time: Int64?
                    if code > 0 {
                        let value = ZigZag.decode(code - 1)
                        guard abs(Double(value)) <= LedgerState.largestNumber else { throw fail("visit time \(value) beyond ±2^53 ms") }
                        time = value
                    }
                    let latitude = try double("visit latitude"), longitude = try double("visit longitude")
                    guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { throw fail("visit at \(latitude), \(longitude)") }
                    visits.append(Visit(time: time, latitude: latitude, longitude: longitude))
                }
                var evidence = RegionEvidence()
                (evidence.confirmedBy, evidence.tentativeBy, evidence.passedBy) = (visits[0], visits[1], visits[2])
                part.regions[key] = evidence
            }

            let dayCount = try count("days")
            var day: Int64 = 0
            for n in 0..<dayCount {
                let step = ZigZag.decode(try next("day"))
                guard n == 0 || step > 0 else { throw fail("days out of order or listed twice") }
                let (following, overflow) = day.addingReportingOverflow(step)
                guard !overflow, abs(following) <= LedgerState.largestDay else { throw fail("day \(following) beyond the days of ±2^53 ms") }
                day = following
                part.days.insert(day)
            }

            let placeCount = try count("places", bytes: 5)
            part.places.reserveCapacity(placeCount)
            for _ in 0..<placeCount {
                let regions = (try country(try next("place country")), try china(try next("place province")),
                               try china(try next("place city")), try china(try next("place county")))
                let kinds = try next("place kinds")
                guard kinds <= 255 else { throw fail("place kinds \(kinds) is not a byte") }
                part.places.append(PlaceSignature(regions: regions, kinds: UInt8(kinds)))
            }

            let minuteCount = try count("minutes", bytes: 4)
            var minute: Int64 = 0
            for n in 0..<minuteCount {
                let following = minute &+ ZigZag.decode(try next("minute"))
                guard following == MomentTally.untimedMinute || abs(following) <= Self.largestMinute, n == 0 || following > minute else {
                    throw fail("minute \(following) out of order or beyond ±2^53 ms")
                }
                minute = following
                var t = MomentTally()
                let flags = try next("minute flags")
                guard flags >> 2 <= UInt64(part.places.count) else { throw fail("minute \(minute) counts more places than it has") }
                t.points = try amount("points of minute \(minute)")
                t.distanceMillimetres = try amount("distance of minute \(minute)")
                t.durationMilliseconds = 60_000 &- ZigZag.decode(try next("duration"))
                guard t.durationMilliseconds >= 0, t.durationMilliseconds <= (minute == MomentTally.untimedMinute ? 0 : 60_000) else {
                    throw fail("duration \(t.durationMilliseconds) ms of minute \(minute) is not within the minute")
                }
                if flags & 1 != 0 { t.inFlight = try amount("in-flight points of minute \(minute)") }
                if flags & 2 != 0 { t.flightDistanceMillimetres = try amount("flight distance of minute \(minute)") }
                guard t.inFlight <= t.points, t.flightDistanceMillimetres <= t.distanceMillimetres else {
                    throw fail("minute \(minute) has more in flight than in all")
                }
                for _ in 0..<(flags >> 2) {
                    let place = try next("place position")
                    guard place < UInt64(part.places.count) else { throw fail("place \(place) of minute \(minute) is not in its palette") }
                    t.places.append((Int32(place), try amount("place points of minute \(minute)")))
                }
                part.moments[minute] = t
            }

            let cellCount = try count("cells", bytes: 3)
            let pairCount = try count("cell regions", bytes: 2)
            var pairs: [LedgerState.CellRegions] = []
            for _ in 0..<pairCount {
                pairs.append(LedgerState.CellRegions(country: try country(try next("cell country")), chinaRegion: try china(try next("cell region"))))
            }
            let firstCellSecond = try firstSecond("first cell second")
            var keys: [Int64] = [], visits: [CellVisit] = []
            keys.reserveCapacity(cellCount)
            visits.reserveCapacity(cellCount)
            let largestCellKey = ExploredGrid.key(row: ExploredGrid.maximumRow, column: (1 << 23) - 1)
            var key: Int64 = 0, row = Int64.min, columns: Int64 = 0
            for n in 0..<cellCount {
                let delta = try next("cell key")
                guard n == 0 || (delta > 0 && delta <= UInt64(largestCellKey)) else { throw fail("cells out of order or listed twice") }
                key &+= Int64(bitPattern: delta)
                guard key >= 0, key <= largestCellKey else { throw fail("cell key \(key) is not on the grid") }
                let cell = ExploredGrid.cell(ofKey: key)
                if cell.row != row {
                    row = cell.row
                    columns = ExploredGrid.columnCount(row: row)
                }
                guard cell.column < columns else { throw fail("cell key \(key) is not on the grid") }
                let time = try secondTime("cell time", base: firstCellSecond)
                let pair = try next("cell region pair")
                guard pair < UInt64(pairs.count) else { throw fail("cell region pair \(pair) is not in its palette") }
                keys.append(key)
                visits.append(CellVisit(time: time, country: pairs[Int(pair)].country, chinaRegion: pairs[Int(pair)].chinaRegion))
            }
            part.cells = CellList(sortedKeys: keys, visits: visits)

            let tileCount = try count("tiles", bytes: 2)
            if tileCount > 0 {
                let zoom = SlippyTile.storedZoom
                let largestTile = SlippyTile.key(x: (1 << zoom) - 1, y: (1 << zoom) - 1, zoom: zoom)
                let firstTileSecond = try firstSecond("first tile second")
                var tileKeys: [Int64] = [], times: [Int64] = []
                tileKeys.reserveCapacity(tileCount)
                times.reserveCapacity(tileCount)
                var tile: Int64 = 0
                for n in 0..<tileCount {
                    let delta = try next("tile key")
                    guard n == 0 || delta > 0 else { throw fail("tiles out of order or listed twice") }
                    guard delta <= UInt64(largestTile - tile) else { throw fail("tile key beyond zoom \(zoom)") }
                    tile += Int64(delta)
                    tileKeys.append(tile)
                    times.append(try secondTime("tile time", base: firstTileSecond))
                }
                part.tiles = TileList(sortedKeys: tileKeys, times: times)
            }

            var passKeys: [Int64] = [], seconds: [Int64] = []
            for (key, visit) in zip(keys, visits) {
                let head = try next("cell passes")
                var n = head & 3
                guard n > 0 else {
                    guard head == 0 else { throw fail("bad cell passes \(head)") }
                    continue
                }
                if n == 3 {
                    let more = try next("cell pass count")
                    guard more <= UInt64(end - offset) else { throw fail("\(more) more passes of a cell do not fit in the rest") }
                    n += more
                }
                let base = visit.time == Int64.max ? 0 : visit.time / 1000
                var second = base &+ ZigZag.decode(head >> 2)
                for k in 0..<n {
                    if k > 0 {
                        let step = try next("cell pass time")
                        guard step >= 1, step <= UInt64(2 * Self.largestSecond) else { throw fail("cell pass times out of order") }
                        second &+= Int64(step)
                    }
                    guard abs(second) <= Self.largestSecond else { throw fail("cell pass time beyond ±2^53 ms") }
                    passKeys.append(key)
                    seconds.append(second)
                }
            }
            part.passes = PassCandidates(sortedKeys: passKeys, seconds: seconds)
            guard offset == end else { throw fail("\(end - offset) stray bytes") }
            return part
        }
    }
}
