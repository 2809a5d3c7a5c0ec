import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

/// Where one of the audit's documents goes. Its body streams while the run goes on; `finish`
/// completes it as head + body + tail. A document that opens with what is known at the start
/// (audit.json, audit.geojson) writes its opening as body and finishes with an empty head; the
/// HTML page's head holds the summary, known only at the end. (A file: the target is replaced
/// only once the document is complete.)
public protocol AuditDocument: AnyObject {
    /// Appends to the body.
    func append(_ bytes: [UInt8]) throws
    /// Completes the document as head + body + tail.
    func finish(head: [UInt8], tail: [UInt8]) throws
}

/// An `AuditDocument` kept in memory (tests, small archives, embedding apps).
public final class AuditDocumentBuffer: AuditDocument {
    /// The whole document, once finished.
    public private(set) var bytes: [UInt8] = []
    private var body: [UInt8] = []

    public init() {}

    public func append(_ bytes: [UInt8]) { body += bytes }

    public func finish(head: [UInt8], tail: [UInt8]) {
        bytes = head + body + tail
        body = []
    }

    /// The finished document as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The full-resolution boundary source, when it is at hand: the simplification-flip check and
/// the source's border lines on the maps. Implemented where GEOS lives (the command line), so
/// that this module stays pure Swift.
public protocol AuditSource: AnyObject {
    /// What is checked, for the report (e.g. which levels, against which release).
    var note: String { get }
    /// The source's region code per level it checks for the point (nil: in no region there).
    func codes(for point: AuditedPoint) throws -> [RegionLevel: String?]
    /// The source's borders, in WGS-84, of the regions it has loaded (those the points checked
    /// so far could be in), within the box.
    func borders(south: Double, west: Double, north: Double, east: Double) throws -> [SourceBorder]
}

/// A region's border in the full-resolution source, as runs of WGS-84 (latitude, longitude).
public struct SourceBorder {
    public var level: RegionLevel
    public var code: String
    public var runs: [[(latitude: Double, longitude: Double)]]

    public init(level: RegionLevel, code: String, runs: [[(latitude: Double, longitude: Double)]]) {
        self.level = level
        self.code = code
        self.runs = runs
    }
}

/// The audit report, written as episodes arrive: each episode goes straight into `audit.json`,
/// `audit.geojson` and `audit.html` (docs/audit-format.md) and is then forgotten, so memory does
/// not grow with the archive; the counts, the shaky unlocks and the ranking of episodes for the
/// terminal summary are kept. Everything is a function of the inputs, so output is deterministic.
public final class AuditReport {
    /// An unlock the audit lists: tentative (only flagged evidence), or confirmed by one point.
    public struct UnlockFinding {
        public enum Kind: String, Sendable {
            case tentative = "tentative-unlock"
            case singlePoint = "single-point-unlock"
        }
        public var kind: Kind
        public var key: RegionKey
        public var evidence: RegionEvidence
        /// Ids of the episodes with points in the region.
        public var episodes: [Int]
    }

    /// A border line near an episode, in WGS-84 (China table vertices converted back from GCJ-02).
    public struct BorderLine {
        /// "world" or "china".
        public var table: String
        public var arc: Int
        /// The coarsest level at which the arc is a border.
        public var level: RegionLevel
        /// One side is outside the table's coverage (a coast or the national border).
        public var coast: Bool
        /// Region codes either side at `level` ("" for none).
        public var left: String
        public var right: String
        /// Runs of (latitude, longitude) inside the episode's frame.
        public var runs: [[(latitude: Double, longitude: Double)]]
    }

    /// Points and episodes per category, and points per level.
    public struct CategoryCount: Equatable {
        public var points = 0
        public var episodes = 0
        /// Indexed by `RegionLevel.rawValue`.
        public var byLevel = [0, 0, 0, 0]
    }

    /// An episode's line in the terminal summary, with what ranks it.
    struct RankedEpisode {
        var categories: Int
        var points: Int
        var id: Int
        var line: String

