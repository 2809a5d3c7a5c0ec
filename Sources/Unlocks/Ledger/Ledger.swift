import ChinaDatum
import RegionTables

/// A point as evidence: when and where (WGS-84). Ordered by time (untimed last), then position,
/// so "the first" is the same whatever order inputs arrive in.
public struct Visit: Comparable, Hashable, Sendable {
    public var time: Int64?
    public var latitude: Double
    public var longitude: Double

    public init(time: Int64?, latitude: Double, longitude: Double) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
    }

    public static func < (a: Visit, b: Visit) -> Bool {
        let ta = a.time ?? .max, tb = b.time ?? .max
        if ta != tb { return ta < tb }
        if a.latitude != b.latitude { return a.latitude < b.latitude }
        return a.longitude < b.longitude
    }
}

/// A region at one level: the level and the region's index in that level's table.
public struct RegionKey: Hashable, Comparable, Sendable {
    public var level: RegionLevel
    public var index: Int32

    public init(level: RegionLevel, index: Int32) {
        self.level = level
        self.index = index
    }

    public static func < (a: RegionKey, b: RegionKey) -> Bool {
        a.level != b.level ? a.level < b.level : a.index < b.index
    }
}

/// What the archive says about one region.
public struct RegionEvidence: Equatable, Sendable {
    /// The earliest point that confirms the unlock: inside with a margin at least its accuracy,
    /// or the first of enough inside points in one segment.
    public var confirmedBy: Visit?
    /// The earliest point of tentative evidence: `edge`, or inside but closer to the border than
    /// its accuracy.
    public var tentativeBy: Visit?
    /// Kept points assigned `inside` the region.
    public var insidePoints: Int64 = 0
    /// Kept points assigned to it only through the buffer (`edge`).
    public var edgePoints: Int64 = 0
    /// The earliest point placed in it (inside or edge) that was only passed at vehicle speed:
    /// its legs on both sides faster than ``ClassifyOptions/exploreMaxSpeed``, neither the start
    /// nor the end of a segment. Such points count here, not in the inside or edge counts.
    public var passedBy: Visit?
    /// Points placed in it that were only passed at vehicle speed.
    public var passedPoints: Int64 = 0
    /// In one input's contribution only: the earliest point alone in its segment (no leg on
    /// either side) that would confirm the region. The combined view counts it as confirming
    /// only where no vehicle passed the region within ``ClassifyOptions/loneVehicleWindowMinutes`` of
    /// it, and as passed otherwise; its own ``RegionEvidence`` never has one.
    public var loneBy: Visit?

    public init() {}

    public var isConfirmed: Bool { confirmedBy != nil }

    /// Only vehicle-speed points reached it: listed as passed through, not unlocked by default.
    public var isPassedThroughOnly: Bool { confirmedBy == nil && tentativeBy == nil && passedBy != nil }
}

func earliest(_ a: Visit?, _ b: Visit?) -> Visit? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// Who first explored a cell: the time of the point that reached it and that point's regions.
public struct CellVisit: Equatable, Sendable {
    /// Milliseconds since the epoch, rounded down to the whole second (``second(of:)``: the state
    /// then keeps a cell's time within an input in two or three bytes); `Int64.max` when untimed.
    public var time: Int64
    /// Index in the world table, -1 for none.
    public var country: Int32
    /// The finest China region (county, else city, else province), -1 for none.
    public var chinaRegion: Int32
    /// Index in the subdivision table, -1 for none.
    public var subdivision: Int32

    public init(time: Int64, country: Int32, chinaRegion: Int32, subdivision: Int32 = -1) {
        self.time = time
        self.country = country
        self.chinaRegion = chinaRegion
        self.subdivision = subdivision
    }

    /// A visit at `time` to the regions of a placement.
    public init(time: Int64, placement: Placement) {
        self.init(time: time, country: placement.country.region ?? -1,
                  chinaRegion: placement.county.region ?? placement.city.region ?? placement.province.region ?? -1,
                  subdivision: placement.subdivision.region ?? -1)
    }

    /// `milliseconds` rounded down to the whole second.
    public static func second(of milliseconds: Int64) -> Int64 {
        let remainder = milliseconds % 1000
        return milliseconds &- (remainder < 0 ? remainder &+ 1000 : remainder)
    }

    /// The earlier visit wins; ties go to the smaller region indices, so merging is order-free.
    public func isEarlier(than other: CellVisit) -> Bool {
        if time != other.time { return time < other.time }
        if country != other.country { return country < other.country }
        if chinaRegion != other.chinaRegion { return chinaRegion < other.chinaRegion }
        return subdivision < other.subdivision
    }
}

