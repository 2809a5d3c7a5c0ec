import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import Unlocks

/// The tables audited as a whole (`unlocks audit --tables`): structure (nesting of levels, the
/// shared-arc topology that rules out gaps and overlaps between neighbours), tiny and degenerate
/// regions, the build's measured deviation from the source (manifest.json), and the datum seam
/// along China's land border. Pure figures from the tables; the map excerpts are in ``html()``.
public struct TableAudit {
    /// One table's structure.
    public struct TableFigures {
        public var file: String
        public var datum: String
        public var regionsPerLevel: [(level: RegionLevel, count: Int)]
        public var units: Int
        public var arcs: Int
        public var vertices: Int
        /// Arcs with the same unit on both sides (would be a ring inside one unit).
        public var selfArcs: Int
        /// Arcs bounding the coverage (one side outside every unit).
        public var coverageArcs: Int
        /// Units whose regions do not nest (a county whose city is not its parent, …).
        public var nestingErrors: Int
        /// Regions no unit belongs to.
        public var regionsWithoutUnits: Int
        /// The ray-casting invariants on the stored geometry: rings winding as their sides say,
        /// no crossing segments (``TableGeometryCheck``).
        public var geometry: TableGeometryCheck
    }

    /// A region smaller than `tinyKm2`, or with a ring that has no area.
    public struct SmallRegion {
        public var table: String
        public var level: RegionLevel
        public var index: Int32
        public var code: String
        public var name: String
        public var areaKm2: Double
        /// Rings with fewer than 4 vertices or zero area.
        public var degenerateRings: Int
    }

    /// China's land border in the world table, where the world data (snapped to the GCJ-02 China
    /// outline) meets WGS-84 neighbours.
    public struct Seam {
        public var arcs: Int
        public var lengthKm: Double
        /// The GCJ-02 shift at the seam's vertices, metres.
        public var shiftMinimum: Double
        public var shiftMean: Double
        public var shiftMaximum: Double
    }

    public static let tinyKm2 = 1.0

    public let tables: [TableFigures]
    public let smallRegions: [SmallRegion]
    public let seam: Seam
    /// Where the map excerpts of the seam are drawn: its vertices of the widest and narrowest shift.
    let seamExcerpts: [(lat: Double, lon: Double, shift: Double)]
    /// manifest.json's per-table, per-level build figures (deviation, overlap, gap), when present.
    public let manifest: JSONValue?
    let world: RegionTable
    let china: RegionTable

    public init(tables set: TableSet, manifest: JSONValue?) {
        let world = set.world, china = set.china
        self.world = world
        self.china = china
        self.manifest = manifest
        tables = [Self.figures(world, name: "world.bin"), Self.figures(china, name: "china.bin")]
        var small: [SmallRegion] = []
        for (name, table) in [("world", world), ("china", china)] {
            var area: [Int32: Double] = [:], degenerate: [Int32: Int] = [:]
            let finest = table.levels.max()!
            for unit in 0..<Int32(table.unitCount) {
                guard let region = table.region(ofUnit: unit, at: finest) else { continue }
                for polygon in table.unitPolygons(unit) {
                    for (k, ring) in polygon.enumerated() {
                        let a = Self.areaKm2(ring)
                        if ring.count < 4 || a == 0 { degenerate[region, default: 0] += 1 }
                        area[region, default: 0] += k == 0 ? a : -a
                    }
                }
            }
            for (region, km2) in area where km2 < Self.tinyKm2 || degenerate[region] != nil {
                let r = table.region(region)
                small.append(SmallRegion(table: name, level: r.level, index: region, code: r.code, name: r.name, areaKm2: km2, degenerateRings: degenerate[region] ?? 0))
            }
        }
        smallRegions = small.sorted { ($0.areaKm2, $0.code) < ($1.areaKm2, $1.code) }

        let chinaIndex = world.regions.first { $0.code == "CHN" }?.index
        var arcs = 0, length = 0.0, shifts: [Double] = []
        var widest: (lat: Double, lon: Double, shift: Double)?, narrowest: (lat: Double, lon: Double, shift: Double)?
        for arc in 0..<world.arcCount {
            let l = world.arcLeft[arc], r = world.arcRight[arc]
            guard l >= 0, r >= 0 else { continue }
            let a = world.region(ofUnit: l, at: .country), b = world.region(ofUnit: r, at: .country)
            guard a != b, a == chinaIndex || b == chinaIndex else { continue }
            arcs += 1
            let vertices = world.arcVertices(arc).map { (lat: Double($0.y) * TableFormat.quantum, lon: Double($0.x) * TableFormat.quantum) }
            for (i, v) in vertices.enumerated() {
                if i > 0 { length += Self.metres(vertices[i - 1], v) }
                if ChinaRectangle().appliesShift(latitude: v.lat, longitude: v.lon) {
                    let g = GCJ02.fromWGS84(Coordinate(latitude: v.lat, longitude: v.lon))
                    let shift = Self.metres(v, (g.latitude, g.longitude))
                    shifts.append(shift)
                    if shift > (widest?.shift ?? -1) { widest = (v.lat, v.lon, shift) }
                    if shift < (narrowest?.shift ?? .infinity) { narrowest = (v.lat, v.lon, shift) }
                }
            }
        }
        seamExcerpts = [widest, narrowest].compactMap { $0 }
        seam = Seam(arcs: arcs, lengthKm: length / 1000, shiftMinimum: shifts.min() ?? 0,
                    shiftMean: shifts.isEmpty ? 0 : shifts.reduce(0, +) / Double(shifts.count), shiftMaximum: shifts.max() ?? 0)
    }

