import Foundation

/// Areas on the WGS-84 ellipsoid, exact for the zone between two parallels (the authalic
/// formula) and, for a ring, with every edge straight in longitude and latitude — how the locator
/// and the tables treat edges — by Green's theorem: A = −∮ S(φ) dλ / 2π, S(φ) the area from the
/// equator to φ, integrated along each edge by Simpson's rule (the trapezoid rule errs by 5·10⁻⁵
/// on Aruba's five 10 to 20 km edges; Simpson's by under 10⁻⁸, measured against 1,000 pieces).
package enum EllipsoidArea {
    static let a = 6_378_137.0
    static let f = 1 / 298.257223563
    static let e2 = f * (2 - f)
    static let e = e2.squareRoot()

    /// Area of the ellipsoid between the equator and latitude `degrees` (signed), m².
    package static func zone(upTo degrees: Double) -> Double {
        let s = sin(degrees * .pi / 180)
        let q = s / (1 - e2 * s * s) + log((1 + e * s) / (1 - e * s)) / (2 * e)
        return .pi * a * a * (1 - e2) * q
    }

    /// Green's sum of an open path of (longitude, latitude) degrees: Σ over its edges of
    /// (S(φa) + 4·S(mid) + S(φb))·(λb − λa). Sums of paths add up to a closed ring's
    /// (``area(ofPathSum:)``), and a reversed path's sum is the negation: so a table's rings can be
    /// measured from sums made once per arc.
    package static func pathSum<Points: Collection>(_ points: Points) -> Double where Points.Element == (longitude: Double, latitude: Double) {
        guard var previous = points.first else { return 0 }
        var previousZone = zone(upTo: previous.latitude)
        var sum = 0.0
        for point in points.dropFirst() {
            let z = zone(upTo: point.latitude)
            sum += (previousZone + 4 * zone(upTo: (previous.latitude + point.latitude) / 2) + z) * (point.longitude - previous.longitude)
            previous = point
            previousZone = z
        }
        return sum
    }

    /// The signed area, m², of a closed ring whose Green's sum (``pathSum(_:)`` over its edges) is `sum`.
    package static func area(ofPathSum sum: Double) -> Double {
        -sum / 6 * (.pi / 180) / (2 * .pi)
    }
}

extension RegionTable {
    /// Area of each region of `regions`, m² on the ellipsoid (``EllipsoidArea``): the sum of its
    /// units' stored polygons (outer rings less their holes) in the table's own coordinates (GCJ-02
    /// for the China table: its shift changes an area by less than 10⁻⁶). Only the units of the
    /// regions asked for are measured, so a report pays for the regions it lists.
    public func areas<Regions: Sequence>(ofRegions regions: Regions) -> [Int32: Double] where Regions.Element == Int32 {
        let wanted = Set(regions)
        var areas: [Int32: Double] = [:]
        for region in wanted { areas[region] = 0 }
        guard !wanted.isEmpty else { return areas }
        // Each arc's Green's sum once, for every unit that shares it (NaN: not yet made).
        var arcSums = [Double](repeating: .nan, count: arcCount)
        for unit in 0..<Int32(unitCount) {
            let owners = levels.compactMap { region(ofUnit: unit, at: $0) }.filter(wanted.contains)
            guard !owners.isEmpty else { continue }
            let area = unitArea(unit) { arc in
                if arcSums[arc].isNaN { arcSums[arc] = arcPathSum(arc) }
                return arcSums[arc]
            }
            for owner in owners { areas[owner, default: 0] += area }
        }
        return areas
    }

    /// Area of one unit's stored polygons, m²: outer rings less their holes (a first ring counts
    /// as outer, as in ``unitPolygons(_:)``), each ring's sum the signed sums of its arcs.
    private func unitArea(_ unit: Int32, arcSum: (Int) -> Double) -> Double {
        var total = 0.0
        for (index, ring) in unitRings(unit).enumerated() {
            var sum = 0.0
            for reference in ring.arcs { sum += reference < 0 ? -arcSum(Int(~reference)) : arcSum(Int(reference)) }
            let area = abs(EllipsoidArea.area(ofPathSum: sum))
            total += ring.hole && index > 0 ? -area : area
        }
        return total
    }

    /// ``EllipsoidArea/pathSum(_:)`` of one arc, in the table's own degrees.
    private func arcPathSum(_ arc: Int) -> Double {
        let scale = TableFormat.quantum
        return EllipsoidArea.pathSum(arcVertices(arc).lazy.map { (longitude: Double($0.x) * scale, latitude: Double($0.y) * scale) })
    }
}
