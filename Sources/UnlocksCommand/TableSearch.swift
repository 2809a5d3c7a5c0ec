import Foundation
import RegionTables

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `unlocks` finds `world.bin` and `china.bin` when `--tables` is not given, so it runs
/// from any folder. The places, in order (the first holding both tables wins):
///
/// 1. next to the executable: the package's resource bundle, which `swift build` puts beside
///    the binary it builds (a copy of the repository's `Data/regions`, refreshed by every build);
/// 2. the installed share folder beside the executable's `bin`: `../share/adminunlocks`
///    (`Scripts/install`);
/// 3. the folder named by `$ADMINUNLOCKS_TABLES`.
///
/// The executable's path has its links resolved first, so a link to an installed binary finds the
/// installation's share folder. When none has the tables, the error names every place looked in.
enum TableSearch {
    static let environmentVariable = "ADMINUNLOCKS_TABLES"

    /// The folder of the tables: `--tables DIR` when given, else the first of ``candidates()``
    /// holding both tables.
    static func directory(_ arguments: ParsedArguments) throws -> String {
        if let given = arguments.value("tables") { return given }
        return try find()
    }

    /// `--worldview NAME`: whose borders the country level follows (default china; README).
    static let worldviewOption = OptionSpec.value("worldview", "NAME", "Whose borders: china (default; China's official view, world.bin) or international (Natural Earth, Germany's view: Taiwan, Hong Kong, Macau of their own; international.bin). docs/boundaries.md.")

    /// The tables of ``directory(_:)`` in the `--worldview` asked for.
    static func tables(_ arguments: ParsedArguments, directory given: String? = nil) throws -> TableSet {
        let name = arguments.value("worldview") ?? Worldview.china.rawValue
        guard let worldview = Worldview(rawValue: name) else {
            throw UsageError(message: "--worldview '\(name)': expected \(Worldview.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        return try TableSet(directory: try given ?? directory(arguments), worldview: worldview)
    }

    /// The first candidate holding both tables, or an error naming every place looked in.
    static func find() throws -> String {
        let places = candidates()
        if let found = places.first(where: { holdsTables($0.path) }) { return found.path }
        throw NotFound(places: places)
    }

    /// One place the tables may be.
    struct Candidate: Equatable {
        /// How the place was found, for messages ("next to the executable").
        let origin: String
        let path: String
    }

    /// Every place looked in, in order.
    static func candidates(executable: String? = executablePath(),
                           environment: [String: String] = ProcessInfo.processInfo.environment) -> [Candidate] {
        var places: [Candidate] = []
        if let executable {
            let folder = (executable as NSString).deletingLastPathComponent
            for bundle in resourceBundleNames {
                places.append(Candidate(origin: "next to the executable", path: (folder as NSString).appendingPathComponent(bundle)))
            }
            let prefix = (folder as NSString).deletingLastPathComponent
            places.append(Candidate(origin: "the installed share folder", path: (prefix as NSString).appendingPathComponent("share/adminunlocks")))
        }
        if let value = environment[environmentVariable], !value.isEmpty {
            places.append(Candidate(origin: "$" + environmentVariable, path: value))
        }
        return places
    }

    /// The `AdminUnlocks` target's resource bundle as SwiftPM lays it out beside an executable.
    #if canImport(Darwin)
    static let resourceBundleNames = ["AdminUnlocks_AdminUnlocks.bundle", "AdminUnlocks_AdminUnlocks.bundle/Contents/Resources"]
    #else
    static let resourceBundleNames = ["AdminUnlocks_AdminUnlocks.resources"]
    #endif

    static func holdsTables(_ folder: String) -> Bool {
        access(folder + "/world.bin", R_OK) == 0 && access(folder + "/china.bin", R_OK) == 0
    }

    /// This process's executable with links resolved, or nil when the system cannot say.
    static func executablePath() -> String? {
        guard let path = Bundle.main.executablePath, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// No place holds the tables.
    struct NotFound: Error, CustomStringConvertible {
        let places: [Candidate]
        var description: String {
            var text = "no region tables (world.bin and china.bin) found; looked in:"
            for place in places { text += "\n  \(place.path) (\(place.origin))" }
            if !places.contains(where: { $0.origin.hasPrefix("$") }) { text += "\n  $\(TableSearch.environmentVariable) (not set)" }
            return text + "\nGive --tables DIR, set \(TableSearch.environmentVariable)=DIR, or install with Scripts/install (README)."
        }
    }
}