    static func figures(_ table: RegionTable, name: String) -> TableFigures {
        var selfArcs = 0, coverage = 0
        for arc in 0..<table.arcCount {
            if table.arcLeft[arc] < 0 || table.arcRight[arc] < 0 { coverage += 1 } else if table.arcLeft[arc] == table.arcRight[arc] { selfArcs += 1 }
        }
        var nesting = 0
        var used = Set<Int32>()
        for unit in 0..<Int32(table.unitCount) {
            var parent: Int32?
            for (k, level) in table.levels.enumerated() {
                let region = table.region(ofUnit: unit, at: level)
                if let region { used.insert(region) }
                if k > 0, let region, table.region(region).parent != parent { nesting += 1 }
                parent = region
            }
        }
        let levels = table.levels.map { level in (level, table.regions.filter { $0.level == level }.count) }
        return TableFigures(file: name, datum: table.datum == .gcj02 ? "gcj02" : "wgs84", regionsPerLevel: levels, units: table.unitCount,
                            arcs: table.arcCount, vertices: table.vertices.count / 2, selfArcs: selfArcs, coverageArcs: coverage,
                            nestingErrors: nesting, regionsWithoutUnits: table.regionCount - used.count, geometry: TableGeometryCheck(table))
    }

    /// Area of a closed quantised ring, km² (local equirectangular plane at the ring's mean latitude).
    static func areaKm2(_ ring: [(x: Int32, y: Int32)]) -> Double {
        guard ring.count >= 3 else { return 0 }
        let meanY = Double(ring.reduce(0) { $0 + Int64($1.y) }) / Double(ring.count) * TableFormat.quantum
        var twice = 0.0
        for i in 0..<(ring.count - 1) {
            twice += Double(ring[i].x) * Double(ring[i + 1].y) - Double(ring[i + 1].x) * Double(ring[i].y)
        }
        let metresPerQuantum = 111_320 * TableFormat.quantum
        return abs(twice) / 2 * metresPerQuantum * metresPerQuantum * cosine(meanY) / 1e6
    }

    static func metres(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        let dy = (b.lat - a.lat) * 111_320, dx = (b.lon - a.lon) * 111_320 * cosine((a.lat + b.lat) / 2)
        return (dx * dx + dy * dy).squareRoot()
    }

    // MARK: Output

