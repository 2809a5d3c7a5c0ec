import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// Tests of the region table reader against the committed China table (Data/regions/china.bin):
/// contents, point lookups, an independent decoder written from docs/region-table-format.md, and
/// damaged or hostile files (truncation, bit flips, edited headers and directories).
final class RegionTableTests: XCTestCase {
    // MARK: Fixtures

    static let tableURL = URL(fileURLWithPath: Repository.tables + "/china.bin")
    static var tablePath: String { tableURL.path }

    /// The committed file's bytes, read once.
    static let fileBytes: [UInt8] = {
        guard let data = try? Data(contentsOf: tableURL) else { fatalError("cannot read \(tableURL.path)") }
        return [UInt8](data)
    }()

    /// The committed table, loaded once through the memory-mapped path (shared by the tests).
    static var china: RegionTable { BundledTables.tables.china }

    /// The china.bin entry's counts in the manifest beside it (Data/regions/manifest.json).
    static let manifest: [String: Int] = {
        let url = tableURL.deletingLastPathComponent().appendingPathComponent("manifest.json")
        let data = try! Data(contentsOf: url)
        let root = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        let tables = root["tables"] as! [[String: Any]]
        return tables.first { $0["file"] as? String == "china.bin" }!.compactMapValues { $0 as? Int }
    }()

    /// Quantised coordinates of a GCJ-02 position (x = round(lon / 1e-5), y = round(lat / 1e-5)).
    static func quantised(lat: Double, lon: Double) -> (x: Int64, y: Int64) {
        (Int64((lon / TableFormat.quantum).rounded()), Int64((lat / TableFormat.quantum).rounded()))
    }

    // MARK: Byte editing helpers

