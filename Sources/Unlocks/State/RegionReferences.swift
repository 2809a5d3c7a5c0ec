import RegionTables

/// Stable numbers for the regions a store's contributions name. Contributions refer to regions by
/// these numbers (small varints), and the store keeps each number's level and code, so a store
/// survives a table rebuild that renumbers regions, and a region a rebuilt table lacks is named
/// when the store is opened.
package struct RegionReferences: Sendable {
    /// The level and code of each reference, by reference − 1.
    package private(set) var entries: [(level: RegionLevel, code: String)] = []
    /// References made since the last ``takeAdded()``: the store inserts them with the rows that use them.
    private var addedFrom = 0
    private var countryReference: [Int32: UInt64] = [:]
    private var chinaReference: [Int32: UInt64] = [:]
    /// The table index of each reference, by reference − 1.
    private var indices: [Int32] = []
    private let tables: TableSet
    /// Table indices by level and code (China's codes repeat across levels: a municipality is its own city).
    private let indexByCode: [String: Int32]

    package init(tables: TableSet) {
        self.tables = tables
        var index: [String: Int32] = [:]
        for region in tables.world.regions { index["\(RegionLevel.country.rawValue):\(region.code)"] = index["\(RegionLevel.country.rawValue):\(region.code)"] ?? region.index }
        for region in tables.china.regions { index["\(region.level.rawValue):\(region.code)"] = index["\(region.level.rawValue):\(region.code)"] ?? region.index }
        indexByCode = index
    }

    /// Why a stored reference cannot be used.
    package enum Problem: Error, Equatable, Sendable {
        /// A code the tables do not have (they were rebuilt from another source).
        case unknownRegion(level: RegionLevel, code: String)
        /// A reference stored twice or out of sequence.
        case badReference(UInt64)
    }

    /// Adds the stored reference `reference` (1, 2, … in order) for the region of `level` and `code`.
    package mutating func restore(_ reference: UInt64, level: RegionLevel, code: String) throws(Problem) {
        guard reference == UInt64(entries.count) + 1 else { throw .badReference(reference) }
        guard let index = indexByCode["\(level.rawValue):\(code)"] else { throw .unknownRegion(level: level, code: code) }
        entries.append((level, code))
        indices.append(index)
        if level == .country { countryReference[index] = reference } else { chinaReference[index] = reference }
        addedFrom = entries.count
    }

    /// The reference of a country (world table index), made when new; 0 for none (-1).
    package mutating func reference(country index: Int32) -> UInt64 {
        guard index >= 0 else { return 0 }
        if let known = countryReference[index] { return known }
        let reference = add(level: .country, code: tables.world.region(index).code, index: index)
        countryReference[index] = reference
        return reference
    }

    /// The reference of a China region (China table index), made when new; 0 for none (-1).
    package mutating func reference(china index: Int32) -> UInt64 {
        guard index >= 0 else { return 0 }
        if let known = chinaReference[index] { return known }
        let region = tables.china.region(index)
        let reference = add(level: region.level, code: region.code, index: index)
        chinaReference[index] = reference
        return reference
    }

    /// The reference of a region key.
    package mutating func reference(_ key: RegionKey) -> UInt64 {
        key.level == .country ? reference(country: key.index) : reference(china: key.index)
    }

    private mutating func add(level: RegionLevel, code: String, index: Int32) -> UInt64 {
        entries.append((level, code))
        indices.append(index)
        return UInt64(entries.count)
    }

    /// The region key of a stored reference, nil when there is no such reference.
    package func key(_ reference: UInt64) -> RegionKey? {
        guard reference >= 1, reference <= UInt64(entries.count) else { return nil }
        return RegionKey(level: entries[Int(reference - 1)].level, index: indices[Int(reference - 1)])
    }

    /// The references made since the last call, with their level and code.
    package mutating func takeAdded() -> [(reference: UInt64, level: RegionLevel, code: String)] {
        defer { addedFrom = entries.count }
        return (addedFrom..<entries.count).map { (UInt64($0 + 1), entries[$0].level, entries[$0].code) }
    }
}