    public func json() -> JSONValue {
        .object([
            ("report", .string("adminunlocks-table-audit")),
            ("version", .number(1)),
            ("tables", .array(tables.map { t in .object([
                ("file", .string(t.file)), ("datum", .string(t.datum)),
                ("regions", .object(t.regionsPerLevel.map { ($0.level.name, .number(Double($0.count))) })),
                ("units", .number(Double(t.units))), ("arcs", .number(Double(t.arcs))), ("vertices", .number(Double(t.vertices))),
                ("coverageArcs", .number(Double(t.coverageArcs))), ("selfArcs", .number(Double(t.selfArcs))),
                ("nestingErrors", .number(Double(t.nestingErrors))), ("regionsWithoutUnits", .number(Double(t.regionsWithoutUnits))),
                ("geometry", geometryJSON(t.geometry)),
                ("build", manifestTable(t.file) ?? .null),
            ]) })),
            ("smallRegions", .object([
                ("thresholdKm2", .number(Self.tinyKm2)),
                ("regions", .array(smallRegions.map { r in .object([
                    ("table", .string(r.table)), ("level", .string(r.level.name)), ("code", .string(r.code)), ("name", .string(r.name)),
                    ("areaKm2", .number(rounded(r.areaKm2, 4))), ("degenerateRings", .number(Double(r.degenerateRings))),
                ]) })),
            ])),
            ("datumSeam", .object([
                ("arcs", .number(Double(seam.arcs))), ("lengthKm", .number(rounded(seam.lengthKm, 1))),
                ("shiftMinimumMetres", .number(rounded(seam.shiftMinimum, 1))), ("shiftMeanMetres", .number(rounded(seam.shiftMean, 1))),
                ("shiftMaximumMetres", .number(rounded(seam.shiftMaximum, 1))),
                ("beforeRepair", manifest?["datumSeamBeforeRepair"] ?? .null),
            ])),
        ])
    }

    /// The geometry check's figures, with the first problems located (degrees).
    func geometryJSON(_ check: TableGeometryCheck) -> JSONValue {
        let degrees = { (v: Int32) in JSONValue.number(rounded(Double(v) * TableFormat.quantum, 5)) }
        return .object([
            ("holds", .bool(check.holds)), ("rings", .number(Double(check.rings))), ("segments", .number(Double(check.segments))),
            ("ringsWindingWrongly", .number(Double(check.ringProblems.count))),
            ("crossingSegments", .number(Double(check.crossings.filter(\.proper).count))),
            ("ringsInTheWrongUnit", .number(Double(check.misplaced.count))),
            ("touchingSegments", .number(Double(check.touches))),
            ("firstProblems", .array(check.ringProblems.prefix(20).map { r in .object([
                ("kind", .string(r.isHole ? "hole winding counter-clockwise" : "outer ring winding clockwise")),
                ("unit", .number(Double(r.unit))), ("latitude", degrees(r.y)), ("longitude", degrees(r.x)),
            ]) } + check.misplaced.prefix(20).map { m in .object([
                ("kind", .string("ring in the wrong unit")), ("arc", .number(Double(m.arc))),
                ("latitude", degrees(m.y)), ("longitude", degrees(m.x)),
            ]) } + check.crossings.filter(\.proper).prefix(20).map { c in .object([
                ("kind", .string("segments cross")), ("arcs", .array([.number(Double(c.arcA)), .number(Double(c.arcB))])),
                ("latitude", degrees(c.y)), ("longitude", degrees(c.x)),
            ]) })),
        ])
    }

    /// The manifest's figures for one table: per level deviation, overlap and gap.
    func manifestTable(_ file: String) -> JSONValue? {
        guard let entry = manifest?["tables"]?.arrayValue?.first(where: { $0["file"]?.stringValue == file }),
              let levels = entry["levels"]?.arrayValue else { return nil }
        return .array(levels.map { level in .object(["level", "maximumDeviationMetres", "meanDeviationMetres", "areaChangePercent", "overlapKm2", "gapKm2"].map { key in
            (key, level[key] ?? .null)
        }) })
    }

