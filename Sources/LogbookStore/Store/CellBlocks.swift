import Unlocks

/// The explored cells as the map queries them: grouped in blocks of 64 × 64 cells (about 1.6 km
/// square), one row per block holding its cells' positions and familiarity levels in two bytes
/// each, and an R-tree over the blocks' bounds. A viewport finds its blocks in the R-tree and
/// reads only those; a change rewrites only the blocks whose cells changed.
///
/// Why blocks, not a row per cell: an R-tree entry costs about 40 bytes with its node share, 15
/// times a cell's two bytes here, and a store of a million cells would be dominated by its index.
package struct CellBlocks: Equatable {
    /// Each block's encoded cells by block number.
    package private(set) var blocks: [Int64: [UInt8]] = [:]

    static let side: Int64 = 64
    static let shift: Int64 = 6

    package init() {}

    /// The blocks of `cells` with each cell's familiarity level (aligned with the cells).
    package init(cells: CellList, levels: [FamiliarityLevel]) {
        // Cells come in key order (row, then column), so each block's cells arrive in its order.
        for (index, key) in cells.keys.enumerated() {
            let (block, code) = Self.locate(key, level: levels[index])
            blocks[block, default: []].append(contentsOf: [UInt8(truncatingIfNeeded: code), UInt8(truncatingIfNeeded: code >> 8)])
        }
    }

    /// Restored from stored rows.
    package init(stored: [Int64: [UInt8]]) { blocks = stored }

    /// A cell's block and its two-byte code there: row offset, column offset, level.
    static func locate(_ key: Int64, level: FamiliarityLevel) -> (block: Int64, code: UInt16) {
        let shiftedRow = key >> 23, column = key & ((1 << 23) - 1)
        let block = (shiftedRow >> shift) << 17 | (column >> shift)
        let code = UInt16(shiftedRow & (side - 1)) << 8 | UInt16(column & (side - 1)) << 2 | UInt16(level.rawValue)
        return (block, code)
    }

    /// The cells of one block's bytes: key and level.
    static func cells(of block: Int64, _ bytes: [UInt8]) -> [(key: Int64, level: FamiliarityLevel)]? {
        guard bytes.count % 2 == 0 else { return nil }
        let rowBase = (block >> 17) << shift, columnBase = (block & ((1 << 17) - 1)) << shift
        var result: [(key: Int64, level: FamiliarityLevel)] = []
        result.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            let code = UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
            index += 2
            guard code >> 14 == 0, let level = FamiliarityLevel(rawValue: Int(code & 3)) else { return nil }
            let key = (rowBase + Int64(code >> 8)) << 23 | (columnBase + Int64((code >> 2) & 63))
            result.append((key, level))
        }
        return result
    }

    /// The bounds of a block: its rows' parallels, and the widest of its columns' meridians.
    static func bounds(of block: Int64) -> GeoBox {
        let rowBase = (block >> 17) << shift, columnBase = (block & ((1 << 17) - 1)) << shift
        let first = ExploredGrid.key(row: 0, column: 0) >> 23
        var box = GeoBox(south: 90, west: 180, north: -90, east: -180)
        for corner in [rowBase, rowBase + side - 1] {
            let row = corner - first
            let columns = ExploredGrid.columnCount(row: row)
            let width = 360 / Double(columns)
            let south = ExploredGrid.latitude(meridianDistance: Double(row) * ExploredGrid.cellSize)
            let north = ExploredGrid.latitude(meridianDistance: Double(row + 1) * ExploredGrid.cellSize)
            box.south = min(box.south, south)
            box.north = max(box.north, north)
            box.west = min(box.west, -180 + Double(min(columnBase, columns)) * width)
            box.east = max(box.east, min(180, -180 + Double(min(columnBase + side, columns)) * width))
        }
        return box
    }

    /// The blocks that differ from `old`: those to write (new or changed) and those to delete.
    package func changes(from old: CellBlocks) -> (write: [(Int64, [UInt8])], delete: [Int64]) {
        let write = blocks.filter { old.blocks[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let delete = old.blocks.keys.filter { blocks[$0] == nil }.sorted()
        return (write, delete)
    }
}

extension LogbookStore {
    package func cellBlocks() throws -> CellBlocks {
        CellBlocks(stored: Dictionary(try database.rows("SELECT block, cells FROM cell_blocks") { ($0.int64(0), $0.blob(1)) }, uniquingKeysWith: { a, _ in a }))
    }

    /// Writes what differs between the stored blocks `old` and `new`.
    package func writeCellBlocks(_ new: CellBlocks, replacing old: CellBlocks) throws(SQLiteError) {
        let (write, delete) = new.changes(from: old)
        for block in delete {
            try database.run("DELETE FROM cell_blocks WHERE block = ?", .integer(block))
            try database.run("DELETE FROM cell_index WHERE block = ?", .integer(block))
        }
        for (block, bytes) in write {
            let known = old.blocks[block] != nil
            try database.run("INSERT OR REPLACE INTO cell_blocks(block, cells) VALUES (?, ?)", .integer(block), .blob(bytes))
            if !known {
                let box = CellBlocks.bounds(of: block)
                try database.run("INSERT INTO cell_index(block, south, north, west, east) VALUES (?, ?, ?, ?, ?)",
                                 .integer(block), .real(box.south), .real(box.north), .real(box.west), .real(box.east))
            }
        }
    }

    /// The cells in `box` (their bounds intersecting it), with their levels and bounds, in key
    /// order. A row's parallels and column width are computed once per query (the trigonometry
    /// is most of a cell's cost), in an array over the rows the box spans.
    package func cells(in box: GeoBox) throws -> [ExploredCell] {
        // The R-tree stores 32-bit floats rounded outwards: a block's stored bounds contain its
        // true ones, so no block is missed; cells are then checked exactly.
        let spans = box.west <= box.east ? [(box.west, box.east)] : [(box.west, 180.0), (-180.0, box.east)]
        let firstRow = Int64(ExploredGrid.rowCoordinate(latitude: max(-90, box.south)).rounded(.down)) - 1
        let lastRow = Int64(ExploredGrid.rowCoordinate(latitude: min(90, box.north)).rounded(.down)) + 1
        var rowBounds = [(south: Double, north: Double, width: Double)?](repeating: nil, count: Int(max(0, lastRow - firstRow + 1)))
        var result: [ExploredCell] = []
        for (west, east) in spans {
            let sql = """
            SELECT b.block, b.cells FROM cell_index i JOIN cell_blocks b ON b.block = i.block
            WHERE i.north >= ? AND i.south <= ? AND i.east >= ? AND i.west <= ?
            """
            let rows = try database.rows(sql, .real(box.south), .real(box.north), .real(west), .real(east)) { ($0.int64(0), $0.blob(1)) }
            for (block, bytes) in rows {
                guard let cells = CellBlocks.cells(of: block, bytes) else {
                    throw LogbookError(.damaged, path: path, reason: "cell block \(block) is damaged")
                }
                result.reserveCapacity(result.count + cells.count)
                for cell in cells {
                    let (row, column) = ExploredGrid.cell(ofKey: cell.key)
                    guard row >= firstRow, row <= lastRow else { continue }
                    let slot = Int(row - firstRow)
                    let bounds = rowBounds[slot] ?? {
                        let value = (ExploredGrid.latitude(meridianDistance: Double(row) * ExploredGrid.cellSize),
                                     ExploredGrid.latitude(meridianDistance: Double(row + 1) * ExploredGrid.cellSize),
                                     360 / Double(ExploredGrid.columnCount(row: row)))
                        rowBounds[slot] = value
                        return value
                    }()
                    let cellWest = -180 + Double(column) * bounds.width, cellEast = -180 + Double(column + 1) * bounds.width
                    if bounds.north >= box.south, bounds.south <= box.north, cellEast >= west, cellWest <= east {
                        result.append(ExploredCell(key: cell.key, bounds: GeoBox(south: bounds.south, west: cellWest, north: bounds.north, east: cellEast),
                                                   familiarity: cell.level))
                    }
                }
            }
        }
        result.sort { $0.key < $1.key }
        return result
    }
}
