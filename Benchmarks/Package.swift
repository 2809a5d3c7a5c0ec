// swift-tools-version:6.0
//
// The benchmarks (Scripts/bench, BENCHMARKS.md) and the large fuzz campaign (`Scripts/bench fuzz`):
// a package of their own, as swift-collections' benchmarks are, so that building the product or
// running the tests never compiles them. Scripts/bench builds it in release mode in
// .build/benchmarks.
//
// It compiles the modules it measures from the main package's own sources, through the links in
// Shared/ (one per module), rather than depending on the main package: what it measures of the
// build (the table build, the source harnesses, the town walks, the fuzzer) is no product of the
// main package, so no app can link GEOS or PROJ through it. The targets below mirror the main
// package's graph (Package.swift there); a module added there and measured here is added to both.
import PackageDescription

func shared(_ name: String, _ dependencies: [Target.Dependency] = [], swift5: Bool = false) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/\(name)", swiftSettings: swift5 ? [.swiftLanguageMode(.v5)] : nil)
}

let package = Package(
    name: "AdminUnlocksBenchmarks",
    platforms: [.macOS(.v12)],
    targets: [
        .systemLibrary(name: "CGEOS", path: "Shared/CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", path: "Shared/CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Shared/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CArchive", path: "Shared/CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libarchive once more, as the reference `UnlocksBench archives` compares the intake's Swift containers with.
        .systemLibrary(name: "CLibarchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .target(name: "CAtomicFlags", path: "Shared/CAtomicFlags"),
        shared("ChinaDatum"),
        shared("TextFormats"),
        shared("SeededRandom"),
        shared("RegionTables", ["ChinaDatum", "CAtomicFlags", "CZlib"]),
        shared("Tracks", ["TextFormats"]),
        shared("Unlocks", ["ChinaDatum", "RegionTables", "TextFormats", "Tracks"]),
        shared("BorderAudit", ["ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks"]),
        shared("FootprintMap", ["CZlib", "ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks"]),
        shared("Intake", ["CZlib", "ChinaDatum", "RegionTables", "Tracks", "Unlocks"]),
        shared("LogbookStore", ["CSQLite", "ChinaDatum", "RegionTables", "TextFormats", "Tracks", "Unlocks", "Intake", "FootprintMap"]),
        shared("BoundaryBuild", ["CGEOS", "CPROJ", "CSQLite", "CArchive", "ChinaDatum", "TextFormats", "RegionTables", "SeededRandom", "BorderAudit"], swift5: true),
        shared("PlaceWalks", ["BoundaryBuild", "RegionTables", "Tracks", "Unlocks"], swift5: true),
        shared("TrackFuzzing", ["CZlib", "SeededRandom", "RegionTables"]),
        .executableTarget(
            name: "UnlocksBench",
            dependencies: ["ChinaDatum", "TextFormats", "RegionTables", "Tracks", "Intake", "Unlocks", "LogbookStore",
                           "BoundaryBuild", "PlaceWalks", "TrackFuzzing", "SeededRandom", "CLibarchive"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
