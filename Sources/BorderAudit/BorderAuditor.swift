import ChinaDatum
import RegionTables
import Tracks
import Unlocks

/// The audit's point categories. Raw values are the stable names of docs/audit-format.md.
public enum AuditCategory: String, CaseIterable, Sendable {
    /// Within `--within` metres of a border at the level.
    case nearBorder = "near-border"
    /// The region changes when the WGS-84 → GCJ-02 shift is skipped, or (country level) the
    /// point lies in the datum seam along China's land border.
    case datumFlip = "datum-flip"
    /// The accuracy circle crosses the level's border (margin below the accuracy).
    case accuracyStraddle = "accuracy-straddle"
    /// Assigned only through the table's buffer.
    case edgeOnly = "edge-only"
    /// In no region at the level.
    case outside
    /// The full-resolution source puts the point in another region than the table does.
    case simplificationFlip = "simplification-flip"
    /// The region changes between this point and the previous (or next) one of its segment.
    case crossing

    /// The category's bit in `AuditedPoint.levelFlags`.
    public var bit: UInt8 { 1 << UInt8(Self.index(of: self)) }

    /// Position in `allCases`.
    static func index(of category: AuditCategory) -> Int {
        switch category {
        case .nearBorder: return 0
        case .datumFlip: return 1
        case .accuracyStraddle: return 2
        case .edgeOnly: return 3
        case .outside: return 4
        case .simplificationFlip: return 5
        case .crossing: return 6
        }
    }

    /// The categories whose bits are set in `flags`, in declaration order.
    public static func decode(_ flags: UInt8) -> [AuditCategory] {
        allCases.filter { flags & $0.bit != 0 }
    }
}

/// An `AuditCategory` bit set per level (`RegionLevel.rawValue` indexes it), packed in one word
/// so that auditing a point allocates nothing.
public struct LevelFlags: Equatable, Sendable {
    private var packed: UInt32 = 0

    public init() {}

    public subscript(_ level: Int) -> UInt8 {
        get { UInt8(truncatingIfNeeded: packed >> (8 * UInt32(level))) }
        set { packed = packed & ~(0xFF << (8 * UInt32(level))) | UInt32(newValue) << (8 * UInt32(level)) }
    }

    public subscript(_ level: RegionLevel) -> UInt8 {
        get { self[Int(level.rawValue)] }
        set { self[Int(level.rawValue)] = newValue }
    }

    /// The categories set at any level.
    public var union: UInt8 {
        UInt8(truncatingIfNeeded: packed | packed >> 8 | packed >> 16 | packed >> 24)
    }

    /// Adds the other's categories, level by level.
    public mutating func formUnion(_ other: LevelFlags) {
        packed |= other.packed
    }
}

/// A kept ground point the audit flagged, with everything the report shows about it.
public struct AuditedPoint: Sendable {
    /// WGS-84, as classified.
    public var point: TrackPoint
    /// The placement, with margins wherever a border is within the audit's radius.
    public var placement: Placement
    /// GCJ-02 position (whenever the point is in the datum's rectangle).
    public var gcj02: Coordinate?
    /// Categories per level, as `AuditCategory.bit`s.
    public var levelFlags = LevelFlags()
    /// The China regions at the unshifted position, when they differ.
    public var unshifted: UnshiftedRegions?
    /// True when the point lies in the datum seam along China's land border.
    public var inDatumSeam = false
    /// For a point in no country: the nearest country and its distance (metres), when within 50 km.
    public var nearestCountry: (region: Int32, metres: Double)?
    /// Whether `placement` has margins to the locator's radius (a fresh lookup's, or measured
    /// again); a point that reused the classifier's lookup far from borders has none.
    var measured = true

    /// The union of the categories over all levels.
    public var flags: UInt8 { levelFlags.union }

    /// Where a datum-flip point falls among the WGS-84 border lines when the shift is skipped: its
    /// coordinates taken as GCJ-02 and converted back (nil for other points).
    public var unshiftedPosition: Coordinate? {
        unshifted == nil ? nil : GCJ02.toWGS84(Coordinate(latitude: point.latitude, longitude: point.longitude))
    }

    /// The region at `level` (inside or edge), nil when outside.
    public func region(_ level: RegionLevel) -> Int32? { placement.level(level).region }
}

