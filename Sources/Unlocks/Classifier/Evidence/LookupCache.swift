import RegionTables
import Tracks

/// The last placement located afresh and, when it is stable, the clearance within which a later
/// point reuses it without a lookup: tracks sample every few metres, so most points do.
///
/// A point reuses it when that cannot change the answer: the placement is inside at every level
/// it has (the subdivision's included), stable (`RegionLocator.placementIsStable`: no China level
/// missing in China, no datum gate near China's border), and the point moved less than the
/// smallest margin minus its accuracy (with 1% and 1 m to spare for the datum shift's slight
/// stretch). Then every level has the same region and the margin still exceeds the accuracy, so
/// the evidence is what a fresh lookup would give; the margins are dropped (nil: "far enough").
struct LookupCache {
    /// A placement to reuse is held (`point`, `placement`, `clearance`, `cell`).
    private(set) var isValid = false
    private(set) var point = TrackPoint(latitude: 0, longitude: 0)
    /// The placement without margins.
    private(set) var placement = Placement()
    /// The smallest margin of its levels (the locator's radius where a level has none).
    private(set) var clearance = 0.0
    /// Its ``CellVisit`` (country, finest China region, subdivision), untimed.
    private(set) var cell = CellVisit(time: .max, country: -1, chinaRegion: -1)
    /// The last placement located afresh, margins included (valid or not).
    private(set) var fresh = Placement()
    /// The palette positions of `placement` for a point been there, lone, and only passed
    /// (computed when first needed, forgotten with the placement).
    private var places: (been: Int32?, lone: Int32?, passed: Int32?) = (nil, nil, nil)

    /// Starts an input: nothing to reuse.
    mutating func begin() {
        isValid = false
        places = (nil, nil, nil)
    }

    /// Whether `point`, `accuracy` metres uncertain, may take `placement` without a lookup.
    @inline(__always)
    func reuses(_ point: TrackPoint, accuracy: Double, scale: inout LocalScale) -> Bool {
        guard isValid else { return false }
        let moved = scale.metres(from: self.point, to: point) * 1.01 + 1
        return moved + accuracy <= clearance
    }

    /// Locates `point` afresh (`fresh`), kept for reuse when stable; false (nothing changed) when
    /// it cannot be located.
    mutating func locate(_ point: TrackPoint, with locator: RegionLocator) -> Bool {
        guard let placement = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else { return false }
        // The levels that have a region: all inside, and the smallest margin (the first one met
        // on ties, as `min()` takes it).
        var levels = 0, allInside = true, clearance = 0.0
        let radius = locator.marginRadius
        func include(_ level: LevelPlacement) {
            guard level.region != nil else { return }
            if level.status != .inside { allInside = false }
            let margin = level.marginMetres ?? radius
            if levels == 0 || margin < clearance { clearance = margin }
            levels += 1
        }
        include(placement.country)
        include(placement.province)
        include(placement.city)
        include(placement.county)
        include(placement.subdivision)
        if levels > 0, allInside,
           locator.placementIsStable(placement, latitude: point.latitude, longitude: point.longitude, within: locator.marginRadius) {
            isValid = true
            self.point = point
            self.placement = placement.withoutMargins
            self.clearance = clearance
            cell = CellVisit(time: .max, placement: placement)
        } else {
            isValid = false
        }
        places = (nil, nil, nil)
        fresh = placement
        return true
    }

    /// The palette position remembered for a reused point been there (lone or not) or only passed.
    @inline(__always)
    func place(been: Bool, lone: Bool) -> Int32? {
        !been ? places.passed : lone ? places.lone : places.been
    }

    mutating func remember(place position: Int32, been: Bool, lone: Bool) {
        if !been { places.passed = position } else if lone { places.lone = position } else { places.been = position }
    }
}
