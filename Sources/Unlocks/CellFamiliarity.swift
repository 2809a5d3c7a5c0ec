/// Cell familiarity (像素征途's gray → lit → bright → gold): how often a person has really passed
/// through each explored cell, counted in *effective passes*.
///
/// A **pass candidate** is the moment a moving track enters a cell: each cell a timed, drawn leg
/// passes through at a moving speed, from end points both better than
/// ``ClassifyOptions/passAccuracyLimit``, at the time the leg enters it (interpolated along the
/// leg, whole seconds). The cell the leg starts in is an entry only when the previous leg was not
/// such a leg (the track was already in it otherwise). A pass counts (is *effective*) when it is
/// more than ``ClassifyOptions/passInterval`` seconds after the previous counted pass of that cell:
/// a greedy over all of the cell's candidates in time order, from every input that counts. Each
/// input keeps all its candidates, since the greedy over a union is not the greedy over its parts'
/// greedy results (one input at 0 h, another at 3 h and 6 h: the union counts 0 h and 6 h).
public struct PassCandidates: Equatable, Sendable {
    /// Cell keys, ascending; a key repeats once per candidate.
    public private(set) var keys: [Int64] = []
    /// Seconds since the epoch of each candidate, ascending within a key, never twice the same.
    public private(set) var seconds: [Int64] = []

    public init() {}

    /// The candidates of `pairs` (any order; a repeated pair is kept once).
    public init(_ pairs: [(key: Int64, second: Int64)]) {
        let sorted = pairs.sorted { $0.key != $1.key ? $0.key < $1.key : $0.second < $1.second }
        keys.reserveCapacity(sorted.count)
        seconds.reserveCapacity(sorted.count)
        for pair in sorted where keys.last != pair.key || seconds.last != pair.second {
            keys.append(pair.key)
            seconds.append(pair.second)
        }
    }

    /// Candidates already in order (the caller checks: keys ascending, seconds ascending within a key).
    init(sortedKeys keys: [Int64], seconds: [Int64]) {
        self.keys = keys
        self.seconds = seconds
    }

    public var count: Int { keys.count }

    /// Every candidate of the lists in order, a pair that several lists hold once: merged in pairs
    /// of lists until one is left, like ``CellList/union(_:)``.
    public static func union(_ lists: [PassCandidates]) -> PassCandidates {
        var round = lists.filter { $0.count > 0 }
        guard !round.isEmpty else { return PassCandidates() }
        while round.count > 1 {
            var next: [PassCandidates] = []
            next.reserveCapacity((round.count + 1) / 2)
            var i = 0
            while i + 1 < round.count {
                next.append(merge(round[i], round[i + 1]))
                i += 2
            }
            if i < round.count { next.append(round[i]) }
            round = next
        }
        return round[0]
    }

    private static func merge(_ a: PassCandidates, _ b: PassCandidates) -> PassCandidates {
        var keys: [Int64] = [], seconds: [Int64] = []
        keys.reserveCapacity(a.count + b.count)
        seconds.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            let takeA: Bool
            if j == b.count { takeA = true } else if i == a.count { takeA = false } else {
                takeA = (a.keys[i], a.seconds[i]) <= (b.keys[j], b.seconds[j])
            }
            let key = takeA ? a.keys[i] : b.keys[j], second = takeA ? a.seconds[i] : b.seconds[j]
            if takeA { i += 1 } else { j += 1 }
            if keys.last == key, seconds.last == second { continue }
            keys.append(key)
            seconds.append(second)
        }
        return PassCandidates(sortedKeys: keys, seconds: seconds)
    }

    /// The effective passes of each cell of `cells` (aligned with it), from these candidates (whose
    /// keys must all be among the cells'): per cell, the first candidate counts and then each one
    /// more than `interval` seconds after the last one counted.
    public func effectivePasses(of cells: CellList, interval: Int64 = ClassifyOptions.passInterval) -> [Int32] {
        var passes = [Int32](repeating: 0, count: cells.count)
        var c = 0, i = 0
        let cellKeys = cells.keys
        while i < keys.count {
            let key = keys[i]
            while c < cellKeys.count, cellKeys[c] < key { c += 1 }
            var counted: Int32 = 0, last = Int64.min
            while i < keys.count, keys[i] == key {
                if counted == 0 || seconds[i] - last > interval {
                    counted += counted < Int32.max ? 1 : 0
                    last = seconds[i]
                }
                i += 1
            }
            if c < cellKeys.count, cellKeys[c] == key { passes[c] = counted }
        }
        return passes
    }
}

/// A cell's familiarity level, by its effective passes (``FamiliarityLevels``).
public enum FamiliarityLevel: Int, CaseIterable, Comparable, Sendable {
    /// Explored, but never passed through while moving with a good fix.
    case gray = 0
    case lit, bright, gold

    public var name: String {
        switch self {
        case .gray: return "gray"
        case .lit: return "lit"
        case .bright: return "bright"
        case .gold: return "gold"
        }
    }

    public static func < (a: FamiliarityLevel, b: FamiliarityLevel) -> Bool { a.rawValue < b.rawValue }
}

/// The effective passes a cell needs to be lit, bright and gold (`--familiarity-levels`; 1, 5
/// and 20 by default: once, about a working week of commutes, about a month of them).
public struct FamiliarityLevels: Equatable, Sendable, CustomStringConvertible {
    public var lit: Int32 = 1
    public var bright: Int32 = 5
    public var gold: Int32 = 20

    public init() {}

    /// Three thresholds, each at least 1 and at least the one before; nil otherwise.
    public init?(lit: Int32, bright: Int32, gold: Int32) {
        guard lit >= 1, bright >= lit, gold >= bright else { return nil }
        self.lit = lit
        self.bright = bright
        self.gold = gold
    }

    /// `lit,bright,gold`, as the option takes it.
    public var description: String { "\(lit),\(bright),\(gold)" }

    @inline(__always)
    public func level(passes: Int32) -> FamiliarityLevel {
        passes >= gold ? .gold : passes >= bright ? .bright : passes >= lit ? .lit : .gray
    }
}

/// Cells that reached each level (a gold cell is counted as bright and lit too), overall or in
/// one region.
public struct FamiliarityCounts: Equatable, Sendable {
    public var lit = 0
    public var bright = 0
    public var gold = 0

    public init() {}

    @inline(__always)
    public mutating func add(_ level: FamiliarityLevel) {
        if level >= .lit { lit += 1 }
        if level >= .bright { bright += 1 }
        if level >= .gold { gold += 1 }
    }

    /// Adds another set of counts (of other cells).
    public mutating func add(_ other: FamiliarityCounts) {
        lit += other.lit
        bright += other.bright
        gold += other.gold
    }
}
