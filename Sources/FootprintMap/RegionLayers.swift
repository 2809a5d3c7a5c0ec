import Foundation
import ChinaDatum
import RegionTables

/// The region tables as the page draws them (docs/footprint-format.md, "The page's data"), in
/// Web Mercator integers of ``quantum`` (2⁻²⁶ of the world: 0.6 m at the equator).
///
/// - The **overview** of a table: every arc simplified by Douglas–Peucker to half a pixel at
///   ``overviewZoom``, each arc once (neighbours share it, so simplification leaves no gap or
///   overlap), and every unit as rings of arc references, as the table stores them.
/// - **Detail** for the boxes around the places the person has been: the units' rings and the
///   border arcs at the tables' own resolution (half a pixel at ``detailZoom``), clipped to the
///   box, so only what is on screen around a place is carried, never a country's whole coast.
enum RegionLayers {
    static let quantum = Double(1 << 26)
    /// The overview's coarser quantum, 2⁻¹⁸ of the world (150 m at the equator: half a
    /// pixel where the detail takes over), so its deltas take fewer bytes.
    static let overviewQuantum = Double(1 << 18)
    /// Zooms at which a layer's simplification is half a pixel. Below ``detailFrom`` the
    /// overview is drawn everywhere; from it on, the detail inside its boxes.
    static let overviewZoom = [4.0, 6.0]  // world, China
    static let detailZoom = 15.0
    static let detailFrom = 9.0

    /// A table vertex (quanta, in the table's datum) in Web Mercator world units (WGS-84).
    static func mercator(_ table: RegionTable, _ p: (x: Int32, y: Int32)) -> (x: Double, y: Double) {
        var longitude = Double(p.x) * TableFormat.quantum, latitude = Double(p.y) * TableFormat.quantum
        if table.datum == .gcj02 {
            let c = GCJ02.toWGS84(Coordinate(latitude: latitude, longitude: longitude))
            longitude = c.longitude
            latitude = c.latitude
        }
        return (WebMercator.x(longitude), WebMercator.y(latitude))
    }

    /// Mercator without the datum change, for simplifying (the GCJ-02 shift is smooth, so the
    /// kept vertices are the same to within centimetres; only those are converted).
    static func rawMercator(_ p: (x: Int32, y: Int32)) -> (x: Double, y: Double) {
        (WebMercator.x(Double(p.x) * TableFormat.quantum), WebMercator.y(Double(p.y) * TableFormat.quantum))
    }

    static func tolerance(zoom: Double) -> Double { 0.5 / WebMercator.worldPixels(zoom: zoom) }

    /// Index of the coarsest level at which `arc` is a border, `table.levels.count` when none.
    static func coarsestBorder(_ table: RegionTable, _ arc: Int) -> Int {
        let on = table.borderLevels(ofArc: arc)
        return table.levels.firstIndex(where: on.contains) ?? table.levels.count
    }

    /// Writes the overview of `table`: arcs (count; per arc its coarsest border level, its point
    /// count and the points as deltas), then units (count; per unit its finest region + 1, its
    /// ring count, per ring its reference count × 2 + hole flag and the references as deltas).
    /// Rings under a pixel across at the overview's zoom are left out (islets, specks of
    /// coverage), and so are the rings of units `includes` refuses and the points of arcs only
    /// they use: such an arc is written with none.
    static func writeOverview(_ table: RegionTable, zoom: Double, includes: (Int32) -> Bool = { _ in true }, into w: inout PageDataWriter) {
        let tolerance = self.tolerance(zoom: zoom)
        let points = (0..<table.arcCount).map { table.arcVertices($0).map(rawMercator) }
        var used = [Bool](repeating: false, count: table.arcCount)
        var kept: [Int32: [Bool]] = [:]
        for unit in 0..<Int32(table.unitCount) {
            guard includes(unit) else {
                kept[unit] = [Bool](repeating: false, count: table.unitRings(unit).count)
                continue
            }
            kept[unit] = table.unitRings(unit).map { ring in
                var minX = 1.0, minY = 1.0, maxX = 0.0, maxY = 0.0
                for reference in ring.arcs {
                    for p in points[Int(reference < 0 ? ~reference : reference)] {
                        minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
                    }
                }
                let visible = max(maxX - minX, maxY - minY) >= 2 * tolerance
                if visible { for reference in ring.arcs { used[Int(reference < 0 ? ~reference : reference)] = true } }
                return visible
            }
        }
        w.unsigned(table.arcCount)
        var last = (x: Int64(0), y: Int64(0))
        for arc in 0..<table.arcCount {
            w.unsigned(coarsestBorder(table, arc))
            guard used[arc] else { w.unsigned(0); continue }
            let vertices = table.arcVertices(arc)
            // Measured in ground distance rather than Mercator pixels (scaled by the cosine of
            // the arc's middle latitude): the Arctic's coasts, magnified by Mercator, would
            // otherwise take half the bytes.
            let middle = points[arc].reduce(0) { $0 + $1.y } / Double(max(1, points[arc].count))
            let c = cos(atan(sinh(.pi * (1 - 2 * middle))))
            let indices = LineSimplifier.keptIndices(points[arc].map { (x: $0.x * c, y: $0.y * c) }, tolerance: tolerance)
            w.unsigned(indices.count)
            for k in indices { writePoint(mercator(table, vertices[k]), quantum: overviewQuantum, last: &last, into: &w) }
        }
        writeUnits(table, keptRings: kept, into: &w)
    }

