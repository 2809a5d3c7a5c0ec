import Foundation
import Intake
import LogbookStore
import Unlocks
import UnlocksTestSupport
import XCTest

/// Plans, untimed points and vehicle legs through one import, a stored logbook and a merge.
final class PlansAndMovementTests: XCTestCase {
    /// A train ride file (300 km/h between walks at Beijing South and Tianjin), an untimed CSV
    /// and a GPX route: one import, imports into a stored logbook and two merged shards give the
    /// same footprint, with the passed-through regions and planned inputs in it.
    func testPlansAndPassedThroughAgreeThroughAStoredLogbookAndAMerge() async throws {
        let dir = try temporaryDirectory()
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var rows = ["lat,lon,time"]
        let t0 = 1_714_525_200  // 2024-05-01T01:00:00Z
        func add(_ a: (Double, Double), _ b: (Double, Double), count: Int, step: Int, start: Int) {
            for i in 0..<count {
                let f = Double(i) / Double(count - 1)
                rows.append(String(format: "%.6f,%.6f,%d", a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, start + i * step))
            }
        }
        add((39.8690, 116.3790), (39.8650, 116.3790), count: 120, step: 1, start: t0)
        add((39.8650, 116.3790), (39.1350, 117.2100), count: 145, step: 9, start: t0 + 120)
        add((39.1350, 117.2100), (39.1390, 117.2100), count: 120, step: 1, start: t0 + 120 + 144 * 9 + 1)
        try (rows.joined(separator: "\n") + "\n").write(toFile: input + "/train.csv", atomically: false, encoding: .utf8)
        try "lat,lon\n31.2400,121.4900\n31.2401,121.4901\n".write(toFile: input + "/bund.csv", atomically: false, encoding: .utf8)
        try """
        <?xml version="1.0"?><gpx version="1.1" creator="planner"><rte>
        <rtept lat="39.9030" lon="116.3975"/><rtept lat="39.9500" lon="116.4500"/><rtept lat="40.0000" lon="116.5000"/>
        </rte></gpx>
        """.write(toFile: input + "/route.gpx", atomically: false, encoding: .utf8)
        let names = ["bund.csv", "route.gpx", "train.csv"].map { input + "/" + $0 }
        for includePlans in [false, true] {
            var rules = Footprints.rules(utcOffsetHours: 0)
            rules.includePlans = includePlans
            let all = try await Footprints.report(of: names, rules: rules)
            XCTAssertEqual(all.inputs.map(\.status), [.planned, .planned, .read])
            let counties = all.unlocks[.county] ?? []
            XCTAssertTrue(counties.contains { $0.evidence == .passedThrough })
            // Pudong (by the Bund, east bank) only from the untimed plan: tentative with plans counted, else absent.
            XCTAssertEqual(counties.first { $0.code == "310115" }?.evidence, includePlans ? .tentative : nil)

            let stored = try Footprints.logbook(at: dir + "/s\(includePlans).logbook", rules: rules)
            _ = try await stored.importSources([.path(names[0])])
            let resumed = try await stored.importSources(names.map { IntakeSource.path($0) })
            XCTAssertEqual(resumed.report.unlocks, all.unlocks, "plans \(includePlans): resumed")
            XCTAssertEqual(resumed.report.metrics, all.metrics, "plans \(includePlans): resumed")
            XCTAssertEqual(resumed.report.inputs.map(\.status), all.inputs.map(\.status))
            _ = try await Footprints.logbook(at: dir + "/a\(includePlans).logbook", rules: rules).importSources([.path(names[2])])
            let merged = try Footprints.logbook(at: dir + "/b\(includePlans).logbook", rules: rules)
            _ = try await merged.importSources([.path(names[0]), .path(names[1])])
            let both = try await merged.merge(contentsOf: URL(fileURLWithPath: dir + "/a\(includePlans).logbook"))
            XCTAssertEqual(both.unlocks, all.unlocks, "plans \(includePlans): merged")
            XCTAssertEqual(both.metrics, all.metrics, "plans \(includePlans): merged")
            XCTAssertEqual(both.inputs.map(\.status), all.inputs.map(\.status))
        }
    }
}