    public func text() -> String {
        var out = "Table audit\n"
        for t in tables {
            out += "\n\(t.file) (\(t.datum)): " + t.regionsPerLevel.map { "\($0.count) \($0.level.name)" }.joined(separator: ", ")
            out += "; \(t.units) units, \(t.arcs) arcs, \(t.vertices) vertices\n"
            out += "  nesting errors \(t.nestingErrors), regions without units \(t.regionsWithoutUnits), arcs inside one unit \(t.selfArcs), coverage arcs \(t.coverageArcs)\n"
            let g = t.geometry
            out += "  geometry: \(g.rings) rings, \(g.segments) segments; rings winding against their sides \(g.ringProblems.count), crossing segments \(g.crossings.filter(\.proper).count) (touching \(g.touches)), "
                + "islands and lakes in the wrong unit \(g.misplaced.count): " + (g.holds ? (g.misplaced.isEmpty ? "ray casting is consistent" : "consistent but for those islands and lakes") : "INVALID") + "\n"
            for m in g.misplaced.prefix(5) {
                out += "    the ring of arc \(m.arc) lies in unit \(m.found), its sides say \(m.expected), at \(fixed(Double(m.y) * TableFormat.quantum, 4)), \(fixed(Double(m.x) * TableFormat.quantum, 4))\n"
            }
            for r in g.ringProblems.prefix(5) {
                out += "    \(r.isHole ? "hole" : "outer ring") of unit \(r.unit) winds the wrong way, at \(fixed(Double(r.y) * TableFormat.quantum, 4)), \(fixed(Double(r.x) * TableFormat.quantum, 4))\n"
            }
            for c in g.crossings.filter(\.proper).prefix(5) {
                out += "    arcs \(c.arcA) and \(c.arcB) cross near \(fixed(Double(c.y) * TableFormat.quantum, 4)), \(fixed(Double(c.x) * TableFormat.quantum, 4))\n"
            }
            if let build = manifestTable(t.file)?.arrayValue {
                for level in build {
                    let n = { (key: String) in level[key]?.numberValue.map { fixed($0, 2) } ?? "?" }
                    out += "  \(level["level"]?.stringValue ?? "?"): deviation max \(n("maximumDeviationMetres")) m, mean \(n("meanDeviationMetres")) m; overlap \(n("overlapKm2")) km², gap \(n("gapKm2")) km² (build)\n"
                }
            }
        }
        out += "\nRegions under \(fixed(Self.tinyKm2, 0)) km² or with degenerate rings: \(smallRegions.count)\n"
        for r in smallRegions.prefix(10) { out += "  \(r.table) \(r.level.name) \(r.code) \(r.name): \(fixed(r.areaKm2, 4)) km²\(r.degenerateRings > 0 ? ", \(r.degenerateRings) degenerate rings" : "")\n" }
        out += "\nDatum seam: \(seam.arcs) world arcs on China's land border, \(fixed(seam.lengthKm, 0)) km; GCJ-02 shift there \(fixed(seam.shiftMinimum, 0))–\(fixed(seam.shiftMaximum, 0)) m (mean \(fixed(seam.shiftMean, 0)) m)\n"
        if let before = manifest?["datumSeamBeforeRepair"], let gap = before["gapKm2"]?.numberValue, let overlap = before["overlapKm2"]?.numberValue {
            out += "  in the source, before the build's repair: \(fixed(overlap, 0)) km² of overlap and \(fixed(gap, 0)) km² of gap between China and its neighbours (build)\n"
        }
        return out
    }

