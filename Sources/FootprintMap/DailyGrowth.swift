import Tracks
import Unlocks

/// The explored area's growth day by day: for each local day, the cells first explored that day
/// and their area. Computed from the cells' first-visit times; it is the one place that would
/// read a per-day series of the report instead, once the report has one.
public enum DailyGrowth {
    public struct Day: Equatable, Sendable {
        /// Days since 1970-01-01 on the local clock.
        public var day: Int64
        public var newCells: Int
        public var newSquareMetres: Double
    }

    /// Every day on which a cell was first explored, in order. Untimed cells (first reached by an
    /// untimed leg) belong to no day and are left out.
    public static func series(cells: CellTable, zone: LocalTimeZone) -> [Day] {
        var clock = LocalDayClock(zone: zone)
        var byDay: [Int64: (cells: Int, area: Double)] = [:]
        var rowArea: [Int64: Double] = [:]
        // Sorted by time so the clock's cached offset is reused from one cell to the next.
        for (key, visit) in cells.sorted(by: { $0.value.time < $1.value.time }) where visit.time != .max {
            let row = ExploredGrid.cell(ofKey: key).row
            let area = rowArea[row] ?? ExploredGrid.cellArea(row: row)
            rowArea[row] = area
            let day = clock.day(of: visit.time)
            byDay[day, default: (0, 0)].cells += 1
            byDay[day, default: (0, 0)].area += area
        }
        return byDay.keys.sorted().map { Day(day: $0, newCells: byDay[$0]!.cells, newSquareMetres: byDay[$0]!.area) }
    }
}
