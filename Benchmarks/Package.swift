// swift-tools-version:6.0
//
// The benchmarks (Scripts/bench, BENCHMARKS.md) and the large fuzz campaign (`Scripts/bench fuzz`):
// a package of their own that depends on AdminUnlocks by path, as swift-collections' benchmarks do,
// so that building the product or running the tests never compiles them. Scripts/bench builds it
// in release mode in .build/benchmarks. What it measures of the build-time modules (the table
// build, the town walks, the fuzzer) it compiles itself from the main package's sources, through
// the links in Shared/: the main package exposes them as no product, so no app can link them.
import PackageDescription

let package = Package(
    name: "AdminUnlocksBenchmarks",
    platforms: [.macOS(.v12)],
    dependencies: [
        .package(name: "AdminUnlocks", path: ".."),
    ],
    targets: [
        // libarchive (Debian: libarchive-dev), the reference `UnlocksBench archives` compares the
        // intake's Swift containers with; its own module here, as the main package's is not a product.
        .systemLibrary(name: "CLibarchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // The build-time modules the benchmarks measure, compiled here from the main package's
        // sources (Shared/ holds links to them): no product of the main package exposes them.
        .systemLibrary(name: "CGEOS", path: "Shared/CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", path: "Shared/CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CArchive", path: "Shared/CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .target(name: "SeededRandom", path: "Shared/SeededRandom"),
        // CSQLite and CZlib are the main package's own modules: they come with the products that
        // link them (LogbookStore, Intake), and a second target of the same name would clash.
        .target(name: "BoundaryBuild", dependencies: ["CGEOS", "CPROJ", "CArchive", "SeededRandom", .product(name: "LogbookStore", package: "AdminUnlocks"),
                                                      .product(name: "ChinaDatum", package: "AdminUnlocks"), .product(name: "TextFormats", package: "AdminUnlocks"),
                                                      .product(name: "RegionTables", package: "AdminUnlocks"), .product(name: "BorderAudit", package: "AdminUnlocks")],
                path: "Shared/BoundaryBuild", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "PlaceWalks", dependencies: ["BoundaryBuild", .product(name: "RegionTables", package: "AdminUnlocks"),
                                                   .product(name: "Tracks", package: "AdminUnlocks"), .product(name: "Unlocks", package: "AdminUnlocks")],
                path: "Shared/PlaceWalks", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "TrackFuzzing", dependencies: ["SeededRandom", .product(name: "Intake", package: "AdminUnlocks"), .product(name: "RegionTables", package: "AdminUnlocks")],
                path: "Shared/TrackFuzzing", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "UnlocksBench",
            dependencies: [
                .product(name: "ChinaDatum", package: "AdminUnlocks"),
                .product(name: "TextFormats", package: "AdminUnlocks"),
                .product(name: "RegionTables", package: "AdminUnlocks"),
                .product(name: "Tracks", package: "AdminUnlocks"),
                .product(name: "Intake", package: "AdminUnlocks"),
                .product(name: "Unlocks", package: "AdminUnlocks"),
                .product(name: "LogbookStore", package: "AdminUnlocks"),
                // The table build, the town walks, the fuzzer and the seeded generator (above).
                "BoundaryBuild", "PlaceWalks", "TrackFuzzing", "SeededRandom",
                "CLibarchive",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
