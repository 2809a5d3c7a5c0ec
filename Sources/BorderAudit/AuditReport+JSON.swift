import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

// audit.json: its opening and closing around the episodes, and each episode as it is written.

extension AuditReport {
    /// audit.json around its episodes' list (docs/audit-format.md): the opening (report, version,
    /// options, up to the list's bracket), known before the run; and, once it is over, the closing
    /// (the list's bracket, the summary and the unlocks). Rendered as one document with an empty
    /// list, split there, so the layout is `JSONValue`'s.
    func jsonDocument(withSummary: Bool) -> (opening: [UInt8], closing: [UInt8]) {
        let options: JSONValue = .object([
            ("withinMetres", .number(within)),
            ("timeZone", .string(self.options.timeZone.description)),
            ("utcOffset", self.options.timeZone.fixedMinutes.map { .string(LocalTimeZone.offsetText($0)) } ?? .null),
            ("inputDatum", .string(self.options.inputDatum.rawValue)),
            ("assumedAccuracyMetres", .number(self.options.assumedAccuracy)),
            ("simplificationChecked", .bool(simplification.checked)),
            ("simplificationNote", .string(simplification.note)),
        ])
        var members: [(key: String, value: JSONValue)] = [
            ("report", .string("adminunlocks-audit")),
            ("version", .number(2)),
            ("options", options),
            ("categoryBits", .object(AuditCategory.allCases.map { ($0.rawValue, .number(Double($0.bit))) })),
            ("pointFields", .array(["time", "latitude", "longitude", "accuracy", "categories"].map { .string($0) }
                                   + RegionLevel.tableLevels.map { .string($0.name) } + [.string("more")])),
            ("levelFields", .array(["region", "status", "margin", "categories"].map { .string($0) })),
            ("episodes", .array([])),
        ]
        if withSummary {
            members.append(("summary", summaryJSON()))
            members.append(("unlocks", unlocksJSON()))
        }
        let rendered = JSONValue.object(members).renderedUTF8(compactDepth: 4) + [0x0A]
        let marker = Array("\"episodes\": [".utf8)
        let split = (0...(rendered.count - marker.count)).first { rendered[$0..<($0 + marker.count)].elementsEqual(marker) }! + marker.count
        return (Array(rendered[..<split]), Array(rendered[split...]))
    }

    func summaryJSON() -> JSONValue {
        let levelNames = RegionLevel.tableLevels.map(\.name)
        var categories: [(key: String, value: JSONValue)] = AuditCategory.allCases.map { category in
            let c = count(category)
            return (category.rawValue, .object([
                ("points", .number(Double(c.points))), ("episodes", .number(Double(c.episodes))),
                ("byLevel", .object(zip(levelNames, c.byLevel).map { ($0, .number(Double($1))) })),
            ]))
        }
        for kind in [UnlockFinding.Kind.tentative, .singlePoint] {
            let matching = findings.filter { $0.kind == kind }
            categories.append((kind.rawValue, .object([
                ("unlocks", .number(Double(matching.count))),
                ("byLevel", .object(RegionLevel.tableLevels.map { level in (level.name, .number(Double(matching.filter { $0.key.level == level }.count))) })),
            ])))
        }
        let failed = inputs.filter { $0.status == .partial || $0.status == .rejected }
        let skipped = inputs.filter { $0.status == .skipped }.count
        return .object([
            ("inputs", .number(Double(inputs.count - skipped))),
            ("inputsSkipped", .number(Double(skipped))),
            ("inputsWithErrors", .array(failed.map { .object([("path", .string($0.path)), ("status", .string($0.status.rawValue)), ("error", .string($0.error ?? ""))]) })),
            ("groundPoints", .number(Double(groundPoints))),
            ("pointsInFlight", .number(Double(inputs.reduce(0) { $0 + $1.pointsInFlight }))),
            ("flaggedPoints", .number(Double(flaggedPoints))),
            ("episodes", .number(Double(episodeCount))),
            ("categories", .object(categories)),
            ("datumSuggestions", .array(datumSuggestions.map { s in
                .object([("path", .string(s.path)), ("groundPoints", .number(Double(s.groundPoints))),
                         ("datumFlipPoints", .number(Double(s.datumFlipPoints))), ("evidence", .string(s.evidence.rawValue)),
                         ("offshorePoints", .number(Double(s.landfall.otherOnLand))), ("onshorePoints", .number(Double(s.landfall.readOnLand))),
                         ("suggestion", .string(s.suggestion))])
            })),
        ])
    }

