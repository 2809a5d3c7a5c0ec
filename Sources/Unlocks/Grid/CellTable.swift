/// The explored cells: cell key → first visitor, an open-addressing hash table.
///
/// Swift's `Dictionary` hashes every `Int64` key with seeded SipHash; a track touches a cell per
/// point, so this table uses a multiplicative hash and linear probing instead (about 3× faster
/// here). Memory: 24 bytes per slot, at most 2 slots per cell, and 8 bytes per cell for the
/// order of arrival.
package struct CellTable: Equatable, Sendable, Sequence {
    private static let empty = Int64.min
    private var keys: [Int64]
    private var values: [CellVisit]
    package private(set) var count = 0
    /// The keys in the order the cells were first explored: what a caller that reports as it
    /// goes (``LiveLedger``) reads from where it last stopped, `arrivals[seen...]`.
    package private(set) var arrivals: [Int64] = []
    private var mask: Int
    /// The cell explored last and its stored visitor.
    private var lastKey = Int64.min
    private var lastVisit = CellVisit(time: .min, country: -1, chinaRegion: -1)

    package init(minimumCapacity: Int = 0) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity <<= 1 }
        keys = Array(repeating: Self.empty, count: capacity)
        values = Array(repeating: CellVisit(time: 0, country: -1, chinaRegion: -1), count: capacity)
        mask = capacity - 1
    }

    @inline(__always)
    private func slot(for key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    package subscript(key: Int64) -> CellVisit? {
        var i = slot(for: key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == Self.empty { return nil }
            i = (i + 1) & mask
        }
    }

    /// Records that `visit` reached the cell; the earliest visitor is kept. Consecutive visits to
    /// the same cell (a track's points, some 20 to a cell at walking pace) skip the hash lookup.
    @inline(__always)
    package mutating func explore(_ key: Int64, _ visit: CellVisit) {
        if key == lastKey, !visit.isEarlier(than: lastVisit) { return }
        var i = slot(for: key)
        while true {
            let k = keys[i]
            if k == key {
                if visit.isEarlier(than: values[i]) { values[i] = visit }
                lastKey = key
                lastVisit = values[i]
                return
            }
            if k == Self.empty {
                keys[i] = key
                values[i] = visit
                lastKey = key
                lastVisit = visit
                count += 1
                arrivals.append(key)
                if count * 2 > keys.count { grow() }
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Doubles the slots; the order of arrival stays.
    private mutating func grow() {
        var bigger = CellTable(minimumCapacity: keys.count)
        forEachCell { key, visit in bigger.explore(key, visit) }
        bigger.arrivals = arrivals
        self = bigger
    }

    /// The keys in ascending order (for deterministic output).
    package func sortedKeys() -> [Int64] {
        keys.filter { $0 != Self.empty }.sorted()
    }

    /// Calls `body` with every cell, in no particular order: a plain loop over the slots, much
    /// faster than the `Sequence` iterator where every cell of an archive is visited.
    @inline(__always)
    package func forEachCell(_ body: (Int64, CellVisit) throws -> Void) rethrows {
        for i in keys.indices where keys[i] != Self.empty { try body(keys[i], values[i]) }
    }

    package func makeIterator() -> AnyIterator<(key: Int64, value: CellVisit)> {
        var i = 0
        return AnyIterator {
            while i < keys.count {
                defer { i += 1 }
                if keys[i] != Self.empty { return (keys[i], values[i]) }
            }
            return nil
        }
    }

    /// Equal contents, whatever the capacity or insertion order.
    package static func == (a: CellTable, b: CellTable) -> Bool {
        guard a.count == b.count else { return false }
        return a.allSatisfy { b[$0.key] == $0.value }
    }
}

/// Explored cells in ascending key order with their first visit: what an input keeps once it has
/// been read, and the archive's union (``union(_:)``). 24 bytes a cell, against the 48 to 96 of a
/// ``CellTable``'s slots, and merged without hashing.
public struct CellList: Equatable, Sendable, Sequence {
    public private(set) var keys: [Int64] = []
    public private(set) var visits: [CellVisit] = []

    public init() {}

    /// The cells of a table, sorted by key.
    package init(_ table: CellTable) {
        var pairs: [(Int64, CellVisit)] = []
        pairs.reserveCapacity(table.count)
        table.forEachCell { pairs.append(($0, $1)) }
        pairs.sort { $0.0 < $1.0 }
        keys = pairs.map(\.0)
        visits = pairs.map(\.1)
    }

    /// Cells already in ascending key order, each key once (the caller checks).
    init(sortedKeys keys: [Int64], visits: [CellVisit]) {
        self.keys = keys
        self.visits = visits
    }

    public var count: Int { keys.count }

    public subscript(key: Int64) -> CellVisit? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? visits[low] : nil
    }

    /// Calls `body` with every cell in key order.
    @inline(__always)
    public func forEachCell(_ body: (Int64, CellVisit) throws -> Void) rethrows {
        for i in keys.indices { try body(keys[i], visits[i]) }
    }

    public func makeIterator() -> AnyIterator<(key: Int64, value: CellVisit)> {
        var i = 0
        return AnyIterator {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (keys[i], visits[i])
        }
    }

    /// Every cell of the lists, each with its earliest visit (``CellVisit/isEarlier(than:)``), by
    /// merging pairs of lists until one is left: linear work per round, log₂ of the lists' count rounds.
    public static func union(_ lists: [CellList]) -> CellList {
        SortedKeyMerge.union(lists, empty: CellList(), count: \.count) { a, b in
            let merged = SortedKeyMerge.merge(a.keys, a.visits, b.keys, b.visits) { x, y in y.isEarlier(than: x) ? y : x }
            return CellList(sortedKeys: merged.keys, visits: merged.values)
        }
    }
}
