import RegionTables

/// One input's contribution (``InputContribution``) as bytes and back: self-contained (its
/// regions by level and code, so it survives a rebuild of the tables from the same source and
/// needs no other part of a file), deterministic (equal contributions give equal bytes) and
/// checked number by number on reading. A state file (``LedgerState``, version 5) is a JSON part
/// and one of these per input; a store that keeps each input apart keeps these bytes.
///
/// Layout, varints (LEB128) unless said otherwise, zig-zag where signed:
/// - the codec's version, one byte: 2; 1 for a contribution recorded before subdivisions
///   (``InputContribution/recordedBeforeSubdivisions``: written as it was read, without them);
/// - its **regions**: count; per region its level (0 country, 1 province, 2 city, 3 county,
///   4 subdivision) and its code (length, UTF-8). Everything below names regions by position in
///   this list;
/// - its **evidence**, per region sorted by key: the region's position; a mask byte (bits 0–3:
///   a confirming, tentative, passed, lone visit follows, in that order; bits 4–7: that visit is
///   untimed); per visit its zig-zag time in ms (when timed), then latitude and longitude as
///   IEEE 754 doubles, 8 bytes little-endian each (exact);
/// - its **local days**: count, then ascending: the first zig-zag, each next as the step (≥ 1);
/// - its **places** (``PlaceSignature``): count; per place the country, province, city, county
///   and subdivision as position + 1 (0: none), the kinds and the flags (version 1: four levels,
///   the lone flag in bit 4);
/// - its **minutes** (``MomentTally``): count; sorted; per minute the zig-zag step from the one
///   before; flags (bit 0: in-flight points follow, bit 1: flight distance, bit 2: vehicle
///   distance, the rest the number of place counts); points; distance mm; zig-zag of 60,000 minus
///   the duration ms; the in-flight points, flight mm, vehicle mm that the flags announce; per
///   place count its palette position and points;
/// - its **cells**: count; a palette of (country + 1, China region + 1, subdivision + 1) by
///   position (its count first; version 1: pairs, no subdivision); the zig-zag second of its earliest timed cell; per cell, sorted by key, the key
///   step, the seconds after that earliest + 1 (0: untimed) and its pair's position;
/// - its **tiles** (z17, ``SlippyTile``): count; when any, the zig-zag second of the earliest
///   timed one, then per tile the key step and the seconds after it + 1 (0: untimed);
/// - its **pass candidates** (``PassCandidates``), along its cells in key order: per cell one
///   varint `zigzag(first − visit) << 2 | n`, n its candidates up to 3 (0: none), then, when n is
///   3, the count less 3, then each further candidate's seconds after the one before (≥ 1).
public enum ContributionCodec {
    /// The layout's version, its first byte.
    public static let version: UInt8 = 2

    /// The tables' regions by level and code, for decoding; built once per table set.
    public struct Regions: Sendable {
        let tables: TableSet
        let world: [String: Int32]
        /// China's codes repeat across levels (a municipality is its own city): keyed by level too.
        let china: [String: Int32]
        /// The subdivision table's states and provinces (empty without one).
        let subdivisions: [String: Int32]

        public init(tables: TableSet) {
            self.tables = tables
            world = Dictionary(tables.world.regions.map { ($0.code, $0.index) }, uniquingKeysWith: { a, _ in a })
            china = Dictionary(tables.china.regions.map { ("\($0.level.rawValue):\($0.code)", $0.index) }, uniquingKeysWith: { a, _ in a })
            subdivisions = Dictionary((tables.subdivisions?.regions ?? []).filter { $0.level == .province }.map { ($0.code, $0.index) },
                                      uniquingKeysWith: { a, _ in a })
        }
    }

