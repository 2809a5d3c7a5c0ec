// swift-tools-version:6.0
//
// The benchmarks (Scripts/bench, BENCHMARKS.md) and the large fuzz campaign (`Scripts/bench fuzz`):
// a package of their own that depends on AdminUnlocks by path, as swift-collections' benchmarks do,
// so that building the product or running the tests never compiles them. Scripts/bench builds it
// in release mode in .build/benchmarks.
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
                // The table build, the town walks, the fuzzer and the seeded generator.
                .product(name: "UnlocksDevelopment", package: "AdminUnlocks"),
                "CLibarchive",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
