// swift-tools-version:5.9
//
// A throwaway app-like package that depends on AdminUnlocks by path, as an app maker would
// (docs/embedding.md). Scripts/check-embedding builds it in a scratch folder of its own and runs
// it: it locates Tiananmen with the tables bundled as the package's resources.
import PackageDescription

let package = Package(
    name: "EmbeddingPackage",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [.package(name: "AdminUnlocks", path: "../..")],
    targets: [
        .executableTarget(name: "LocateTiananmen", dependencies: [
            // The umbrella (with the tables) and every part an app may link on its own.
            .product(name: "AdminUnlocks", package: "AdminUnlocks"),
            .product(name: "Unlocks", package: "AdminUnlocks"),
            .product(name: "RegionTables", package: "AdminUnlocks"),
            .product(name: "Tracks", package: "AdminUnlocks"),
            .product(name: "ChinaDatum", package: "AdminUnlocks"),
            .product(name: "TextFormats", package: "AdminUnlocks"),
            .product(name: "Intake", package: "AdminUnlocks"),
            .product(name: "LogbookStore", package: "AdminUnlocks"),
        ]),
        // docs/embedding.md's tour of a logbook, compiled and run as the docs show it.
        .executableTarget(name: "LogbookTour", dependencies: [.product(name: "AdminUnlocks", package: "AdminUnlocks")]),
        // The library classifying paths as `unlocks classify` does (Scripts/check-embedding).
        .executableTarget(name: "ClassifyPaths", dependencies: [.product(name: "AdminUnlocks", package: "AdminUnlocks")]),
        // The tables' load time, resident memory and per-point cost (docs/embedding.md).
        .executableTarget(name: "MeasureTables", dependencies: [.product(name: "AdminUnlocks", package: "AdminUnlocks")]),
    ]
)