        /// Most categories, then most points, then the earliest.
        static func ranksBefore(_ a: RankedEpisode, _ b: RankedEpisode) -> Bool {
            (a.categories, a.points, -a.id) > (b.categories, b.points, -b.id)
        }
    }

    public let locator: RegionLocator
    public let within: Double
    public let options: ClassifyOptions
    /// The full-resolution source: each episode is checked against it before it is written, and
    /// its borders drawn; nil when it is not at hand.
    public let source: AuditSource?
    /// Whether the simplification-flip category is checked, and what is and is not.
    public var simplification: (checked: Bool, note: String) {
        source.map { (true, $0.note) } ?? (false, "not checked (no source wheel: run Scripts/fetch-source and pass its path with --source)")
    }
    var world: RegionTable { locator.world }
    var china: RegionTable { locator.china }

    public private(set) var episodeCount = 0
    public private(set) var groundPoints: Int64 = 0
    public private(set) var flaggedPoints: Int64 = 0
    /// The inputs, once finished.
    public private(set) var inputs: [InputRecord] = []
    /// The shaky unlocks, once finished.
    public private(set) var findings: [UnlockFinding] = []
    /// Indexed by `AuditCategory.index(of:)`.
    private var categoryCounts = [CategoryCount](repeating: CategoryCount(), count: AuditCategory.allCases.count)
    private var episodesByRegion: [RegionKey: [Int]] = [:]
    /// Datum-flip points per input path (for ``datumSuggestions``).
    private var datumFlipsByInput: [String: Int64] = [:]
    /// Inputs a share of whose ground points flip with the datum, once finished.
    public private(set) var datumSuggestions: [DatumSuggestion] = []
    private var ranked: [RankedEpisode] = []
    /// How many episodes the terminal summary lists.
    public static let topEpisodes = 10

    private let jsonDocument, geoJSONDocument, htmlDocument: AuditDocument
    private var json = JSONTextBuffer(), geoJSON = JSONTextBuffer(), html: [UInt8] = []
    /// GeoJSON features written so far.
    private var featureCount = 0
    /// Bodies are handed to their documents in pieces of about this size.
    static let flushBytes = 1 << 20
    /// Region codes as JSON strings, per table (`[0]` world, `[1]` China), by region index.
    private let quotedCodes: [[[UInt8]]]
    /// Category lists as JSON arrays and as comma-separated JSON strings, by flag byte.
    private let categoryArrays: [[UInt8]], categoryStrings: [[UInt8]]

    public init(locator: RegionLocator, within: Double, options: ClassifyOptions,
                source: AuditSource? = nil, json: AuditDocument, geoJSON: AuditDocument, html: AuditDocument) {
        self.locator = locator
        self.within = within
        self.options = options
        self.source = source
        jsonDocument = json
        geoJSONDocument = geoJSON
        htmlDocument = html
        quotedCodes = [locator.world, locator.china].map { table in
            (0..<table.regionCount).map { i in
                var text = JSONTextBuffer()
                text.string(table.region(Int32(i)).code)
                return text.bytes
            }
        }
        categoryArrays = (0..<128).map { flags in
            var text = JSONTextBuffer()
            text.raw("[")
            for (k, category) in AuditCategory.decode(UInt8(flags)).enumerated() {
                if k > 0 { text.raw(",") }
                text.string(category.rawValue)
            }
            text.raw("]")
            return text.bytes
        }
        categoryStrings = (0..<128).map { flags in
            var text = JSONTextBuffer()
            text.string(AuditCategory.decode(UInt8(flags)).map(\.rawValue).joined(separator: ","))
            return text.bytes
        }
        // Both documents open with what is known before the run, so their bodies need no head.
        self.json.bytes = jsonDocument(withSummary: false).opening
        // The generator member (a GeoJSON foreign member) is how `classify` knows this file
        // as the tool's own output when it finds it inside an archive (docs/input-formats.md).
        self.geoJSON.raw("{\"type\":\"FeatureCollection\",\"generator\":\"adminunlocks-audit\",\"features\":[")
    }

    /// Points and episodes in `category`, so far.
    public func count(_ category: AuditCategory) -> CategoryCount {
        categoryCounts[AuditCategory.index(of: category)]
    }