    /// The figures as HTML, with map excerpts of the smallest regions (their unit outlines).
    public func html(excerpts: Int = 6) -> String {
        var out = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>AdminUnlocks table audit</title>
        <style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1f2937}
        h2{font-size:18px;border-bottom:1px solid #e5e7eb}table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #f1f5f9;text-align:left}
        th{background:#f8fafc}.maps{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}svg{border:1px solid #cbd5e1;background:#f8fafc}
        svg path{fill:#dbeafe;stroke:#1e3a8a;stroke-width:1.2}figcaption{font-size:12px;color:#4b5563}</style></head><body>
        <h1>Table audit</h1>

        """
        out += "<pre>" + escape(text()) + "</pre>\n<h2>Smallest regions</h2>\n<div class=\"maps\">"
        // The smallest regions that have an outline (a region stored only as specks has none).
        var drawn = 0
        for r in smallRegions where drawn < excerpts {
            let table = r.table == "world" ? world : china
            var rings: [[(x: Int32, y: Int32)]] = []
            for unit in 0..<Int32(table.unitCount) where table.region(ofUnit: unit, at: r.level) == r.index {
                for polygon in table.unitPolygons(unit) { rings += polygon }
            }
            let xs = rings.flatMap { $0.map { Double($0.x) } }, ys = rings.flatMap { $0.map { Double($0.y) } }
            guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { continue }
            drawn += 1
            let cosLat = cosine((minY + maxY) / 2 * TableFormat.quantum)
            let scale = 200 / max((maxX - minX) * cosLat, maxY - minY, 1)
            let d = rings.map { ring in
                AuditReport.pathData(ring.map { (10 + (Double($0.x) - minX) * cosLat * scale, 210 - (Double($0.y) - minY) * scale) }) + "Z"
            }.joined()
            out += "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"220\" height=\"220\"><path fill-rule=\"evenodd\" d=\"\(d)\"/></svg>"
            out += "<figcaption>\(escape(r.code)) \(escape(r.name)) · \(fixed(r.areaKm2, 3)) km²</figcaption></figure>"
        }
        out += "</div>\n<h2>Datum seam</h2>\n<p>China's land border in WGS-84: as the world table has it (orange, dashed) and as the China table has it (blue: its GCJ-02 outline converted back; the build repaired the seam, so the two coincide within the tolerances), and where the China outline would lie if its GCJ-02 coordinates were taken for WGS-84 (red, dotted). Between the red and the blue lines the country depends on the datum: points there are flagged <code>datum-flip</code>.</p>\n<div class=\"maps\">"
        for excerpt in seamExcerpts {
            out += seamMap(latitude: excerpt.lat, longitude: excerpt.lon, caption: "\(fixed(excerpt.lat, 4)), \(fixed(excerpt.lon, 4)) · shift \(fixed(excerpt.shift, 0)) m")
        }
        out += "</div></body></html>\n"
        return out
    }

    /// A 3 km map around a point of China's land border: the world table's line and the China
    /// table's outline (converted to WGS-84), with a scale bar.
    func seamMap(latitude: Double, longitude: Double, caption: String) -> String {
        let half = 1500.0, size = 300.0
        let metresPerQuantum = 111_320 * TableFormat.quantum
        let radius = Int64((half * 1.5 / metresPerQuantum).rounded(.up))
        let cosLat = cosine(latitude)
        func project(_ lat: Double, _ lon: Double) -> (Double, Double) {
            (size / 2 + (lon - longitude) * 111_320 * cosLat / (2 * half) * size, size / 2 - (lat - latitude) * 111_320 / (2 * half) * size)
        }
        func path(_ table: RegionTable, _ arcs: [Int], convert: Bool, style: String) -> String {
            let d = arcs.map { arc in
                AuditReport.pathData(table.arcVertices(arc).map { v -> (Double, Double) in
                    let c = Coordinate(latitude: Double(v.y) * TableFormat.quantum, longitude: Double(v.x) * TableFormat.quantum)
                    let w = convert ? GCJ02.toWGS84(c) : c
                    return project(w.latitude, w.longitude)
                })
            }.joined()
            return "<path style=\"\(style)\" d=\"\(d)\"/>"
        }
        let x = Int64((longitude / TableFormat.quantum).rounded()), y = Int64((latitude / TableFormat.quantum).rounded())
        let worldArcs = world.arcsNear(x: x, y: y, radius: radius).map(\.arc).filter { world.arcLeft[$0] >= 0 && world.arcRight[$0] >= 0 }
        let g = GCJ02.fromWGS84(Coordinate(latitude: latitude, longitude: longitude))
        let chinaArcs = china.arcsNear(x: Int64((g.longitude / TableFormat.quantum).rounded()), y: Int64((g.latitude / TableFormat.quantum).rounded()), radius: radius)
            .map(\.arc).filter { china.arcLeft[$0] < 0 || china.arcRight[$0] < 0 }
        var out = "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(size))\" height=\"\(Int(size))\">"
        out += path(china, chinaArcs, convert: false, style: "fill:none;stroke:#dc2626;stroke-width:1.5;stroke-dasharray:2 3")
        out += path(china, chinaArcs, convert: true, style: "fill:none;stroke:#1e3a8a;stroke-width:3")
        out += path(world, worldArcs, convert: false, style: "fill:none;stroke:#ea580c;stroke-width:1.5;stroke-dasharray:6 4")
        let bar = 500.0 / (2 * half) * size
        out += "<path style=\"fill:none;stroke:#111827;stroke-width:1.5\" d=\"M10 \(Int(size - 16))v6h\(AuditReport.px(bar))v-6\"/><text x=\"\(Int(bar + 16))\" y=\"\(Int(size - 10))\" style=\"font:11px sans-serif\">500 m</text>"
        out += "</svg><figcaption>\(escape(caption))</figcaption></figure>"
        return out
    }
}
