import BoundaryBuild
import RegionTables
import TextFormats
import ChinaDatum
#if canImport(Glibc)
import Glibc
#endif

/// Throwaway measurements of the boundary source (run by hand; see docs/boundaries.md).
enum SourceProbe {
    static func run(_ path: String) throws {
        let archive = try SourceArchive(location: path)
        let catalog = try SourceCatalog(archive, levels: [.country], includeWorld: true)
        var units = catalog.countries.map(\.polygons)
        // China in WGS-84.
        let china = catalog.chinaOutline!.polygons.map { p in
            PolygonRings(rings: p.rings.map { $0.map { q in let w = GCJ02.toWGS84(Coordinate(latitude: q.y, longitude: q.x)); return Position(x: w.longitude, y: w.latitude) } })
        }
        units.append(china)
        let topology = CoverageTopology(units: units)
        var shared = 0, outer = 0, sharedV = 0, outerV = 0
        for arc in topology.arcs {
            if arc.leftUnit >= 0 && arc.rightUnit >= 0 { shared += 1; sharedV += arc.vertices.count } else { outer += 1; outerV += arc.vertices.count }
        }
        print("world: vertices \(topology.vertices.count) arcs \(topology.arcs.count) shared \(shared) (\(sharedV) v) outer \(outer) (\(outerV) v)")
        // neighbours: how many neighbour vertices coincide with China GCJ vertices
        var chinaGCJ = Set<Position>()
        for p in catalog.chinaOutline!.polygons { for r in p.rings { for q in r { chinaGCJ.insert(q) } } }
        for c in catalog.countries where c.path.contains("cn-neighbors") {
            var on = 0, total = 0
            for p in c.polygons { for r in p.rings { for q in r { total += 1; if chinaGCJ.contains(q) { on += 1 } } } }
            print(c.code, total, on)
        }
    }
}