/// The China table's regions at a point's coordinates taken as GCJ-02 (the shift skipped).
public struct UnshiftedRegions: Equatable, Sendable {
    public var province: Int32?
    public var city: Int32?
    public var county: Int32?

    /// The region at a China level (nil at country level).
    public func region(_ level: RegionLevel) -> Int32? {
        switch level {
        case .country, .subdivision: return nil
        case .province: return province
        case .city: return city
        case .county: return county
        }
    }
}

/// Where a segment changes region at one level, between two consecutive ground points.
public struct AuditCrossing: Sendable {
    public var level: RegionLevel
    public var from: Int32?
    public var to: Int32?
    /// Midway between the two points (time and WGS-84 position).
    public var time: Int64?
    public var latitude: Double
    public var longitude: Double
}

/// Consecutive flagged points of one segment (and the points either side of a crossing): one
/// item for a person to inspect, however long the walk along the border.
public struct AuditEpisode: Sendable {
    /// 1, 2, … in the order the points were read.
    public var id: Int
    public var input: String
    public var segment: Int
    public var points: [AuditedPoint] = []
    public var crossings: [AuditCrossing] = []
    /// The episode before this one when a long run of flagged points was cut at
    /// `BorderAuditor.maximumEpisodePoints` (nil for most).
    public var continues: Int?
    /// For points the full-resolution source puts elsewhere (simplification-flip), by index in
    /// `points`: the source's code per level where it differs ("" for no region).
    public var sourceCodes: [Int: [RegionLevel: String]] = [:]

    /// The union of the points' categories.
    public var flags: UInt8 { points.reduce(0) { $0 | $1.flags } }
}

/// Watches a classification (`TrackClassifier.observer`) and flags the shaky points near
/// borders, grouping them into episodes, each handed on as soon as it ends (so memory holds one
/// episode, not the archive's). Cheap for points far from every border: a point that reused the
/// classifier's lookup and cannot be within `within` metres of a border is only checked for the
/// datum (with a cached lookup at its unshifted position) and the seam.
public final class BorderAuditor {
    public let locator: RegionLocator
    public let within: Double
    public let options: ClassifyOptions
    /// Run of unflagged points after which an open episode ends.
    public static let quietPoints = 10
    /// How far `outside` points look for the nearest country (metres).
    public static let nearestSearchMetres = 50_000.0
    /// Most points in one episode by default: a longer run of flagged points (hours along a
    /// border at 1 Hz) goes on in a new episode that `continues` it, so memory stays bounded.
    public static let maximumEpisodePoints = 20_000
    /// Most points in one episode here.
    public let episodeLimit: Int
    /// The largest GCJ-02 shift anywhere (metres; it is at most about 700 m on land): the seam
    /// check needs the exact shift only within this distance of China's land border.
    static let maximumShiftMetres = 1_000.0

    /// Receives each episode when it ends.
    private let deliver: (AuditEpisode) -> Void
    /// Episodes delivered.
    public private(set) var episodeCount = 0
    /// Ground points observed.
    public private(set) var groundPoints: Int64 = 0
    /// Flagged points (in episodes, crossings' neighbours included).
    public private(set) var flaggedPoints: Int64 = 0

    private let chinaCountry: Int32?
    /// World arcs on China's land border (China on one side, another country on the other).
    private let chinaLandBorder: [Bool]
    private var scale = LocalScale()
    /// The last point placed afresh with every level inside, its placement and smallest margin.
    private var lastFresh: (point: TrackPoint, placement: Placement, clearance: Double)?
    /// The last point with exact margins, inside at every level it has, and its smallest margin
    /// (the locator's radius where none is within it): a later point in the same regions that moved
    /// d metres has every margin at least that minus d, so it needs measuring only once the bound
    /// falls below `within` (or its accuracy).
    private var clearance: (point: TrackPoint, metres: Double)?
    /// Border arcs around a recent point, for the margins of the points that reused its lookup.
    private var neighbourhood: MarginNeighbourhood?
    /// How far a neighbourhood serves (metres).
    static let neighbourhoodReach = 200.0
    /// The last unshifted China lookup: where, its unit, and how far the nearest China arc is at
    /// least (metres): a later point that moved less keeps the unit.
    private var unshiftedCache: (point: TrackPoint, unit: Int32?, clearance: Double)?
    /// How far the unshifted lookup searches for the nearest arc (metres).
    static let unshiftedSearchMetres = 300.0
    /// The last seam query: where, and how far China's land border is at least (metres).
    private var seamCache: (point: TrackPoint, clearance: Double)?
    /// The previous ground point of the current segment (for crossings), as audited, and whether
    /// it is in the open episode.
    private var previous: (audited: AuditedPoint, inEpisode: Bool)?
    /// The input and segment of the points being observed.
    private var current: (input: String, segment: Int)?
    private var open: AuditEpisode?
    private var quiet = 0

