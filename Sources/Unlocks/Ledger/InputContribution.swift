import RegionTables

/// Where one kept point was placed, as the point counts of the regions see it: the region at
/// each level (-1 for none), how the point counts there, and whether it confirms the region.
/// Points of one minute share a few of these, so each input keeps them in a palette and its
/// minutes count points per palette entry. The combined view takes a region's evidence from the
/// points of the minutes counted (``UnlockLedger/combined()``), so these flags are what an
/// unlock rests on.
public struct PlaceSignature: Hashable, Sendable {
    /// How a point counts in a level's region.
    public enum Kind: UInt8, Sendable {
        case none = 0, inside = 1, edge = 2, passed = 3
    }

    /// The levels in the order of ``regions``, ``kinds`` and ``flags``: a level's position.
    public static let levels: [RegionLevel] = [.country, .province, .city, .county, .subdivision]

    /// Region indices: the country in the world table, province, city and county in the China
    /// table, then the subdivision in the subdivision table; -1 for none.
    public var regions: (Int32, Int32, Int32, Int32, Int32)
    /// Two bits per level (country lowest, in the order of ``levels``): a ``Kind``.
    public var kinds: UInt16
    /// Bits 0–4, one per level (country lowest): the point confirms the level's region (inside
    /// with a margin at least its accuracy, the third counting point of its segment there, a
    /// photo, enough footprint spots). Bit 5 (``loneFlag``): the point was alone in its segment
    /// (no leg on either side), so its confirmation stands only where no vehicle passed the
    /// region around its moment.
    public var flags: UInt8

    /// The bit of ``flags`` that marks a lone point.
    public static let loneFlag: UInt8 = 1 << 5

    public init(regions: (Int32, Int32, Int32, Int32, Int32), kinds: UInt16, flags: UInt8 = 0) {
        self.regions = regions
        self.kinds = kinds
        self.flags = flags
    }

    /// The regions of a placement at every level (-1 for none), in the order of ``levels``.
    public static func regions(of placement: Placement) -> (Int32, Int32, Int32, Int32, Int32) {
        (placement.country.region ?? -1, placement.province.region ?? -1, placement.city.region ?? -1,
         placement.county.region ?? -1, placement.subdivision.region ?? -1)
    }

    public static func == (a: PlaceSignature, b: PlaceSignature) -> Bool {
        a.regions == b.regions && a.kinds == b.kinds && a.flags == b.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(regions.0)
        hasher.combine(regions.1)
        hasher.combine(regions.2)
        hasher.combine(regions.3)
        hasher.combine(regions.4)
        hasher.combine(kinds)
        hasher.combine(flags)
    }

    /// Whether the point was alone in its segment.
    public var isLone: Bool { flags & Self.loneFlag != 0 }

    /// One level's entry: the region, how the point counts there, whether it confirms it.
    public struct Entry: Sendable {
        public var key: RegionKey
        public var kind: Kind
        public var confirms: Bool
    }

    /// The region index at each level, in the order of ``levels``.
    public var regionList: [Int32] { [regions.0, regions.1, regions.2, regions.3, regions.4] }

    /// The region and kind at each level that has one.
    public var entries: [Entry] {
        zip(Self.levels, regionList).enumerated().compactMap { position, level in
            let kind = Kind(rawValue: UInt8((kinds >> (2 * UInt16(position))) & 3)) ?? .none
            guard level.1 >= 0, kind != .none else { return nil }
            return Entry(key: RegionKey(level: level.0, index: level.1), kind: kind, confirms: flags & (1 << UInt8(position)) != 0)
        }
    }
}

/// What one input recorded in one UTC minute (or, for ``MomentTally/untimedMinute``, without a
/// time): the unit in which overlapping inputs are compared. Legs that span minutes are split
/// between them in proportion to time.
public struct MomentTally: Equatable, Sendable {
    /// The key of the tally of an input's untimed points and legs: they have no moment, so no
    /// other input can overlap them.
    public static let untimedMinute = Int64.max

