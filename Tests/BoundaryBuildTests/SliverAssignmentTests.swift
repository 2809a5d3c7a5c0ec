import Foundation
import XCTest
@testable import BoundaryBuild

/// The rules for slivers nobody claims (docs/boundaries.md, "Holes and gaps"), on faces whose
/// answer is plain geometry: a strip along a neighbour's straight border, of a known width.
final class SliverAssignmentTests: XCTestCase {
    let context = GEOSContext()
    /// One metre in degrees of latitude, as the build counts it.
    let metre = 1 / WorldTableBuilder.metresPerDegree

    /// A strip `width` metres tall from 80 to 80.1 E above the neighbour's border along 30 N (its
    /// outline runs on beyond the strip), on the build's plane (longitudes scaled by cos 30°).
    func strip(width: Double) throws -> (face: Geometry, outline: PreparedGeometry) {
        let top = 30 + width * metre
        let face = try context.polygon([[80, 30, 80.1, 30, 80.1, top, 80, top, 80, 30]])
        let outline = try PreparedGeometry(try context.multiLineString([[79.5, 30, 80, 30, 80.1, 30, 80.6, 30]]))
        return (face, outline)
    }

    func testAStripIsNearItsNeighbourOnlyWhenNarrowerThanTheReach() throws {
        let reach = 973.7 * metre, touching = 5 * metre
        for (width, expected) in [(500.0, true), (960.0, true), (990.0, false), (1_500.0, false), (2_000.0, false)] {
            let (face, outline) = try strip(width: width)
            XCTAssertEqual(try WorldTableBuilder.lies(face, within: reach, of: outline, touching: touching, context: context), expected, "\(width) m")
        }
    }

    func testAFaceTouchingItsNeighbourAtOneCornerIsNotNear() throws {
        // The face's only vertex on the neighbour's line is its south-west corner.
        let face = try context.polygon([[80, 30, 80.001, 30.002, 80.001, 30.003, 80, 30]])
        let outline = try PreparedGeometry(try context.multiLineString([[79.5, 30, 80, 30]]))
        XCTAssertFalse(try WorldTableBuilder.lies(face, within: 973.7 * metre, of: outline, touching: 5 * metre, context: context))
    }

    func testASliverBetweenTwoClaimantsIsCutAmongThemNotGivenToAThird() throws {
        // A sliver 9 m tall along 22 N between A (north) and B (south) from 33.2 to 34.1 E; C
        // touches it only at its eastern end. Every triangle goes to A or B.
        let top = 22 + 9 * metre
        let face = try context.polygon([[33.2, 22, 33.5, 22, 33.8, 22, 34.1, 22, 34.1, top, 33.8, top, 33.5, top, 33.2, top, 33.2, 22]])
        let outlines = try [
            context.multiLineString([[33.2, top, 34.1, top, 34.1, 23]]),  // A
            context.multiLineString([[33.2, 22, 34.1, 22, 34.1, 21]]),  // B
            context.multiLineString([[34.1, 21, 34.1 + 9 * metre, 22, 34.1, 23]]),  // C, at the eastern end
        ].map { try PreparedGeometry($0) }
        let parts = try XCTUnwrap(try WorldTableBuilder.splitAmongNeighbours(face, neighbours: [0, 1, 2], outlines: outlines,
                                                                              reach: nil, context: context))
        XCTAssertEqual(try parts.reduce(0) { $0 + (try $1.triangle.area()) }, try face.area(), accuracy: 1e-12)
        XCTAssertFalse(parts.isEmpty)
        for part in parts { XCTAssertTrue(part.owner == 0 || part.owner == 1, "\(part.owner)") }
    }