    /// `locator` must compute margins to at least `within` metres (its `marginRadius`), and be the
    /// classifier's own when `within` exceeds the classifier's radius. `deliver` receives each
    /// episode as it ends, in order.
    public init(locator: RegionLocator, within: Double, options: ClassifyOptions, episodeLimit: Int = maximumEpisodePoints,
                deliver: @escaping (AuditEpisode) -> Void) {
        self.episodeLimit = max(1, episodeLimit)
        self.locator = locator
        self.within = within
        self.options = options
        self.deliver = deliver
        let world = locator.world
        let china = world.regions.first(where: { $0.code == "CHN" })?.index
        chinaCountry = china
        chinaLandBorder = (0..<world.arcCount).map { arc in
            let l = world.arcLeft[arc], r = world.arcRight[arc]
            guard l >= 0, r >= 0 else { return false }
            let a = world.region(ofUnit: l, at: .country), b = world.region(ofUnit: r, at: .country)
            return a != b && (a == china || b == china)
        }
    }

    /// Audits one observed ground point.
    public func observe(_ observed: ObservedPoint) {
        groundPoints += 1
        if current?.segment != observed.segment || current?.input != observed.input {
            close()
            previous = nil
            current = (observed.input, observed.segment)
        }
        var audited = audit(observed)
        var crossings: [AuditCrossing] = []
        if var p = previous {
            for level in RegionLevel.tableLevels {
                let a = p.audited.region(level), b = audited.region(level)
                guard a != b else { continue }
                let t0 = p.audited.point.time, t1 = observed.point.time
                crossings.append(AuditCrossing(level: level, from: a, to: b, time: t0.flatMap { t0 in t1.map { t0 + ($0 - t0) / 2 } },
                                               latitude: (p.audited.point.latitude + observed.point.latitude) / 2,
                                               longitude: (p.audited.point.longitude + observed.point.longitude) / 2))
                audited.levelFlags[level] |= AuditCategory.crossing.bit
                p.audited.levelFlags[level] |= AuditCategory.crossing.bit
            }
            if !crossings.isEmpty, !p.inEpisode {
                // The point before the crossing joins (or starts) the episode.
                let withMargins = p.audited.measured ? p.audited : relocated(p.audited)
                add(withMargins, input: observed.input, segment: observed.segment)
            } else if !crossings.isEmpty, let last = open?.points.indices.last {
                open!.points[last].levelFlags.formUnion(p.audited.levelFlags)
            }
        }
        let flagged = audited.flags != 0
        if flagged {
            if !audited.measured { audited = relocated(audited) }
            add(audited, input: observed.input, segment: observed.segment)
            open!.crossings += crossings
        } else {
            quiet += 1
            if quiet >= Self.quietPoints { close() }
        }
        previous = (audited, flagged)
    }

    /// Ends the last episode; call once after the run.
    public func finish() {
        close()
        previous = nil
        current = nil
    }

    // MARK: Per point

    private func add(_ point: AuditedPoint, input: String, segment: Int) {
        var point = point
        let p = point.point
        if point.gcj02 == nil, ChinaRectangle().appliesShift(latitude: p.latitude, longitude: p.longitude) {
            // A measured placement carries the point's own GCJ-02 position when it is in or at China.
            point.gcj02 = (point.measured ? point.placement.gcj02 : nil) ?? GCJ02.fromWGS84(Coordinate(latitude: p.latitude, longitude: p.longitude))
        }
        quiet = 0
        var continues: Int?
        if let full = open, full.points.count >= episodeLimit {
            close()
            continues = full.id
        }
        if open == nil {
            open = AuditEpisode(id: episodeCount + 1, input: input, segment: segment)
            open!.continues = continues
        }
        open!.points.append(point)
        flaggedPoints += 1
    }

    private func close() {
        if let episode = open {
            episodeCount += 1
            deliver(episode)
        }
        open = nil
        quiet = 0
    }

