import ChinaDatum
import FootprintMap
import Foundation
import Intake
import LogbookStore
import RegionTables
import Unlocks

/// `unlocks map`: the footprint of a track archive as `footprint.geojson` and a self-contained
/// `footprint.html` in a folder (docs/footprint-format.md). Inputs and options as classify.
enum MapCommand {
    static let names = ["footprint.geojson", "footprint.html", "footprint-card.svg", "footprint-card.png"]
        + SlippyTile.reportedZooms.flatMap { ["tiles-z\($0).geojson", "next-square-z\($0).geojson", "next-square-z\($0).gpx"] }

    /// Classify's options that shape the ledger and the report (not its output ones).
    static let classifyOptions = ["lenient", "since", "until", "include-plans", "include-passed-through", "explore-max-speed", "familiarity-levels", "include-virtual",
                                  "time-zone", "utc-offset", "datum", "datum-for", "tables", "worldview", "jobs"]

    static let spec = CommandSpec(
        name: "map",
        abstract: "Draw the footprint: explored cells and unlocked regions as GeoJSON and a self-contained HTML map.",
        usage: "[PATH...] --out DIR [--state FILE] [--lenient] [--include-virtual] [--include-plans] [--include-passed-through] [--explore-max-speed KMH] [--familiarity-levels L,B,G] [--time-zone NAME | --utc-offset ±HH:MM] [--since DATE] [--until DATE] [--datum wgs84|gcj02|bd09] [--datum-for GLOB=DATUM]... [--tables DIR] [--worldview NAME] [--jobs N] [--language CODE]",
        options: [.value("out", "DIR", "Folder for footprint.geojson, footprint.html, footprint-card.svg and .png and the tile files (created if missing; all replaced together)."),
                  .value("state", "FILE", "Draw the logbook FILE made by classify --state (read, never written): alone when no PATH is given, else with PATH's inputs added for this map only."),
                  LogbookAccess.keyOption,
                  .value("language", "CODE", "Name the countries and their states and provinces on the page and the card in this language (a BCP 47 or CLDR locale: ja, de, fr, zh-Hant), from Unicode CLDR, else in English; China's provinces, cities and counties keep Chinese and English, and footprint.geojson keeps the tables' names.")]
            + RuleOptions.classifyOptionSpecs.filter { classifyOptions.contains($0.name) },
        discussion: """
        Reads PATH exactly as classify does, with the same options; with --state FILE and no
        PATH it draws the state alone (the state is read, never written: the map adds nothing
        to it). footprint.html is one page that fetches nothing, for a laptop or a phone: a map
        to pan and zoom from the world to the streets (regions shaded by unlock and share
        explored, cells by familiarity, explorer tiles and the max square), the places you
        have been, the growth and every unlock. footprint-card.svg is a card to post (1200 × 630,
        a link preview's shape), footprint-card.png the same at story size (1080 × 1920, what
        social apps take), drawn by librsvg.
        footprint.geojson holds the explored cells merged into polygons per region and the
        unlocked regions' outlines (WGS-84); tiles-z14.geojson and tiles-z17.geojson the
        visited explorer tiles; next-square-z14/z17.geojson and .gpx the tiles missing from
        the square one larger than the max square (waypoints at their centres). Exit codes as
        classify.
        """
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard !arguments.positionals.isEmpty || arguments.value("state") != nil else {
            throw UsageError(message: "give at least one file, folder or archive to map, or --state FILE to draw a logbook")
        }
        guard let out = arguments.value("out") else { throw UsageError(message: "--out DIR is required (the folder for footprint.geojson and footprint.html)") }
        let locator = try RegionLocator(tables: try TableSearch.tables(arguments), marginRadius: 120)
        let statePath = arguments.value("state")
        let files = try CommandIntake.walk(arguments.positionals, outputs: names.map { ("--out", out + "/" + $0) }, named: statePath.map { [$0] } ?? [])
        // The map adds nothing to the logbook: it is read into one in memory, with the inputs beside it.
        var rules = try RuleOptions.parse(arguments)
        if let statePath {
            let url = URL(fileURLWithPath: statePath)
            guard let stored = try Logbook.storedRules(at: url, locator: locator) else {
                throw LogbookError(.notALogbook, path: statePath, reason: "no such logbook")
            }
            rules = try RuleOptions.parse(arguments, base: stored)
        }
        let logbook = try Logbook(inMemoryWith: locator, rules: rules)
        if let statePath { try await logbook.merge(contentsOf: URL(fileURLWithPath: statePath), key: try LogbookAccess.key(arguments)) }
        let reportOptions = ReportOptions(lenient: arguments.flags.contains("lenient"), includePassedThrough: arguments.flags.contains("include-passed-through"))
        let result = try await CommandIntake.take(files, into: logbook, arguments: arguments, report: reportOptions)
        let footprint = try await logbook.mapFootprint(reportOptions, names: try ReportFiles.countryNames(arguments))
        let report = footprint.report
        let geoJSON = Array(footprint.geoJSON().utf8), html = Array(footprint.html().utf8), card = Array(footprint.card().utf8)
        let png = try CardImage.png(svg: footprint.storyCard(), width: Footprint.storyWidth, height: Footprint.storyHeight)

        try OutputFolder.prepare(out)
        let outputs = try OutputFileSet(out: out, names: names, stagingMarker: ".map-")
        defer { outputs.discard() }
        try outputs.write(geoJSON, as: names[0])
        try outputs.write(html, as: names[1])
        try outputs.write(card, as: names[2])
        try outputs.write(png, as: names[3])
        for zoom in SlippyTile.reportedZooms {
            let tiles = report.visitedTiles[zoom]!
            let frontier = SquareFrontier(tiles: tiles, zoom: zoom)
            try outputs.write(Array(ExplorerTileFiles.visitedGeoJSON(tiles, zoom: zoom).utf8), as: "tiles-z\(zoom).geojson")
            try outputs.write(Array(ExplorerTileFiles.frontierGeoJSON(frontier).utf8), as: "next-square-z\(zoom).geojson")
            try outputs.write(Array(ExplorerTileFiles.frontierGPX(frontier).utf8), as: "next-square-z\(zoom).gpx")
        }
        try outputs.commit()
        let output = BufferedOutput()
        try output.write("Wrote \(out)/footprint.geojson (\(geoJSON.count) bytes), footprint.html (\(html.count) bytes), footprint-card.svg (\(card.count) bytes), footprint-card.png (\(png.count) bytes), "
                         + "tiles-z14/z17.geojson and next-square-z14/z17.geojson/.gpx\n")
        try output.flush()
        return CommandIntake.conclude(result, includePlans: rules.includePlans)
    }
}