    func unlocksJSON() -> JSONValue {
        .array(findings.map { f in
            let region = table(f.key.level).region(f.key.index)
            let visit = f.evidence.confirmedBy ?? f.evidence.tentativeBy
            return .object([
                ("kind", .string(f.kind.rawValue)), ("level", .string(f.key.level.name)), ("code", .string(region.code)),
                ("name", .string(region.name)), ("insidePoints", .number(Double(f.evidence.insidePoints))),
                ("edgePoints", .number(Double(f.evidence.edgePoints))),
                ("evidence", visit.map { v in .object([("time", timeText(v.time).map { .string($0) } ?? .null),
                                                       ("latitude", .number(rounded(v.latitude, 7))), ("longitude", .number(rounded(v.longitude, 7)))]) } ?? .null),
                ("episodes", .array(f.episodes.map { .number(Double($0)) })),
            ])
        })
    }

    func time(_ time: Int64?, into text: inout JSONTextBuffer) {
        if let time {
            text.raw("\"")
            Timestamp.append(time, offsetMinutes: options.timeZone.offsetMinutes(at: time), to: &text.bytes)
            text.raw("\"")
        } else {
            text.raw("null")
        }
    }

    func region(_ level: RegionLevel, _ region: Int32?, into text: inout JSONTextBuffer) {
        if let region {
            text.bytes += quotedCodes[level == .country ? 0 : 1][Int(region)]
        } else {
            text.raw("null")
        }
    }

    func status(_ status: PlacementStatus, into text: inout JSONTextBuffer) {
        switch status {
        case .inside: text.raw("\"inside\"")
        case .edge: text.raw("\"edge\"")
        case .outside: text.raw("\"outside\"")
        }
    }

    /// One episode of the `episodes` list: its facts one per line, then its crossings and points
    /// one per line each.
    func writeJSON(_ e: AuditEpisode, into out: inout JSONTextBuffer) {
        out.raw(episodeCount == 1 ? "\n    {\n      \"id\": " : ",\n    {\n      \"id\": ")
        out.integer(e.id)
        out.raw(",\n      \"input\": ")
        out.string(e.input)
        out.raw(",\n      \"segment\": ")
        out.integer(e.segment)
        if let previous = e.continues {
            out.raw(",\n      \"continues\": ")
            out.integer(previous)
        }
        out.raw(",\n      \"start\": ")
        time(e.points.first?.point.time, into: &out)
        out.raw(",\n      \"end\": ")
        time(e.points.last?.point.time, into: &out)
        out.raw(",\n      \"pointCount\": ")
        out.integer(e.points.count)
        out.raw(",\n      \"categories\": ")
        out.bytes += categoryArrays[Int(e.flags)]
        out.raw(",\n      \"regions\": {")
        for level in RegionLevel.tableLevels {
            if level != .country { out.raw(",") }
            out.string(level.name)
            out.raw(":[")
            for (k, r) in regions(of: e, at: level).enumerated() {
                if k > 0 { out.raw(",") }
                region(level, r, into: &out)
            }
            out.raw("]")
        }
        out.raw("},\n      \"crossings\": [")
        for (k, c) in e.crossings.enumerated() {
            out.raw(k == 0 ? "\n        {\"level\":" : ",\n        {\"level\":")
            out.string(c.level.name)
            out.raw(",\"from\":")
            region(c.level, c.from, into: &out)
            out.raw(",\"to\":")
            region(c.level, c.to, into: &out)
            out.raw(",\"time\":")
            time(c.time, into: &out)
            out.raw(",\"latitude\":")
            out.decimal(c.latitude, places: 7)
            out.raw(",\"longitude\":")
            out.decimal(c.longitude, places: 7)
            out.raw("}")
        }
        out.raw(e.crossings.isEmpty ? "],\n      \"points\": [" : "\n      ],\n      \"points\": [")
        let lists = RegionLevel.tableLevels.map { regions(of: e, at: $0) }
        let start = e.points.first?.point.time
        for (k, p) in e.points.enumerated() {
            out.raw(k == 0 ? "\n        " : ",\n        ")
            writePointRow(p, start: start, regionLists: lists, sourceCodes: e.sourceCodes.isEmpty ? nil : e.sourceCodes[k], into: &out)
        }
        out.raw(e.points.isEmpty ? "]\n    }" : "\n      ]\n    }")
    }
}
