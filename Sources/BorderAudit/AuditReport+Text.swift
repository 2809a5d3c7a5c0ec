import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

// The audit's summary for a terminal.

extension AuditReport {
    /// A summary for a terminal: counts per category and level, shaky unlocks, the top episodes.
    public func text() -> String {
        var out = "Audit: \(groundPoints) ground point\(groundPoints == 1 ? "" : "s"), \(flaggedPoints) flagged in \(episodeCount) episode\(episodeCount == 1 ? "" : "s") (within \(fixed(within, 0)) m)\n\n"
        out += "category              points  episodes   country  province      city    county\n"
        for category in AuditCategory.allCases {
            let c = count(category)
            out += category.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + leftPad("\(c.points)", 8) + leftPad("\(c.episodes)", 10)
            out += c.byLevel.map { leftPad("\($0)", 10) }.joined() + "\n"
        }
        out += "simplification-flip: \(simplification.note)\n"
        for s in datumSuggestions {
            out += "datum-flip: \(s.datumFlipPoints) of \(s.groundPoints) ground points of \(s.path); \(s.suggestion)\n"
        }
        let tentative = findings.filter { $0.kind == .tentative }, single = findings.filter { $0.kind == .singlePoint }
        out += "\nTentative unlocks: \(tentative.count); confirmed by a single point: \(single.count)\n"
        for f in findings.prefix(20) {
            out += "  \(f.kind.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)) \(f.key.level.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(label(f.key.level, f.key.index))"
            out += f.episodes.isEmpty ? "\n" : "  (episodes \(f.episodes.prefix(5).map(String.init).joined(separator: ", ")))\n"
        }
        if !ranked.isEmpty {
            out += "\nTop episodes\n"
            for e in ranked { out += e.line }
        }
        return out
    }
}
