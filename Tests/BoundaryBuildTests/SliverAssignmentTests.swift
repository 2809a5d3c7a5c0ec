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
        let parts = try XCTUnwrap(try WorldTableBuilder.splitAmongNeighbours(face, neighbours: [0, 1, 2], outlines: outlines, context: context))
        XCTAssertEqual(try parts.reduce(0) { $0 + (try $1.triangle.area()) }, try face.area(), accuracy: 1e-12)
        XCTAssertFalse(parts.isEmpty)
        for part in parts { XCTAssertNotEqual(part.owner, 2) }
    }
}
