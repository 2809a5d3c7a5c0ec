/// The union of sorted key lists that carry a value per key (cells with their first visit,
/// tiles with theirs): one merge of two lists keeps every key once, with the earlier of the two
/// values where both have it; many lists are merged pairwise until one is left (linear work per
/// round, log₂ of the lists' count rounds).
enum SortedKeyMerge {
    /// Merges two lists of ascending, distinct keys; `earlier(a, b)` picks the value to keep
    /// where both lists have a key (`a` from the first list).
    static func merge<Value>(_ aKeys: [Int64], _ aValues: [Value], _ bKeys: [Int64], _ bValues: [Value],
                             earlier: (Value, Value) -> Value) -> (keys: [Int64], values: [Value]) {
        var keys: [Int64] = [], values: [Value] = []
        keys.reserveCapacity(aKeys.count + bKeys.count)
        values.reserveCapacity(aKeys.count + bKeys.count)
        var i = 0, j = 0
        while i < aKeys.count || j < bKeys.count {
            if j == bKeys.count || (i < aKeys.count && aKeys[i] < bKeys[j]) {
                keys.append(aKeys[i]); values.append(aValues[i]); i += 1
            } else if i == aKeys.count || bKeys[j] < aKeys[i] {
                keys.append(bKeys[j]); values.append(bValues[j]); j += 1
            } else {
                keys.append(aKeys[i]); values.append(earlier(aValues[i], bValues[j])); i += 1; j += 1
            }
        }
        return (keys, values)
    }

    /// All of `lists` merged pairwise with `merge`; `empty` when none has an entry.
    static func union<List>(_ lists: [List], empty: List, count: (List) -> Int, merge: (List, List) -> List) -> List {
        var round = lists.filter { count($0) > 0 }
        guard !round.isEmpty else { return empty }
        while round.count > 1 {
            var next: [List] = []
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
}