    // MARK: Episodes

    /// Checks the episode against the source (when a check is set), counts it and writes it.
    public func add(_ episode: AuditEpisode) throws {
        var episode = episode
        let f = frame(of: episode)
        var sourceLines: [SourceBorder] = []
        if let source {
            try episode.checkSource(against: locator, source.codes(for:))
            sourceLines = try source.borders(south: f.south, west: f.west, north: f.north, east: f.east)
        }
        episodeCount += 1
        tally(episode)
        let lines = borderLines(in: f)
        // Rendered into local buffers: no exclusivity checks on the properties per token.
        var text = JSONTextBuffer()
        swap(&text, &json)
        writeJSON(episode, into: &text)
        swap(&text, &json)
        swap(&text, &geoJSON)
        writeGeoJSON(episode, lines: lines, sourceLines: sourceLines, into: &text)
        swap(&text, &geoJSON)
        html += section(episode, frame: f, lines: lines, sourceLines: sourceLines).utf8
        if json.bytes.count >= Self.flushBytes { try flushJSON() }
        if geoJSON.bytes.count >= Self.flushBytes { try flushGeoJSON() }
        if html.count >= Self.flushBytes { try flushHTML() }
    }

    /// Completes the three documents once the run is over: the summary and the shaky unlocks
    /// (from `ledger`, the same as classify's) go into their heads.
    public func finish(ledger: UnlockLedger, groundPoints: Int64, flaggedPoints: Int64) throws {
        self.groundPoints = groundPoints
        self.flaggedPoints = flaggedPoints
        inputs = ledger.inputs.values.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
        datumSuggestions = inputs.compactMap { input in
            DatumSuggestion(input: input, datumFlipPoints: datumFlipsByInput[input.path] ?? 0)
        }
        findings = []
        for (key, evidence) in try ledger.combined().regions.sorted(by: { $0.key < $1.key }) {
            let kind: UnlockFinding.Kind
            if evidence.confirmedBy == nil, evidence.tentativeBy != nil {
                kind = .tentative
            } else if evidence.confirmedBy != nil, evidence.insidePoints + evidence.edgePoints == 1 {
                kind = .singlePoint
            } else { continue }
            findings.append(UnlockFinding(kind: kind, key: key, evidence: evidence, episodes: episodesByRegion[key] ?? []))
        }
        try flushJSON()
        try flushGeoJSON()
        try flushHTML()
        try jsonDocument.finish(head: [], tail: Array((episodeCount == 0 ? "" : "\n  ").utf8) + jsonDocument(withSummary: true).closing)
        try geoJSONDocument.finish(head: [], tail: Array((featureCount == 0 ? "]}\n" : "\n]}\n").utf8))
        try htmlDocument.finish(head: Array(htmlHead().utf8), tail: Array("</body></html>\n".utf8))
    }

    private func flushJSON() throws {
        try jsonDocument.append(json.bytes)
        json.bytes.removeAll(keepingCapacity: true)
    }

    private func flushGeoJSON() throws {
        try geoJSONDocument.append(geoJSON.bytes)
        geoJSON.bytes.removeAll(keepingCapacity: true)
    }

    private func flushHTML() throws {
        try htmlDocument.append(html)
        html.removeAll(keepingCapacity: true)
    }

