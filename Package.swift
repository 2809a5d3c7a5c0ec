// swift-tools-version:5.9
//
// AdminUnlocks: GPS points in, administrative unlocks (country, province, city, county) out.
//
// Layering (checked by Scripts/check-layering on every test run):
//   run-time, pure Swift, embeddable in an iOS app:  ChinaDatum, RegionTables, Tracks
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
        // System libraries (Debian: libgeos-dev, libproj-dev). Installed by Scripts/bootstrap.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // Run-time: pure Swift.
        .target(name: "ChinaDatum"),
        .target(name: "Tracks"),

        // Build-time: owns GEOS and PROJ handles.
        .target(name: "BoundaryBuild", dependencies: ["CGEOS", "CPROJ", "ChinaDatum"]),

        // The command-line tool `unlocks`.
        .executableTarget(name: "UnlocksCommand", dependencies: ["ChinaDatum", "Tracks"]),

        // The benchmark harness run by Scripts/bench (not shipped).
        .executableTarget(name: "UnlocksBench", dependencies: ["ChinaDatum"]),

        .testTarget(name: "ChinaDatumTests", dependencies: ["ChinaDatum"], exclude: ["Fixtures"]),
        .testTarget(name: "BoundaryBuildTests", dependencies: ["BoundaryBuild"]),
        .testTarget(name: "TracksTests", dependencies: ["Tracks"]),
        .testTarget(name: "UnlocksCommandTests", dependencies: ["UnlocksCommand"]),
    ]
)
