import CPROJ
import BoundaryBuild
import RegionTables
import TextFormats
#if canImport(Glibc)
import Glibc
#endif

enum SourceProbe {
    static func run(_ path: String, tolerance: Double) throws {
        var t = Stopwatch.now()
        let archive = try SourceArchive(location: path)
        let catalog = try SourceCatalog(archive, includeWorld: false)
        print("load: \(Stopwatch.now() - t) s")
        t = Stopwatch.now()
        let counties = catalog.china.filter { $0.level == .county }
        let topology = CoverageTopology(units: counties.map(\.polygons))
        print("topology: \(Stopwatch.now() - t) s; vertices \(topology.vertices.count) arcs \(topology.arcs.count) dropped \(topology.droppedRings)")
        t = Stopwatch.now()
        var xs = topology.vertices.map(\.x), ys = topology.vertices.map(\.y)
        let projection = try Projection("+proj=aea +lat_1=25 +lat_2=47 +lon_0=105 +ellps=WGS84")
        try projection.transform(PJ_FWD, first: &xs, second: &ys)
        print("project: \(Stopwatch.now() - t) s")
        t = Stopwatch.now()
        let context = GEOSContext()
        let simplifier = try CoverageSimplifier(topology, projectedX: xs, projectedY: ys, tolerance: tolerance, context: context)
        let before = simplifier.originalArcs.reduce(0) { $0 + $1.count / 2 }
        let after = simplifier.arcs.reduce(0) { $0 + $1.count / 2 }
        print("simplify: \(Stopwatch.now() - t) s; arc vertices \(before) -> \(after), collapsed kept \(simplifier.collapsedRingsKept)")
        let unassigned = topology.arcs.filter { $0.leftUnit < 0 && $0.rightUnit < 0 }.count
        let outer = topology.arcs.filter { $0.leftUnit < 0 || $0.rightUnit < 0 }.count
        print("arcs with no unit \(unassigned), outer arcs \(outer)")
        var outerBefore = 0, outerAfter = 0
        for (i, arc) in topology.arcs.enumerated() where arc.leftUnit < 0 || arc.rightUnit < 0 {
            outerBefore += simplifier.originalArcs[i].count / 2
            outerAfter += simplifier.arcs[i].count / 2
        }
        print("outer arc vertices \(outerBefore) -> \(outerAfter)")
        // delta statistics at 1e-6 degree quanta: estimate varint bytes
        var bytes = 0
        let inv = try Projection("+proj=aea +lat_1=25 +lat_2=47 +lon_0=105 +ellps=WGS84")
        for arc in simplifier.arcs {
            var px = 0, py = 0
            for k in stride(from: 0, to: arc.count, by: 2) {
                let (lon, lat) = try inv.inverse(x: arc[k], y: arc[k + 1])
                let qx = Int((lon * 1e6).rounded()), qy = Int((lat * 1e6).rounded())
                for d in [qx - px, qy - py] {
                    var z = UInt64(bitPattern: Int64(d << 1) ^ Int64(d >> 63))
                    repeat { bytes += 1; z >>= 7 } while z > 0
                }
                px = qx; py = qy
            }
        }
        print("varint bytes at 1e-6: \(bytes)")
    }
}
