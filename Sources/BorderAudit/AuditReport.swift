import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

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
    var categoryCounts = [CategoryCount](repeating: CategoryCount(), count: AuditCategory.allCases.count)
    var episodesByRegion: [RegionKey: [Int]] = [:]
    /// Datum-flip points per input path (for ``datumSuggestions``).
    var datumFlipsByInput: [String: Int64] = [:]
    /// Per input path, datum-flip points off China's coast as read that the other datum puts on
    /// land, and the reverse (``Landfall``).
    var landfallByInput: [String: Landfall] = [:]
    /// The world table's index of China.
    let chinaCountry: Int32?
    /// Inputs a share of whose ground points flip with the datum, once finished.
    public private(set) var datumSuggestions: [DatumSuggestion] = []
    var ranked: [RankedEpisode] = []
    /// How many episodes the terminal summary lists.
    public static let topEpisodes = 10

    let jsonDocument, geoJSONDocument, htmlDocument: AuditDocument
    var json = JSONTextBuffer(), geoJSON = JSONTextBuffer(), html: [UInt8] = []
    /// GeoJSON features written so far.
    var featureCount = 0
    /// Bodies are handed to their documents in pieces of about this size.
    static let flushBytes = 1 << 20
    /// Region codes as JSON strings, per table (`[0]` world, `[1]` China), by region index.
    let quotedCodes: [[[UInt8]]]
    /// Category lists as JSON arrays and as comma-separated JSON strings, by flag byte.
    let categoryArrays: [[UInt8]], categoryStrings: [[UInt8]]

    public init(locator: RegionLocator, within: Double, options: ClassifyOptions,
                source: AuditSource? = nil, json: AuditDocument, geoJSON: AuditDocument, html: AuditDocument) {
        self.locator = locator
        self.within = within
        self.options = options
        self.source = source
        chinaCountry = (0..<Int32(locator.world.regionCount)).first { locator.world.region($0).code == "CHN" }
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
            DatumSuggestion(input: input, datumFlipPoints: datumFlipsByInput[input.path] ?? 0, landfall: landfallByInput[input.path] ?? Landfall())
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

    func flushJSON() throws {
        try jsonDocument.append(json.bytes)
        json.bytes.removeAll(keepingCapacity: true)
    }

    func flushGeoJSON() throws {
        try geoJSONDocument.append(geoJSON.bytes)
        geoJSON.bytes.removeAll(keepingCapacity: true)
    }

    func flushHTML() throws {
        try htmlDocument.append(html)
        html.removeAll(keepingCapacity: true)
    }

    /// Counts the episode's points per category and level, notes its regions (for the unlock
    /// findings) and ranks it for the terminal summary.
    func tally(_ episode: AuditEpisode) {
        var episodeFlags: UInt8 = 0
        var keys = Set<RegionKey>()
        var lastRegions: [Int32?] = [nil, nil, nil, nil]
        let flipBit = AuditCategory.datumFlip.bit
        for point in episode.points {
            let flags = point.levelFlags
            let union = flags.union
            if union & flipBit != 0 {
                datumFlipsByInput[episode.input, default: 0] += 1
                if let unshifted = point.unshifted {
                    let country = point.placement.country.region
                    let offshore = point.placement.province.region == nil && (country == nil || country == chinaCountry)
                    if offshore && unshifted.province != nil { landfallByInput[episode.input, default: Landfall()].otherOnLand += 1 }
                    if point.placement.province.status == .inside && unshifted.province == nil { landfallByInput[episode.input, default: Landfall()].readOnLand += 1 }
                }
            }
            episodeFlags |= union
            for k in 0..<AuditCategory.allCases.count where union & (1 << UInt8(k)) != 0 {
                categoryCounts[k].points += 1
                for level in 0..<4 where flags[level] & (1 << UInt8(k)) != 0 { categoryCounts[k].byLevel[level] += 1 }
            }
            for level in RegionLevel.tableLevels {
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
        let finest = RegionLevel.tableLevels.reversed().first { regions(of: episode, at: $0).count > 1 } ?? .country
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
}

/// cos(latitude in degrees).
func cosine(_ degrees: Double) -> Double {
    cos(degrees * .pi / 180)
}
