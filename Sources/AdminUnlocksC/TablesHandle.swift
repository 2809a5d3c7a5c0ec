import AdminUnlocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `au_tables`: the tables of one worldview and the locators over them, immutable and shared
/// by every thread: one for `au_locate` (no margins, as `unlocks locate` prints codes) and one for
/// `au_classify` (margins within 120 m, as `unlocks classify` opens its tables). Their leaf grids
/// are built lazily and kept, so a process that opens the tables once gets faster as it goes.
final class TablesHandle: @unchecked Sendable {
    let tables: TableSet
    let locator: RegionLocator
    let classifyLocator: RegionLocator
    let directory: UnsafeMutablePointer<CChar>
    let worldview: UnsafeMutablePointer<CChar>
    /// Per table (world, China, subdivisions when the folder has them), per region: its code, name and English name as C strings.
    let strings: [[(code: UnsafeMutablePointer<CChar>, name: UnsafeMutablePointer<CChar>, englishName: UnsafeMutablePointer<CChar>)]]

    init(directory: String, worldview: Worldview) throws {
        tables = try TableSet(directory: directory, worldview: worldview)
        locator = try RegionLocator(tables: tables, marginRadius: 0)
        classifyLocator = try RegionLocator(tables: tables, marginRadius: 120)
        self.directory = strdup(directory)!
        self.worldview = strdup(worldview.rawValue)!
        strings = ([tables.world, tables.china] + (tables.subdivisions.map { [$0] } ?? [])).map { table in
            table.regions.map { (strdup($0.code)!, strdup($0.name)!, strdup($0.englishName)!) }
        }
    }

    deinit {
        free(directory)
        free(worldview)
        for table in strings {
            for region in table { free(region.code); free(region.name); free(region.englishName) }
        }
    }

    /// The table of a level (`au_level`): the world table for countries, china.bin for
    /// provinces, cities and counties, subdivisions.bin for the world's states and provinces.
    func table(ofLevel level: Int32) -> RegionTable? {
        switch level {
        case 0: return tables.world
        case 1, 2, 3: return tables.china
        case 4: return tables.subdivisions
        default: return nil
        }
    }

    /// The index in ``strings`` of a level's table.
    static func stringTable(ofLevel level: Int32) -> Int { level == 0 ? 0 : level == 4 ? 2 : 1 }

    static func from(_ pointer: OpaquePointer?) throws -> TablesHandle {
        guard let pointer else { throw ArgumentError("tables is NULL") }
        return Unmanaged<TablesHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Where `au_tables_open(NULL, …)` looks: `$ADMINUNLOCKS_TABLES` (the Python package passes
    /// the folder inside it; `BundledTables` is for apps: its `Bundle.module` looks beside the main
    /// executable, which here is the caller's).
    static func defaultDirectory() throws -> String {
        guard let value = ProcessInfo.processInfo.environment["ADMINUNLOCKS_TABLES"], !value.isEmpty else {
            throw ArgumentError("no tables folder given and $ADMINUNLOCKS_TABLES is not set")
        }
        return value
    }
}

/// The package version as a C string that lives as long as the process.
nonisolated(unsafe) private let versionText: UnsafePointer<CChar> = UnsafePointer(strdup(PackageVersion.string)!)

@_cdecl("au_version")
public func au_version() -> UnsafePointer<CChar>? { versionText }

@_cdecl("au_abi_version")
public func au_abi_version() -> Int32 { 2 }

@_cdecl("au_tables_open")
public func au_tables_open(_ directory: UnsafePointer<CChar>?, _ worldview: UnsafePointer<CChar>?,
                           _ out: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        guard let out else { throw ArgumentError("tables (the handle's place) is NULL") }
        out.pointee = nil
        let name = worldview.map { String(cString: $0) } ?? Worldview.china.rawValue
        guard let view = Worldview(rawValue: name) else {
            throw ArgumentError("worldview '\(name)': expected \(Worldview.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        let folder = try directory.map { String(cString: $0) } ?? TablesHandle.defaultDirectory()
        let handle = try TablesHandle(directory: folder, worldview: view)
        out.pointee = OpaquePointer(Unmanaged.passRetained(handle).toOpaque())
    }
}

@_cdecl("au_tables_close")
public func au_tables_close(_ tables: OpaquePointer?) {
    guard let tables else { return }
    Unmanaged<TablesHandle>.fromOpaque(UnsafeRawPointer(tables)).release()
}

@_cdecl("au_tables_directory")
public func au_tables_directory(_ tables: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? TablesHandle.from(tables)).map { UnsafePointer($0.directory) }
}

@_cdecl("au_tables_worldview")
public func au_tables_worldview(_ tables: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? TablesHandle.from(tables)).map { UnsafePointer($0.worldview) }
}

@_cdecl("au_region_count")
public func au_region_count(_ tables: OpaquePointer?, _ level: Int32) -> Int32 {
    guard let handle = try? TablesHandle.from(tables), let table = handle.table(ofLevel: level) else { return -1 }
    return Int32(table.regions.count)
}

@_cdecl("au_region_info")
public func au_region_info(_ tables: OpaquePointer?, _ level: Int32, _ index: Int32,
                           _ code: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                           _ englishName: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ parent: UnsafeMutablePointer<Int32>?,
                           _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let handle = try TablesHandle.from(tables)
        guard (0...4).contains(level) else { throw ArgumentError("level \(level): expected 0 (country) to 4 (subdivision)") }
        guard let table = handle.table(ofLevel: level) else { throw ArgumentError("level \(level): the tables have no subdivisions.bin") }
        guard index >= 0, Int(index) < table.regions.count else {
            throw ArgumentError("region \(index) at level \(level): the table has \(table.regions.count) regions")
        }
        let strings = handle.strings[TablesHandle.stringTable(ofLevel: level)][Int(index)]
        code?.pointee = UnsafePointer(strings.code)
        name?.pointee = UnsafePointer(strings.name)
        englishName?.pointee = UnsafePointer(strings.englishName)
        parent?.pointee = table.regions[Int(index)].parent ?? -1
    }
}
