import RegionTables
import Tracks

// Inputs that are not recordings of a path: a map of explored ground (Fog of World's pixels,
// ``TrackAnnotation/exploredArea``), each point exploring its 25 m cell and weighed by the
// footprint rule, with no legs, distance or days (docs/report-format.md, "Footprints"); and
// photos (``TrackAnnotation/snapshot``), each a visit at a moment: evidence and a day, no cell,
// no distance ("Photos").

extension TrackClassifier {
    /// One explored spot of a footprint input, after the filter and the datum conversion. Its
    /// placement is the lookup's when it reuses it at the assumed accuracy (a tile's pixels come
    /// row by row, metres apart: most do), else located afresh.
    mutating func explore(spot point: TrackPoint) {
        let placement: Placement
        if lookup.reuses(point, accuracy: options.assumedAccuracy, scale: &scale) {
            placement = lookup.placement
        } else {
            guard lookup.locate(point, with: locator) else { return drop(.invalidCoordinate) }
            placement = lookup.fresh
        }
        record.pointsKept += 1
        raster.explore(spot: point, cell: CellVisit(time: .max, placement: placement))
        let signature = evidence.weigh(spot: placement, visit: Visit(time: nil, latitude: point.latitude, longitude: point.longitude))
        minutes.countPoint(at: nil)
        minutes.count(place: palette.position(of: signature), at: nil)
    }

    /// One photo's position: weighed alone as a place been at its moment (accuracy its
    /// `GPSHPositioningError`, else ``ClassifyOptions/photoAssumedAccuracy``), its day counted;
    /// it explores nothing and draws no leg.
    mutating func visit(photo point: TrackPoint) {
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else {
            return drop(.invalidCoordinate)
        }
        record.pointsKept += 1
        if point.time != nil { plan.sawTimed = true } else { plan.untimedTrackKept += 1 }
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        evidence.startSegment()
        let signature = evidence.weigh(placement, visit: visit, accuracy: point.accuracy ?? ClassifyOptions.photoAssumedAccuracy, been: true, lone: false)
        minutes.countPoint(at: point.time)
        minutes.count(place: palette.position(of: signature), at: point.time)
        if let time = point.time { days.count(time) }
    }
}
