import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks

/// The audit report: the episodes a `BorderAuditor` found, the shaky unlocks of the ledger, and
/// the border lines near each episode; rendered as JSON (docs/audit-format.md), GeoJSON, HTML
/// and a terminal summary. Everything is a function of the inputs, so output is deterministic.
public struct AuditReport {
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

    public let episodes: [AuditEpisode]
    public let findings: [UnlockFinding]
    public let inputs: [InputRecord]
    public let groundPoints: Int64
    public let flaggedPoints: Int64
    public let within: Double
    public let options: ClassifyOptions
    /// Whether the simplification-flip category was checked (at some levels), and what was and was not.
    public let simplification: (checked: Bool, note: String)
    public let world: RegionTable
    public let china: RegionTable

    public init(auditor: BorderAuditor, ledger: UnlockLedger, simplification: (checked: Bool, note: String)) {
        episodes = auditor.episodes
        groundPoints = auditor.groundPoints
        flaggedPoints = auditor.flaggedPoints
        within = auditor.within
        options = auditor.options
        world = auditor.locator.world
        china = auditor.locator.china
        self.simplification = simplification
        inputs = ledger.inputs.values.sorted { ($0.path, $0.fingerprint) < ($1.path, $1.fingerprint) }
        var byRegion: [RegionKey: [Int]] = [:]
        for episode in episodes {
            var keys = Set<RegionKey>()
            for point in episode.points {
                for level in RegionLevel.allCases {
                    if let region = point.region(level) { keys.insert(RegionKey(level: level, index: region)) }
                }
            }
            for key in keys { byRegion[key, default: []].append(episode.id) }
        }
        var findings: [UnlockFinding] = []
        for (key, evidence) in ledger.regions.sorted(by: { $0.key < $1.key }) {
            let kind: UnlockFinding.Kind
            if evidence.confirmedBy == nil, evidence.tentativeBy != nil {
                kind = .tentative
            } else if evidence.confirmedBy != nil, evidence.insidePoints + evidence.edgePoints == 1 {
                kind = .singlePoint
            } else { continue }
            findings.append(UnlockFinding(kind: kind, key: key, evidence: evidence, episodes: byRegion[key] ?? []))
        }
        self.findings = findings
    }

    // MARK: Figures

    /// Points and episodes per category, and points per level.
    public struct CategoryCount: Equatable {
        public var points = 0
        public var episodes = 0
        /// Indexed by `RegionLevel.rawValue`.
        public var byLevel = [0, 0, 0, 0]
    }

    public var counts: [AuditCategory: CategoryCount] {
        var counts: [AuditCategory: CategoryCount] = [:]
        for category in AuditCategory.allCases { counts[category] = CategoryCount() }
        for episode in episodes {
            for category in AuditCategory.decode(episode.flags) { counts[category]!.episodes += 1 }
            for point in episode.points {
                for category in AuditCategory.decode(point.flags) { counts[category]!.points += 1 }
                for (level, bits) in point.levelFlags.enumerated() {
                    for category in AuditCategory.decode(bits) { counts[category]!.byLevel[level] += 1 }
                }
            }
        }
        return counts
    }

    func table(_ level: RegionLevel) -> RegionTable { level == .country ? world : china }

    func code(_ level: RegionLevel, _ region: Int32?) -> String? {
        region.map { table(level).region($0).code }
    }

    func label(_ level: RegionLevel, _ region: Int32) -> String {
        let r = table(level).region(region)
        return r.englishName.isEmpty || r.englishName == r.name ? "\(r.code) \(r.name)" : "\(r.code) \(r.name) \(r.englishName)"
    }

    func timeText(_ time: Int64?) -> String? {
        time.map { Timestamp.format($0, offsetMinutes: options.utcOffsetMinutes) }
    }

    /// The regions an episode's points are in, per level, in order of appearance.
    func regions(of episode: AuditEpisode, at level: RegionLevel) -> [Int32] {
        var seen: [Int32] = []
        for point in episode.points {
            if let r = point.region(level), !seen.contains(r) { seen.append(r) }
        }
        return seen
    }