    /// Counts the episode's points per category and level, notes its regions (for the unlock
    /// findings) and ranks it for the terminal summary.
    private func tally(_ episode: AuditEpisode) {
        var episodeFlags: UInt8 = 0
        var keys = Set<RegionKey>()
        var lastRegions: [Int32?] = [nil, nil, nil, nil]
        let flipBit = AuditCategory.datumFlip.bit
        for point in episode.points {
            let flags = point.levelFlags
            let union = flags.union
            if union & flipBit != 0 { datumFlipsByInput[episode.input, default: 0] += 1 }
            episodeFlags |= union
            for k in 0..<AuditCategory.allCases.count where union & (1 << UInt8(k)) != 0 {
                categoryCounts[k].points += 1
                for level in 0..<4 where flags[level] & (1 << UInt8(k)) != 0 { categoryCounts[k].byLevel[level] += 1 }
            }
            for level in RegionLevel.allCases {
                let region = point.region(level)
                if let region, region != lastRegions[Int(level.rawValue)] { keys.insert(RegionKey(level: level, index: region)) }
                lastRegions[Int(level.rawValue)] = region
            }
        }
        for k in 0..<AuditCategory.allCases.count where episodeFlags & (1 << UInt8(k)) != 0 { categoryCounts[k].episodes += 1 }
        for key in keys { episodesByRegion[key, default: []].append(episode.id) }

        let candidate = RankedEpisode(categories: episodeFlags.nonzeroBitCount, points: episode.points.count, id: episode.id, line: "")
        guard ranked.count < Self.topEpisodes || RankedEpisode.ranksBefore(candidate, ranked.last!) else { return }
        var entry = candidate
        let when = timeText(episode.points.first?.point.time).map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed"
        let finest = RegionLevel.allCases.reversed().first { regions(of: episode, at: $0).count > 1 } ?? .country
        let places = regions(of: episode, at: finest).prefix(3).map { label(finest, $0) }.joined(separator: " / ")
        entry.line = "  #\(episode.id)  \(when)  \(episode.points.count) points  \(AuditCategory.decode(episodeFlags).map(\.rawValue).joined(separator: ","))  \(places)\n"
        ranked.append(entry)
        ranked.sort(by: RankedEpisode.ranksBefore)
        if ranked.count > Self.topEpisodes { ranked.removeLast() }
    }

    // MARK: Names

    func table(_ level: RegionLevel) -> RegionTable { level == .country ? world : china }

    func code(_ level: RegionLevel, _ region: Int32?) -> String? {
        region.map { table(level).region($0).code }
    }

    func label(_ level: RegionLevel, _ region: Int32) -> String {
        let r = table(level).region(region)
        return r.englishName.isEmpty || r.englishName == r.name ? "\(r.code) \(r.name)" : "\(r.code) \(r.name) \(r.englishName)"
    }

    func timeText(_ time: Int64?) -> String? {
        time.map { Timestamp.format($0, offsetMinutes: options.timeZone.offsetMinutes(at: $0)) }
    }

    /// The regions an episode's points are in, per level, in order of appearance.
    func regions(of episode: AuditEpisode, at level: RegionLevel) -> [Int32] {
        var seen: [Int32] = []
        for point in episode.points {
            if let r = point.region(level), seen.last != r, !seen.contains(r) { seen.append(r) }
        }
        return seen
    }

    // MARK: Frames and border lines

    /// The WGS-84 box an episode is drawn in: its points (and where datum-flip points would be
    /// without the shift), padded by `within`
    /// (at least 300 m across).
    public func frame(of episode: AuditEpisode) -> (south: Double, west: Double, north: Double, east: Double) {
        var s = 90.0, w = 180.0, n = -90.0, e = -180.0
        for p in episode.points {
            s = min(s, p.point.latitude); n = max(n, p.point.latitude)
            w = min(w, p.point.longitude); e = max(e, p.point.longitude)
            if let ghost = p.unshiftedPosition {
                s = min(s, ghost.latitude); n = max(n, ghost.latitude)
                w = min(w, ghost.longitude); e = max(e, ghost.longitude)
            }
        }
        let midLat = (s + n) / 2
        let padNorth = max(within, 150) / 111_320
        let padEast = padNorth / max(cosine(midLat), 0.05)
        return (s - padNorth, w - padEast, n + padNorth, e + padEast)
    }

    /// The border lines of both tables within an episode's frame.
    public func borderLines(for episode: AuditEpisode) -> [BorderLine] {
        borderLines(in: frame(of: episode))
    }

