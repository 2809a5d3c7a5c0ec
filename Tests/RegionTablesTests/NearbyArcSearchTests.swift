import ChinaDatum
import Foundation
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The locator's nearby-arc search (`UnitLookup.visitArcsNear` with a jump table: the walk starts
/// from the jump table's cells and skips segments beyond the search box before measuring them)
/// against the plain walk from the root that `RegionTable.arcsNear` makes: the same arcs at the
/// same distances, bit for bit, on random points and on the border and coast bands of both tables.
final class NearbyArcSearchTests: XCTestCase {
    static var world: RegionTable { BundledTables.tables.world }
    static var china: RegionTable { BundledTables.tables.china }

    /// Quantised points that probe one table: random over its regions' box; on vertices, beside
    /// them and at their exact heights; on and beside segments at every height they span; and in
    /// the buffer band beside the coverage's outer arcs (coasts and land borders).
    static func probes(_ table: RegionTable, seed: UInt64, count: Int) -> [(x: Int64, y: Int64)] {
        var rng = SplitMix64(seed: seed)
        let boxes = table.regions.map(\.boundingBox)
        let minX = Int64(boxes.map(\.minX).min()!), maxX = Int64(boxes.map(\.maxX).max()!)
        let minY = Int64(boxes.map(\.minY).min()!), maxY = Int64(boxes.map(\.maxY).max()!)
        let v = table.vertices
        let outerChunks = table.chunkStart.indices.filter { table.arcLeft[Int(table.chunkArc[$0])] < 0 || table.arcRight[Int(table.chunkArc[$0])] < 0 }
        let buffer = Int64((table.buffer / 1.1132).rounded(.up))
        var points: [(x: Int64, y: Int64)] = []
        while points.count < count {
            points.append((Int64.random(in: minX...maxX, using: &rng), Int64.random(in: minY...maxY, using: &rng)))
            // A vertex, its neighbours, and points at its height a little east and west.
            let chunk = Int.random(in: 0..<table.chunkStart.count, using: &rng)
            let i = Int(table.chunkStart[chunk]) + Int.random(in: 0..<Int(table.chunkSegments[chunk]), using: &rng)
            let (ax, ay, bx, by) = (Int64(v[2 * i]), Int64(v[2 * i + 1]), Int64(v[2 * i + 2]), Int64(v[2 * i + 3]))
            for (dx, dy): (Int64, Int64) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (Int64.random(in: -300...300, using: &rng), 0)] {
                points.append((ax + dx, ay + dy))
            }
            // On the segment at a height it spans (its end heights included), and one quantum either side.
            if ay != by {
                let y = Int64.random(in: min(ay, by)...max(ay, by), using: &rng)
                let x = ax + (y - ay) * (bx - ax) / (by - ay)
                points += [(x - 1, y), (x, y), (x + 1, y)]
            } else {
                let x = Int64.random(in: min(ax, bx)...max(ax, bx), using: &rng)
                points += [(x, ay), (x, ay + 1), (x, ay - 1)]
            }
            // Beside an outer arc, within the buffer.
            if let outer = outerChunks.randomElement(using: &rng) {
                let k = Int(table.chunkStart[outer]) + Int.random(in: 0...Int(table.chunkSegments[outer]), using: &rng)
                points.append((Int64(v[2 * k]) + Int64.random(in: -buffer...buffer, using: &rng), Int64(v[2 * k + 1]) + Int64.random(in: -buffer...buffer, using: &rng)))
            }
        }
        return points
    }

    /// The nearby-arc search started from the jump table, skipping segments beyond the box, finds
    /// every arc at the same distance, bit for bit, as the plain walk from the root (`arcsNear`).
    func testNearbyArcsEqualThePlainSearch() {
        for (name, table) in [("world", Self.world), ("china", Self.china)] {
            let fast = UnitLookup(table, jumpDepth: RegionLocator.TableView.jumpDepth)
            var mismatches = 0, found = 0
            for (k, (x, y)) in Self.probes(table, seed: 7, count: 6_000).enumerated() {
                // The margin radius, a small one, the gate's, and now and then one wide enough to
                // start from the root, or none at all (a negative radius: an empty box).
                let radius: Int64 = k % 200 == 0 ? 70_000 : k % 201 == 0 ? -5 : [270, 90, 1_800][k % 3]
                var nearest: [Int: Double] = [:]
                fast.visitArcsNear(x: x, y: y, radius: radius) { arc, metres in nearest[arc] = min(nearest[arc] ?? metres, metres) }
                let mine = nearest.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.bitPattern)" }
                let reference = table.arcsNear(x: x, y: y, radius: radius).map { "\($0.arc):\($0.metres.bitPattern)" }
                found += reference.count
                if mine != reference {
                    mismatches += 1
                    if mismatches <= 5 { XCTFail("\(name) (\(x), \(y)) radius \(radius): \(mine) against \(reference)") }
                }
            }
            XCTAssertEqual(mismatches, 0, name)
            XCTAssertGreaterThan(found, 3_000, name)
        }
    }
}
