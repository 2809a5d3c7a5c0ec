// swift-tools-version:5.9
//
// AdminUnlocks: GPS points in, administrative unlocks (country, province, city, county) out.
//
// Layering (checked by Scripts/check-layering on every test run):
//   run-time, pure Swift, embeddable in an iOS app:  ChinaDatum, RegionTables, TextFormats, Tracks, Unlocks, FootprintMap
//   run-time readers of compressed inputs:           TrackArchives (+ CArchive, libarchive)
//   build-time only, links GEOS / PROJ / SQLite:    BoundaryBuild (+ CGEOS, CPROJ, CSQLite)
import PackageDescription

let package = Package(
    name: "AdminUnlocks",
    products: [
        .executable(name: "unlocks", targets: ["UnlocksCommand"]),
        .library(name: "ChinaDatum", targets: ["ChinaDatum"]),
        .library(name: "Tracks", targets: ["Tracks"]),
    ],
    targets: [
        // System libraries (Debian: libgeos-dev, libproj-dev, libsqlite3-dev, libarchive-dev),
        // installed by Scripts/bootstrap.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),

        // Run-time: pure Swift.
        .target(name: "ChinaDatum"),
        .target(name: "TextFormats"),
        .target(name: "RegionTables", dependencies: ["ChinaDatum"]),
        .target(name: "Tracks", dependencies: ["TextFormats"]),
        .target(name: "Unlocks", dependencies: ["ChinaDatum", "RegionTables", "TextFormats", "Tracks"]),

        // The footprint map (GeoJSON and a self-contained HTML page) an app or `unlocks map` draws.
        .target(name: "FootprintMap", dependencies: ["ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks"]),

        // Reading .gz and .zip inputs as streams (libarchive), kept apart so the pure modules stay pure.
        .target(name: "TrackArchives", dependencies: ["CArchive", "Tracks"]),

        // Build-time: owns GEOS and PROJ handles.
        .target(name: "BoundaryBuild", dependencies: ["CGEOS", "CPROJ", "CSQLite", "CArchive", "ChinaDatum", "TextFormats", "RegionTables"]),

        // Mutation fuzzing of `unlocks classify` (not shipped): the quick run in UnlocksCommandTests,
        // the large one in UnlocksBench.
        .target(name: "TrackFuzzing"),

        // The command-line tool `unlocks`.
        .executableTarget(name: "UnlocksCommand", dependencies: ["ChinaDatum", "FootprintMap", "Tracks", "TrackArchives", "TextFormats", "RegionTables", "Unlocks", "BoundaryBuild"]),

        // The benchmark harness run by Scripts/bench (not shipped).
        .executableTarget(name: "UnlocksBench", dependencies: ["ChinaDatum", "BoundaryBuild", "CPROJ", "TextFormats", "RegionTables", "Tracks", "Unlocks", "TrackFuzzing"]),

        .testTarget(name: "ChinaDatumTests", dependencies: ["ChinaDatum"], exclude: ["Fixtures"]),
        .testTarget(name: "BoundaryBuildTests", dependencies: ["BoundaryBuild"]),
        .testTarget(name: "RegionTablesTests", dependencies: ["RegionTables"], exclude: ["Fixtures"]),
        .testTarget(name: "TextFormatsTests", dependencies: ["TextFormats"]),
        .testTarget(name: "TracksTests", dependencies: ["Tracks", "TextFormats"], exclude: ["Fixtures"]),
        .testTarget(name: "TrackArchivesTests", dependencies: ["TrackArchives", "Tracks"]),
        .testTarget(name: "UnlocksTests", dependencies: ["Unlocks", "Tracks", "RegionTables", "ChinaDatum"]),
        .testTarget(name: "FootprintMapTests", dependencies: ["FootprintMap", "Unlocks"]),
        .testTarget(name: "UnlocksCommandTests", dependencies: ["UnlocksCommand", "TrackFuzzing", "TextFormats"]),
        // The committed world table against the full-resolution source where it once went wrong.
        .testTarget(name: "WorldAgreementTests", dependencies: ["UnlocksBench", "BoundaryBuild", "RegionTables", "ChinaDatum"], exclude: ["Fixtures"]),
    ]
)
