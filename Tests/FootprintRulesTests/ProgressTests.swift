import ChinaDatum
import Foundation
import RegionTables
import Unlocks
import UnlocksTestSupport
import XCTest

/// `progress`: the nearest county and city not unlocked, against a brute-force great-circle
/// distance to every stored outline (unit vectors on the sphere, not the report's plane); the
/// children counts against published counts (Beijing's 16 districts, China's 34 provinces); the
/// ranking against the unlocks' own shares.
final class ProgressTests: XCTestCase {
    /// Great-circle distance in metres from `p` to the arc from `a` to `b` (all degrees, lat/lon).
    static func distance(_ p: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        func unit(_ c: (Double, Double)) -> SIMD3<Double> {
            let lat = c.0 * .pi / 180, lon = c.1 * .pi / 180
            return SIMD3(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
        }
        func angle(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double { atan2(simd_length(cross(u, v)), (u * v).sum()) }
        let r = 6_371_008.8, vp = unit(p), va = unit(a), vb = unit(b)
        let n = cross(va, vb), length = simd_length(n)
        let ends = min(angle(vp, va), angle(vp, vb)) * r
        guard length > 1e-15 else { return ends }
        let normal = n / length
        // The foot of the perpendicular lies on the arc when it is between a and b.
        let foot = vp - (vp * normal).sum() * normal
        if simd_length(foot) > 0 {
            let f = foot / simd_length(foot)
            if abs(angle(va, f) + angle(f, vb) - angle(va, vb)) < 1e-12 { return min(ends, asin(min(1, abs((vp * normal).sum()))) * r) }
        }
        return ends
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
    static func simd_length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

    /// The nearest region of `level` whose code is not in `unlocked`, by brute force over every unit's rings.
    static func bruteForceNearest(table: RegionTable, level: RegionLevel, from p: (Double, Double), unlocked: Set<String>) -> (code: String, metres: Double) {
        let q = 1e-5
        var best = (code: "", metres: Double.infinity)
        for unit in 0..<Int32(table.unitCount) {
            guard let region = table.region(ofUnit: unit, at: level) else { continue }
            let code = table.region(region).code
            guard !unlocked.contains(code) else { continue }
            // Skip a region whose box lies farther north or south than the best so far (a meridian degree is over 110 km).
            let box = table.region(region).boundingBox
            let latitudeGap = max(0, Double(box.minY) * q - p.0, p.0 - Double(box.maxY) * q)
            guard latitudeGap * 110_000 <= best.metres else { continue }
            for polygon in table.unitPolygons(unit) {
                for ring in polygon {
                    for (a, b) in zip(ring, ring.dropFirst()) {
                        let d = distance(p, (Double(a.y) * q, Double(a.x) * q), (Double(b.y) * q, Double(b.x) * q))
                        if d < best.metres { best = (code, d) }
                    }
                }
            }
        }
        return best
    }

    func testNearestRegionsChildrenAndRanking() async throws {
        let dir = try temporaryDirectory()
        // Half an hour east along 39.915 N from 116.405 E (Dongcheng, Beijing), then a walk in Huairou's hills.
        let formatter = ISO8601DateFormatter()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk>"
        for (lat, lon, start) in [(39.915, 116.405, 1_714_525_200), (40.45, 116.55, 1_714_611_600)] {
            text += "<trkseg>"
            for s in stride(from: 0, through: 1800, by: 5) {
                text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", lat, lon + 1.4 * Double(s) / (111_320 * cos(lat * .pi / 180)),
                               formatter.string(from: Date(timeIntervalSince1970: TimeInterval(start + s))))
            }
            text += "</trkseg>"
        }
        try (text + "</trk></gpx>\n").write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
        let report = try await Footprints.report(of: [dir + "/walk.gpx"], rules: Footprints.rules(utcOffsetHours: 0))
        let progress = report.progress
        func confirmed(_ level: RegionLevel) -> [ClassifyReport.Unlock] { (report.unlocks[level] ?? []).filter { $0.evidence == .confirmed } }

        // Measured from the newest cell: on the second walk's last leg.
        let from = try XCTUnwrap(progress.from)
        XCTAssertEqual(from.latitude, 40.45, accuracy: 0.0005)
        XCTAssertEqual(from.longitude, 116.55 + 1.4 * 1800 / (111_320 * cos(40.45 * .pi / 180)), accuracy: 0.0005)

        let china = BundledTables.tables.china
        let gcj = DatumConverter().convert(Coordinate(latitude: from.latitude, longitude: from.longitude), from: .wgs84, to: .gcj02)
        for level in [RegionLevel.city, .county] {
            let reported = try XCTUnwrap(progress.nearest[level], "\(level)")
            let expected = Self.bruteForceNearest(table: china, level: level, from: (gcj.latitude, gcj.longitude), unlocked: Set(confirmed(level).map(\.code)))
            XCTAssertEqual(reported.code, expected.code, "\(level)")
            XCTAssertEqual(reported.distanceMetres, expected.metres, accuracy: expected.metres * 0.005 + 2, "\(level)")
        }

        // Beijing has 16 districts and China 34 provincial-level regions (published counts).
        let beijing = try XCTUnwrap(progress.children.first { $0.code == "110100" })
        XCTAssertEqual(beijing.total, 16)
        XCTAssertEqual(beijing.unlocked, confirmed(.county).filter { $0.code.hasPrefix("1101") }.count)
        XCTAssertEqual(beijing.childLevel, .county)
        let chinaRow = try XCTUnwrap(progress.children.first { $0.code == "CHN" })
        XCTAssertEqual(chinaRow.total, 34)
        XCTAssertEqual(chinaRow.unlocked, 1)
        XCTAssertNil(progress.children.first { $0.code == "110000" }, "a municipality's one city says nothing")

        // The ranking: the confirmed counties by their explored share, largest first.
        let ranked = try XCTUnwrap(progress.mostExplored[.county])
        let shares = confirmed(.county).compactMap { u in u.exploredPercent.flatMap { $0 > 0 ? (u.code, $0) : nil } }
            .sorted { ($0.1, $1.0) > ($1.1, $0.0) }
        XCTAssertEqual(ranked.map(\.code), Array(shares.prefix(10).map(\.0)))
        XCTAssertGreaterThanOrEqual(ranked.count, 2)
    }
}