/// Why points were not used. Raw values are the report's keys.
public enum DropReason: String, CaseIterable, Sendable {
    /// The reader could not use the record (bad number, missing coordinate).
    case unreadable
    /// Not finite, or latitude beyond ±90 / longitude beyond ±180.
    case invalidCoordinate
    /// Exactly (0, 0): a receiver's placeholder, not a place.
    case nullIsland
    /// Horizontal accuracy worse than the limit.
    case accuracy
    /// Same timestamp as the previous point of the input.
    case duplicateTime
    /// Inside a run of legs faster than any vehicle: a position glitch.
    case implausibleSpeed
    /// Outside the local days `--since`/`--until` select, or untimed while they select (no day).
    case outsideDates
    /// Inside an area or a period the logbook forgot (``ClassifyOptions/exclusions``).
    case forgotten
}

/// How one input fared: every file a run meets gets a record, the ones it reads and the ones it
/// passes over (with the reason), so the report accounts for every file.
public struct InputRecord: Equatable, Sendable {
    public enum Status: String, Sendable {
        /// Read to the end (with at least one readable point, or none at all).
        case read
        /// An error stopped reading; the readable points before it were used.
        case partial
        /// Nothing could be used: the file could not be read, or every point in it was unreadable.
        case rejected
        /// Not read, for ``InputRecord/skipReason``.
        case skipped
        /// Read to the end, and a plan, not a recording: every kept point was in a GPX route or
        /// the input has no time at all. Its points unlock and explore nothing unless
        /// `--include-plans`.
        case planned
    }

    /// The path as given (archive members as `archive.zip:member`; bytes that are not UTF-8 as
    /// `\xNN`).
    public var path: String
    /// The key of the record in the ledger. For an input that was read: a fingerprint of its
    /// bytes (size and XXH64 of all of them), so a later run through the same state skips it. For a skipped file or one that could not be opened: ``pathKey(path:)``.
    public var fingerprint: String
    public var format: String
    public var status: Status
    public var error: String?
    /// Why a `skipped` file was not read.
    public var skipReason: SkipReason?
    /// For a `duplicate`: the path of the input it repeats.
    public var duplicateOf: String?
    /// The activity the file or its bundle says it records (FIT `sport`, GPX `type`, Strava's
    /// `Activity Type`).
    public var activityType: String?
    /// The activity's name, when a bundle gives one (Strava's `Activity Name`).
    public var activityName: String?
    /// Pins in the file (GPX waypoints, KML `Point` placemarks): counted, never classified.
    public var pins: Int64 = 0
    /// The datum the input's coordinates were read in: `--datum`, or the datum of the first
    /// `--datum-for` pattern its path matches; nil for WGS-84. A record begun with nil is read in
    /// ``ClassifyOptions/inputDatum`` (``TrackClassifier/begin(_:)``).
    public var datum: Datum?
    /// A datum the input's own metadata suggests, when it is not ``datum`` (a hint, never applied).
    public var datumHint: DatumHint?
    public var pointsRead: Int64 = 0
    public var pointsKept: Int64 = 0
    public var pointsInFlight: Int64 = 0
    /// Of the kept points, those that are a plan: route points, and every kept point of an input
    /// with no time at all. They unlock and explore nothing unless `--include-plans`.
    public var pointsPlanned: Int64 = 0
    public var dropped: [DropReason: Int64] = [:]

    public init(path: String, fingerprint: String, format: String, status: Status = .read, error: String? = nil) {
        self.path = path
        self.fingerprint = fingerprint
        self.format = format
        self.status = status
        self.error = error
    }

    /// A file passed over without reading its points.
    public static func skipped(path: String, key: String? = nil, format: String, reason: SkipReason, duplicateOf: String? = nil) -> InputRecord {
        var record = InputRecord(path: path, fingerprint: key ?? pathKey(path: path), format: format, status: .skipped)
        record.skipReason = reason
        record.duplicateOf = duplicateOf
        return record
    }

    /// The ledger key of a file whose bytes were never read (skipped, or not even openable): its
    /// path, so the same file met again (a second run through a state, the same shard merged
    /// twice) replaces its record instead of adding one.
    public static func pathKey(path: String) -> String { "path:" + path }

    /// Points the reader could not use at all.
    public var unreadablePoints: Int64 { dropped[.unreadable] ?? 0 }
}

/// Everything an archive contributes, kept per input: every file met (``inputs``) and what each
/// input that was read contributed (``contributions``: its regions' visits, cells, days and
/// per-minute tallies). The report's numbers are computed from the contributions
/// (``combined()``), so one moment recorded by several inputs counts once, and merging is the
/// union of inputs: one run, several runs through a state file, or shards merged together give
/// the same ledger, hence the same report, and forgetting an input gives the ledger a run without
/// it gives.
public struct UnlockLedger: Equatable, Sendable {
    /// Inputs by fingerprint (skipped files by ``InputRecord/pathKey(path:)``).
    public var inputs: [String: InputRecord] = [:]
    /// What each input contributed, by fingerprint; inputs that contributed nothing have none.
    public var contributions: [String: InputContribution] = [:]
    /// The highest percent ever reported for each badge, by id (``BadgeCatalog/progress(in:reported:)``):
    /// what an app has sent Game Center, which silently drops a lower value. Forgetting an input
    /// lowers a badge's value, never this.
    public var reportedBadgePercents: [String: Int] = [:]
    /// Inputs forgotten for good (``forgetForGood(_:)``, `unlocks forget`): the path each was read
    /// at, by fingerprint. A later run that meets the same content skips it as forgotten instead
    /// of reading it back; ``unforget(_:)`` lifts that.
    public var forgotten: [String: String] = [:]