    func testAGapSpanningACornerGivesNoTriangleBeyondTheReachOfItsOwner() throws {
        // A gap 3 km tall and 0.05° wide in the corner between A (its southern side, along 30 N)
        // and B (its western side, along 80 E), with vertices every 0.005° along A and every
        // 300 m up B. Points more than 973.7 m from both (the north-east) are no one's.
        let reach = 973.7 * metre, top = 30 + 3_000 * metre
        var ring: [Double] = []
        for k in 0...10 { ring += [80 + 0.005 * Double(k), 30] }
        ring += [80.05, top]
        for k in stride(from: 10, through: 1, by: -1) { ring += [80, 30 + 300 * metre * Double(k)] }
        ring += [80, 30]
        let face = try context.polygon([ring])
        let outlines = try [
            context.multiLineString([[79.9, 30, 80.2, 30]]),  // A
            context.multiLineString([[80, 29.9, 80, 30.2]]),  // B
        ].map { try PreparedGeometry($0) }
        let parts = try XCTUnwrap(try WorldTableBuilder.splitAmongNeighbours(face, neighbours: [0, 1], outlines: outlines, reach: reach, context: context))
        XCTAssertEqual(try parts.reduce(0) { $0 + (try $1.triangle.area()) }, try face.area(), accuracy: 1e-12)
        XCTAssertTrue(parts.contains { $0.owner == -1 })
        XCTAssertTrue(parts.contains { $0.owner == 0 } && parts.contains { $0.owner == 1 })
        // Independently: the distance in metres on the build's plane from corners, edge midpoints
        // and centroid of each owned triangle to its owner's line.
        let cosine = cos((30 + 1_500 * metre) * Double.pi / 180)
        for part in parts where part.owner >= 0 {
            let r = try part.triangle.polygonRings()[0]
            var points: [(Double, Double)] = []
            for k in 0..<3 {
                let (ax, ay, bx, by) = (r[2 * k], r[2 * k + 1], r[2 * k + 2], r[2 * k + 3])
                points += [(ax, ay), ((ax + bx) / 2, (ay + by) / 2)]
            }
            points.append(((r[0] + r[2] + r[4]) / 3, (r[1] + r[3] + r[5]) / 3))
            for (x, y) in points {
                let metres = part.owner == 0 ? (y - 30) / metre : (x - 80) * cosine / metre
                XCTAssertLessThanOrEqual(metres, 973.7 + 0.01, "owner \(part.owner) at \(x), \(y)")
            }
        }
    }

    func testAPolygonLiesNearALineOnlyWhenAllOfItIsWithinTheReach() throws {
        let line = try context.multiLineString([[79.5, 30, 80.6, 30]])
        for (height, expected) in [(900.0, true), (990.0, false)] {
            let top = 30 + height * metre
            let triangle = try context.polygon([[80, 30, 80.01, 30, 80.005, top, 80, 30]])
            XCTAssertEqual(try WorldTableBuilder.lies(triangle, within: 973.7 * metre, of: line, context: context), expected, "\(height) m")
        }
        // A line beyond the reach of the polygon's box is not near.
        let far = try context.polygon([[80, 31, 80.01, 31, 80.005, 31.001, 80, 31]])
        XCTAssertFalse(try WorldTableBuilder.lies(far, within: 973.7 * metre, of: line, context: context))
    }

    func testAClaimedSliverLiesNearItsClaimantOnlyWhenNoPartOfItReachesBeyond() throws {
        // The claimant: the square 80–81 E, 29–30 N. A triangle 4 m wide at its base on the
        // claimant's eastern side (81 E) at 29.9 N, its apex `length` metres north: the part
        // north of 30 N is outside the claimant, farthest from it at the apex.
        let region = try context.polygon([[80, 29, 81, 29, 81, 30, 80, 30, 80, 29]])
        let outline = try PreparedGeometry(try region.boundary())
        let reach = 93.7 * metre
        for (length, expected) in [(0.0, true), (90.0, true), (100.0, false), (30_000.0, false)] {
            let apex = 30 + length * metre
            let face = try context.polygon([[81 - 2 * metre / cos(Double.pi / 6), 29.9, 81 + 2 * metre / cos(Double.pi / 6), 29.9, 81, apex,
                                             81 - 2 * metre / cos(Double.pi / 6), 29.9]])
            XCTAssertEqual(try WorldTableBuilder.lies(face, within: reach, ofRegion: region, outline: outline, context: context), expected, "\(length) m")
        }
        // A face wholly inside the claimant, far from its outline, lies within it.
        let inside = try context.polygon([[80.4, 29.4, 80.6, 29.4, 80.5, 29.6, 80.4, 29.4]])
        XCTAssertTrue(try WorldTableBuilder.lies(inside, within: reach, ofRegion: region, outline: outline, context: context))
    }
}
