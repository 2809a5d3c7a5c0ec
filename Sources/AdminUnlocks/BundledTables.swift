// The umbrella module an app imports: the run-time modules, plus the region tables bundled as
// resources of the package (docs/embedding.md).
@_exported import ChinaDatum
@_exported import RegionTables
@_exported import TextFormats
@_exported import Tracks
@_exported import Unlocks
@_exported import Intake
@_exported import BorderAudit
@_exported import FootprintMap
@_exported import LogbookStore

import Foundation

/// The region tables that ship with the package: the committed `Data/regions` (`world.bin`,
/// `international.bin`, `china.bin`, `subdivisions.bin`, the CLDR names and continents,
/// `manifest.json`), copied into the `AdminUnlocks` resource bundle by the build.
public enum BundledTables {
    /// The folder inside the resource bundle that holds the tables and `manifest.json`.
    public static func directory() throws -> String {
        guard let world = Bundle.module.url(forResource: "world", withExtension: "bin") else {
            throw TableError(path: Bundle.module.bundlePath, reason: "the AdminUnlocks resource bundle holds no world.bin: the package was built without its tables")
        }
        return world.deletingLastPathComponent().path
    }

    /// The bundled `manifest.json`: the tables' source, build parameters, sizes and hashes
    /// (docs/boundaries.md).
    public static func manifest() throws -> Data {
        let path = try directory() + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TableError(path: path, reason: "cannot read the manifest of the bundled tables")
        }
        return data
    }
}

extension RegionLocator {
    /// Opens the bundled tables (memory-mapped, checksummed, validated: about 8 ms and 6 MB
    /// mapped, docs/embedding.md). Open once and share: the locator is immutable and `Sendable`.
    /// `marginRadius` as in ``RegionLocator/init(tables:marginRadius:)``.
    /// `worldview`: whose borders the countries follow (`.china` by default; docs/boundaries.md).
    public static func bundled(worldview: Worldview = .china, marginRadius: Double = 300) throws -> RegionLocator {
        try RegionLocator(directory: try BundledTables.directory(), worldview: worldview, marginRadius: marginRadius)
    }
}