    /// The border lines of both tables within a frame.
    func borderLines(in f: (south: Double, west: Double, north: Double, east: Double)) -> [BorderLine] {
        var lines: [BorderLine] = []
        let midLat = (f.south + f.north) / 2, midLon = (f.west + f.east) / 2
        let halfHeight = (f.north - f.south) / 2, halfWidth = (f.east - f.west) / 2 * cosine(midLat)
        let radius = Int64(((halfHeight * halfHeight + halfWidth * halfWidth).squareRoot() / TableFormat.quantum).rounded(.up)) + 1
        func inFrame(_ lat: Double, _ lon: Double) -> Bool { lat >= f.south && lat <= f.north && lon >= f.west && lon <= f.east }
        for (name, table) in [("world", world), ("china", china)] {
            let isChina = name == "china"
            var centre = Coordinate(latitude: midLat, longitude: midLon)
            if isChina {
                guard ChinaRectangle().appliesShift(latitude: midLat, longitude: midLon) else { continue }
                centre = GCJ02.fromWGS84(centre)
            }
            let near = table.arcsNear(x: Int64((centre.longitude / TableFormat.quantum).rounded()),
                                      y: Int64((centre.latitude / TableFormat.quantum).rounded()), radius: radius)
            for (arc, _) in near.sorted(by: { $0.arc < $1.arc }) {
                let levels = table.borderLevels(ofArc: arc)
                guard let level = levels.min() else { continue }
                // Shift the frame test by the centre's offset (GCJ-02), then convert the kept vertices precisely.
                let dLat = centre.latitude - midLat, dLon = centre.longitude - midLon
                let vertices = table.arcVertices(arc).map { (Double($0.y) * TableFormat.quantum - dLat, Double($0.x) * TableFormat.quantum - dLon) }
                var runs: [[(latitude: Double, longitude: Double)]] = []
                var run: [(latitude: Double, longitude: Double)] = []
                for (i, v) in vertices.enumerated() {
                    let keep = inFrame(v.0, v.1) || (i > 0 && inFrame(vertices[i - 1].0, vertices[i - 1].1))
                        || (i + 1 < vertices.count && inFrame(vertices[i + 1].0, vertices[i + 1].1))
                    if keep {
                        if isChina {
                            let wgs = GCJ02.toWGS84(Coordinate(latitude: v.0 + dLat, longitude: v.1 + dLon))
                            run.append((wgs.latitude, wgs.longitude))
                        } else {
                            run.append((v.0, v.1))
                        }
                    } else if !run.isEmpty {
                        if run.count > 1 { runs.append(run) }
                        run = []
                    }
                }
                if run.count > 1 { runs.append(run) }
                guard !runs.isEmpty else { continue }
                let l = table.arcLeft[arc], r = table.arcRight[arc]
                func side(_ unit: Int32) -> String { unit < 0 ? "" : table.region(ofUnit: unit, at: level).map { table.region($0).code } ?? "" }
                lines.append(BorderLine(table: name, arc: arc, level: level, coast: l < 0 || r < 0, left: side(l), right: side(r), runs: runs))
            }
        }
        return lines
    }

    // MARK: JSON

