import Foundation
import UnlocksTestSupport
import XCTest

/// The audit suggests another datum only on evidence that tells the datums apart (docs/audit-format.md,
/// "Datum suggestions"): never for WGS-84 tracks merely because they run near borders (the samples,
/// a real trail along Hong Kong's district borders), always for the same real trail recorded in
/// GCJ-02 (its points fall off the coast as read and land in GCJ-02), and for a file whose creator
/// names a Chinese map app.
final class AuditDatumSuggestionTests: XCTestCase {
    static let fixture = Repository.fixtures("UnlocksCommandTests") + "/maclehose/maclehose-east.csv"

    /// A GPX walk through `points` at 1.2 m/s (the trail has no times), starting 2024-05-01.
    static func walk(_ points: [(Double, Double)], creator: String = "test") -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"\(creator)\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        var t = 1_714_521_600.0
        for (k, p) in points.enumerated() {
            if k > 0 {
                let q = points[k - 1]
                let metres = hypot((p.0 - q.0) * 111_320, (p.1 - q.1) * 111_320 * cos(p.0 * .pi / 180))
                t += max(1, (metres / 1.2).rounded())
            }
            out += "<trkpt lat=\"\(p.0)\" lon=\"\(p.1)\"><time>\(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: t)))</time></trkpt>\n"
        }
        return out + "</trkseg></trk></gpx>\n"
    }

    static func points(csv: String) -> [(Double, Double)] {
        csv.split(separator: "\n").dropFirst().compactMap { line in
            let parts = line.split(separator: ",")
            guard parts.count >= 2, let a = Double(parts[0]), let b = Double(parts[1]) else { return nil }
            return (a, b)
        }
    }

    func audit(_ path: String, in folder: String) throws -> [String: Any] {
        let result = try CommandRunner.run(["audit", path, "--tables", Repository.tables, "--source", "", "--out", folder])
        XCTAssertEqual(result.status, 0, result.stderr)
        let audit = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/audit.json"))) as? [String: Any])
        return try XCTUnwrap(audit["summary"] as? [String: Any])
    }

    func flips(_ summary: [String: Any]) -> Int {
        ((summary["categories"] as? [String: Any])?["datum-flip"] as? [String: Any])?["points"] as? Int ?? 0
    }

    func testTheWGS84SamplesGetNoSuggestion() throws {
        let summary = try audit(Repository.samples, in: try temporaryDirectory())
        XCTAssertGreaterThan(flips(summary), 1000, "the samples run along borders: many points flip")
        XCTAssertEqual((summary["datumSuggestions"] as? [Any])?.count, 0, "\(summary["datumSuggestions"] ?? "")")
    }

    func testARealTrailSuggestsGCJ02OnlyWhenRecordedInGCJ02() throws {
        let folder = try temporaryDirectory()
        let wgs = Self.points(csv: try String(contentsOfFile: Self.fixture, encoding: .utf8))
        XCTAssertEqual(wgs.count, 1265)
        // The same walk as a Chinese map app records it: the published forward transform.
        let converted = try CommandRunner.run(["convert", "--from", "wgs84", "--to", "gcj02"], input: Data(wgs.map { "\($0.0),\($0.1)\n" }.joined().utf8))
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let gcj = Self.points(csv: "lat,lon\n" + converted.stdout.split(separator: "\n").filter { !$0.hasPrefix("lat") }.joined(separator: "\n"))
        XCTAssertEqual(gcj.count, wgs.count)
        try Self.walk(wgs).write(toFile: folder + "/trail-wgs84.gpx", atomically: true, encoding: .utf8)
        try Self.walk(gcj).write(toFile: folder + "/trail-gcj02.gpx", atomically: true, encoding: .utf8)

        let asRecorded = try audit(folder + "/trail-wgs84.gpx", in: folder + "/a")
        XCTAssertGreaterThan(flips(asRecorded), 100, "the trail crosses district borders: points flip")
        XCTAssertEqual((asRecorded["datumSuggestions"] as? [Any])?.count, 0, "\(asRecorded["datumSuggestions"] ?? "")")

        let fromApp = try audit(folder + "/trail-gcj02.gpx", in: folder + "/b")
        let suggestion = try XCTUnwrap((fromApp["datumSuggestions"] as? [[String: Any]])?.first)
        XCTAssertEqual(suggestion["evidence"] as? String, "coast")
        let offshore = try XCTUnwrap(suggestion["offshorePoints"] as? Int), onshore = try XCTUnwrap(suggestion["onshorePoints"] as? Int)
        XCTAssertGreaterThanOrEqual(offshore, 50, "Sai Kung's beaches, 500 m out to sea as read")
        XCTAssertEqual(onshore, 0)
        XCTAssertTrue((suggestion["suggestion"] as? String ?? "").contains("--datum-for '\(folder)/trail-gcj02.gpx=gcj02'"), "\(suggestion)")
        // Read in GCJ-02 as suggested, nothing is left to suggest.
        let result = try CommandRunner.run(["audit", folder + "/trail-gcj02.gpx", "--datum", "gcj02", "--tables", Repository.tables, "--source", "", "--out", folder + "/c"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let reread = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/c/audit.json"))) as? [String: Any])?["summary"] as? [String: Any])
        XCTAssertEqual((reread["datumSuggestions"] as? [Any])?.count, 0)
    }

    /// A creator naming AMap is evidence by itself, away from any coast: the same inland part of
    /// the trail (west of Sai Kung's beaches), its points flipping, is suggested GCJ-02 by name.
    func testACreatorNamingAMapIsEvidence() throws {
        let folder = try temporaryDirectory()
        let inland = Self.points(csv: try String(contentsOfFile: Self.fixture, encoding: .utf8)).filter { $0.1 < 114.33 }
        try Self.walk(inland, creator: "AMap 高德地图 11.2").write(toFile: folder + "/amap.gpx", atomically: true, encoding: .utf8)
        try Self.walk(inland).write(toFile: folder + "/plain.gpx", atomically: true, encoding: .utf8)
        let named = try audit(folder + "/amap.gpx", in: folder + "/a")
        XCTAssertGreaterThanOrEqual(flips(named), 3)
        let suggestion = try XCTUnwrap((named["datumSuggestions"] as? [[String: Any]])?.first)
        XCTAssertEqual(suggestion["evidence"] as? String, "metadata")
        XCTAssertTrue((suggestion["suggestion"] as? String ?? "").contains("AMap"))
        XCTAssertEqual((try audit(folder + "/plain.gpx", in: folder + "/b")["datumSuggestions"] as? [Any])?.count, 0)
    }
}