    /// Kept points (ground and in flight).
    public var points: Int64 = 0
    /// Of which in flight.
    public var inFlight: Int64 = 0
    /// All the distance of its legs: human-powered, by vehicle and in flight.
    public var distanceMillimetres: Int64 = 0
    /// Of which in flight.
    public var flightDistanceMillimetres: Int64 = 0
    /// Of which on the ground at vehicle speed (or labelled a vehicle): the rest, less the
    /// flights, is human-powered (``humanDistanceMillimetres``).
    public var vehicleDistanceMillimetres: Int64 = 0
    public var durationMilliseconds: Int64 = 0
    /// Ground points per entry of the input's place palette, by palette position.
    public var places: [(place: Int32, points: Int64)] = []

    public init() {}

    public static func == (a: MomentTally, b: MomentTally) -> Bool {
        a.points == b.points && a.inFlight == b.inFlight && a.distanceMillimetres == b.distanceMillimetres
            && a.flightDistanceMillimetres == b.flightDistanceMillimetres && a.vehicleDistanceMillimetres == b.vehicleDistanceMillimetres
            && a.durationMilliseconds == b.durationMilliseconds
            && a.places.elementsEqual(b.places) { $0.place == $1.place && $0.points == $1.points }
    }

    @inline(__always)
    mutating func count(place: Int32) {
        for i in places.indices where places[i].place == place {
            places[i].points += 1
            return
        }
        places.append((place, 1))
    }

    /// The distance of its legs at human-powered speed (walking, running, cycling, hiking).
    public var humanDistanceMillimetres: Int64 { distanceMillimetres &- flightDistanceMillimetres &- vehicleDistanceMillimetres }

    /// Nothing recorded.
    public var isEmpty: Bool { points == 0 && distanceMillimetres == 0 && durationMilliseconds == 0 && places.isEmpty }
}

/// Everything one input contributes, kept apart from every other input's so that the archive's
/// view can be recomputed when inputs overlap in time (one moment counts once), are superseded
/// (a file that grew) or are forgotten (`unlocks forget`). See ``UnlockLedger/combined()``.
public struct InputContribution: Equatable, Sendable {
    /// Its regions' earliest visits (confirming, tentative, passed); the point counts come from
    /// ``moments`` in the combined view.
    public var regions: [RegionKey: RegionEvidence] = [:]
    /// The cells it explored, each with its earliest visit in this input.
    public var cells = CellList()
    /// The z17 explorer tiles it visited (``SlippyTile``), each with its earliest visit; its z14
    /// tiles are their parents.
    public var tiles = TileList()
    /// Its pass candidates (``PassCandidates``), every one of them in one of its cells.
    public var passes = PassCandidates()
    /// Local days with a kept timed ground point.
    public var days: Set<Int64> = []
    /// Its tallies by UTC minute (milliseconds since the epoch / 60,000, rounded down).
    public var moments: [Int64: MomentTally] = [:]
    /// The places its minutes count points in, by palette position.
    public var places: [PlaceSignature] = []
    /// Recorded before subdivisions were located (a state or logbook of an earlier release: its
    /// places and cells name none). Kept as it was through a store (layout 1 of
    /// ``ContributionCodec``) until its input is read again.
    public var recordedBeforeSubdivisions = false

    public init() {}

    /// Nothing at all (a plan, a file without a usable point).
    public var isEmpty: Bool { regions.isEmpty && cells.count == 0 && tiles.count == 0 && days.isEmpty && moments.isEmpty }

    /// Timed minutes and kept points in them: the input's density decides which input stands
    /// for a minute that several recorded. Fails when the points do not fit in 64 bits (a
    /// crafted state: a minute holds at most 2^53).
    func timedExtent() throws(LedgerOverflow) -> (minutes: Int64, points: Int64) {
        var minutes: Int64 = 0, points: Int64 = 0
        for (minute, tally) in moments where minute != MomentTally.untimedMinute {
            minutes += 1
            points = try LedgerOverflow.sum(points, tally.points, "point count of an input")
        }
        return (minutes, points)
    }
}