    /// audit.json around its episodes' list (docs/audit-format.md): the opening (report, version,
    /// options, up to the list's bracket), known before the run; and, once it is over, the closing
    /// (the list's bracket, the summary and the unlocks). Rendered as one document with an empty
    /// list, split there, so the layout is `JSONValue`'s.
    private func jsonDocument(withSummary: Bool) -> (opening: [UInt8], closing: [UInt8]) {
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
            ("version", .number(1)),
            ("options", options),
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

    private func summaryJSON() -> JSONValue {
        let levelNames = RegionLevel.allCases.map(\.name)
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
                ("byLevel", .object(RegionLevel.allCases.map { level in (level.name, .number(Double(matching.filter { $0.key.level == level }.count))) })),
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
                         ("datumFlipPoints", .number(Double(s.datumFlipPoints))), ("suggestion", .string(s.suggestion))])
            })),
        ])
    }

    private func unlocksJSON() -> JSONValue {
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

    private func time(_ time: Int64?, into text: inout JSONTextBuffer) {
        if let time {
            text.raw("\"")
            Timestamp.append(time, offsetMinutes: options.timeZone.offsetMinutes(at: time), to: &text.bytes)
            text.raw("\"")
        } else {
            text.raw("null")
        }
    }

    private func region(_ level: RegionLevel, _ region: Int32?, into text: inout JSONTextBuffer) {
        if let region {
            text.bytes += quotedCodes[level == .country ? 0 : 1][Int(region)]
        } else {
            text.raw("null")
        }
    }

    private func status(_ status: PlacementStatus, into text: inout JSONTextBuffer) {
        switch status {
        case .inside: text.raw("\"inside\"")
        case .edge: text.raw("\"edge\"")
        case .outside: text.raw("\"outside\"")
        }
    }

    /// One episode of the `episodes` list: its facts one per line, then its crossings and points
    /// one per line each.
    private func writeJSON(_ e: AuditEpisode, into out: inout JSONTextBuffer) {
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
        for level in RegionLevel.allCases {
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
        for (k, p) in e.points.enumerated() {
            out.raw(k == 0 ? "\n        " : ",\n        ")
            writePoint(p, sourceCodes: e.sourceCodes.isEmpty ? nil : e.sourceCodes[k], into: &out)
        }
        out.raw(e.points.isEmpty ? "]\n    }" : "\n      ]\n    }")
    }

    /// One point on one line.
    private func writePoint(_ p: AuditedPoint, sourceCodes: [RegionLevel: String]?, into out: inout JSONTextBuffer) {
        out.raw("{\"time\":")
        time(p.point.time, into: &out)
        out.raw(",\"wgs84\":[")
        out.decimal(p.point.latitude, places: 7)
        out.raw(",")
        out.decimal(p.point.longitude, places: 7)
        out.raw("],\"gcj02\":")
        if let g = p.gcj02 {
            out.raw("[")
            out.decimal(g.latitude, places: 7)
            out.raw(",")
            out.decimal(g.longitude, places: 7)
            out.raw("]")
        } else {
            out.raw("null")
        }
        out.raw(",\"accuracy\":")
        out.decimal(p.point.accuracy, places: 1)
        out.raw(",\"categories\":")
        out.bytes += categoryArrays[Int(p.flags)]
        out.raw(",\"levels\":{")
        for level in RegionLevel.allCases {
            let found = p.placement.level(level)
            switch level {
            case .country: out.raw("\"country\":{\"code\":")
            case .province: out.raw(",\"province\":{\"code\":")
            case .city: out.raw(",\"city\":{\"code\":")
            case .county: out.raw(",\"county\":{\"code\":")
            }
            region(level, found.region, into: &out)
            out.raw(",\"status\":")
            status(found.status, into: &out)
            out.raw(",\"margin\":")
            out.decimal(found.marginMetres, places: 1)
            out.raw(",\"categories\":")
            out.bytes += categoryArrays[Int(p.levelFlags[level])]
            out.raw("}")
        }
        out.raw("}")
        if let unshifted = p.unshifted {
            out.raw(",\"unshifted\":{\"province\":")
            region(.province, unshifted.province, into: &out)
            out.raw(",\"city\":")
            region(.city, unshifted.city, into: &out)
            out.raw(",\"county\":")
            region(.county, unshifted.county, into: &out)
            out.raw("}")
        }
        if p.inDatumSeam { out.raw(",\"datumSeam\":true") }
        if let nearest = p.nearestCountry {
            out.raw(",\"nearest\":{\"code\":")
            region(.country, nearest.region, into: &out)
            out.raw(",\"metres\":")
            out.decimal(nearest.metres, places: 1)
            out.raw("}")
        }
        if let source = sourceCodes {
            out.raw(",\"source\":{")
            for (k, entry) in source.sorted(by: { $0.key < $1.key }).enumerated() {
                if k > 0 { out.raw(",") }
                out.string(entry.key.name)
                out.raw(":")
                out.string(entry.value.isEmpty ? nil : entry.value)
            }
            out.raw("}")
        }
        out.raw("}")
    }

    // MARK: GeoJSON

    /// The episode's flagged points and the border lines near it, one feature per line, WGS-84
    /// (RFC 7946 order: lon, lat).
    private func writeGeoJSON(_ e: AuditEpisode, lines: [BorderLine], sourceLines: [SourceBorder], into out: inout JSONTextBuffer) {
        for p in e.points {
            out.raw(featureCount == 0 ? "\n" : ",\n")
            featureCount += 1
            out.raw("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
            out.decimal(p.point.longitude, places: 7)
            out.raw(",")
            out.decimal(p.point.latitude, places: 7)
            out.raw("]},\"properties\":{\"kind\":\"point\",\"episode\":")
            out.integer(e.id)
            out.raw(",\"time\":")
            time(p.point.time, into: &out)
            out.raw(",\"categories\":")
            out.bytes += categoryStrings[Int(p.flags)]
            out.raw(",\"accuracy\":")
            out.decimal(p.point.accuracy, places: 1)
            for level in RegionLevel.allCases {
                let found = p.placement.level(level)
                switch level {
                case .country: out.raw(",\"country\":")
                case .province: out.raw(",\"province\":")
                case .city: out.raw(",\"city\":")
                case .county: out.raw(",\"county\":")
                }
                region(level, found.region, into: &out)
                switch level {
                case .country: out.raw(",\"countryStatus\":")
                case .province: out.raw(",\"provinceStatus\":")
                case .city: out.raw(",\"cityStatus\":")
                case .county: out.raw(",\"countyStatus\":")
                }
                status(found.status, into: &out)
                switch level {
                case .country: out.raw(",\"countryMargin\":")
                case .province: out.raw(",\"provinceMargin\":")
                case .city: out.raw(",\"cityMargin\":")
                case .county: out.raw(",\"countyMargin\":")
                }
                out.decimal(found.marginMetres, places: 1)
            }
            out.raw("}}")
        }
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
    private func beginLineFeature(_ runs: [[(latitude: Double, longitude: Double)]], kind: String, episode: Int, into out: inout JSONTextBuffer) {
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

    // MARK: Text

    /// A summary for a terminal: counts per category and level, shaky unlocks, the top episodes.
    public func text() -> String {
        var out = "Audit: \(groundPoints) ground points, \(flaggedPoints) flagged in \(episodeCount) episodes (within \(fixed(within, 0)) m)\n\n"
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

/// cos(latitude in degrees).
func cosine(_ degrees: Double) -> Double {
    cos(degrees * .pi / 180)
}

/// An input a share of whose ground points change region with the datum (datum-flip): the audit
/// suggests the datum option that would read it otherwise. A suggestion only: nothing is re-read.
public struct DatumSuggestion: Equatable, Sendable {
    /// An input is named when at least this share of its ground points flip, and at least
    /// ``minimumPoints`` do (docs/audit-format.md says why).
    public static let minimumShare = 0.1
    public static let minimumPoints: Int64 = 3

    public var path: String
    public var groundPoints: Int64
    public var datumFlipPoints: Int64
    /// What to try, e.g. `if it comes from a Chinese map app, classify it with --datum-for 'PATH=gcj02'`.
    public var suggestion: String

    /// The suggestion for `input`, or nil when too few of its points flip.
    public init?(input: InputRecord, datumFlipPoints: Int64) {
        let ground = input.pointsKept - input.pointsInFlight
        guard input.status != .skipped, ground > 0, datumFlipPoints >= Self.minimumPoints,
              Double(datumFlipPoints) >= Self.minimumShare * Double(ground) else { return nil }
        path = input.path
        groundPoints = ground
        self.datumFlipPoints = datumFlipPoints
        let option = "--datum-for '\(input.path)=%@'"
        if let hint = input.datumHint {
            suggestion = "its \(hint.reason): classify it with " + option.replacingOccurrences(of: "%@", with: hint.datum.rawValue)
        } else if (input.datum ?? .wgs84) == .wgs84 {
            suggestion = "if it comes from a Chinese map app, classify it with --datum gcj02 or " + option.replacingOccurrences(of: "%@", with: "gcj02")
                + " (bd09 for Baidu)"
        } else {
            suggestion = "it was read as \((input.datum ?? .wgs84).displayName): check that it is, or classify it with " + option.replacingOccurrences(of: "%@", with: "wgs84")
        }
    }
}