    static func writeUnits(_ table: RegionTable, keptRings: [Int32: [Bool]], into w: inout PageDataWriter) {
        let finest = table.levels.last!
        w.unsigned(table.unitCount)
        for unit in 0..<Int32(table.unitCount) {
            w.unsigned((table.region(ofUnit: unit, at: finest) ?? -1) + 1)
            let rings = zip(table.unitRings(unit), keptRings[unit]!).filter { $0.1 }.map(\.0)
            w.unsigned(rings.count)
            for ring in rings {
                w.unsigned(ring.arcs.count * 2 + (ring.hole ? 1 : 0))
                var previous: Int32 = 0
                for reference in ring.arcs {
                    w.signed(Int64(reference) - Int64(previous))
                    previous = reference
                }
            }
        }
    }

    static func writePoint(_ p: (x: Double, y: Double), quantum: Double = quantum, last: inout (x: Int64, y: Int64), into w: inout PageDataWriter) {
        let x = Int64((p.x * quantum).rounded()), y = Int64((p.y * quantum).rounded())
        w.signed(x - last.x)
        w.signed(y - last.y)
        last = (x, y)
    }

    // MARK: Detail

    /// A box in Mercator world units.
    struct Box: Equatable {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        func intersects(_ o: Box) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }
        func union(_ o: Box) -> Box { Box(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY)) }
        func grown(by d: Double) -> Box { Box(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d) }
    }

    /// Boxes that overlap are merged (repeatedly) into one: each area is carried once.
    static func merged(_ boxes: [Box]) -> [Box] {
        var result: [Box] = []
        for box in boxes {
            var box = box
            var changed = true
            while changed {
                changed = false
                if let k = result.firstIndex(where: { $0.intersects(box) }) {
                    box = box.union(result.remove(at: k))
                    changed = true
                }
            }
            result.append(box)
        }
        return result
    }

    /// Writes one detail box: the box, then per table the clipped rings of every unit meeting it
    /// (count; per unit its index and ring count, per ring its point count and points) and the
    /// border arcs' pieces inside it (count; per piece its level and points). Rings are clipped to
    /// the box grown by a twentieth, so their cut edges lie outside the box the page clips to.
    static func writeDetail(_ box: Box, tables: [RegionTable], into w: inout PageDataWriter) {
        var last = (x: Int64(0), y: Int64(0))
        writePoint((box.minX, box.minY), last: &last, into: &w)
        writePoint((box.maxX, box.maxY), last: &last, into: &w)
        let clip = box.grown(by: (box.maxX - box.minX) / 20)
        let tolerance = self.tolerance(zoom: detailZoom)
        for table in tables {
            // Candidates by the finest regions' boxes (quanta, table datum; 0.02° covers GCJ-02's shift).
            let margin = Int32(0.02 / TableFormat.quantum)
            let finest = table.levels.last!
            func longitude(_ x: Double) -> Int32 { Int32((x * 360 - 180) / TableFormat.quantum) }
            func latitude(_ y: Double) -> Int32 { Int32(atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi / TableFormat.quantum) }
            let west = longitude(clip.minX) - margin, east = longitude(clip.maxX) + margin
            let south = latitude(clip.maxY) - margin, north = latitude(clip.minY) + margin
            let near = Set(table.regions.filter {
                $0.level == finest && $0.boundingBox.minX <= east && $0.boundingBox.maxX >= west && $0.boundingBox.minY <= north && $0.boundingBox.maxY >= south
            }.map(\.index))
            var converted: [Int: [(x: Double, y: Double)]] = [:]
            func arc(_ index: Int) -> [(x: Double, y: Double)] {
                if let known = converted[index] { return known }
                let vertices = table.arcVertices(index)
                let kept = LineSimplifier.keptIndices(vertices.map(rawMercator), tolerance: tolerance)
                let points = kept.map { mercator(table, vertices[$0]) }
                converted[index] = points
                return points
            }
            var units = PageDataWriter(), unitCount = 0
            var arcsInside = Set<Int>()
            for unit in 0..<Int32(table.unitCount) where table.region(ofUnit: unit, at: finest).map(near.contains) ?? false {
                var rings: [[(x: Double, y: Double)]] = []
                for ring in table.unitRings(unit) {
                    let points = RegionTable.assemble(ring.arcs) { arc($0) }
                    let clipped = PolygonClipping.clip(points, to: clip)
                    if clipped.count >= 3 {
                        rings.append(clipped)
                        for reference in ring.arcs { arcsInside.insert(Int(reference < 0 ? ~reference : reference)) }
                    }
                }
                guard !rings.isEmpty else { continue }
                unitCount += 1
                units.unsigned(unit)
                units.unsigned(rings.count)
                for ring in rings {
                    units.unsigned(ring.count)
                    for p in ring { writePoint(p, last: &last, into: &units) }
                }
            }
            w.unsigned(unitCount)
            w.append(units)
            var pieces = PageDataWriter(), pieceCount = 0
            for index in arcsInside.sorted() {
                let level = coarsestBorder(table, index)
                guard level < table.levels.count else { continue }
                for piece in PolygonClipping.clipLine(arc(index), to: clip) where piece.count >= 2 {
                    pieceCount += 1
                    pieces.unsigned(level)
                    pieces.unsigned(piece.count)
                    for p in piece { writePoint(p, last: &last, into: &pieces) }
                }
            }
            w.unsigned(pieceCount)
            w.append(pieces)
        }
    }
}
