import RegionTables
import Tracks

// Inputs that are not recordings of a path: a map of explored ground (Fog of World's pixels,
// ``TrackAnnotation/exploredArea``), each point exploring its 25 m cell and weighed by the
// footprint rule, with no legs, distance or days (docs/report-format.md, "Footprints"); and
// photos (``TrackAnnotation/snapshot``), each a visit at a moment: evidence and a day, no cell,
// no distance ("Photos").

extension TrackClassifier {
    /// One explored spot of a footprint input, after the filter and the datum conversion.
    mutating func explore(spot point: TrackPoint) {
        guard let placement = footprintPlacement(point) else { return drop(.invalidCoordinate) }
        record.pointsKept += 1
        let cell = CellVisit(time: .max, placement: placement)
        // The exact row coordinate (not the row cache's linearised one): a spot is no leg, and its
        // cell is the one an independent implementation of the grid finds.
        partCells.explore(rows.key(rowCoordinate: ExploredGrid.rowCoordinate(latitude: point.latitude), longitude: point.longitude), cell)
        let tile = SlippyTile.tile(tileCoordinates: mercator.tileCoordinates(latitude: point.latitude, longitude: point.longitude, zoom: SlippyTile.storedZoom),
                                   zoom: SlippyTile.storedZoom)
        partTiles.visit(SlippyTile.key(x: tile.x, y: tile.y, zoom: SlippyTile.storedZoom), time: .max)
        let visit = Visit(time: nil, latitude: point.latitude, longitude: point.longitude)
        var bits: (kinds: UInt16, flags: UInt8) = (0, 0)
        for (position, level) in PlaceSignature.levels.enumerated() {
            let weighed = weighSpot(level, placement.level(level), position: UInt8(position), visit: visit)
            bits.kinds |= weighed.kinds
            bits.flags |= weighed.flags
        }
        let signature = PlaceSignature(regions: PlaceSignature.regions(of: placement), kinds: bits.kinds, flags: bits.flags)
        let place = position(of: signature)
        useMinute(ofTime: nil)
        tally.points += 1
        tally.count(place: place)
    }

    /// The spot's placement: the last lookup's when the spot is near enough that no level can
    /// change and every margin still exceeds the assumed accuracy (inside at every level, a
    /// stable placement, moved less than the smallest margin less the accuracy, with 1% and 1 m
    /// to spare: the rule of `place(_:)`), its margins then nil ("far enough"); else located afresh.
    /// A tile's pixels come row by row, metres apart: most reuse the lookup.
    mutating func footprintPlacement(_ point: TrackPoint) -> Placement? {
        if hasLookup, scale.metres(from: lookupPoint, to: point) * 1.01 + 1 + options.assumedAccuracy <= lookupClearance {
            return lookupPlacement
        }
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else { return nil }
        var levels = 0, allInside = true, clearance = 0.0
        for level in [placement.country, placement.province, placement.city, placement.county, placement.subdivision] where level.region != nil {
            if level.status != .inside { allInside = false }
            let margin = level.marginMetres ?? locator.marginRadius
            if levels == 0 || margin < clearance { clearance = margin }
            levels += 1
        }
        hasLookup = levels > 0 && allInside
            && locator.placementIsStable(placement, latitude: point.latitude, longitude: point.longitude, within: locator.marginRadius)
        if hasLookup {
            lookupPoint = point
            lookupPlacement = placement.withoutMargins
            lookupClearance = clearance
        }
        return placement
    }

    /// The footprint rule at one level: a spot inside the region at least the assumed accuracy
    /// from its border (or at a coast nobody else can claim) counts towards it, and
    /// ``ClassifyOptions/footprintSpotsToConfirm`` of them confirm it (untimed); any other spot
    /// in or at the edge of it is tentative evidence. Returns the level's kind and confirming bit
    /// (the spots from the one that reaches the count on confirm).
    mutating func weighSpot(_ level: RegionLevel, _ placement: LevelPlacement, position: UInt8, visit: Visit) -> (kinds: UInt16, flags: UInt8) {
        guard let region = placement.region, placement.status != .outside else { return (0, 0) }
        let key = RegionKey(level: level, index: region)
        let inside = placement.status == .inside
        let counts = inside ? (placement.marginMetres ?? .infinity) >= options.assumedAccuracy : placement.uncontested
        var evidence = part.regions[key, default: RegionEvidence()]
        evidence.tentativeBy = earliest(evidence.tentativeBy, visit)
        var confirms = false
        if counts {
            var tally = footprintSpots[key, default: (0, visit)]
            tally.count += 1
            footprintSpots[key] = tally
            if tally.count >= ClassifyOptions.footprintSpotsToConfirm {
                evidence.confirmedBy = earliest(evidence.confirmedBy, tally.first)
                confirms = true
            }
        }
        part.regions[key] = evidence
        let kind: PlaceSignature.Kind = inside ? .inside : .edge
        return (UInt16(kind.rawValue) << (2 * UInt16(position)), confirms ? 1 << position : 0)
    }
}

extension TrackClassifier {
    /// One photo's position: weighed alone as a place been at its moment (accuracy its
    /// `GPSHPositioningError`, else ``ClassifyOptions/photoAssumedAccuracy``), its day counted;
    /// it explores nothing and draws no leg.
    mutating func visit(photo point: TrackPoint) {
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else {
            return drop(.invalidCoordinate)
        }
        record.pointsKept += 1
        if point.time != nil { sawTimed = true } else { untimedTrackKept += 1 }
        let visit = Visit(time: point.time, latitude: point.latitude, longitude: point.longitude)
        let accuracy = point.accuracy ?? ClassifyOptions.photoAssumedAccuracy
        segmentInside.removeAll(keepingCapacity: true)
        var bits: (kinds: UInt16, flags: UInt8) = (0, 0)
        for (position, level) in PlaceSignature.levels.enumerated() {
            let weighed = weigh(level, placement.level(level), position: UInt8(position), visit: visit, accuracy: accuracy, been: true)
            bits.kinds |= weighed.kinds
            bits.flags |= weighed.flags
        }
        let signature = PlaceSignature(regions: PlaceSignature.regions(of: placement), kinds: bits.kinds, flags: bits.flags)
        let place = position(of: signature)
        useMinute(ofTime: point.time)
        tally.points += 1
        tally.count(place: place)
        if let time = point.time {
            let day = dayClock.day(of: time)
            if day != lastDay {
                part.days.insert(day)
                lastDay = day
            }
        }
    }
}