    /// Why bytes are not a contribution: what, and the byte offset within them.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public enum Kind: Equatable, Sendable {
            /// A region the tables lack (they were rebuilt from another source).
            case unknownRegion
            /// Bytes that are not a contribution: damage, a number out of range.
            case malformed
        }
        public var kind: Kind = .malformed
        public let reason: String
        public var description: String { reason }

        public init(kind: Kind = .malformed, reason: String) {
            self.kind = kind
            self.reason = reason
        }
    }

    /// The largest count, sum or time a contribution may hold (as ``LedgerState``'s).
    static let largestNumber = Int64(1) << 53

    // MARK: Encoding

    /// The contribution as bytes.
    public static func encode(_ part: InputContribution, tables: TableSet) -> [UInt8] {
        // Recorded before subdivisions: layout 1, as it was (it has none to write).
        let withSubdivisions = !part.recordedBeforeSubdivisions
        var bytes: [UInt8] = [withSubdivisions ? version : 1]
        func varint(_ value: UInt64) { UnsignedVarint.append(value, to: &bytes) }
        func count(_ value: Int64) { varint(UInt64(max(0, value))) }
        func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }

        // The regions anything names, sorted by key: its own list.
        var keys = Set(part.regions.keys)
        for place in part.places {
            for (level, index) in zip(PlaceSignature.levels, place.regionList) where index >= 0 {
                keys.insert(RegionKey(level: level, index: index))
            }
        }
        let pairs = Set(part.cells.visits.map(CellRegions.init)).sorted()
        for pair in pairs {
            if pair.country >= 0 { keys.insert(RegionKey(level: .country, index: pair.country)) }
            if pair.chinaRegion >= 0 { keys.insert(RegionKey(level: tables.china.region(pair.chinaRegion).level, index: pair.chinaRegion)) }
            if pair.subdivision >= 0 { keys.insert(RegionKey(level: .subdivision, index: pair.subdivision)) }
        }
        let list = keys.sorted()
        let position = Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1, UInt64($0)) })
        func country(_ index: Int32) -> UInt64 { index < 0 ? 0 : position[RegionKey(level: .country, index: index)]! + 1 }
        func china(_ index: Int32) -> UInt64 { index < 0 ? 0 : position[RegionKey(level: tables.china.region(index).level, index: index)]! + 1 }
        func subdivision(_ index: Int32) -> UInt64 { index < 0 ? 0 : position[RegionKey(level: .subdivision, index: index)]! + 1 }
        varint(UInt64(list.count))
        for key in list {
            let code = Array(tables.table(of: key.level)!.region(key.index).code.utf8)
            bytes.append(key.level.rawValue)
            varint(UInt64(code.count))
            bytes += code
        }

        // Evidence.
        varint(UInt64(part.regions.count))
        for key in part.regions.keys.sorted() {
            let e = part.regions[key]!
            let visits = [e.confirmedBy, e.tentativeBy, e.passedBy, e.loneBy]
            var mask: UInt8 = 0
            for (k, v) in visits.enumerated() {
                guard let v else { continue }
                mask |= 1 << UInt8(k)
                if v.time == nil { mask |= 1 << UInt8(k + 4) }
            }
            varint(position[key]!)
            bytes.append(mask)
            for v in visits.compactMap({ $0 }) {
                if let time = v.time { varint(ZigZag.encode(time)) }
                double(v.latitude)
                double(v.longitude)
            }
        }

        // Days.
        let days = part.days.sorted()
        varint(UInt64(days.count))
        for (k, day) in days.enumerated() { varint(k == 0 ? ZigZag.encode(day) : UInt64(day - days[k - 1])) }

        // Places.
        varint(UInt64(part.places.count))
        for place in part.places {
            varint(country(place.regions.0))
            varint(china(place.regions.1))
            varint(china(place.regions.2))
            varint(china(place.regions.3))
            if withSubdivisions {
                varint(subdivision(place.regions.4))
                varint(UInt64(place.kinds))
                varint(UInt64(place.flags))
            } else {
                varint(UInt64(place.kinds & 0xFF))
                varint(UInt64(place.flags & 0x0F | (place.isLone ? 0x10 : 0)))
            }
        }

        // Minutes.
        varint(UInt64(part.moments.count))
        var previousMinute: Int64 = 0
        for minute in part.moments.keys.sorted() {
            let t = part.moments[minute]!
            varint(ZigZag.encode(minute &- previousMinute))
            previousMinute = minute
            varint((t.inFlight > 0 ? 1 : 0) | (t.flightDistanceMillimetres > 0 ? 2 : 0) | (t.vehicleDistanceMillimetres > 0 ? 4 : 0) | UInt64(t.places.count) << 3)
            count(t.points)
            count(t.distanceMillimetres)
            varint(ZigZag.encode(60_000 &- t.durationMilliseconds))
            if t.inFlight > 0 { count(t.inFlight) }
            if t.flightDistanceMillimetres > 0 { count(t.flightDistanceMillimetres) }
            if t.vehicleDistanceMillimetres > 0 { count(t.vehicleDistanceMillimetres) }
            for entry in t.places {
                varint(UInt64(entry.place))
                count(entry.points)
            }
        }

        // Cells.
        let cellKeys = part.cells.keys, cells = part.cells.visits
        varint(UInt64(cellKeys.count))
        let pairPosition = Dictionary(uniqueKeysWithValues: pairs.enumerated().map { ($1, UInt64($0)) })
        varint(UInt64(pairs.count))
        for pair in pairs {
            varint(country(pair.country))
            varint(china(pair.chinaRegion))
            if withSubdivisions { varint(subdivision(pair.subdivision)) }
        }
        let firstSecond = cells.lazy.filter { $0.time != Int64.max }.map { $0.time / 1000 }.min() ?? 0
        varint(ZigZag.encode(firstSecond))
        var previousKey: Int64 = 0
        for (key, cell) in zip(cellKeys, cells) {
            varint(UInt64(bitPattern: key &- previousKey))
            varint(cell.time == Int64.max ? 0 : UInt64(bitPattern: cell.time / 1000 &- firstSecond) &+ 1)
            varint(pairPosition[CellRegions(cell)]!)
            previousKey = key
        }

        // Tiles.
        let tiles = part.tiles
        varint(UInt64(tiles.count))
        if tiles.count > 0 {
            let first = tiles.times.lazy.filter { $0 != Int64.max }.map { $0 / 1000 }.min() ?? 0
            varint(ZigZag.encode(first))
            var previous: Int64 = 0
            for (key, time) in zip(tiles.keys, tiles.times) {
                varint(UInt64(bitPattern: key &- previous))
                varint(time == Int64.max ? 0 : UInt64(bitPattern: time / 1000 &- first) &+ 1)
                previous = key
            }
        }

        // Pass candidates along the cells.
        let passes = part.passes
        var p = 0
        for (key, visit) in zip(cellKeys, cells) {
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

    // MARK: Decoding

    /// Reads a contribution written by ``encode(_:tables:)``, mapping its codes to `regions`'
    /// tables. Every count, time, position and order is checked; anything no encoder could have
    /// written is a ``Problem`` naming the byte offset.
    public static func decode(_ bytes: [UInt8], regions: Regions) throws(Problem) -> InputContribution {
        do {
            return try bytes.withUnsafeBytes { raw in try decode(raw, regions: regions) }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(reason: "\(error)")
        }
    }

    /// As ``decode(_:regions:)``, over a buffer (a state file's slice).
    public static func decode(_ raw: UnsafeRawBufferPointer, regions: Regions) throws(Problem) -> InputContribution {
        var reader = Reader(raw: raw)
        return try reader.contribution(regions)
    }

    /// Whether two levels' regions are in one table (China's three levels share one).
    static func sameTable(_ a: RegionLevel, _ b: RegionLevel) -> Bool {
        TableSet.levelsByTable.contains { $0.contains(a) && $0.contains(b) }
    }

    /// A cell's regions, as the per-input palette lists them.
    struct CellRegions: Hashable, Comparable {
        var country: Int32
        var chinaRegion: Int32
        var subdivision: Int32 = -1

        init(country: Int32, chinaRegion: Int32, subdivision: Int32 = -1) {
            self.country = country
            self.chinaRegion = chinaRegion
            self.subdivision = subdivision
        }

        init(_ visit: CellVisit) {
            self.init(country: visit.country, chinaRegion: visit.chinaRegion, subdivision: visit.subdivision)
        }

        static func < (a: CellRegions, b: CellRegions) -> Bool {
            (a.country, a.chinaRegion, a.subdivision) < (b.country, b.chinaRegion, b.subdivision)
        }
    }

    /// The bytes being decoded and the offset reached.
    struct Reader {
        let raw: UnsafeRawBufferPointer
        var offset = 0

        init(raw: UnsafeRawBufferPointer) {
            self.raw = raw
        }

        var remaining: Int { raw.count - offset }

        func fail(_ reason: String) -> Problem { Problem(reason: "\(reason) at byte \(offset)") }

        mutating func next(_ what: String) throws(Problem) -> UInt64 {
            guard let value = UnsignedVarint.read(raw, &offset, end: raw.count) else { throw fail("bad \(what)") }
            return value
        }

        mutating func byte(_ what: String) throws(Problem) -> UInt8 {
            guard offset < raw.count else { throw fail("no \(what)") }
            defer { offset += 1 }
            return raw[offset]
        }

        /// A count or sum: at most 2^53.
        mutating func amount(_ what: String) throws(Problem) -> Int64 {
            let value = try next(what)
            guard value <= UInt64(largestNumber) else { throw fail("\(what) \(value) is beyond 2^53") }
            return Int64(value)
        }

        /// A count of items that take at least `bytes` each: beyond what is left is damage.
        mutating func count(_ what: String, bytes: Int = 1) throws(Problem) -> Int {
            let value = try next(what)
            guard value <= UInt64(remaining / max(1, bytes)) else { throw fail("\(value) \(what) do not fit in the bytes left") }
            return Int(value)
        }

        mutating func double(_ what: String) throws(Problem) -> Double {
            guard offset + 8 <= raw.count else { throw fail("truncated \(what)") }
            defer { offset += 8 }
            return Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        }

        /// A time within ±2^53 ms.
        mutating func time(_ what: String) throws(Problem) -> Int64 {
            let time = ZigZag.decode(try next(what))
            guard abs(time) <= largestNumber else { throw fail("\(what) \(time) beyond ±2^53 ms") }
            return time
        }

        mutating func contribution(_ tables: Regions) throws(Problem) -> InputContribution {
            let layout = try byte("version")
            guard layout == version || layout == 1 else { throw fail("contribution layout \(layout), not \(version)") }
            let withSubdivisions = layout >= 2
            var part = InputContribution()
            part.recordedBeforeSubdivisions = !withSubdivisions

            // Regions.
            var keys: [RegionKey] = [], seen = Set<RegionKey>()
            for _ in 0..<(try count("regions", bytes: 2)) {
                let level = try byte("region level")
                guard let regionLevel = RegionLevel(rawValue: level) else { throw fail("region level \(level)") }
                let length = try count("code bytes")
                let code = String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]), as: UTF8.self)
                offset += length
                let index: Int32?
                switch regionLevel {
                case .country: index = tables.world[code]
                case .subdivision: index = withSubdivisions ? tables.subdivisions[code] : nil
                case .province, .city, .county: index = tables.china["\(level):\(code)"]
                }
                guard let index else {
                    throw Problem(kind: .unknownRegion, reason: "region \(code) is not in the region tables (were they rebuilt from another source?) at byte \(offset)")
                }
                let key = RegionKey(level: regionLevel, index: index)
                guard seen.insert(key).inserted else { throw fail("region \(code) listed twice") }
                keys.append(key)
            }
            func region(_ value: UInt64, _ what: String) throws(Problem) -> RegionKey {
                guard value < UInt64(keys.count) else { throw fail("\(what) \(value) names no listed region") }
                return keys[Int(value)]
            }
            /// A region of the table of `level` (province: any China level), or -1.
            func optionalRegion(_ what: String, _ level: RegionLevel) throws(Problem) -> Int32 {
                let value = try next(what)
                guard value > 0 else { return -1 }
                let key = try region(value - 1, what)
                guard ContributionCodec.sameTable(key.level, level) else {
                    throw fail("\(what) \(value) names a region of another level")
                }
                return key.index
            }

            // Evidence.
            for _ in 0..<(try count("evidence entries", bytes: 2)) {
                let key = try region(try next("evidence region"), "evidence region")
                guard part.regions[key] == nil else { throw fail("evidence of a region listed twice") }
                let mask = try byte("evidence mask")
                var visits: [Visit?] = [nil, nil, nil, nil]
                guard (mask >> 4) & ~mask & 0x0F == 0 else { throw fail("evidence mask \(mask) marks a missing visit untimed") }
                for k in 0..<4 where mask & (1 << UInt8(k)) != 0 {
                    var time: Int64?
                    if mask & (1 << UInt8(k + 4)) == 0 { time = try self.time("visit time") }
                    let latitude = try double("visit latitude"), longitude = try double("visit longitude")
                    guard abs(latitude) <= 90, abs(longitude) <= 180 else { throw fail("visit at \(latitude), \(longitude) is no position") }
                    visits[k] = Visit(time: time, latitude: latitude, longitude: longitude)
                }
                var evidence = RegionEvidence()
                evidence.confirmedBy = visits[0]
                evidence.tentativeBy = visits[1]
                evidence.passedBy = visits[2]
                evidence.loneBy = visits[3]
                part.regions[key] = evidence
            }

            // Days.
            let largestDay = largestNumber / 86_400_000 + 1
            var day: Int64 = 0
            for k in 0..<(try count("days")) {
                if k == 0 {
                    day = ZigZag.decode(try next("day"))
                } else {
                    let step = try next("day step")
                    guard step >= 1 else { throw fail("days out of order") }
                    guard step <= UInt64(2 * largestDay) else { throw fail("a day beyond the days of ±2^53 ms") }
                    day += Int64(step)
                }
                guard abs(day) <= largestDay else { throw fail("day \(day) is beyond the days of ±2^53 ms") }
                part.days.insert(day)
            }

            // Places.
            for _ in 0..<(try count("places", bytes: 6)) {
                let regions = (try optionalRegion("place country", .country), try optionalRegion("place province", .province),
                               try optionalRegion("place city", .city), try optionalRegion("place county", .county),
                               withSubdivisions ? try optionalRegion("place subdivision", .subdivision) : -1)
                var kinds = try next("place kinds"), flags = try next("place flags")
                if !withSubdivisions {
                    guard kinds <= 0xFF, flags <= 0x1F else { throw fail("place kinds \(kinds) or flags \(flags) out of range") }
                    flags = flags & 0x0F | (flags & 0x10 != 0 ? UInt64(PlaceSignature.loneFlag) : 0)
                }
                guard kinds <= 0x3FF, flags <= 0x3F else { throw fail("place kinds \(kinds) or flags \(flags) out of range") }
                part.places.append(PlaceSignature(regions: regions, kinds: UInt16(kinds), flags: UInt8(flags)))
            }

            // Minutes.
            let largestMinute = largestNumber / 60_000
            var minute: Int64 = 0
            for n in 0..<(try count("minutes", bytes: 4)) {
                let following = minute &+ ZigZag.decode(try next("minute"))
                guard following == MomentTally.untimedMinute || abs(following) <= largestMinute, n == 0 || following > minute else {
                    throw fail("minute \(following) out of order or beyond ±2^53 ms")
                }
                minute = following
                var t = MomentTally()
                let flags = try next("minute flags")
                guard flags >> 3 <= UInt64(part.places.count) else { throw fail("minute \(minute) counts more places than its palette has") }
                t.points = try amount("points of minute \(minute)")
                t.distanceMillimetres = try amount("distance of minute \(minute)")
                t.durationMilliseconds = 60_000 &- ZigZag.decode(try next("duration"))
                guard t.durationMilliseconds >= 0, t.durationMilliseconds <= (minute == MomentTally.untimedMinute ? 0 : 60_000) else {
                    throw fail("duration \(t.durationMilliseconds) ms of minute \(minute) is not within the minute")
                }
                if flags & 1 != 0 { t.inFlight = try amount("in-flight points of minute \(minute)") }
                if flags & 2 != 0 { t.flightDistanceMillimetres = try amount("flight distance of minute \(minute)") }
                if flags & 4 != 0 { t.vehicleDistanceMillimetres = try amount("vehicle distance of minute \(minute)") }
                guard t.inFlight <= t.points, t.flightDistanceMillimetres + t.vehicleDistanceMillimetres <= t.distanceMillimetres else {
                    throw fail("minute \(minute) has more in flight or by vehicle than in all")
                }
                for _ in 0..<(flags >> 3) {
                    let place = try next("place position")
                    guard place < UInt64(part.places.count) else { throw fail("place \(place) of minute \(minute) is not in its palette") }
                    t.places.append((Int32(place), try amount("place points of minute \(minute)")))
                }
                part.moments[minute] = t
            }

            // Cells.
            let cellCount = try count("cells", bytes: 3)
            var pairs: [CellRegions] = []
            for _ in 0..<(try count("cell regions", bytes: 2)) {
                pairs.append(CellRegions(country: try optionalRegion("cell country", .country), chinaRegion: try optionalRegion("cell region", .province),
                                         subdivision: withSubdivisions ? try optionalRegion("cell subdivision", .subdivision) : -1))
            }
            let largestSecond = largestNumber / 1000
            let firstSecond = ZigZag.decode(try next("first cell second"))
            guard abs(firstSecond) <= largestSecond else { throw fail("first cell second \(firstSecond) beyond ±2^53 ms") }
            var cellKeys: [Int64] = [], visits: [CellVisit] = []
            cellKeys.reserveCapacity(cellCount)
            visits.reserveCapacity(cellCount)
            let largestCellKey = ExploredGrid.key(row: ExploredGrid.maximumRow, column: (1 << 23) - 1)
            var key: Int64 = 0, row = Int64.min, columns: Int64 = 0
            for n in 0..<cellCount {
                key &+= Int64(bitPattern: try next("cell key"))
                guard n == 0 || key > cellKeys[cellKeys.count - 1] else { throw fail("cells out of order or listed twice") }
                // A cell of the grid: a row from pole to pole, a column of that row.
                guard key >= 0, key <= largestCellKey else { throw fail("cell key \(key) is not on the grid") }
                let cell = ExploredGrid.cell(ofKey: key)
                if cell.row != row {
                    row = cell.row
                    columns = ExploredGrid.columnCount(row: row)
                }
                guard cell.column < columns else { throw fail("cell key \(key) is not on the grid") }
                let second = try next("cell time")
                guard second == 0 || second - 1 <= UInt64(largestSecond - firstSecond) else { throw fail("cell time beyond 2^53 ms") }
                let pair = try next("cell region pair")
                guard pair < UInt64(pairs.count) else { throw fail("cell region pair \(pair) is not in its palette") }
                cellKeys.append(key)
                visits.append(CellVisit(time: second == 0 ? Int64.max : (firstSecond + Int64(second - 1)) * 1000,
                                        country: pairs[Int(pair)].country, chinaRegion: pairs[Int(pair)].chinaRegion, subdivision: pairs[Int(pair)].subdivision))
            }
            part.cells = CellList(sortedKeys: cellKeys, visits: visits)

            // Tiles.
            let tileCount = try count("tiles", bytes: 2)
            if tileCount > 0 {
                let zoom = SlippyTile.storedZoom
                let largestTile = SlippyTile.key(x: (1 << zoom) - 1, y: (1 << zoom) - 1, zoom: zoom)
                let first = ZigZag.decode(try next("first tile second"))
                guard abs(first) <= largestSecond else { throw fail("first tile second \(first) beyond ±2^53 ms") }
                var tileKeys: [Int64] = [], times: [Int64] = []
                tileKeys.reserveCapacity(tileCount)
                times.reserveCapacity(tileCount)
                var tile: Int64 = 0
                for n in 0..<tileCount {
                    let step = try next("tile key")
                    guard n == 0 || step > 0 else { throw fail("tiles out of order or listed twice") }
                    guard step <= UInt64(largestTile - tile) else { throw fail("tile key beyond zoom \(zoom)") }
                    tile += Int64(step)
                    let second = try next("tile time")
                    guard second == 0 || second - 1 <= UInt64(largestSecond - first) else { throw fail("tile time beyond 2^53 ms") }
                    tileKeys.append(tile)
                    times.append(second == 0 ? Int64.max : (first + Int64(second - 1)) * 1000)
                }
                part.tiles = TileList(sortedKeys: tileKeys, times: times)
            }

            // Pass candidates.
            var passKeys: [Int64] = [], seconds: [Int64] = []
            for (key, visit) in zip(cellKeys, visits) {
                let head = try next("cell passes")
                var n = head & 3
                guard n > 0 else {
                    guard head == 0 else { throw fail("bad cell passes \(head)") }
                    continue
                }
                if n == 3 {
                    // Each further pass takes a byte at least (checked before it is added).
                    let more = try next("cell pass count")
                    guard more <= UInt64(remaining) else { throw fail("\(more) more passes of a cell do not fit in the bytes left") }
                    n += more
                }
                let base = visit.time == Int64.max ? 0 : visit.time / 1000
                var second = base &+ ZigZag.decode(head >> 2)
                for k in 0..<n {
                    if k > 0 {
                        let step = try next("cell pass time")
                        guard step >= 1, step <= UInt64(2 * largestSecond) else { throw fail("cell pass times out of order") }
                        second &+= Int64(step)
                    }
                    guard abs(second) <= largestSecond else { throw fail("cell pass time beyond ±2^53 ms") }
                    passKeys.append(key)
                    seconds.append(second)
                }
            }
            part.passes = PassCandidates(sortedKeys: passKeys, seconds: seconds)
            guard offset == raw.count else { throw fail("\(raw.count - offset) stray bytes after the contribution") }
            return part
        }
    }
}
