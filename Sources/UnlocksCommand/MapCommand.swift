import ChinaDatum
import FootprintMap
import Foundation
import Intake
import RegionTables
import Unlocks

/// `unlocks map`: the footprint of a track archive as `footprint.geojson` and a self-contained
/// `footprint.html` in a folder (docs/footprint-format.md). Inputs and options as classify.
enum MapCommand {
    static let names = ["footprint.geojson", "footprint.html", "footprint-card.svg"]
        + SlippyTile.reportedZooms.flatMap { ["tiles-z\($0).geojson", "next-square-z\($0).geojson", "next-square-z\($0).gpx"] }

    /// Classify's options that shape the ledger and the report (not its output ones).
    static let classifyOptions = ["lenient", "since", "until", "include-plans", "include-passed-through", "explore-max-speed", "familiarity-levels", "include-virtual",
                                  "time-zone", "utc-offset", "datum", "datum-for", "tables", "worldview", "jobs"]

    static let spec = CommandSpec(
        name: "map",
        abstract: "Draw the footprint: explored cells and unlocked regions as GeoJSON and a self-contained HTML map.",
        usage: "[PATH...] --out DIR [--state FILE] [--lenient] [--include-virtual] [--include-plans] [--include-passed-through] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--since DATE] [--until DATE] [--datum wgs84|gcj02|bd09] [--datum-for GLOB=DATUM]... [--tables DIR] [--worldview NAME] [--jobs N]",
        options: [.value("out", "DIR", "Folder for footprint.geojson, footprint.html, footprint-card.svg and the tile files (created if missing; all replaced together)."),
                  .value("state", "FILE", "Draw the ledger kept in FILE by classify --state (read, never written): alone when no PATH is given, else with PATH's inputs added for this map only.")]
            + RuleOptions.classifyOptionSpecs.filter { classifyOptions.contains($0.name) },
        discussion: """
        Reads PATH exactly as classify does, with the same options; with --state FILE and no
        PATH it draws the state alone (the state is read, never written: the map adds nothing
        to it). footprint.html is one page that fetches nothing, for a laptop or a phone: a map
        to pan and zoom from the world to the streets (regions shaded by unlock and share
        explored, cells by familiarity, explorer tiles and the max square), the places you
        have been, the growth and every unlock. footprint-card.svg is a card to post.
        footprint.geojson holds the explored cells merged into polygons per region and the
        unlocked regions' outlines (WGS-84); tiles-z14.geojson and tiles-z17.geojson the
        visited explorer tiles; next-square-z14/z17.geojson and .gpx the tiles missing from
        the square one larger than the max square (waypoints at their centres). Exit codes as
        classify.
        """
    )

    /// The state's bytes; a missing file is an error here (classify starts a new state there, but
    /// the map never writes one, so a wrong name would silently draw nothing).
    static func readState(_ path: String) throws -> [UInt8] {
        guard let bytes = try StateFile.read(path) else { throw StateError(path: path, reason: "no such state (unlocks classify --state FILE writes one)") }
        return bytes
    }

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty || arguments.value("state") != nil else {
            throw UsageError(message: "give at least one file, folder or archive to map, or --state FILE to draw a state")
        }
        guard let out = arguments.value("out") else { throw UsageError(message: "--out DIR is required (the folder for footprint.geojson and footprint.html)") }
        var options = try CommandIntake.options(arguments)
        options.jobs = try RuleOptions.jobCount(arguments)
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let statePath = arguments.value("state")
        let files = try CommandIntake.walk(arguments.positionals, outputs: names.map { ("--out", out + "/" + $0) }, named: statePath.map { [$0] } ?? [])
        let progress = ProgressLine()
        var stateBytes = try statePath.map(readState)
        RuleOptions.takeZone(of: stateBytes, into: &options.classify, arguments)
        var run = IntakeRun(locator: locator, options: options,
                            ledger: try stateBytes.map {
                                try LedgerState.decode($0, path: statePath!, options: options.classify, tables: locator.tables)
                            } ?? UnlockLedger(), events: CommandIntake.events(progress))
        stateBytes = nil
        let outcome = CommandIntake.take(files, into: &run, progress: progress)
        // The combined view once, for the report and the footprint.
        let combined = try outcome.ledger.combined()
        let report = try ClassifyReport(ledger: outcome.ledger, combined: combined, tables: locator.tables, options: options.classify,
                                        lenient: arguments.flags.contains("lenient"), includePassedThrough: arguments.flags.contains("include-passed-through"))
        let footprint = Footprint(report: report, cells: combined.cells, cellPasses: combined.cellPasses, tables: locator.tables)
        let geoJSON = Array(footprint.geoJSON().utf8), html = Array(footprint.html().utf8), card = Array(footprint.card().utf8)

        try OutputFolder.prepare(out)
        let outputs = try OutputFileSet(out: out, names: names, stagingMarker: ".map-")
        defer { outputs.discard() }
        try outputs.write(geoJSON, as: names[0])
        try outputs.write(html, as: names[1])
        try outputs.write(card, as: names[2])
        for zoom in SlippyTile.reportedZooms {
            let tiles = report.visitedTiles[zoom]!
            let frontier = SquareFrontier(tiles: tiles, zoom: zoom)
            try outputs.write(Array(ExplorerTileFiles.visitedGeoJSON(tiles, zoom: zoom).utf8), as: "tiles-z\(zoom).geojson")
            try outputs.write(Array(ExplorerTileFiles.frontierGeoJSON(frontier).utf8), as: "next-square-z\(zoom).geojson")
            try outputs.write(Array(ExplorerTileFiles.frontierGPX(frontier).utf8), as: "next-square-z\(zoom).gpx")
        }
        try outputs.commit()
        let output = BufferedOutput()
        try output.write("Wrote \(out)/footprint.geojson (\(geoJSON.count) bytes), footprint.html (\(html.count) bytes), footprint-card.svg (\(card.count) bytes), "
                         + "tiles-z14/z17.geojson and next-square-z14/z17.geojson/.gpx\n")
        try output.flush()
        return CommandIntake.conclude(outcome, includePlans: options.classify.includePlans)
    }
}
