import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

// audit.geojson: each episode's flagged points and the border lines near it.

extension AuditReport {
    /// The episode's flagged points (one MultiPoint per set of categories) and the border lines
    /// near it, one feature per line, WGS-84 (RFC 7946 order: lon, lat).
    func writeGeoJSON(_ e: AuditEpisode, lines: [BorderLine], sourceLines: [SourceBorder], into out: inout JSONTextBuffer) {
        writePointGroups(e, into: &out)
        for line in lines {
            beginLineFeature(line.runs, kind: "border", episode: e.id, into: &out)
            out.raw(",\"table\":")
            out.string(line.table)
            out.raw(",\"arc\":")
            out.integer(line.arc)
            out.raw(",\"level\":")
            out.string(line.level.name)
            out.raw(",\"coast\":")
            out.bool(line.coast)
            out.raw(",\"left\":")
            out.string(line.left)
            out.raw(",\"right\":")
            out.string(line.right)
            out.raw("}}")
        }
        for border in sourceLines {
            beginLineFeature(border.runs, kind: "source-border", episode: e.id, into: &out)
            out.raw(",\"level\":")
            out.string(border.level.name)
            out.raw(",\"code\":")
            out.string(border.code)
            out.raw("}}")
        }
    }

    /// A MultiLineString feature up to its properties' `kind` and `episode` (the caller adds the
    /// rest of the properties and closes it).
    func beginLineFeature(_ runs: [[(latitude: Double, longitude: Double)]], kind: String, episode: Int, into out: inout JSONTextBuffer) {
        out.raw(featureCount == 0 ? "\n" : ",\n")
        featureCount += 1
        out.raw("{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[")
        for (r, run) in runs.enumerated() {
            out.raw(r == 0 ? "[" : ",[")
            for (k, v) in run.enumerated() {
                out.raw(k == 0 ? "[" : ",[")
                out.decimal(v.longitude, places: 7)
                out.raw(",")
                out.decimal(v.latitude, places: 7)
                out.raw("]")
            }
            out.raw("]")
        }
        out.raw("]},\"properties\":{\"kind\":")
        out.string(kind)
        out.raw(",\"episode\":")
        out.integer(episode)
    }
}