    static func read<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, as: T.Type = T.self) -> T {
        var value: T = 0
        for k in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: bytes[offset + k]) << (8 * k) }
        return value
    }

    static func write<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        for k in 0..<MemoryLayout<T>.size { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    /// Recomputes the header checksum: XXH64 (seed 0) of bytes 0..<120, stored at 120.
    static func fixHeaderChecksum(_ bytes: inout [UInt8]) {
        write(XXH64.hash(Array(bytes[0..<120])), at: 120, in: &bytes)
    }

    /// Recomputes the payload checksum (XXH64 of bytes 128..<end, stored at 80), then the header's.
    static func fixChecksums(_ bytes: inout [UInt8]) {
        write(XXH64.hash(Array(bytes[128...])), at: 80, in: &bytes)
        fixHeaderChecksum(&bytes)
    }

    /// Byte offset of the directory entry of section `id`.
    static func directoryEntry(_ bytes: [UInt8], id: UInt32) -> Int {
        let count = Int(read(bytes, 88, as: UInt32.self))
        for i in 0..<count where read(bytes, 128 + 24 * i, as: UInt32.self) == id { return 128 + 24 * i }
        fatalError("no section \(id)")
    }

    static func sectionRange(_ bytes: [UInt8], id: UInt32) -> Range<Int> {
        let entry = directoryEntry(bytes, id: id)
        let offset = Int(read(bytes, entry + 8, as: UInt64.self)), length = Int(read(bytes, entry + 16, as: UInt64.self))
        return offset..<offset + length
    }

    /// Loads `bytes` and returns the TableError it must throw (failing the test otherwise).
    func loadError(_ bytes: [UInt8], verifyChecksum: Bool = true, _ message: String,
                   file: StaticString = #filePath, line: UInt = #line) -> TableError? {
        do {
            _ = try RegionTable(bytes: bytes, path: "edited.bin", verifyChecksum: verifyChecksum)
            XCTFail("\(message): loaded", file: file, line: line)
        } catch let error as TableError {
            XCTAssertEqual(error.path, "edited.bin", file: file, line: line)
            return error
        } catch {
            XCTFail("\(message): threw \(error), not a TableError", file: file, line: line)
        }
        return nil
    }

    /// Runs `body` on another thread and fails if it does not finish within `seconds` (a hang).
    func finishes(within seconds: Double, _ what: String, _ body: @escaping @Sendable () -> Void,
                  file: StaticString = #filePath, line: UInt = #line) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            XCTFail("\(what) did not finish within \(seconds) s (hang?)", file: file, line: line)
        }
    }

    // MARK: The committed table

    func testLoadsTheCommittedTable() throws {
        let table = Self.china
        XCTAssertEqual(table.datum, .gcj02)
        XCTAssertEqual(table.datum.name, "GCJ-02")
        XCTAssertEqual(table.levels, [.province, .city, .county])
        XCTAssertEqual(table.tolerance, 30)
        XCTAssertEqual(table.buffer, 100)
        XCTAssertEqual(table.step, 1)
        XCTAssertEqual(table.byteCount, Self.fileBytes.count)
        XCTAssertEqual(table.byteCount, Self.manifest["bytes"])
        XCTAssertEqual(table.unitCount, Self.manifest["units"])
        XCTAssertEqual(table.arcCount, Self.manifest["arcs"])
        let manifestRoot = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.tableURL.deletingLastPathComponent()
            .appendingPathComponent("manifest.json"))) as! [String: Any]
        XCTAssertEqual(table.sourceSHA256, (manifestRoot["source"] as! [String: Any])["sha256"] as? String)

        // The same bytes through the in-memory path give the same table.
        let copy = try RegionTable(bytes: Self.fileBytes, path: "copy")
        XCTAssertEqual(copy.regions, table.regions)
        XCTAssertEqual(copy.vertices, table.vertices)
    }

    func testRegionCountsAndHierarchy() {
        let table = Self.china
        let regions = table.regions
        XCTAssertEqual(regions.count, table.regionCount)
        XCTAssertEqual(regions.filter { $0.level == .province }.count, 34)
        XCTAssertEqual(regions.filter { $0.level == .city }.count, 370)
        XCTAssertEqual(regions.filter { $0.level == .county }.count, 2875)
        XCTAssertEqual(regions.count, 34 + 370 + 2875)
        for (i, region) in regions.enumerated() {
            XCTAssertEqual(region.index, Int32(i))
            XCTAssertFalse(region.code.isEmpty)
            XCTAssertFalse(region.name.isEmpty)
            let box = region.boundingBox
            XCTAssertLessThan(box.minX, box.maxX, region.code)
            XCTAssertLessThan(box.minY, box.maxY, region.code)
            switch region.level {
            case .province:
                XCTAssertNil(region.parent, "province \(region.code)")
            case .city:
                guard let parent = region.parent else { XCTFail("city \(region.code) has no parent"); continue }
                XCTAssertEqual(regions[Int(parent)].level, .province, "city \(region.code)")
            case .county:
                guard let city = region.parent else { XCTFail("county \(region.code) has no parent"); continue }
                XCTAssertEqual(regions[Int(city)].level, .city, "county \(region.code)")
                guard let province = regions[Int(city)].parent else { XCTFail("city of \(region.code) has no parent"); continue }
                XCTAssertEqual(regions[Int(province)].level, .province, "county \(region.code)")
            case .country, .subdivision:
                XCTFail("no countries or subdivisions in the China table")
            }
            if let parent = region.parent {
                // A parent's box holds its children's.
                let p = regions[Int(parent)].boundingBox
                XCTAssertTrue(p.minX <= box.minX && p.minY <= box.minY && p.maxX >= box.maxX && p.maxY >= box.maxY, region.code)
            }
        }
        // Codes are unique within a level (special administrative regions reuse theirs one level down).
        for level in table.levels {
            let codes = regions.filter { $0.level == level }.map(\.code)
            XCTAssertEqual(Set(codes).count, codes.count, "\(level.name) codes repeat")
        }
    }

    func region(_ code: String, _ level: RegionLevel, file: StaticString = #filePath, line: UInt = #line) -> Region? {
        let found = Self.china.regions.first { $0.code == code && $0.level == level }
        XCTAssertNotNil(found, "no \(level.name) \(code)", file: file, line: line)
        return found
    }

    func testKnownRegions() throws {
        let table = Self.china
        let beijing = try XCTUnwrap(region("110000", .province))
        XCTAssertEqual(beijing.name, "北京市")
        XCTAssertNil(beijing.parent)

        let chaoyang = try XCTUnwrap(region("110105", .county))
        XCTAssertEqual(chaoyang.name, "朝阳区")
        let city = table.region(try XCTUnwrap(chaoyang.parent))
        XCTAssertEqual(city.code, "110100")
        XCTAssertEqual(city.level, .city)
        let province = table.region(try XCTUnwrap(city.parent))
        XCTAssertEqual(province.code, "110000")
        XCTAssertEqual(province, beijing)

        XCTAssertEqual(region("810000", .province)?.name, "香港特别行政区")
        XCTAssertEqual(region("820000", .province)?.name, "澳门特别行政区")
        XCTAssertEqual(region("710000", .province)?.name, "台湾省")
        XCTAssertEqual(region("310000", .province)?.name, "上海市")
        XCTAssertEqual(region("650100", .city)?.name, "乌鲁木齐市")
        XCTAssertEqual(region("540102", .county)?.name, "城关区")
        // Beijing's box: 115.4–117.5°E, 39.4–41.1°N.
        let box = beijing.boundingBox
        XCTAssertEqual(Double(box.minX) * TableFormat.quantum, 115.4, accuracy: 0.1)
        XCTAssertEqual(Double(box.maxX) * TableFormat.quantum, 117.5, accuracy: 0.1)
        XCTAssertEqual(Double(box.minY) * TableFormat.quantum, 39.4, accuracy: 0.1)
        XCTAssertEqual(Double(box.maxY) * TableFormat.quantum, 41.1, accuracy: 0.1)
    }

    func testUnitsFollowTheHierarchy() {
        let table = Self.china
        var countiesSeen = Set<Int32>()
        var unitsWithoutCounty = 0
        for unit in 0..<Int32(table.unitCount) {
            guard let province = table.region(ofUnit: unit, at: .province), let city = table.region(ofUnit: unit, at: .city) else {
                XCTFail("unit \(unit) lacks a province or city")
                continue
            }
            XCTAssertEqual(table.region(city).parent, province, "unit \(unit)")
            if let county = table.region(ofUnit: unit, at: .county) {
                XCTAssertEqual(table.region(county).parent, city, "unit \(unit)")
                XCTAssertTrue(countiesSeen.insert(county).inserted, "county \(county) in two units")
            } else {
                unitsWithoutCounty += 1
            }
            XCTAssertNil(table.region(ofUnit: unit, at: .country))
            XCTAssertFalse(table.unitPolygons(unit).isEmpty, "unit \(unit) has no polygons")
        }
        // Every county is one unit; the build left one uncovered piece (manifest: uncoveredPieces 1).
        XCTAssertEqual(countiesSeen.count, 2875)
        XCTAssertEqual(unitsWithoutCounty, Self.manifest["uncoveredPieces"])
    }

    // MARK: Point lookups

    func countyCode(lat: Double, lon: Double) -> (unit: Int32, county: String?, city: String, province: String)? {
        let table = Self.china
        let q = Self.quantised(lat: lat, lon: lon)
        guard let unit = table.unit(atX: q.x, y: q.y) else { return nil }
        let code = { (level: RegionLevel) in table.region(ofUnit: unit, at: level).map { table.region($0).code } }
        return (unit, code(.county), code(.city) ?? "-", code(.province) ?? "-")
    }

    func testPointLookups() throws {
        // Tiananmen (GCJ-02 39.9087 N, 116.3975 E).
        let tiananmen = try XCTUnwrap(countyCode(lat: 39.9087, lon: 116.3975))
        XCTAssertEqual(tiananmen.county, "110101")  // 东城区
        XCTAssertEqual(tiananmen.city, "110100")
        XCTAssertEqual(tiananmen.province, "110000")
        // People's Square, Shanghai.
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 31.2304, lon: 121.4737)).county, "310101")  // 黄浦区
        // Potala Palace, Lhasa.
        let potala = try XCTUnwrap(countyCode(lat: 29.6555, lon: 91.1176))
        XCTAssertEqual(potala.county, "540102")  // 城关区
        XCTAssertEqual(potala.province, "540000")
        // Central Ürümqi.
        let urumqi = try XCTUnwrap(countyCode(lat: 43.8256, lon: 87.6168))
        XCTAssertEqual(urumqi.city, "650100")
        XCTAssertEqual(urumqi.province, "650000")
        // Mong Kok, Kowloon; Taipei 101; Macau's Senado Square.
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 22.3193, lon: 114.1694)).province, "810000")
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 25.0330, lon: 121.5654)).province, "710000")
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 22.1935, lon: 113.5400)).province, "820000")
        // Chengdu's Tianfu Square; Harbin's Central Street.
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 30.6574, lon: 104.0658)).city, "510100")
        XCTAssertEqual(try XCTUnwrap(countyCode(lat: 45.7732, lon: 126.6177)).city, "230100")
    }

    func testPointsOutsideChina() {
        // The middle of the Pacific (outside the index's root cell).
        XCTAssertNil(countyCode(lat: 0, lon: -160))
        // Open sea between China and Japan (East China Sea), inside the root cell.
        XCTAssertNil(countyCode(lat: 30.0, lon: 126.0))
        // Ulaanbaatar, Seoul, Hanoi: land, but not in the table.
        XCTAssertNil(countyCode(lat: 47.9184, lon: 106.9177))
        XCTAssertNil(countyCode(lat: 37.5665, lon: 126.9780))
        XCTAssertNil(countyCode(lat: 21.0285, lon: 105.8542))
        // Far outside any plausible coordinate.
        XCTAssertNil(Self.china.unit(atX: .max, y: .max))
        XCTAssertNil(Self.china.unit(atX: .min, y: .min))
        XCTAssertNil(Self.china.unit(atX: 0, y: 0))
    }

    // MARK: The ray-casting rule

    func testCrossingRuleIsHalfOpen() {
        // An upward segment (0, 0) → (0, 10).
        func crossing(_ px: Int64, _ py: Int64, limit: Int64 = 100) -> RayCasting.Crossing? {
            RayCasting.crossing(ax: 0, ay: 0, bx: 0, by: 10, px: px, py: py, limitX: limit)
        }
        XCTAssertEqual(crossing(-5, 5)?.x, 0)
        XCTAssertEqual(crossing(-5, 5)?.upward, true)
        XCTAssertNotNil(crossing(-5, 0), "the lower vertex counts as below the ray: crossed")
        XCTAssertNil(crossing(-5, 10), "the upper vertex is not crossed")
        XCTAssertNil(crossing(-5, -1))
        XCTAssertNotNil(crossing(0, 5), "a point on the segment crosses it at distance 0")
        XCTAssertNil(crossing(1, 5), "the segment is west of the point")
        XCTAssertNil(crossing(-5, 5, limit: -1), "beyond the limit")
        XCTAssertNotNil(crossing(-5, 5, limit: 0), "the limit is inclusive")
        // Reversed, it runs downward.
        XCTAssertEqual(RayCasting.crossing(ax: 0, ay: 10, bx: 0, by: 0, px: -5, py: 5, limitX: 100)?.upward, false)
        // Horizontal segments are never crossed.
        XCTAssertNil(RayCasting.crossing(ax: -10, ay: 5, bx: 10, by: 5, px: -20, py: 5, limitX: 100))
        // Ties at a shared vertex: the segment leaning farther west just above it is nearer.
        let steep = RayCasting.crossing(ax: 0, ay: 0, bx: 1, by: 10, px: -5, py: 0, limitX: 100)!
        let shallow = RayCasting.crossing(ax: 0, ay: 0, bx: 10, by: 10, px: -5, py: 0, limitX: 100)!
        XCTAssertTrue(steep.isNearer(than: shallow))
        XCTAssertFalse(shallow.isNearer(than: steep))
        // Same line, opposite directions: upward wins.
        let up = RayCasting.crossing(ax: 0, ay: 0, bx: 0, by: 10, px: -5, py: 0, limitX: 100)!
        let down = RayCasting.crossing(ax: 0, ay: 10, bx: 0, by: 0, px: -5, py: 0, limitX: 100)!
        XCTAssertTrue(up.isNearer(than: down))
        XCTAssertFalse(down.isNearer(than: up))
    }

    // MARK: An independent decoder, written from docs/region-table-format.md

    /// The table decoded by the spec alone (no reader code but XXH64).
    struct SpecTable {
        var vertices: [Int32] = []
        var arcStart: [Int] = [0]
        var left: [Int32] = [], right: [Int32] = []
        var chunkStart: [Int] = [], chunkCount: [Int] = [], chunkArc: [Int] = []
        var originX: Int64 = 0, originY: Int64 = 0, rootLog2: Int64 = 0
        var nodes: [UInt32] = []
        var leaves: [[Int]] = []  // by byte offset: see leafAt
        var leafOffsets: [Int: Int] = [:]
        var regions: [(level: UInt8, code: String, name: String, english: String, parent: Int32, box: [Int32])] = []
        var unitRegions: [[Int32]] = []
        var unitRings: [UInt32] = []
        var rings: [(start: Int, count: Int, hole: Bool)] = []
        var references: [Int32] = []

        init(_ d: [UInt8]) {
            func u16(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 }
            func u32(_ o: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(d[o + $1]) << (8 * $1) } }
            func i32(_ o: Int) -> Int32 { Int32(bitPattern: u32(o)) }
            func u64(_ o: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(d[o + $1]) << (8 * $1) } }
            precondition(Array(d[0..<8]) == Array("AUREGION".utf8) && u16(8) == 2 && u16(10) == 128)
            let step = Int64(u16(18))
            let levelCount = Int(d[17])
            var sections: [UInt32: Range<Int>] = [:]
            for i in 0..<Int(u32(88)) {
                let e = 128 + 24 * i
                sections[u32(e)] = Int(u64(e + 8))..<Int(u64(e + 8) + u64(e + 16))
            }
            let strings = sections[1]!
            func text(_ offset: UInt32, _ length: Int) -> String {
                String(decoding: d[strings.lowerBound + Int(offset)..<strings.lowerBound + Int(offset) + length], as: UTF8.self)
            }
            for r in stride(from: sections[2]!.lowerBound, to: sections[2]!.upperBound, by: 40) {
                regions.append((d[r], text(u32(r + 4), u16(r + 2)), text(u32(r + 8), u16(r + 12)), text(u32(r + 16), u16(r + 14)),
                                i32(r + 20), [i32(r + 24), i32(r + 28), i32(r + 32), i32(r + 36)]))
            }
            for u in stride(from: sections[3]!.lowerBound, to: sections[3]!.upperBound, by: 4 * levelCount) {
                unitRegions.append((0..<levelCount).map { i32(u + 4 * $0) })
            }
            func varint(_ p: inout Int) -> UInt64 {
                var value: UInt64 = 0, shift: UInt64 = 0
                while true {
                    let byte = d[p]
                    p += 1
                    value |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { return value }
                    shift += 7
                }
            }
            func zigzag(_ z: UInt64) -> Int64 { Int64(z >> 1) ^ -Int64(z & 1) }
            // Arc records (varints) and their bit-packed coordinates, in steps.
            var record = sections[4]!.lowerBound + 4
            var position = sections[5]!.lowerBound
            var firstX: Int64 = 0, firstY: Int64 = 0
            for _ in 0..<Int(u32(sections[4]!.lowerBound)) {
                let head = varint(&record)
                left.append(Int32(varint(&record)) - 1)
                right.append(Int32(varint(&record)) - 1)
                firstX += zigzag(varint(&record)) * step
                firstY += zigzag(varint(&record)) * step
                var x = firstX, y = firstY
                vertices += [Int32(x), Int32(y)]
                var remaining = Int(head >> 1)  // stored vertices after the first
                while remaining > 0 {
                    let n = min(16, remaining)
                    let width = Int(d[position])
                    position += 1
                    var bit = 0
                    for k in 0..<(2 * n) {
                        var code: UInt64 = 0
                        for b in 0..<width {
                            let p = bit + b
                            code |= UInt64((d[position + p / 8] >> UInt8(p % 8)) & 1) << UInt64(b)
                        }
                        bit += width
                        if k % 2 == 0 { x += zigzag(code) * step } else { y += zigzag(code) * step; vertices += [Int32(x), Int32(y)] }
                    }
                    position += (bit + 7) / 8
                    remaining -= n
                }
                if head & 1 == 1 { vertices += [Int32(firstX), Int32(firstY)] }  // closed
                arcStart.append(vertices.count / 2)
            }
            for arc in 0..<(arcStart.count - 1) {
                var first = arcStart[arc]
                while first < arcStart[arc + 1] - 1 {
                    let n = min(16, arcStart[arc + 1] - 1 - first)
                    chunkStart.append(first); chunkCount.append(n); chunkArc.append(arc)
                    first += n
                }
            }
            for o in stride(from: sections[6]!.lowerBound, to: sections[6]!.upperBound, by: 4) { unitRings.append(u32(o)) }
            var ringPosition = sections[7]!.lowerBound, referenceCount = 0
            while ringPosition < sections[7]!.upperBound {
                let value = varint(&ringPosition)
                rings.append((referenceCount, Int(value >> 1), value & 1 == 1))
                referenceCount += Int(value >> 1)
            }
            var referencePosition = sections[8]!.lowerBound, reference: Int64 = 0
            while referencePosition < sections[8]!.upperBound {
                reference += zigzag(varint(&referencePosition))
                references.append(Int32(reference))
            }
            let meta = sections[9]!.lowerBound
            originX = Int64(i32(meta)); originY = Int64(i32(meta + 4)); rootLog2 = Int64(u32(meta + 8))
            for o in stride(from: sections[10]!.lowerBound, to: sections[10]!.upperBound, by: 4) { nodes.append(u32(o)) }
            let leafBytes = sections[11]!
            for node in nodes where node >> 30 >= 2 {
                var p = leafBytes.lowerBound + Int(node & 0x3FFF_FFFF)
                func varint() -> Int {
                    var value = 0, shift = 0
                    while true {
                        let byte = d[p]
                        p += 1
                        value |= Int(byte & 0x7F) << shift
                        if byte < 0x80 { return value }
                        shift += 7
                    }
                }
                let count = varint()
                var chunk = 0
                var list: [Int] = []
                for _ in 0..<count {
                    chunk += varint()
                    list.append(chunk)
                }
                leafOffsets[Int(node & 0x3FFF_FFFF)] = leaves.count
                leaves.append(list)
            }
        }

        /// Crossing of the ray from (px, py) towards +x with segment a→b, up to limitX.
        static func crossing(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ px: Int64, _ py: Int64, _ limitX: Int64)
            -> (x: Double, low: (Int64, Int64), high: (Int64, Int64), upward: Bool)? {
            guard (ay > py) != (by > py) else { return nil }
            let upward = by > py
            let (l, h) = upward ? ((ax, ay), (bx, by)) : ((bx, by), (ax, ay))
            let dx = h.0 - l.0, dy = h.1 - l.1
            guard dx * (py - l.1) - dy * (px - l.0) >= 0, dx * (py - l.1) - dy * (limitX - l.0) <= 0 else { return nil }
            let x = l.1 == py ? Double(l.0) : Double(l.0) + Double(py - l.1) * Double(dx) / Double(dy)
            return (x, l, h, upward)
        }

        typealias Crossing = (x: Double, low: (Int64, Int64), high: (Int64, Int64), upward: Bool)

        static func nearer(_ c: Crossing, _ o: Crossing) -> Bool {
            if c.x != o.x { return c.x < o.x }
            let a = (c.high.0 - c.low.0) * (o.high.1 - o.low.1), b = (o.high.0 - o.low.0) * (c.high.1 - c.low.1)
            if a != b { return a < b }
            return c.upward && !o.upward
        }

        /// The unit the first crossing among `segments` (chunk ids) yields, if any crossing.
        func cast(chunks: [Int], px: Int64, py: Int64, limitX: Int64) -> Int32?? {
            var best: Crossing?
            var bestArc = 0
            for chunk in chunks {
                for i in chunkStart[chunk]..<(chunkStart[chunk] + chunkCount[chunk]) {
                    if let c = Self.crossing(Int64(vertices[2 * i]), Int64(vertices[2 * i + 1]), Int64(vertices[2 * i + 2]),
                                             Int64(vertices[2 * i + 3]), px, py, limitX),
                       best.map({ Self.nearer(c, $0) }) ?? true {
                        best = c
                        bestArc = chunkArc[chunk]
                    }
                }
            }
            guard let best else { return nil }
            let unit = best.upward ? left[bestArc] : right[bestArc]
            return .some(unit < 0 ? nil : unit)
        }

        /// Point location through the quadtree, as the spec describes it.
        func unit(x: Int64, y: Int64) -> Int32? {
            var qx = x
            let root = Int64(1) << rootLog2
            while true {
                guard qx >= originX, qx < originX + root, y >= originY, y < originY + root else { return nil }
                var node = 0, ox = originX, oy = originY, size = root
                while nodes[node] >> 30 == 1 {
                    size /= 2
                    let east = qx >= ox + size, north = y >= oy + size
                    if east { ox += size }
                    if north { oy += size }
                    node = Int(nodes[node] & 0x3FFF_FFFF) + (east ? 1 : 0) + (north ? 2 : 0)
                }
                if nodes[node] >> 30 == 0 { return nodes[node] == 0 ? nil : Int32(nodes[node] - 1) }
                if let found = cast(chunks: leaves[leafOffsets[Int(nodes[node] & 0x3FFF_FFFF)]!], px: qx, py: y, limitX: ox + size) {
                    return found
                }
                qx = ox + size
            }
        }
    }

    static let spec = SpecTable(fileBytes)

    func testIndependentDecoderAgrees() {
        let table = Self.china, spec = Self.spec
        XCTAssertEqual(spec.vertices, table.vertices)
        XCTAssertEqual(spec.arcStart.map(UInt32.init), table.arcStart)
        XCTAssertEqual(spec.left, table.arcLeft)
        XCTAssertEqual(spec.right, table.arcRight)
        XCTAssertEqual(spec.chunkStart.map(UInt32.init), table.chunkStart)
        XCTAssertEqual(spec.chunkCount.map(UInt8.init), table.chunkSegments)
        XCTAssertEqual(spec.chunkArc.map(UInt32.init), table.chunkArc)
        XCTAssertEqual(spec.regions.count, table.regionCount)
        for (i, r) in spec.regions.enumerated() {
            let region = table.region(Int32(i))
            XCTAssertEqual(r.level, region.level.rawValue)
            XCTAssertEqual(r.code, region.code)
            XCTAssertEqual(r.name, region.name)
            XCTAssertEqual(r.english, region.englishName)
            XCTAssertEqual(r.parent, region.parent ?? -1)
            XCTAssertEqual(r.box, [region.boundingBox.minX, region.boundingBox.minY, region.boundingBox.maxX, region.boundingBox.maxY])
        }
        XCTAssertEqual(spec.unitRegions.count, table.unitCount)
        for (u, regions) in spec.unitRegions.enumerated() {
            for (slot, level) in table.levels.enumerated() {
                XCTAssertEqual(regions[slot], table.region(ofUnit: Int32(u), at: level) ?? -1)
            }
        }
        XCTAssertEqual(spec.originX, table.indexOriginX)
        XCTAssertEqual(spec.originY, table.indexOriginY)
        XCTAssertEqual(Int(spec.rootLog2), table.indexRootLog2)
        // Rings of a sample of units, assembled from arc references (complement = reversed).
        for unit in stride(from: 0, to: spec.unitRegions.count, by: 97) {
            var polygons: [[[(Int32, Int32)]]] = []
            for ring in Int(spec.unitRings[unit])..<Int(spec.unitRings[unit + 1]) {
                var points: [(Int32, Int32)] = []
                let r = spec.rings[ring]
                for reference in spec.references[r.start..<r.start + r.count] {
                    let arc = Int(reference < 0 ? ~reference : reference)
                    var arcPoints = (spec.arcStart[arc]..<spec.arcStart[arc + 1]).map { (spec.vertices[2 * $0], spec.vertices[2 * $0 + 1]) }
                    if reference < 0 { arcPoints.reverse() }
                    if let last = points.last {
                        XCTAssertTrue(last == arcPoints[0], "unit \(unit) ring \(ring): arcs do not join")
                        arcPoints.removeFirst()
                    }
                    points += arcPoints
                }
                XCTAssertTrue(points.first! == points.last!, "unit \(unit) ring \(ring) is not closed")
                if r.hole { polygons[polygons.count - 1].append(points) } else { polygons.append([points]) }
            }
            let fromReader = table.unitPolygons(Int32(unit))
            XCTAssertEqual(polygons.count, fromReader.count)
            for (p, q) in zip(polygons, fromReader) {
                XCTAssertEqual(p.count, q.count)
                for (a, b) in zip(p, q) {
                    XCTAssertEqual(a.map(\.0), b.map(\.x))
                    XCTAssertEqual(a.map(\.1), b.map(\.y))
                }
            }
        }
    }

    /// Random points in the table's box, on vertices and one quantum beside them: the reader's
    /// lookup, the spec's quadtree walk and a brute-force ray over every segment agree.
    func testLookupsAgreeWithTheSpecAndBruteForce() {
        let table = Self.china, spec = Self.spec
        // Brute force: every segment of every chunk whose y-range holds the ray, east of the point
        // (chunks filed in horizontal bands of 2^14 quanta, only to keep this quick).
        let bandLog2: Int64 = 14
        var bands: [Int64: [(chunk: Int, minY: Int64, maxY: Int64, maxX: Int64)]] = [:]
        for c in spec.chunkStart.indices {
            let ys = (spec.chunkStart[c]...(spec.chunkStart[c] + spec.chunkCount[c])).map { Int64(spec.vertices[2 * $0 + 1]) }
            let xs = (spec.chunkStart[c]...(spec.chunkStart[c] + spec.chunkCount[c])).map { Int64(spec.vertices[2 * $0]) }
            let entry = (c, ys.min()!, ys.max()!, xs.max()!)
            for band in (entry.1 >> bandLog2)...(entry.2 >> bandLog2) { bands[band, default: []].append(entry) }
        }
        func bruteForce(_ x: Int64, _ y: Int64) -> Int32? {
            let candidates = (bands[y >> bandLog2] ?? []).filter { $0.minY <= y && $0.maxY > y && $0.maxX >= x }.map(\.chunk)
            return spec.cast(chunks: candidates, px: x, py: y, limitX: 1 << 32) ?? nil
        }
        let box = Self.boundingBox
        var rng = SplitMix64(seed: 20_241_129)
        var points: [(Int64, Int64)] = []
        for _ in 0..<500 {
            points.append((Int64.random(in: box.minX...box.maxX, using: &rng), Int64.random(in: box.minY...box.maxY, using: &rng)))
        }
        for _ in 0..<100 {
            let v = Int.random(in: 0..<(table.vertices.count / 2), using: &rng)
            let (x, y) = (Int64(table.vertices[2 * v]), Int64(table.vertices[2 * v + 1]))
            points += [(x, y), (x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        }
        var mismatches = 0, inside = 0
        for (x, y) in points {
            let reader = table.unit(atX: x, y: y)
            let walked = spec.unit(x: x, y: y)
            let brute = bruteForce(x, y)
            if reader != nil { inside += 1 }
            if reader != walked || reader != brute {
                mismatches += 1
                if mismatches <= 10 { XCTFail("(\(x), \(y)): reader \(String(describing: reader)), spec walk \(String(describing: walked)), brute force \(String(describing: brute))") }
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(inside, points.count / 3, "too few points inside China to mean anything")
    }

    /// The union of the regions' boxes.
    static let boundingBox: (minX: Int64, minY: Int64, maxX: Int64, maxY: Int64) = {
        let boxes = china.regions.map(\.boundingBox)
        return (Int64(boxes.map(\.minX).min()!), Int64(boxes.map(\.minY).min()!), Int64(boxes.map(\.maxX).max()!), Int64(boxes.map(\.maxY).max()!))
    }()
}

// MARK: - Damaged and hostile tables

extension RegionTableTests {
    /// Bit flips in the China table: seeded offsets across the whole file, one bit each; both runs
    /// use the first flips of the same list. Each unchecked load decodes the whole table (~0.3 s in
    /// debug), so the defaults are 3000 checked and 100 unchecked; REGION_TABLE_FLIPS=3000 runs 3000
    /// of each. The small table below (testFlippedBitsInTheSmallTable) takes 3000 flips of both
    /// kinds in seconds, so the unchecked paths are still exercised thousands of times.
    static let flipOverride = ProcessInfo.processInfo.environment["REGION_TABLE_FLIPS"].flatMap { Int($0) }
    static let checkedFlipCount = flipOverride ?? 3000
    static let uncheckedFlipCount = flipOverride ?? 100
    static let flips: [(offset: Int, bit: UInt8)] = {
        var rng = SplitMix64(seed: 0xF11B_0000_2024)
        return (0..<max(checkedFlipCount, uncheckedFlipCount)).map { _ in
            (Int.random(in: 0..<fileBytes.count, using: &rng), UInt8(1) << UInt8.random(in: 0..<8, using: &rng))
        }
    }()

    /// Runs `body` for 0..<count on all cores and gathers the failures it reports.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> String?) -> [String] {
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: count) { i in
            if let failure = body(i) {
                failures.withLock { $0.append(failure) }
            }
        }
        return failures.current
    }

    func testTruncatedTablesAreRefused() {
        let bytes = Self.fileBytes
        var lengths: Set<Int> = [0, 1, 7, 8, 127, 128, bytes.count - 1]
        for k in [1, 8, 23, 24, 263, 264, 265, 1000] { lengths.insert(128 + k) }
        for i in 0..<200 { lengths.insert(i * (bytes.count - 1) / 199) }
        lengths.remove(bytes.count)
        for length in lengths.sorted() {
            let prefix = Array(bytes[0..<length])
            for verify in [true, false] {
                do {
                    _ = try RegionTable(bytes: prefix, path: "truncated.bin", verifyChecksum: verify)
                    XCTFail("loaded a table truncated to \(length) bytes")
                } catch is TableError {
                } catch {
                    XCTFail("\(length) bytes: \(error) is not a TableError")
                }
            }
        }
        // Padding is refused too.
        XCTAssertTrue(loadError(bytes + [0], "one byte appended")?.reason.contains("payload bytes") == true)
    }

    func testTruncatedFilesAreRefused() throws {
        let directory = URL(fileURLWithPath: try temporaryDirectory())
        for length in [0, 1, 127, 128, 129, 4096, Self.fileBytes.count - 1] {
            let url = directory.appendingPathComponent("truncated-\(length).bin")
            try Data(Self.fileBytes[0..<length]).write(to: url)
            XCTAssertThrowsError(try RegionTable(contentsOf: url.path), "\(length) bytes") { error in
                XCTAssertEqual((error as? TableError)?.path, url.path)
            }
        }
        XCTAssertThrowsError(try RegionTable(contentsOf: directory.appendingPathComponent("missing.bin").path)) { error in
            XCTAssertTrue((error as? TableError)?.reason.contains("cannot open") == true, "\(error)")
        }
    }

    /// With checksums verified, any single flipped bit is refused.
    func testFlippedBitsAreRefusedByTheChecksums() {
        let bytes = Self.fileBytes
        let failures = Self.concurrently(Self.checkedFlipCount) { i in
            let (offset, bit) = Self.flips[i]
            var copy = bytes
            copy[offset] ^= bit
            do {
                _ = try RegionTable(bytes: copy, path: "flipped.bin")
                return "flip \(i) (byte \(offset), bit mask \(bit)): loaded"
            } catch is TableError {
                return nil
            } catch {
                return "flip \(i) (byte \(offset)): \(error) is not a TableError"
            }
        }
        XCTAssertEqual(failures, [])
    }

    /// Without the payload checksum, a flipped bit is refused or loads into a table that answers
    /// queries without crashing or hanging.
    func testFlippedBitsWithoutChecksumNeverCrashOrHang() {
        let bytes = Self.fileBytes
        let box = Self.boundingBox
        /// What the loads report, read by the test once they finish (or hang).
        struct Outcome: Sendable { var loaded = 0, progress = 0, failures: [String] = [] }
        let outcome = Locked(Outcome())
        finishes(within: 60 + 2 * Double(Self.uncheckedFlipCount), "\(Self.uncheckedFlipCount) unchecked loads") {
            let failures = Self.concurrently(Self.uncheckedFlipCount) { i in
                let (offset, bit) = Self.flips[i]
                var copy = bytes
                copy[offset] ^= bit
                let table: RegionTable
                do {
                    table = try RegionTable(bytes: copy, path: "flipped.bin", verifyChecksum: false)
                } catch is TableError {
                    return nil
                } catch {
                    return "flip \(i) (byte \(offset)): \(error) is not a TableError"
                }
                var rng = SplitMix64(seed: UInt64(i))
                for _ in 0..<200 {
                    _ = table.unit(atX: Int64.random(in: box.minX...box.maxX, using: &rng), y: Int64.random(in: box.minY...box.maxY, using: &rng))
                }
                // The rest of the public surface, on a few regions, units and arcs.
                for _ in 0..<3 {
                    if table.regionCount > 0 { _ = table.region(Int32.random(in: 0..<Int32(table.regionCount), using: &rng)) }
                    if table.unitCount > 0 {
                        let unit = Int32.random(in: 0..<Int32(table.unitCount), using: &rng)
                        _ = table.unitPolygons(unit)
                        _ = table.region(ofUnit: unit, at: .county)
                    }
                    if table.arcCount > 0 { _ = table.borderLevels(ofArc: Int.random(in: 0..<table.arcCount, using: &rng)) }
                }
                outcome.withLock {
                    $0.loaded += 1
                    $0.progress = i
                }
                return nil
            }
            outcome.withLock { $0.failures = failures }
        }
        let seen = outcome.current
        XCTAssertEqual(seen.failures, [])
        // Most flips land in coordinates and still load: the queries above did run.
        XCTAssertGreaterThan(seen.loaded, Self.uncheckedFlipCount / 10, "last loaded flip \(seen.progress)")
    }

    func testWrongMagicIsRefused() throws {
        var bytes = Self.fileBytes
        bytes[0] = UInt8(ascii: "X")
        let error = try XCTUnwrap(loadError(bytes, "wrong magic"))
        XCTAssertTrue(error.reason.contains("magic"), error.description)
        XCTAssertEqual(error.offset, 0)
        XCTAssertThrowsError(try RegionTable(bytes: Array(repeating: 0, count: 4096), path: "zeros.bin")) { error in
            XCTAssertTrue((error as? TableError)?.reason.contains("magic") == true, "\(error)")
        }
    }

    func testOtherVersionsAreRefused() throws {
        for version: UInt16 in [0, 1, 3, 0x100, .max] {
            var bytes = Self.fileBytes
            Self.write(version, at: 8, in: &bytes)
            Self.fixHeaderChecksum(&bytes)
            let error = try XCTUnwrap(loadError(bytes, "version \(version)"))
            XCTAssertTrue(error.reason.contains("version \(version)"), error.description)
            XCTAssertEqual(error.offset, 8)
        }
    }

    func testHeaderChecksumIsVerified() throws {
        // Header checksum: XXH64 of bytes 0..<120, at 120.
        XCTAssertEqual(XXH64.hash(Array(Self.fileBytes[0..<120])), Self.read(Self.fileBytes, 120, as: UInt64.self))
        XCTAssertEqual(XXH64.hash(Array(Self.fileBytes[128...])), Self.read(Self.fileBytes, 80, as: UInt64.self))
        var bytes = Self.fileBytes
        bytes[40] ^= 1  // source SHA-256
        XCTAssertTrue(try XCTUnwrap(loadError(bytes, verifyChecksum: false, "header edit")).reason.contains("header checksum"))
        Self.fixHeaderChecksum(&bytes)
        XCTAssertNoThrow(try RegionTable(bytes: bytes, path: "edited.bin"))
        // The payload checksum is skipped on request only.
        bytes = Self.fileBytes
        bytes[bytes.count - 1] ^= 0x80
        XCTAssertTrue(try XCTUnwrap(loadError(bytes, "payload edit")).reason.contains("payload checksum"))
    }

    func testPayloadLengthMismatchIsRefused() throws {
        for delta in [-1, 1, 1 << 40] {
            var bytes = Self.fileBytes
            Self.write(UInt64(bytes.count - 128 + delta), at: 72, in: &bytes)
            Self.fixHeaderChecksum(&bytes)
            let error = try XCTUnwrap(loadError(bytes, "payload length \(delta)"))
            XCTAssertEqual(error.offset, 72, error.description)
        }
    }

    func testHeaderFieldsAreValidated() throws {
        func edited(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = Self.fileBytes
            edit(&bytes)
            Self.fixHeaderChecksum(&bytes)
            return bytes
        }
        XCTAssertEqual(loadError(edited { Self.write(UInt16(120), at: 10, in: &$0) }, "header size")?.offset, 10)
        XCTAssertEqual(loadError(edited { $0[16] = 7 }, "datum")?.offset, 16)
        XCTAssertEqual(loadError(edited { $0[17] = 0 }, "no levels")?.offset, 17)
        XCTAssertEqual(loadError(edited { $0[17] = 5 }, "five levels")?.offset, 17)
        XCTAssertEqual(loadError(edited { $0[21] = 1 }, "repeated level")?.offset, 21)
        XCTAssertEqual(loadError(edited { $0[22] = 9 }, "unknown level")?.offset, 22)
        XCTAssertEqual(loadError(edited { Self.write(Double.nan.bitPattern, at: 24, in: &$0) }, "NaN tolerance")?.offset, 24)
        XCTAssertEqual(loadError(edited { Self.write((-1.0).bitPattern, at: 32, in: &$0) }, "negative buffer")?.offset, 24)
        XCTAssertEqual(loadError(edited { Self.write(UInt16(0), at: 18, in: &$0) }, "step 0")?.offset, 18)
        XCTAssertEqual(loadError(edited { Self.write(UInt16(1025), at: 18, in: &$0) }, "step 1025")?.offset, 18)
        XCTAssertEqual(loadError(edited { Self.write(UInt32(65), at: 88, in: &$0) }, "65 sections")?.offset, 88)
        XCTAssertNotNil(loadError(edited { Self.write(UInt32(10), at: 88, in: &$0) }, "a missing section"))
    }

    func testSectionDirectoryIsValidated() throws {
        let original = Self.fileBytes
        let leaves = Self.directoryEntry(original, id: 11), strings = Self.directoryEntry(original, id: 1)
        func edited(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = original
            edit(&bytes)
            Self.fixChecksums(&bytes)
            return bytes
        }
        // Offsets and lengths past the end, including ones whose sum overflows 64 bits.
        let pastEnd = UInt64(original.count + 7) & ~7
        for (offset, length) in [(pastEnd, UInt64(0)), (pastEnd, UInt64(8)), (UInt64(original.count) - 8, UInt64(16)),
                                 (UInt64.max & ~7, UInt64(16)), (UInt64(1) << 63, UInt64(1) << 63), (UInt64(3_452_904), UInt64.max)] {
            let error = loadError(edited {
                Self.write(offset, at: leaves + 8, in: &$0)
                Self.write(length, at: leaves + 16, in: &$0)
            }, "leaves at \(offset)+\(length)")
            XCTAssertEqual(error?.offset, leaves)
            XCTAssertTrue(error?.reason.contains("past the end") == true, error?.description ?? "")
        }
        XCTAssertEqual(loadError(edited { Self.write(UInt64(3_452_905), at: leaves + 8, in: &$0) }, "misaligned")?.offset, leaves)
        XCTAssertEqual(loadError(edited { Self.write(UInt64(0), at: strings + 8, in: &$0) }, "over the header")?.offset, strings)
        XCTAssertEqual(loadError(edited { Self.write(UInt32(12), at: leaves, in: &$0) }, "unknown id")?.offset, leaves)
        XCTAssertEqual(loadError(edited { Self.write(UInt32(10), at: leaves, in: &$0) }, "repeated id")?.offset, leaves)
        // Sections listed out of order overlap.
        let nodes = Self.directoryEntry(original, id: 10)
        XCTAssertEqual(loadError(edited {
            for k in 0..<24 { $0.swapAt(nodes + k, leaves + k) }
        }, "out of order")?.offset, leaves)
    }

    /// An index whose splits go deeper than its header's depth (which is at most the root's log2
    /// size) would have cells narrower than one quantum, where the lookup's walk east cannot advance
    /// (it looped forever): such an index is refused at load.
    func testIndexDeeperThanItsDepthIsRefused() throws {
        let original = Self.fileBytes
        let meta = Self.sectionRange(original, id: 9).lowerBound, nodes = Self.sectionRange(original, id: 10)
        // A root of one quantum (depth 0) that is split, its north-east child a leaf.
        let leaf = try XCTUnwrap((4..<nodes.count / 4).first { Self.read(original, nodes.lowerBound + 4 * $0, as: UInt32.self) >> 30 == 2 })
        var bytes = original
        Self.write(UInt32(0), at: meta + 8, in: &bytes)
        Self.write(UInt32(0), at: meta + 12, in: &bytes)
        Self.write(UInt32(1 << 30 | (leaf - 3)), at: nodes.lowerBound, in: &bytes)
        Self.fixChecksums(&bytes)
        let originX = Int64(Self.read(bytes, meta, as: Int32.self)), originY = Int64(Self.read(bytes, meta + 4, as: Int32.self))
        var table: RegionTable?
        do { table = try RegionTable(bytes: bytes, path: "deep.bin") } catch is TableError {} catch { XCTFail("\(error)") }
        if let table {
            XCTFail("loaded an index deeper than its root")
            finishes(within: 10, "lookup in an over-deep index") { _ = table.unit(atX: originX, y: originY) }
        }
        // The true root, but a depth one short of the tree's.
        bytes = original
        let depth = Self.read(bytes, meta + 12, as: UInt32.self)
        Self.write(depth - 1, at: meta + 12, in: &bytes)
        Self.fixChecksums(&bytes)
        XCTAssertTrue(loadError(bytes, "depth \(depth - 1)")?.reason.contains("deeper") == true)
    }

    func testIndexNodesAreValidated() throws {
        let nodes = Self.sectionRange(Self.fileBytes, id: 10)
        func edited(node: Int, raw: UInt32) -> [UInt8] {
            var bytes = Self.fileBytes
            Self.write(raw, at: nodes.lowerBound + 4 * node, in: &bytes)
            Self.fixChecksums(&bytes)
            return bytes
        }
        let nodeCount = UInt32(nodes.count / 4)
        XCTAssertNotNil(loadError(edited(node: 0, raw: 1 << 30), "root split into itself"))
        XCTAssertNotNil(loadError(edited(node: 5, raw: 1 << 30 | 2), "children before their parent"))
        XCTAssertNotNil(loadError(edited(node: 0, raw: 1 << 30 | (nodeCount - 3)), "children past the end"))
        XCTAssertNotNil(loadError(edited(node: 5, raw: UInt32(Self.china.unitCount) + 1), "unit out of range"))
        XCTAssertNotNil(loadError(edited(node: 5, raw: 2 << 30 | 0x3FFF_FFFF), "leaf out of range"))
    }

    func testRecordsAreValidated() throws {
        let original = Self.fileBytes
        let regions = Self.sectionRange(original, id: 2).lowerBound, units = Self.sectionRange(original, id: 3).lowerBound
        let arcs = Self.sectionRange(original, id: 4), rings = Self.sectionRange(original, id: 7)
        let references = Self.sectionRange(original, id: 8), unitRings = Self.sectionRange(original, id: 6)
        func refused(_ what: String, _ reason: String, _ edit: (inout [UInt8]) -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var bytes = original
            edit(&bytes)
            Self.fixChecksums(&bytes)
            if let error = loadError(bytes, what, file: file, line: line) {
                XCTAssertTrue(error.reason.contains(reason), "\(what): \(error)", file: file, line: line)
            }
        }
        /// The byte ranges of the varints from `start` to `end`.
        func varints(_ start: Int, _ end: Int) -> [Range<Int>] {
            var result: [Range<Int>] = []
            var p = start
            while p < end {
                let first = p
                while original[p] >= 0x80 { p += 1 }
                p += 1
                result.append(first..<p)
            }
            return result
        }
        /// A varint of `value` exactly `length` bytes long (padded with continuation bytes).
        func varint(_ value: UInt64, length: Int) -> [UInt8] {
            (0..<length).map { k in UInt8(truncatingIfNeeded: value >> (7 * UInt64(k))) & 0x7F | (k < length - 1 ? 0x80 : 0) }
        }
        let arcCount = Int(Self.read(original, arcs.lowerBound, as: UInt32.self))
        let fields = varints(arcs.lowerBound + 4, arcs.upperBound)  // 5 per arc: head, left, right, dx, dy
        XCTAssertEqual(fields.count, 5 * arcCount)
        let twoByteLeft = try XCTUnwrap((0..<arcCount).first { (arc: Int) -> Bool in
            fields[5 * arc + 1].count == 2 && fields[5 * arc + 2].count == 2
        })
        let openArc = try XCTUnwrap((0..<arcCount).first { (arc: Int) -> Bool in
            let head: Range<Int> = fields[5 * arc]
            return head.count == 1 && original[head.lowerBound] & 1 == 0
        })
        let longReference = try XCTUnwrap(varints(references.lowerBound, references.upperBound).first { $0.count == 3 })
        refused("region level not in the table", "not in this table") { $0[regions] = 0 }
        refused("region string past the strings", "not UTF-8") { Self.write(UInt32.max, at: regions + 4, in: &$0) }
        refused("region string not UTF-8", "not UTF-8") { bytes in
            let strings = Self.sectionRange(original, id: 1).lowerBound
            bytes[strings + Int(Self.read(original, regions + 8, as: UInt32.self))] = 0xFF
        }
        refused("region its own parent", "parent") { Self.write(Int32(0), at: regions + 20, in: &$0) }
        refused("region parent out of range", "parent") { Self.write(Int32(1 << 20), at: regions + 20, in: &$0) }
        refused("unit region out of range", "out of range") { Self.write(Int32(-2), at: units, in: &$0) }
        refused("unit region of the wrong level", "is not a") { Self.write(Int32(0), at: units + 4, in: &$0) }
        refused("arc count beyond the records", "arcs in") { Self.write(UInt32.max, at: arcs.lowerBound, in: &$0) }
        refused("one arc record more than there are", "runs past the section") { Self.write(UInt32(arcCount + 1), at: arcs.lowerBound, in: &$0) }
        refused("one arc record less than there are", "unused bytes after the last arc record") { Self.write(UInt32(arcCount - 1), at: arcs.lowerBound, in: &$0) }
        refused("open arc with one vertex", "stored vertices") { $0[fields[5 * openArc].lowerBound] = 0 }
        refused("arc unit out of range", "out of range") { $0.replaceSubrange(fields[5 * twoByteLeft + 1], with: varint(0x3FFF, length: 2)) }
        refused("arc with the same unit on both sides", "out of range") { bytes in
            bytes.replaceSubrange(fields[5 * twoByteLeft + 2], with: original[fields[5 * twoByteLeft + 1]])
        }
        refused("arc first vertex off the globe", "first vertex out of range") { bytes in
            let dx = fields[3]
            bytes.replaceSubrange(dx, with: varint(UInt64(2 * 18_000_001), length: dx.count))
        }
        refused("group width 34", "bad group width") { $0[Self.sectionRange(original, id: 5).lowerBound] = 34 }
        refused("coordinate off the globe", "coordinate out of range") { bytes in
            // The first group of the first arc at width 33, its first x delta the largest positive one.
            let coordinates = Self.sectionRange(original, id: 5).lowerBound
            bytes[coordinates] = 33
            for k in 1...5 { bytes[coordinates + k] = k < 5 ? 0xFE : 0x01 }
        }
        refused("ring count beyond the ring bytes", "rings in") { Self.write(UInt32.max, at: unitRings.upperBound - 4, in: &$0) }
        refused("ring with no arcs", "references") { $0[rings.lowerBound] = 0 }
        refused("ring past the references", "reference") { $0[rings.upperBound - 1] = 0x7E }
        refused("reference to a missing arc", "out of range") { $0.replaceSubrange(longReference, with: [0xFF, 0xFF, 0x7F]) }
        refused("complemented reference to a missing arc", "out of range") { $0.replaceSubrange(longReference, with: [0xFE, 0xFF, 0x7F]) }
    }
}

// MARK: - A small table written from the spec

extension RegionTableTests {
    /// Beijing cut out of the China table and written afresh by the spec: its province, city and
    /// counties, the arcs around their units (other units become −1), and a new quadtree index.
    /// Cheap to load, so it carries the dense bit-flip runs, and it checks the spec from the
    /// writer's side.
    static let mini: (bytes: [UInt8], unitCount: Int) = {
        let spec = RegionTableTests.spec
        let province = spec.regions.firstIndex { $0.level == 1 && $0.code == "110000" }!
        var regionMap: [Int: Int32] = [province: 0]
        var kept = [province]
        for level: UInt8 in [2, 3] {
            for (i, r) in spec.regions.enumerated() where r.level == level && regionMap[Int(r.parent)] != nil {
                regionMap[i] = Int32(kept.count)
                kept.append(i)
            }
        }
        var unitMap: [Int: Int32] = [:]
        var units: [Int] = []
        for (u, regions) in spec.unitRegions.enumerated() where regions[0] == Int32(province) {
            unitMap[u] = Int32(units.count)
            units.append(u)
        }
        var arcMap: [Int: Int32] = [:]
        var arcs: [Int] = []
        var unitRings: [[(hole: Bool, references: [Int32])]] = []
        for u in units {
            var rings: [(hole: Bool, references: [Int32])] = []
            for ring in Int(spec.unitRings[u])..<Int(spec.unitRings[u + 1]) {
                let r = spec.rings[ring]
                rings.append((r.hole, spec.references[r.start..<r.start + r.count].map { reference in
                    let arc = Int(reference < 0 ? ~reference : reference)
                    if arcMap[arc] == nil {
                        arcMap[arc] = Int32(arcs.count)
                        arcs.append(arc)
                    }
                    return reference < 0 ? ~arcMap[arc]! : arcMap[arc]!
                }))
            }
            unitRings.append(rings)
        }
        func vertices(_ arc: Int) -> [Int32] { Array(spec.vertices[2 * spec.arcStart[arc]..<2 * spec.arcStart[arc + 1]]) }
        func side(_ unit: Int32) -> Int32 { unit < 0 ? -1 : unitMap[Int(unit)] ?? -1 }

        var out: [UInt8] = []
        func u8(_ v: UInt8) { out.append(v) }
        func u16(_ v: UInt16) { RegionTableTests.append(v, to: &out) }
        func u32(_ v: UInt32) { RegionTableTests.append(v, to: &out) }
        func i32(_ v: Int32) { RegionTableTests.append(v, to: &out) }
        func u64(_ v: UInt64) { RegionTableTests.append(v, to: &out) }
        func take() -> [UInt8] { defer { out = [] }; return out }

        // 1 strings, 2 regions.
        var strings: [UInt8] = []
        func string(_ s: String) -> (UInt32, UInt16) {
            let offset = UInt32(strings.count)
            strings += Array(s.utf8)
            return (offset, UInt16(s.utf8.count))
        }
        for i in kept {
            let r = spec.regions[i]
            let code = string(r.code), name = string(r.name), english = string(r.english)
            u8(r.level); u8(0); u16(code.1); u32(code.0); u32(name.0); u16(name.1); u16(english.1); u32(english.0)
            i32(r.parent < 0 ? -1 : regionMap[Int(r.parent)]!)
            r.box.forEach(i32)
        }
        let regionBytes = take()
        // 3 units.
        for u in units { spec.unitRegions[u].forEach { i32($0 < 0 ? -1 : regionMap[Int($0)]!) } }
        let unitBytes = take()
        // 4 arcs (varint records), 5 coordinates; step 1.
        func varint(_ value: UInt64, _ bytes: inout [UInt8]) {
            var z = value
            while z >= 0x80 { bytes.append(UInt8(z & 0x7F) | 0x80); z >>= 7 }
            bytes.append(UInt8(z))
        }
        func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
        var coordinates: [UInt8] = []
        var records: [UInt8] = []
        var previous: (Int64, Int64) = (0, 0)
        for arc in arcs {
            var v = vertices(arc)
            let closed = v[0] == v[v.count - 2] && v[1] == v[v.count - 1]
            if closed { v.removeLast(2) }
            varint(UInt64(v.count / 2 - 1) << 1 | (closed ? 1 : 0), &records)
            varint(UInt64(side(spec.left[arc]) + 1), &records)
            varint(UInt64(side(spec.right[arc]) + 1), &records)
            varint(zigzag(Int64(v[0]) - previous.0), &records)
            varint(zigzag(Int64(v[1]) - previous.1), &records)
            previous = (Int64(v[0]), Int64(v[1]))
            var first = 0
            while first < v.count / 2 - 1 {
                let n = min(16, v.count / 2 - 1 - first)
                var codes: [UInt64] = []
                for k in (first + 1)...(first + n) {
                    for axis in 0..<2 { codes.append(zigzag(Int64(v[2 * k + axis]) - Int64(v[2 * k - 2 + axis]))) }
                }
                let width = codes.map { 64 - $0.leadingZeroBitCount }.max()!
                coordinates.append(UInt8(width))
                var packed = [UInt8](repeating: 0, count: (codes.count * width + 7) / 8)
                for (c, code) in codes.enumerated() {
                    for b in 0..<width where code >> UInt64(b) & 1 == 1 {
                        packed[(c * width + b) / 8] |= 1 << UInt8((c * width + b) % 8)
                    }
                }
                coordinates += packed
                first += n
            }
        }
        u32(UInt32(arcs.count))
        let arcBytes = take() + records
        // 6 unit rings, 7 rings, 8 arc references (varints).
        var ringCount: UInt32 = 0
        u32(0)
        for rings in unitRings {
            ringCount += UInt32(rings.count)
            u32(ringCount)
        }
        let unitRingBytes = take()
        var ringBytes: [UInt8] = [], referenceBytes: [UInt8] = []
        var previousReference: Int64 = 0
        for ring in unitRings.joined() {
            varint(UInt64(ring.references.count) << 1 | (ring.hole ? 1 : 0), &ringBytes)
            for reference in ring.references {
                varint(zigzag(Int64(reference) - previousReference), &referenceBytes)
                previousReference = Int64(reference)
            }
        }

        // 9–11: a quadtree over the chunks (arc by arc, 16 segments each), leaves of ≤ 8 chunks.
        var chunks: [(arc: Int, first: Int, count: Int)] = []
        var all: [Int32] = []
        var starts: [Int] = []
        for (a, arc) in arcs.enumerated() {
            starts.append(all.count / 2)
            all += vertices(arc)
            let count = vertices(arc).count / 2
            var first = 0
            while first < count - 1 {
                let n = min(16, count - 1 - first)
                chunks.append((a, starts[a] + first, n))
                first += n
            }
        }
        let xs = stride(from: 0, to: all.count, by: 2).map { Int64(all[$0]) }, ys = stride(from: 1, to: all.count, by: 2).map { Int64(all[$0]) }
        let originX = xs.min()! - 3, originY = ys.min()! - 3
        var rootLog2: Int64 = 0
        while Int64(1) << rootLog2 <= max(xs.max()! - originX, ys.max()! - originY) + 3 { rootLog2 += 1 }
        func touches(_ c: Int, _ x0: Int64, _ y0: Int64, _ x1: Int64, _ y1: Int64) -> Bool {
            (chunks[c].first..<chunks[c].first + chunks[c].count).contains { i in
                let ax = Int64(all[2 * i]), ay = Int64(all[2 * i + 1]), bx = Int64(all[2 * i + 2]), by = Int64(all[2 * i + 3])
                return max(ax, bx) >= x0 && min(ax, bx) <= x1 && max(ay, by) >= y0 && min(ay, by) <= y1
            }
        }
        func unitAt(_ px: Int64, _ py: Int64) -> UInt32 {
            var best: SpecTable.Crossing?
            var bestArc = 0
            for chunk in chunks {
                for i in chunk.first..<chunk.first + chunk.count {
                    if let c = SpecTable.crossing(Int64(all[2 * i]), Int64(all[2 * i + 1]), Int64(all[2 * i + 2]), Int64(all[2 * i + 3]), px, py, 1 << 32),
                       best.map({ SpecTable.nearer(c, $0) }) ?? true {
                        best = c
                        bestArc = chunk.arc
                    }
                }
            }
            guard let best else { return 0 }
            let unit = best.upward ? side(spec.left[arcs[bestArc]]) : side(spec.right[arcs[bestArc]])
            return unit < 0 ? 0 : UInt32(unit) + 1
        }
        var nodes: [UInt32] = [0]
        var leaves: [UInt8] = []
        var depth = 0
        var queue: [(node: Int, x: Int64, y: Int64, log2: Int64, chunks: [Int], depth: Int)] = [(0, originX, originY, rootLog2, Array(chunks.indices), 0)]
        var head = 0
        while head < queue.count {
            let cell = queue[head]
            head += 1
            depth = max(depth, cell.depth)
            let size = Int64(1) << cell.log2
            if cell.chunks.isEmpty {
                nodes[cell.node] = unitAt(cell.x + size / 2, cell.y + size / 2)  // uniform: unit + 1, or 0
            } else if cell.chunks.count <= 8 || cell.log2 <= 4 {
                nodes[cell.node] = 2 << 30 | UInt32(leaves.count)
                var bytes: [UInt8] = []
                var previous = 0
                for value in [cell.chunks.count] + cell.chunks.map({ chunk in defer { previous = chunk }; return chunk - previous }) {
                    var z = value
                    while z >= 0x80 { bytes.append(UInt8(z & 0x7F) | 0x80); z >>= 7 }
                    bytes.append(UInt8(z))
                }
                leaves += bytes
            } else {
                let first = nodes.count
                nodes[cell.node] = 1 << 30 | UInt32(first)
                nodes += [0, 0, 0, 0]
                let half = size / 2
                for child in 0..<4 {  // SW, SE, NW, NE
                    let x = cell.x + (child & 1 == 1 ? half : 0), y = cell.y + (child & 2 == 2 ? half : 0)
                    queue.append((first + child, x, y, cell.log2 - 1, cell.chunks.filter { touches($0, x, y, x + half, y + half) }, cell.depth + 1))
                }
            }
        }
        i32(Int32(originX)); i32(Int32(originY)); u32(UInt32(rootLog2)); u32(UInt32(depth))
        let metaBytes = take()
        nodes.forEach(u32)
        let nodeBytes = take()

        // Directory and sections, each at an 8-byte boundary.
        let sections = [strings, regionBytes, unitBytes, arcBytes, coordinates, unitRingBytes, ringBytes, referenceBytes, metaBytes, nodeBytes, leaves]
        var payload = [UInt8](repeating: 0, count: 24 * sections.count)
        for (i, section) in sections.enumerated() {
            while (128 + payload.count) % 8 != 0 { payload.append(0) }
            RegionTableTests.write(UInt32(i + 1), at: 24 * i, in: &payload)
            RegionTableTests.write(UInt64(128 + payload.count), at: 24 * i + 8, in: &payload)
            RegionTableTests.write(UInt64(section.count), at: 24 * i + 16, in: &payload)
            payload += section
        }
        out = Array("AUREGION".utf8)
        u16(2); u16(128); u32(0)
        u8(1); u8(3); u16(1); out += [1, 2, 3, 0xFF]
        u64(30.0.bitPattern); u64(100.0.bitPattern)
        out += RegionTableTests.fileBytes[40..<72]
        u64(UInt64(payload.count)); u64(XXH64.hash(payload)); u32(UInt32(sections.count))
        out += [UInt8](repeating: 0, count: 120 - out.count)
        u64(XXH64.hash(out))
        return (out + payload, units.count)
    }()

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for k in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    func testATableWrittenFromTheSpecLoadsAndAgrees() throws {
        let bytes = Self.mini.bytes
        let mini = try RegionTable(bytes: bytes, path: "beijing.bin")
        let china = Self.china
        XCTAssertEqual(mini.levels, china.levels)
        XCTAssertEqual(mini.datum, .gcj02)
        XCTAssertEqual(mini.regions.map(\.code).prefix(2), ["110000", "110100"])
        XCTAssertEqual(mini.regions.count, 2 + 16)
        XCTAssertEqual(mini.unitCount, Self.mini.unitCount)
        XCTAssertGreaterThan(mini.indexDepth, 2)
        // Every point of Beijing's box gets Beijing's county from both tables, or nothing from the
        // small one where the China table says another province.
        let box = mini.regions[0].boundingBox
        var rng = SplitMix64(seed: 110_000)
        var points: [(Int64, Int64)] = (0..<1500).map { _ in
            (Int64.random(in: Int64(box.minX) - 2000...Int64(box.maxX) + 2000, using: &rng),
             Int64.random(in: Int64(box.minY) - 2000...Int64(box.maxY) + 2000, using: &rng))
        }
        for _ in 0..<300 {  // on vertices and beside them
            let v = Int.random(in: 0..<(mini.vertices.count / 2), using: &rng)
            let (x, y) = (Int64(mini.vertices[2 * v]), Int64(mini.vertices[2 * v + 1]))
            points += [(x, y), (x + 1, y), (x, y - 1)]
        }
        var inside = 0, mismatches = 0
        for (x, y) in points {
            let expected = china.unit(atX: x, y: y).flatMap { unit -> String? in
                guard china.region(ofUnit: unit, at: .province) == 0 else { return nil }
                return china.region(ofUnit: unit, at: .county).map { china.region($0).code }
            }
            let found = mini.unit(atX: x, y: y).flatMap { mini.region(ofUnit: $0, at: .county).map { mini.region($0).code } }
            if expected != nil { inside += 1 }
            if expected != found {
                mismatches += 1
                if mismatches <= 10 { XCTFail("(\(x), \(y)): China table \(expected ?? "nil"), Beijing table \(found ?? "nil")") }
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(inside, 500)
    }

    /// Every seeded flip (a bit anywhere in the small table) is refused with checksums on; with them
    /// off it is refused or loads and answers 200 queries without crashing or hanging.
    func testFlippedBitsInTheSmallTable() {
        let bytes = Self.mini.bytes
        let box = (try? RegionTable(bytes: bytes, path: "beijing.bin"))!.regions[0].boundingBox
        var rng = SplitMix64(seed: 0xBE11_1115)
        let flips = (0..<3000).map { _ in (Int.random(in: 0..<bytes.count, using: &rng), UInt8(1) << UInt8.random(in: 0..<8, using: &rng)) }
        /// What the flips report, read by the test once they finish (or hang).
        struct Outcome: Sendable { var loaded = 0, failures: [String] = [] }
        let outcome = Locked(Outcome())
        finishes(within: 300, "3000 flips of the small table") {
            for (i, (offset, bit)) in flips.enumerated() {
                var copy = bytes
                copy[offset] ^= bit
                do {
                    _ = try RegionTable(bytes: copy, path: "flipped.bin")
                    outcome.withLock { $0.failures.append("flip \(i) (byte \(offset)) loaded with checksums on") }
                } catch is TableError {
                } catch {
                    outcome.withLock { $0.failures.append("flip \(i): \(error)") }
                }
                let table: RegionTable
                do {
                    table = try RegionTable(bytes: copy, path: "flipped.bin", verifyChecksum: false)
                } catch is TableError {
                    continue
                } catch {
                    outcome.withLock { $0.failures.append("flip \(i): \(error)") }
                    continue
                }
                outcome.withLock { $0.loaded += 1 }
                var queries = SplitMix64(seed: UInt64(i))
                for _ in 0..<200 {
                    _ = table.unit(atX: Int64.random(in: Int64(box.minX) - 5000...Int64(box.maxX) + 5000, using: &queries),
                                   y: Int64.random(in: Int64(box.minY) - 5000...Int64(box.maxY) + 5000, using: &queries))
                }
                _ = table.regions
                if table.unitCount > 0 { _ = table.unitPolygons(Int32.random(in: 0..<Int32(table.unitCount), using: &queries)) }
            }
        }
        let seen = outcome.current
        XCTAssertEqual(seen.failures, [])
        XCTAssertGreaterThan(seen.loaded, 300)
    }
}