    /// The point with margins up to the locator's radius, its flags kept.
    private func relocated(_ audited: AuditedPoint) -> AuditedPoint {
        var result = audited
        if let placement = withMargins(audited.point, audited.placement) {
            result.placement = placement
            result.measured = true
        }
        return result
    }

    /// The placement of a point that reused the classifier's lookup (`reused`: its regions, margins
    /// dropped), with the margins a fresh lookup gives: measured to the arcs of a neighbourhood
    /// in the same regions when one is near, else by a fresh lookup.
    private func withMargins(_ point: TrackPoint, _ reused: Placement) -> Placement? {
        func sameRegions(_ a: Placement) -> Bool {
            RegionLevel.tableLevels.allSatisfy { a.level($0).region == reused.level($0).region && a.level($0).status == reused.level($0).status }
        }
        for attempt in 0..<2 {
            if let n = neighbourhood, sameRegions(n.placement),
               let placement = locator.placement(latitude: point.latitude, longitude: point.longitude, in: n) {
                return placement
            }
            // Make one around the last fresh lookup (the one this point reused), once.
            guard attempt == 0, let fresh = lastFresh, sameRegions(fresh.placement) else { break }
            neighbourhood = locator.neighbourhood(latitude: fresh.point.latitude, longitude: fresh.point.longitude,
                                                  placement: fresh.placement, reach: Self.neighbourhoodReach)
        }
        // Unreachable for a kept point (its coordinates were checked); nil: no margins measured.
        guard let fresh = try? locator.locate(latitude: point.latitude, longitude: point.longitude) else { return nil }
        neighbourhood = locator.neighbourhood(latitude: point.latitude, longitude: point.longitude, placement: fresh, reach: Self.neighbourhoodReach)
        return fresh
    }

    /// The smallest margin of a placement inside at every level it has (the locator's radius for
    /// levels with no border within it); nil when some level is not inside or it has none.
    private func smallestMargin(_ placement: Placement) -> Double? {
        var smallest = Double.infinity
        for level in RegionLevel.tableLevels {
            let found = placement.level(level)
            guard found.region != nil else { continue }
            guard found.status == .inside else { return nil }
            smallest = min(smallest, found.marginMetres ?? locator.marginRadius)
        }
        return smallest.isFinite ? smallest : nil
    }

    /// The categories of one point, except crossings.
    private func audit(_ observed: ObservedPoint) -> AuditedPoint {
        let point = observed.point
        let accuracy = point.accuracy ?? options.assumedAccuracy
        var placement = observed.placement
        var measured = true
        if observed.reused {
            // The classifier vouched for margins ≥ accuracy; the audit needs to know which are
            // below `within`.
            let moved = clearance.map { scale.metres(from: $0.point, to: point) * 1.01 + 1 } ?? .infinity
            if (clearance?.metres ?? 0) - moved < max(within, accuracy) {
                if let exact = withMargins(point, placement) {
                    placement = exact
                    clearance = smallestMargin(exact).map { (point, $0) }
                } else {
                    measured = false
                    clearance = nil
                }
            } else {
                measured = false
            }
        } else {
            let smallest = smallestMargin(placement)
            lastFresh = smallest.map { (point, placement, $0) }
            clearance = smallest.map { (point, $0) }
        }
        let inRectangle = ChinaRectangle().appliesShift(latitude: point.latitude, longitude: point.longitude)
        // The GCJ-02 position is worked out where needed: the seam check and flagged points.
        var audited = AuditedPoint(point: point, placement: placement, gcj02: nil)
        audited.measured = measured
        for level in RegionLevel.tableLevels {
            let found = placement.level(level)
            var bits: UInt8 = 0
            if found.region != nil {
                if let m = found.marginMetres, abs(m) < within { bits |= AuditCategory.nearBorder.bit }
                if let m = found.marginMetres, (found.status == .inside ? m : -m) < accuracy { bits |= AuditCategory.accuracyStraddle.bit }
                if found.status == .edge { bits |= AuditCategory.edgeOnly.bit }
            } else if level == .country || (placement.country.region != nil && placement.country.region == chinaCountry) {
                bits |= AuditCategory.outside.bit
            }
            audited.levelFlags[level] = bits
        }
        if placement.country.region == nil {
            let world = locator.world
            let radius = Int64((Self.nearestSearchMetres / metresPerQuantum).rounded(.up))
            if let nearest = world.nearestSegment(toX: quantise(point.longitude), y: quantise(point.latitude), radius: radius,
                                                  accept: { world.arcLeft[$0] < 0 || world.arcRight[$0] < 0 }) {
                let unit = max(world.arcLeft[nearest.arc], world.arcRight[nearest.arc])
                if let country = world.region(ofUnit: unit, at: .country) { audited.nearestCountry = (country, nearest.metres) }
            }
        }
        if inRectangle { checkDatum(&audited) }
        return audited
    }