    /// Episodes ranked for a person: most categories, then most points, then id.
    public var rankedEpisodes: [AuditEpisode] {
        episodes.sorted {
            let a = $0.flags.nonzeroBitCount, b = $1.flags.nonzeroBitCount
            if a != b { return a > b }
            if $0.points.count != $1.points.count { return $0.points.count > $1.points.count }
            return $0.id < $1.id
        }
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
        let f = frame(of: episode)
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

    /// The report as JSON (docs/audit-format.md), keys in a fixed order.
    public func json() -> JSONValue {
        let counts = self.counts
        let levelNames = RegionLevel.allCases.map(\.name)
        var categories: [(key: String, value: JSONValue)] = AuditCategory.allCases.map { category in
            let c = counts[category]!
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
        let failed = inputs.filter { $0.status != .ok }
        let summary: JSONValue = .object([
            ("inputs", .number(Double(inputs.count))),
            ("inputsWithErrors", .array(failed.map { .object([("path", .string($0.path)), ("status", .string($0.status.rawValue)), ("error", .string($0.error ?? ""))]) })),
            ("groundPoints", .number(Double(groundPoints))),
            ("pointsInFlight", .number(Double(inputs.reduce(0) { $0 + $1.pointsInFlight }))),
            ("flaggedPoints", .number(Double(flaggedPoints))),
            ("episodes", .number(Double(episodes.count))),
            ("categories", .object(categories)),
        ])
        let options: JSONValue = .object([
            ("withinMetres", .number(within)),
            ("utcOffset", .string(ClassifyReport.offsetText(self.options.utcOffsetMinutes))),
            ("inputDatum", .string(self.options.inputDatum.rawValue)),
            ("assumedAccuracyMetres", .number(self.options.assumedAccuracy)),
            ("simplificationChecked", .bool(simplification.checked)),
            ("simplificationNote", .string(simplification.note)),
        ])
        let unlocks: JSONValue = .array(findings.map { f in
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
        return .object([
            ("report", .string("adminunlocks-audit")),
            ("version", .number(1)),
            ("options", options),
            ("summary", summary),
            ("unlocks", unlocks),
            ("episodes", .array(episodes.map(episodeJSON))),
        ])
    }

    func episodeJSON(_ e: AuditEpisode) -> JSONValue {
        .object([
            ("id", .number(Double(e.id))),
            ("input", .string(e.input)),
            ("segment", .number(Double(e.segment))),
            ("start", timeText(e.points.first?.point.time).map { .string($0) } ?? .null),
            ("end", timeText(e.points.last?.point.time).map { .string($0) } ?? .null),
            ("pointCount", .number(Double(e.points.count))),
            ("categories", .array(AuditCategory.decode(e.flags).map { .string($0.rawValue) })),
            ("regions", .object(RegionLevel.allCases.map { level in (level.name, .array(regions(of: e, at: level).map { .string(code(level, $0)!) })) })),
            ("crossings", .array(e.crossings.map { c in .object([
                ("level", .string(c.level.name)), ("from", code(c.level, c.from).map { .string($0) } ?? .null),
                ("to", code(c.level, c.to).map { .string($0) } ?? .null), ("time", timeText(c.time).map { .string($0) } ?? .null),
                ("latitude", .number(rounded(c.latitude, 7))), ("longitude", .number(rounded(c.longitude, 7))),
            ]) })),
            ("points", .array(e.points.map(pointJSON))),
        ])
    }

    func pointJSON(_ p: AuditedPoint) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("time", timeText(p.point.time).map { .string($0) } ?? .null),
            ("wgs84", .array([.number(rounded(p.point.latitude, 7)), .number(rounded(p.point.longitude, 7))])),
            ("gcj02", p.gcj02.map { .array([.number(rounded($0.latitude, 7)), .number(rounded($0.longitude, 7))]) } ?? .null),
            ("accuracy", p.point.accuracy.map { .number(rounded($0, 1)) } ?? .null),
            ("categories", .array(AuditCategory.decode(p.flags).map { .string($0.rawValue) })),
            ("levels", .object(RegionLevel.allCases.map { level in
                let found = p.placement.level(level)
                return (level.name, .object([
                    ("code", code(level, found.region).map { .string($0) } ?? .null),
                    ("status", .string(found.status.rawValue)),
                    ("margin", found.marginMetres.map { .number(rounded($0, 1)) } ?? .null),
                    ("categories", .array(AuditCategory.decode(p.levelFlags[Int(level.rawValue)]).map { .string($0.rawValue) })),
                ]))
            })),
        ]
        if let unshifted = p.unshifted {
            members.append(("unshifted", .object(zip([RegionLevel.province, .city, .county], unshifted).map { level, region in
                (level.name, code(level, region).map { .string($0) } ?? .null)
            })))
        }
        if p.inDatumSeam { members.append(("datumSeam", .bool(true))) }
        if let nearest = p.nearestCountry {
            members.append(("nearest", .object([("code", .string(world.region(nearest.region).code)), ("metres", .number(rounded(nearest.metres, 1)))])))
        }
        if let source = p.sourceCodes {
            members.append(("source", .object(source.sorted { $0.key < $1.key }.map { ($0.key.name, $0.value.isEmpty ? .null : .string($0.value)) })))
        }
        return .object(members)
    }

    // MARK: GeoJSON

    /// The flagged points and the border lines near each episode, WGS-84 (RFC 7946 order: lon, lat).
    public func geoJSON() -> JSONValue {
        var features: [JSONValue] = []
        for e in episodes {
            for p in e.points {
                var properties: [(key: String, value: JSONValue)] = [
                    ("kind", .string("point")), ("episode", .number(Double(e.id))),
                    ("time", timeText(p.point.time).map { .string($0) } ?? .null),
                    ("categories", .string(AuditCategory.decode(p.flags).map(\.rawValue).joined(separator: ","))),
                    ("accuracy", p.point.accuracy.map { .number(rounded($0, 1)) } ?? .null),
                ]
                for level in RegionLevel.allCases {
                    let found = p.placement.level(level)
                    properties.append((level.name, code(level, found.region).map { .string($0) } ?? .null))
                    properties.append((level.name + "Status", .string(found.status.rawValue)))
                    properties.append((level.name + "Margin", found.marginMetres.map { .number(rounded($0, 1)) } ?? .null))
                }
                features.append(.object([
                    ("type", .string("Feature")),
                    ("geometry", .object([("type", .string("Point")),
                                          ("coordinates", .array([.number(rounded(p.point.longitude, 7)), .number(rounded(p.point.latitude, 7))]))])),
                    ("properties", .object(properties)),
                ]))
            }
            for line in borderLines(for: e) {
                features.append(.object([
                    ("type", .string("Feature")),
                    ("geometry", .object([("type", .string("MultiLineString")), ("coordinates", .array(line.runs.map { run in
                        .array(run.map { .array([.number(rounded($0.longitude, 7)), .number(rounded($0.latitude, 7))]) })
                    }))])),
                    ("properties", .object([
                        ("kind", .string("border")), ("episode", .number(Double(e.id))), ("table", .string(line.table)),
                        ("arc", .number(Double(line.arc))), ("level", .string(line.level.name)), ("coast", .bool(line.coast)),
                        ("left", .string(line.left)), ("right", .string(line.right)),
                    ])),
                ]))
            }
        }
        return .object([("type", .string("FeatureCollection")), ("features", .array(features))])
    }

    // MARK: Text

    /// A summary for a terminal: counts per category and level, shaky unlocks, the top episodes.
    public func text(top: Int = 10) -> String {
        let counts = self.counts
        var out = "Audit: \(groundPoints) ground points, \(flaggedPoints) flagged in \(episodes.count) episodes (within \(fixed(within, 0)) m)\n\n"
        out += "category              points  episodes   country  province      city    county\n"
        for category in AuditCategory.allCases {
            let c = counts[category]!
            out += category.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + leftPad("\(c.points)", 8) + leftPad("\(c.episodes)", 10)
            out += c.byLevel.map { leftPad("\($0)", 10) }.joined() + "\n"
        }
        out += "simplification-flip: \(simplification.note)\n"
        let tentative = findings.filter { $0.kind == .tentative }, single = findings.filter { $0.kind == .singlePoint }
        out += "\nTentative unlocks: \(tentative.count); confirmed by a single point: \(single.count)\n"
        for f in findings.prefix(20) {
            out += "  \(f.kind.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)) \(f.key.level.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(label(f.key.level, f.key.index))"
            out += f.episodes.isEmpty ? "\n" : "  (episodes \(f.episodes.prefix(5).map(String.init).joined(separator: ", ")))\n"
        }
        if !episodes.isEmpty {
            out += "\nTop episodes\n"
            for e in rankedEpisodes.prefix(top) {
                let when = timeText(e.points.first?.point.time).map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed"
                let finest = RegionLevel.allCases.reversed().first { regions(of: e, at: $0).count > 1 } ?? .country
                let places = regions(of: e, at: finest).prefix(3).map { label(finest, $0) }.joined(separator: " / ")
                out += "  #\(e.id)  \(when)  \(e.points.count) points  \(AuditCategory.decode(e.flags).map(\.rawValue).joined(separator: ","))  \(places)\n"
            }
        }
        return out
    }
}

/// cos(latitude in degrees).
func cosine(_ degrees: Double) -> Double {
    cos(degrees * .pi / 180)
}
