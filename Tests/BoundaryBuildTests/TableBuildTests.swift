import CGEOS
import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// Builds real tables from the pinned source (Scripts/test fetches it and sets
/// ADMINUNLOCKS_SOURCE) and checks them with GEOS and with the reader.
final class TableBuildTests: XCTestCase {
    static let sourcePath: String? = ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"]

    /// Beijing, Tianjin and Hebei: a real subset with shared borders, enclaves (Beijing and Tianjin
    /// cut Hebei's Langfang in two) and a coastline.
    static let subset: Result<(bytes: [UInt8], report: TableReport), Error> = Result {
        let catalog = try SourceSubset.catalog.get()
        return try ChinaTableBuilder(tolerance: 30, buffer: 100).build(catalog, sourceSHA256: String(repeating: "0", count: 64))
    }

    func subsetTable() throws -> (bytes: [UInt8], report: TableReport, table: RegionTable) {
        let built = try Self.subset.get()
        return (built.bytes, built.report, try RegionTable(bytes: built.bytes, path: "subset.bin"))
    }

    func testSubsetBuildsTwiceByteForByte() throws {
        let first = try Self.subset.get()
        let catalog = try SourceCatalog(try SourceArchive(location: Self.sourcePath!), includeWorld: false, provinces: ["11", "12", "13"])
        let again = try ChinaTableBuilder(tolerance: 30, buffer: 100).build(catalog, sourceSHA256: String(repeating: "0", count: 64))
        XCTAssertEqual(first.bytes.count, again.bytes.count)
        XCTAssertTrue(first.bytes == again.bytes, "two builds of the same input differ")
    }

    func testSubsetIsACleanNestedCoverageWithinTolerance() throws {
        let (_, report, table) = try subsetTable()
        XCTAssertEqual(table.regions.filter { $0.level == .province }.map(\.code), ["110000", "120000", "130000"])
        XCTAssertEqual(table.regions.filter { $0.level == .city }.count, 2 + 11)
        XCTAssertEqual(report.invalidUnits, 0, report.invalidReasons.joined(separator: "; "))
        for level in report.levels {
            // Σ areas − area of the union: zero up to floating-point noise (below a square metre).
            XCTAssertLessThan(level.overlapKm2, 1e-6, "\(level.level.name) overlaps")
            XCTAssertLessThan(level.gapKm2, 1e-6, "\(level.level.name) gaps")
            XCTAssertLessThanOrEqual(level.maximumDeviation, 30, "\(level.level.name) deviation")
            XCTAssertGreaterThan(level.maximumDeviation, 5, "a 30 m simplification that moved nothing is suspicious")
            XCTAssertLessThan(level.tableVertices, level.sourceVertices / 2)
        }
        // Every unit has a county, city and province, and the county's parents agree.
        for unit in 0..<Int32(table.unitCount) {
            let county = try XCTUnwrap(table.region(ofUnit: unit, at: .county))
            let city = try XCTUnwrap(table.region(ofUnit: unit, at: .city))
            let province = try XCTUnwrap(table.region(ofUnit: unit, at: .province))
            XCTAssertEqual(table.region(county).parent, city)
            XCTAssertEqual(table.region(city).parent, province)
        }
    }

    /// The reader's ray casting must agree with GEOS point-in-polygon on the table's own units.
    func testRayCastingAgreesWithGEOSOnTheTablesOwnPolygons() throws {
        let (_, _, table) = try subsetTable()
        let context = GEOSContext()
        var prepared: [(PreparedGeometry, (Double, Double, Double, Double))] = []
        for unit in 0..<Int32(table.unitCount) {
            let polygons = table.unitPolygons(unit).map { rings in rings.map { ring in ring.flatMap { [Double($0.x), Double($0.y)] } } }
            let geometry = try context.multiPolygon(polygons)
            prepared.append((try PreparedGeometry(geometry), try geometry.bounds()))
        }
        var state: UInt64 = 2024
        func next(_ range: ClosedRange<Int64>) -> Int64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int64((state >> 33) % UInt64(range.upperBound - range.lowerBound + 1))
        }
        var inside = 0, outside = 0
        for _ in 0..<20_000 {
            // Lon 113.3–119.9, lat 36.0–42.7 in 1e-5° quanta (Hebei's bounding box and around).
            let x = next(11_330_000...11_990_000), y = next(3_600_000...4_270_000)
            let point = try context.point(x: Double(x), y: Double(y))
            var expected: Int32?
            for (unit, (geometry, b)) in prepared.enumerated() where b.0 <= Double(x) && Double(x) <= b.2 && b.1 <= Double(y) && Double(y) <= b.3 {
                if try geometry.contains(point) { expected = Int32(unit); break }
            }
            let got = table.unit(atX: x, y: y)
            if expected == nil {
                // On a border GEOS says "in neither"; the table must then pick one of the units it touches.
                let touching = try prepared.indices.filter { try prepared[$0].0.intersects(point) }.map(Int32.init)
                if !touching.isEmpty {
                    XCTAssertTrue(got.map(touching.contains) ?? false, "border point (\(x), \(y)): got \(String(describing: got)), touching \(touching)")
                    continue
                }
            }
            XCTAssertEqual(got, expected, "point (\(x), \(y))")
            if expected == nil { outside += 1 } else { inside += 1 }
        }
        XCTAssertGreaterThan(inside, 5_000)
        XCTAssertGreaterThan(outside, 1_000)
    }

    func testCommittedTablesMatchTheirManifest() throws {
        let directory = URL(fileURLWithPath: Repository.tables)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("manifest.json"))) as! [String: Any]
        let tables = manifest["tables"] as! [[String: Any]]
        XCTAssertFalse(tables.isEmpty)
        for entry in tables {
            let file = entry["file"] as! String
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            XCTAssertEqual(bytes.count, entry["bytes"] as? Int, file)
            XCTAssertEqual(SHA256.hex(bytes), entry["sha256"] as? String, file)
            _ = try RegionTable(contentsOf: directory.appendingPathComponent(file).path)
        }
    }

    func testSHA256KnownAnswers() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
