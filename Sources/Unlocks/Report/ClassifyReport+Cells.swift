import RegionTables
import Tracks

extension ClassifyReport {
    /// What the explored cells add up to, each cell counted for its first visitor's regions:
    /// the explored area overall, in China and per region; the cells per familiarity level,
    /// overall and per region; and each cell on the day of its first visit (``DaySeries``).
    struct CellFigures {
        /// A cell's first visitor's regions.
        struct Visitor: Hashable {
            var country: Int32
            var chinaRegion: Int32
            var subdivision: Int32
        }

        var total = 0.0
        var inChina = 0.0
        var areaByRegion: [RegionKey: Double] = [:]
        var familiar = FamiliarityCounts()
        var familiarByRegion: [RegionKey: FamiliarityCounts] = [:]

        init(_ combined: CombinedLedger, tables: TableSet, familiarityLevels: FamiliarityLevels, series: inout DaySeries) {
            let world = tables.world, china = tables.china
            var rowArea: [Int64: Double] = [:]
            // Cells per familiarity level per first visitor's regions, counted in runs of cells
            // with the same visitor (cells come in key order: neighbours).
            var familiarByVisitor: [Visitor: FamiliarityCounts] = [:]
            var run: (visitor: Visitor?, counts: FamiliarityCounts) = (nil, FamiliarityCounts())
            var cellIndex = 0
            let chinaCountry = world.regions.first(where: { $0.code == "CHN" })?.index
            var chinaChain: [Int32: [RegionKey]] = [:]
            combined.cells.forEachCell { key, visit in
                let row = ExploredGrid.cell(ofKey: key).row
                let area: Double
                if let known = rowArea[row] { area = known } else {
                    area = ExploredGrid.cellArea(row: row)
                    rowArea[row] = area
                }
                total += area
                let level = familiarityLevels.level(passes: combined.cellPasses[cellIndex])
                cellIndex += 1
                if level >= .lit {
                    let visitor = Visitor(country: visit.country, chinaRegion: visit.chinaRegion, subdivision: visit.subdivision)
                    if visitor != run.visitor {
                        if let last = run.visitor { familiarByVisitor[last, default: FamiliarityCounts()].add(run.counts) }
                        run = (visitor, FamiliarityCounts())
                    }
                    run.counts.add(level)
                }
                if visit.time != Int64.max { series.addCell(firstVisit: visit.time, squareMetres: area) }
                if visit.country >= 0 {
                    areaByRegion[RegionKey(level: .country, index: visit.country), default: 0] += area
                    if visit.country == chinaCountry { inChina += area }
                }
                if visit.subdivision >= 0 { areaByRegion[RegionKey(level: .subdivision, index: visit.subdivision), default: 0] += area }
                if visit.chinaRegion >= 0 {
                    let chain: [RegionKey]
                    if let known = chinaChain[visit.chinaRegion] { chain = known } else {
                        var keys: [RegionKey] = []
                        var index: Int32? = visit.chinaRegion
                        while let i = index {
                            let region = china.region(i)
                            keys.append(RegionKey(level: region.level, index: i))
                            index = region.parent
                        }
                        chain = keys
                        chinaChain[visit.chinaRegion] = keys
                    }
                    for key in chain { areaByRegion[key, default: 0] += area }
                }
            }
            if let last = run.visitor { familiarByVisitor[last, default: FamiliarityCounts()].add(run.counts) }
            for (visitor, counts) in familiarByVisitor {
                familiar.add(counts)
                if visitor.country >= 0 { familiarByRegion[RegionKey(level: .country, index: visitor.country), default: FamiliarityCounts()].add(counts) }
                if visitor.subdivision >= 0 { familiarByRegion[RegionKey(level: .subdivision, index: visitor.subdivision), default: FamiliarityCounts()].add(counts) }
                var index: Int32? = visitor.chinaRegion >= 0 ? visitor.chinaRegion : nil
                while let i = index {
                    let region = china.region(i)
                    familiarByRegion[RegionKey(level: region.level, index: i), default: FamiliarityCounts()].add(counts)
                    index = region.parent
                }
            }
        }
    }
}
