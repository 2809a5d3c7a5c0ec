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

    /// The effective passes of each cell of `cells` (aligned with it) over the union of `lists`'
    /// candidates (each list's keys among the cells'): per cell, in time order, the first
    /// candidate counts and then each one more than `interval` seconds after the last one counted.
    /// The candidates are gathered per cell (a count per cell, then the times in place), not
    /// merged list by list: 8 bytes a cell and a candidate at once, whatever the number of lists.
    public static func effectivePasses(_ lists: [PassCandidates], of cells: CellList,
                                       interval: Int64 = ClassifyOptions.passInterval) -> [Int32] {
        let keys = cells.keys, n = keys.count
        /// Calls `body` with the position in `keys` of each candidate of `list`, and its second.
        func forEachPosition(_ list: PassCandidates, _ body: (Int, Int64) -> Void) {
            var c = 0, i = 0
            while i < list.count {
                let key = list.keys[i]
                // Both in key order: gallop from the last position, then bisect.
                var step = 1, high = c
                while high < n, keys[high] < key { c = high + 1; high += step; step *= 2 }
                high = min(high, n)
                while c < high {
                    let middle = (c + high) / 2
                    if keys[middle] < key { c = middle + 1 } else { high = middle }
                }
                let found = c < n && keys[c] == key
                while i < list.count, list.keys[i] == key {
                    if found { body(c, list.seconds[i]) }
                    i += 1
                }
            }
        }
        // bounds[c + 2] counts cell c's candidates, then (summed) ends at them; filling backwards
        // leaves cell c's times in bounds[c + 2] ..< bounds[c + 3].
        var bounds = [Int](repeating: 0, count: n + 3)
        for list in lists { forEachPosition(list) { c, _ in bounds[c + 2] += 1 } }
        for k in 1..<(n + 3) { bounds[k] += bounds[k - 1] }
        var times = [Int64](repeating: 0, count: bounds[n + 2])
        for list in lists {
            forEachPosition(list) { c, second in
                bounds[c + 2] -= 1
                times[bounds[c + 2]] = second
            }
        }
        var passes = [Int32](repeating: 0, count: n)
        for c in 0..<n {
            let start = bounds[c + 2], end = bounds[c + 3]
            guard start < end else { continue }
            // Insertion sort: most cells have one to three candidates.
            if end - start > 1 {
                for k in (start + 1)..<end {
                    let t = times[k]
                    var m = k
                    while m > start, times[m - 1] > t { times[m] = times[m - 1]; m -= 1 }
                    times[m] = t
                }
            }
            var counted: Int32 = 1, last = times[start]
            for k in (start + 1)..<end where times[k] - last > interval {
                counted += counted < Int32.max ? 1 : 0
                last = times[k]
            }
            passes[c] = counted
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

    /// Cells that reached `level` (gray is not counted here: 0).
    public func count(at level: FamiliarityLevel) -> Int {
        switch level {
        case .gray: return 0
        case .lit: return lit
        case .bright: return bright
        case .gold: return gold
        }
    }
}
