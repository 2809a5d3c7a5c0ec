import RegionTables
import TextFormats

/// The flagged points in the audit's files, within its output budget (docs/audit-format.md,
/// "Output budget"): in audit.json one compact row per point, every fact kept; in audit.geojson
/// one MultiPoint per episode and set of categories.
extension AuditReport {
    /// A point as one row of `pointFields`: milliseconds after the episode's first point (null
    /// untimed), latitude, longitude, accuracy, categories (`categoryBits`), then per level
    /// `[region, status, margin, categories]` (the region as an index in the episode's `regions`
    /// of that level, the status `i`nside, `e`dge or `o`utside), and, only when it has any, an
    /// object of the point's other facts (`unshifted`, `datumSeam`, `nearest`, `source`).
    func writePointRow(_ p: AuditedPoint, start: Int64?, regionLists: [[Int32]], sourceCodes: [RegionLevel: String]?, into out: inout JSONTextBuffer) {
        out.raw("[")
        if let time = p.point.time, let start { out.integer(Int(time - start)) } else { out.raw("null") }
        out.raw(",")
        out.decimal(p.point.latitude, places: 7)
        out.raw(",")
        out.decimal(p.point.longitude, places: 7)
        out.raw(",")
        out.decimal(p.point.accuracy, places: 1)
        out.raw(",")
        out.integer(Int(p.flags))
        for level in RegionLevel.tableLevels {
            let found = p.placement.level(level)
            out.raw(",[")
            if let region = found.region, let index = regionLists[Int(level.rawValue)].firstIndex(of: region) {
                out.integer(index)
            } else {
                out.raw("null")
            }
            switch found.status {
            case .inside: out.raw(",\"i\",")
            case .edge: out.raw(",\"e\",")
            case .outside: out.raw(",\"o\",")
            }
            out.decimal(found.marginMetres, places: 1)
            out.raw(",")
            out.integer(Int(p.levelFlags[level]))
            out.raw("]")
        }
        var opened = false
        func member(_ name: String) {
            out.raw(opened ? "," : ",{")
            out.string(name)
            out.raw(":")
            opened = true
        }
        if let unshifted = p.unshifted {
            member("unshifted")
            out.raw("[")
            region(.province, unshifted.province, into: &out)
            out.raw(",")
            region(.city, unshifted.city, into: &out)
            out.raw(",")
            region(.county, unshifted.county, into: &out)
            out.raw("]")
        }
        if p.inDatumSeam {
            member("datumSeam")
            out.raw("true")
        }
        if let nearest = p.nearestCountry {
            member("nearest")
            out.raw("[")
            region(.country, nearest.region, into: &out)
            out.raw(",")
            out.decimal(nearest.metres, places: 1)
            out.raw("]")
        }
        if let source = sourceCodes {
            member("source")
            out.raw("{")
            for (k, entry) in source.sorted(by: { $0.key < $1.key }).enumerated() {
                if k > 0 { out.raw(",") }
                out.string(entry.key.name)
                out.raw(":")
                out.string(entry.value.isEmpty ? nil : entry.value)
            }
            out.raw("}")
        }
        if opened { out.raw("}") }
        out.raw("]")
    }

    /// The episode's points as one MultiPoint feature per set of categories (in the order the
    /// sets first occur): `kind` `points`, `episode`, `categories` (comma-separated) and the
    /// count of `points`. A map styles them by `categories`; each point's own facts are its row
    /// in audit.json.
    func writePointGroups(_ e: AuditEpisode, into out: inout JSONTextBuffer) {
        var order: [UInt8] = []
        var groups: [UInt8: [AuditedPoint]] = [:]
        for p in e.points {
            if groups[p.flags] == nil { order.append(p.flags) }
            groups[p.flags, default: []].append(p)
        }
        for flags in order {
            let points = groups[flags]!
            out.raw(featureCount == 0 ? "\n" : ",\n")
            featureCount += 1
            out.raw("{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiPoint\",\"coordinates\":[")
            for (k, p) in points.enumerated() {
                out.raw(k == 0 ? "[" : ",[")
                out.decimal(p.point.longitude, places: 7)
                out.raw(",")
                out.decimal(p.point.latitude, places: 7)
                out.raw("]")
            }
            out.raw("]},\"properties\":{\"kind\":\"points\",\"episode\":")
            out.integer(e.id)
            out.raw(",\"categories\":")
            out.bytes += categoryStrings[Int(flags)]
            out.raw(",\"points\":")
            out.integer(points.count)
            out.raw("}}")
        }
    }
}
