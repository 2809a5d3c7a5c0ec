// swift-tools-version:6.0
//
// AdminUnlocks: GPS points in, administrative unlocks (country, province, city, county) out.
//
// Layering (checked by Scripts/check-layering and Scripts/check-portability on every test run):
//   run-time, pure Swift, embeddable in an iOS app:  ChinaDatum, RegionTables (+ CAtomicFlags, a C header), TextFormats, Tracks, Unlocks, BorderAudit,
//                                                    Intake (+ CZlib), FootprintMap, AdminUnlocks (the first seven, plus the bundled tables)
//   build-time only, links GEOS / PROJ / SQLite:    BoundaryBuild (+ CGEOS, CPROJ, CSQLite)
import PackageDescription

let package = Package(
    name: "AdminUnlocks",
    // Linux needs no entry (every target builds there); the run-time also builds for these.
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .executable(name: "unlocks", targets: ["UnlocksCommand"]),
        // For apps (docs/embedding.md): everything with the region tables as resources, or the parts.
        .library(name: "AdminUnlocks", targets: ["AdminUnlocks"]),
        .library(name: "Unlocks", targets: ["Unlocks"]),
        .library(name: "RegionTables", targets: ["RegionTables"]),
        .library(name: "Tracks", targets: ["Tracks"]),
        .library(name: "ChinaDatum", targets: ["ChinaDatum"]),
        .library(name: "TextFormats", targets: ["TextFormats"]),
        .library(name: "FootprintMap", targets: ["FootprintMap"]),
        .library(name: "BorderAudit", targets: ["BorderAudit"]),
        .library(name: "Intake", targets: ["Intake"]),
        .library(name: "LogbookStore", targets: ["LogbookStore"]),
        // The C ABI (include/adminunlocks.h) that the Python package `adminunlocks` loads (docs/python.md).
        .library(name: "AdminUnlocksC", type: .dynamic, targets: ["AdminUnlocksC"]),
    ],
    targets: [
        // System libraries (Debian: libgeos-dev, libproj-dev, libsqlite3-dev, libarchive-dev),
        // installed by Scripts/bootstrap.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // zlib: a public system library on iOS, macOS and Linux alike, so run-time modules may use
        // it (inflate for zip, gzip and Fog of World data); Debian: zlib1g-dev.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // librsvg and cairo: the card as PNG, drawn by the command line only (docs/footprint-format.md).
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),

        // Run-time: pure Swift.
        .target(name: "ChinaDatum"),
        .target(name: "TextFormats"),
        // C11-style atomic flags (Synchronization's atomics need macOS 15 / iOS 18): the leaf
        // grids that RegionTables builds lazily, one leaf at a time, under a shared locator.
        .target(name: "CAtomicFlags"),
        .target(name: "RegionTables", dependencies: ["ChinaDatum", "CAtomicFlags", "CZlib"]),
        .target(name: "Tracks", dependencies: ["TextFormats"]),
        .target(name: "Unlocks", dependencies: ["ChinaDatum", "RegionTables", "TextFormats", "Tracks"]),
        // The umbrella an app imports, owning the committed tables as resources: `Tables` is a
        // link to Data/regions (SwiftPM copies a linked folder as a dangling link, but the files
        // named through it as real files; docs/embedding.md).
        .target(name: "AdminUnlocks", dependencies: ["ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks", "BorderAudit", "Intake", "FootprintMap", "LogbookStore"],
                resources: [.copy("Tables/world.bin"), .copy("Tables/international.bin"), .copy("Tables/china.bin"), .copy("Tables/subdivisions.bin"),
                            .copy("Tables/cldr-names.tsv.gz"), .copy("Tables/continents.tsv"), .copy("Tables/manifest.json")]),

        // The C ABI over the library: `@_cdecl` functions for the Python package (Python/, docs/python.md).
        .target(name: "AdminUnlocksC", dependencies: ["AdminUnlocks"], exclude: ["include"]),

        // The border audit (`unlocks audit`, `audit --tables`): the shaky points and unlocks near
        // borders, and the tables audited as a whole, as JSON, GeoJSON and one HTML page.
        .target(name: "BorderAudit", dependencies: ["ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks"]),

        // The footprint map (GeoJSON and a self-contained HTML page) an app or `unlocks map` draws.
        .target(name: "FootprintMap", dependencies: ["CZlib", "ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks"]),

        // What happens to a path: folders, archives (zip, gzip, tar over zlib), export bundles, the
        // format by name and content, fingerprints and copies, skip reasons, the workers.
        .target(name: "Intake", dependencies: ["CZlib", "ChinaDatum", "RegionTables", "Tracks", "Unlocks"]),

        // A person's footprint kept in SQLite: the session type (`Logbook`) every command and app
        // uses, over the intake and the ledger. SQLite is a system library on iOS, macOS and Linux.
        .target(name: "LogbookStore", dependencies: ["CSQLite", "ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks", "Intake", "FootprintMap"]),

        // Seeded random numbers (SplitMix64) for the build's agreement sampling, the fuzzer, the
        // benchmarks and the tests; no run-time module uses it.
        .target(name: "SeededRandom"),

        // Build-time: owns GEOS and PROJ handles.
        .target(name: "BoundaryBuild", dependencies: ["CGEOS", "CPROJ", "CSQLite", "CArchive", "ChinaDatum", "TextFormats", "RegionTables", "SeededRandom", "BorderAudit"]),

        // "A short walk in any town unlocks its country": the classifier against the source country
        // at populated places (WorldAgreementTests on the island countries, the bench on all).
        .target(name: "PlaceWalks", dependencies: ["BoundaryBuild", "RegionTables", "Tracks", "Unlocks"]),

        // Mutation fuzzing of `unlocks classify` (not shipped): the quick run in UnlocksCommandTests,
        // the large one in the benchmarks package (Benchmarks/, `Scripts/bench fuzz`).
        .target(name: "TrackFuzzing", dependencies: ["CZlib", "SeededRandom", "RegionTables"]),

        // What the tests share (docs/testing.md): the track-event recorder, the reader verifier
        // (bytes fed whole, one at a time, in random chunks), seeded random, temporary folders,
        // repository paths, the committed tables opened once, the process runner, headless
        // Chromium. Depended on only by test targets.
        .target(name: "UnlocksTestSupport", dependencies: ["SeededRandom", "Tracks", "RegionTables"], path: "Tests/UnlocksTestSupport"),

        // The command-line tool `unlocks`.
        .executableTarget(name: "UnlocksCommand", dependencies: ["AdminUnlocks", "BorderAudit", "ChinaDatum", "CRsvg", "FootprintMap", "Intake", "LogbookStore", "Tracks", "TextFormats", "RegionTables", "Unlocks", "BoundaryBuild"]),

        .testTarget(name: "ChinaDatumTests", dependencies: ["ChinaDatum", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "BoundaryBuildTests", dependencies: ["BoundaryBuild", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "RegionTablesTests", dependencies: ["RegionTables", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "TextFormatsTests", dependencies: ["TextFormats", "UnlocksTestSupport"]),
        .testTarget(name: "TracksTests", dependencies: ["Tracks", "TextFormats", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "IntakeTests", dependencies: ["Intake", "Tracks", "Unlocks", "RegionTables", "ChinaDatum", "SeededRandom", "TrackFuzzing", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "UnlocksTests", dependencies: ["Unlocks", "Tracks", "RegionTables", "ChinaDatum", "TextFormats", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "BorderAuditTests", dependencies: ["BorderAudit", "Unlocks", "Tracks", "RegionTables", "ChinaDatum", "TextFormats", "UnlocksTestSupport"]),
        .testTarget(name: "LogbookStoreTests", dependencies: ["LogbookStore", "Intake", "Unlocks", "RegionTables", "Tracks", "TextFormats", "SeededRandom", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        // The rules of a footprint (days, progress, changes …) through the library's Logbook, in process.
        .testTarget(name: "FootprintRulesTests", dependencies: ["LogbookStore", "Intake", "Unlocks", "RegionTables", "ChinaDatum", "Tracks", "UnlocksTestSupport"]),
        .testTarget(name: "FootprintMapTests", dependencies: ["FootprintMap", "Unlocks", "Tracks", "RegionTables", "UnlocksTestSupport"]),
        .testTarget(name: "UnlocksCommandTests", dependencies: ["UnlocksCommand", "TrackFuzzing", "TextFormats", "UnlocksTestSupport"], exclude: ["Fixtures"]),
        // The repository itself: the portability check catches what it should, every doc link resolves.
        .testTarget(name: "RepositoryTests", dependencies: ["UnlocksTestSupport"]),
        // The committed world table against the full-resolution source where it once went wrong.
        .testTarget(name: "WorldAgreementTests", dependencies: ["PlaceWalks", "BoundaryBuild", "RegionTables", "ChinaDatum", "UnlocksTestSupport"], exclude: ["Fixtures"]),
    ]
)
