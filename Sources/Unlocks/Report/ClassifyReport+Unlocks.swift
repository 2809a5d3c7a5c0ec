import RegionTables
import Tracks

extension ClassifyReport {
    /// Every region with evidence, per level, earliest first visit first (ties by code): its
    /// names, evidence and points, days visited (`days`), explored area and familiar cells (``CellFigures``), its whole
    /// area, and its explorer tiles at z14 (every level) and z17 (cities and counties).
    static func unlocks(_ regions: [RegionKey: RegionEvidence], tables: TableSet, cells: CellFigures,
                        visitedTiles: [Int: TileList], days: [RegionKey: Set<Int64>], lenient: Bool) -> [RegionLevel: [Unlock]] {
        let world = tables.world, china = tables.china
        let worldAreas = world.areas(ofRegions: regions.keys.filter { $0.level == .country }.map(\.index))
        let chinaAreas = china.areas(ofRegions: regions.keys.filter { $0.level != .country }.map(\.index))
        // Tile centres in each region's polygons (RegionTileCounter); docs/report-format.md says
        // why not countries' and provinces' z17 tiles.
        var worldCounter = RegionTileCounter(table: world, visited: visitedTiles), chinaCounter = RegionTileCounter(table: china, visited: visitedTiles)
        var regionTiles: [Int: (world: [Int32: RegionTileCount], china: [Int32: RegionTileCount])] = [:]
        for zoom in SlippyTile.reportedZooms {
            let levels: Set<RegionLevel> = zoom < SlippyTile.storedZoom ? Set(RegionLevel.allCases) : levelsWithFineTiles
            let wanted = regions.keys.filter { levels.contains($0.level) }
            regionTiles[zoom] = (worldCounter.counts(ofRegions: wanted.filter { $0.level == .country }.map(\.index), zoom: zoom),
                                 chinaCounter.counts(ofRegions: wanted.filter { $0.level != .country }.map(\.index), zoom: zoom))
        }
        var unlocks: [RegionLevel: [Unlock]] = [:]
        for (key, evidence) in regions {
            guard let first = evidence.confirmedBy ?? evidence.tentativeBy ?? evidence.passedBy else { continue }
            let table = key.level == .country ? world : china
            let region = table.region(key.index)
            var unlock = Unlock(level: key.level, code: region.code, name: region.name, englishName: region.englishName,
                                parentCode: region.parent.map { table.region($0).code }, confirmed: evidence.isConfirmed,
                                passedThrough: evidence.isPassedThroughOnly,
                                firstVisit: lenient ? min(first, evidence.tentativeBy ?? first) : first,
                                insidePoints: evidence.insidePoints, edgePoints: evidence.edgePoints, passedPoints: evidence.passedPoints,
                                exploredSquareMetres: cells.areaByRegion[key] ?? 0,
                                areaSquareMetres: (key.level == .country ? worldAreas : chinaAreas)[key.index] ?? 0,
                                tiles: regionTiles.compactMapValues { (key.level == .country ? $0.world : $0.china)[key.index] })
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
}
