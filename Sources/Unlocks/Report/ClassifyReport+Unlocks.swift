import RegionTables
import Tracks

extension ClassifyReport {
    /// Every region with evidence, per level, earliest first visit first (ties by code): its
    /// names, evidence and points, days visited (`days`), explored area and familiar cells (``CellFigures``), its whole
    /// area, and its explorer tiles at z14 (every level) and z17 (cities and counties).
    static func unlocks(_ regions: [RegionKey: RegionEvidence], tables: TableSet, cells: CellFigures,
                        visitedTiles: [Int: TileList], days: [RegionKey: Set<Int64>], lenient: Bool) -> [RegionLevel: [Unlock]] {
        // Per table (countries, China's three levels, subdivisions): the regions' whole areas and
        // the tile centres in their polygons (RegionTileCounter); docs/report-format.md says why
        // not countries', subdivisions' and provinces' z17 tiles.
        var areas: [ObjectIdentifier: [Int32: Double]] = [:]
        var regionTiles: [ObjectIdentifier: [Int: [Int32: RegionTileCount]]] = [:]
        for (table, levels) in Self.tablesOfLevels(regions.keys, tables: tables) {
            let id = ObjectIdentifier(table)
            let mine = regions.keys.filter { levels.contains($0.level) }
            areas[id] = table.areas(ofRegions: mine.map(\.index))
            var counter = RegionTileCounter(table: table, visited: visitedTiles)
            for zoom in SlippyTile.reportedZooms {
                let wanted = zoom < SlippyTile.storedZoom ? mine : mine.filter { levelsWithFineTiles.contains($0.level) }
                regionTiles[id, default: [:]][zoom] = counter.counts(ofRegions: wanted.map(\.index), zoom: zoom)
            }
        }
        // In China's view China's subdivisions are its provinces (the China table's outlines, CN-TW,
        // CN-HK and CN-MO among them, which the subdivision table holds without area): their whole
        // area and tiles are the province's.
        let provinceOfSubdivision = Self.chinaProvincesOfSubdivisions(tables)
        var unlocks: [RegionLevel: [Unlock]] = [:]
        for (key, evidence) in regions {
            guard let first = evidence.confirmedBy ?? evidence.tentativeBy ?? evidence.passedBy, let table = tables.table(of: key.level) else { continue }
            let region = table.region(key.index)
            let (id, index) = key.level == .subdivision ? provinceOfSubdivision[key.index].map { (ObjectIdentifier(tables.china), $0) } ?? (ObjectIdentifier(table), key.index)
                                                        : (ObjectIdentifier(table), key.index)
            var unlock = Unlock(level: key.level, code: region.code, name: region.name, englishName: region.englishName,
                                parentCode: region.parent.map { table.region($0).code }, confirmed: evidence.isConfirmed,
                                passedThrough: evidence.isPassedThroughOnly,
                                firstVisit: lenient ? min(first, evidence.tentativeBy ?? first) : first,
                                insidePoints: evidence.insidePoints, edgePoints: evidence.edgePoints, passedPoints: evidence.passedPoints,
                                exploredSquareMetres: cells.areaByRegion[key] ?? 0,
                                areaSquareMetres: areas[id]?[index] ?? 0,
                                tiles: (regionTiles[id] ?? [:]).compactMapValues { $0[index] })
            unlock.familiarCells = cells.familiarByRegion[key] ?? FamiliarityCounts()
            let own = days[key] ?? []
            unlock.visitDays = own.count
            unlock.lastVisitDay = own.max()
            unlock.stays = Stay.stays(own)
            unlock.daysPerYear = Dictionary(grouping: own, by: { Timestamp.civilDate(daysSinceEpoch: $0).year })
                .map { YearDays(year: $0.key, days: $0.value.count) }.sorted { $0.year < $1.year }
            unlocks[key.level, default: []].append(unlock)
        }
        for level in unlocks.keys {
            unlocks[level]!.sort { ($0.firstVisit, $0.code) < ($1.firstVisit, $1.code) }
        }
        return unlocks
    }

    /// In China's view, each subdivision of China (by index in the subdivision table) and the
    /// China table's province it is (``RegionLocator/chinaProvinceISOCodes``); empty otherwise.
    static func chinaProvincesOfSubdivisions(_ tables: TableSet) -> [Int32: Int32] {
        guard tables.worldview == .china, let subdivisions = tables.subdivisions else { return [:] }
        let byCode = Dictionary(subdivisions.regions.filter { $0.level == .province }.map { ($0.code, $0.index) }, uniquingKeysWith: { a, _ in a })
        var result: [Int32: Int32] = [:]
        for province in tables.china.regions where province.level == .province {
            if let iso = RegionLocator.chinaProvinceISOCodes[province.code], let subdivision = byCode[iso] { result[subdivision] = province.index }
        }
        return result
    }

    /// The tables that hold `keys`' regions, each with its levels among them, in a fixed order
    /// (countries, China's levels, subdivisions).
    static func tablesOfLevels(_ keys: Dictionary<RegionKey, RegionEvidence>.Keys, tables: TableSet) -> [(RegionTable, Set<RegionLevel>)] {
        let present = Set(keys.map(\.level))
        return TableSet.levelsByTable.compactMap { group -> (RegionTable, Set<RegionLevel>)? in
            let levels = Set(group).intersection(present)
            guard !levels.isEmpty, let table = tables.table(of: group[0]) else { return nil }
            return (table, levels)
        }
    }
}