    public init() {}

    /// Adds another ledger (from another run or shard): the union of their inputs. Inputs already
    /// present keep the first copy's record and contribution — callers merge ledgers of disjoint
    /// inputs (`classify` skips known fingerprints, `merge` refuses shared ones). Skipped files
    /// carry no counts; a repeated one keeps the first record too, and one that another part read
    /// gives way to the reading.
    public mutating func merge(_ other: UnlockLedger) {
        reportedBadgePercents.merge(other.reportedBadgePercents, uniquingKeysWith: max)
        for (fingerprint, record) in other.inputs where inputs[fingerprint] == nil {
            inputs[fingerprint] = record
            if let part = other.contributions[fingerprint] { contributions[fingerprint] = part }
        }
        // A file one part passed over by its path and another read (say, once its format had a
        // reader) is a file that was read, as in one run.
        let readPaths = Set(inputs.values.lazy.filter { $0.fingerprint != InputRecord.pathKey(path: $0.path) }.map(\.path))
        for path in readPaths where inputs[InputRecord.pathKey(path: path)] != nil {
            inputs.removeValue(forKey: InputRecord.pathKey(path: path))
        }
        // What one part forgot stays forgotten in the whole, even where another part read it.
        forgotten.merge(other.forgotten) { ours, theirs in min(ours, theirs) }
        forget(Set(forgotten.keys))
    }

    /// Adds the ledger of inputs that come next in the same run, made by another classifier
    /// (`classify --jobs`: one input's), as if this ledger's classifier had read them itself: a
    /// reading replaces the record of a file passed over at the same path, and every record and
    /// contribution of `later` replaces one of the same key (badge percents, set once the run's
    /// report is made, keep the higher). Unlike ``merge(_:)``, which joins ledgers of disjoint
    /// inputs whatever their order, this is a step of one run.
    public mutating func append(_ later: UnlockLedger) {
        for record in later.inputs.values where record.status != .skipped {
            inputs.removeValue(forKey: InputRecord.pathKey(path: record.path))
        }
        inputs.merge(later.inputs) { _, newer in newer }
        contributions.merge(later.contributions) { _, newer in newer }
        reportedBadgePercents.merge(later.reportedBadgePercents, uniquingKeysWith: max)
        forgotten.merge(later.forgotten) { ours, _ in ours }
    }

    /// Removes inputs, with their contributions, as if they had never been read (the badge
    /// percents reported stay: they were sent).
    public mutating func forget(_ fingerprints: Set<String>) {
        for fingerprint in fingerprints {
            inputs.removeValue(forKey: fingerprint)
            contributions.removeValue(forKey: fingerprint)
        }
    }

    /// Removes inputs as ``forget(_:)`` does and keeps those that were read (not skipped files,
    /// known by their path only) in ``forgotten``, so that the same content is not read back.
    public mutating func forgetForGood(_ fingerprints: Set<String>) {
        for fingerprint in fingerprints {
            if let record = inputs[fingerprint], record.status != .skipped { forgotten[fingerprint] = record.path }
        }
        forget(fingerprints)
    }

    /// Lifts ``forgetForGood(_:)`` for these fingerprints: the next run reads their content again.
    /// The records of files skipped as forgotten at their paths go too (the next run lists them anew).
    public mutating func unforget(_ fingerprints: Set<String>) {
        let paths = Set(fingerprints.compactMap { forgotten.removeValue(forKey: $0) })
        for (key, record) in inputs where record.skipReason == .forgotten && paths.contains(record.path) {
            inputs.removeValue(forKey: key)
        }
    }
}

/// A sum of two ledgers that does not fit in 64 bits: reported, never wrapped or trapped.
public struct LedgerOverflow: Error, CustomStringConvertible, Equatable {
    /// What was being added (`distance`, `inside point count`, …).
    public let quantity: String
    public var description: String { "the merged \(quantity) overflows 64 bits" }

    /// `a + b`, or the error naming `quantity`.
    static func sum(_ a: Int64, _ b: Int64, _ quantity: String) throws(LedgerOverflow) -> Int64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        if overflow { throw LedgerOverflow(quantity: quantity) }
        return total
    }
}