    /// Datum-flip: the China table at the unshifted position, and the seam along China's land border.
    private func checkDatum(_ audited: inout AuditedPoint) {
        let point = audited.point
        let placement = audited.placement
        if placement.country.region == chinaCountry || placement.province.region != nil {
            let china = locator.china
            let x = quantise(point.longitude), y = quantise(point.latitude)
            let unit: Int32?
            if let c = unshiftedCache, scale.metres(from: c.point, to: point) * 1.01 + 1 < c.clearance {
                unit = c.unit
            } else {
                unit = china.unit(atX: x, y: y)
                let radius = Int64((Self.unshiftedSearchMetres / metresPerQuantum).rounded(.up))
                let clearance = china.nearestSegment(toX: x, y: y, radius: radius, accept: { _ in true })?.metres ?? Self.unshiftedSearchMetres
                unshiftedCache = (point, unit, clearance)
            }
            var unshifted = UnshiftedRegions()
            if let unit {
                unshifted = UnshiftedRegions(province: china.region(ofUnit: unit, at: .province), city: china.region(ofUnit: unit, at: .city),
                                             county: china.region(ofUnit: unit, at: .county))
            }
            var differs = false
            for level in [RegionLevel.province, .city, .county] where unshifted.region(level) != placement.level(level).region {
                audited.levelFlags[level] |= AuditCategory.datumFlip.bit
                differs = true
            }
            if differs { audited.unshifted = unshifted }
        }
        // The seam: within the local datum shift of a world arc on China's land border.
        if let c = seamCache, c.clearance - scale.metres(from: c.point, to: point) >= Self.maximumShiftMetres { return }
        let gcj = GCJ02.fromWGS84(Coordinate(latitude: point.latitude, longitude: point.longitude))
        audited.gcj02 = gcj
        let shift = scale.metres(from: point, to: TrackPoint(latitude: gcj.latitude, longitude: gcj.longitude))
        if let c = seamCache, c.clearance - scale.metres(from: c.point, to: point) >= shift { return }
        let world = locator.world
        let searchMetres = 3000.0
        let radius = Int64((searchMetres / metresPerQuantum).rounded(.up))
        let nearest = world.nearestSegment(toX: quantise(point.longitude), y: quantise(point.latitude), radius: radius, accept: { chinaLandBorder[$0] })
        seamCache = (point, nearest?.metres ?? searchMetres)
        if let nearest, nearest.metres < shift {
            audited.inDatumSeam = true
            audited.levelFlags[.country] |= AuditCategory.datumFlip.bit
        }
    }

    private let metresPerQuantum = 111_320 * TableFormat.quantum

    private func quantise(_ degrees: Double) -> Int64 {
        Int64((degrees / TableFormat.quantum).rounded())
    }
}

extension AuditEpisode {
    /// Sets `sourceCodes` and the simplification-flip flags of the points from a check against
    /// the full-resolution source: `check` returns the source's code per level it checked (nil
    /// when the source has the point in no region there).
    public mutating func checkSource(against locator: RegionLocator, _ check: (AuditedPoint) throws -> [RegionLevel: String?]) rethrows {
        for p in points.indices {
            let point = points[p]
            var differing: [RegionLevel: String] = [:]
            for (level, code) in try check(point) {
                let table = level == .country ? locator.world : locator.china
                let mine = point.placement.level(level)
                let assigned = mine.region.map { table.region($0).code }
                // An edge point is outside the table's polygons: the source agrees when it has
                // the point in no region, or in the region the buffer assigned.
                guard code != (mine.status == .inside ? assigned : nil), !(mine.status == .edge && code == assigned) else { continue }
                differing[level] = code ?? ""
                points[p].levelFlags[level] |= AuditCategory.simplificationFlip.bit
            }
            if !differing.isEmpty { sourceCodes[p] = differing }
        }
    }
}
