import Foundation
import RegionTables

/// The committed region tables, opened once for the whole test run and shared by every test that
/// needs them (opening them checksums and indexes a few megabytes). A locator for each margin
/// radius is built once from them.
public enum BundledTables {
    /// `Data/regions`: the world and China tables. Fails the run when they cannot be read.
    public static let tables: TableSet = {
        do { return try TableSet(directory: Repository.tables) } catch { fatalError("cannot open the committed tables in \(Repository.tables): \(error)") }
    }()

    private static let cache = LocatorCache()

    /// A locator over the committed tables with margins computed within `marginRadius` metres
    /// (300, the locator's default, unless told; 0 turns margins off).
    public static func locator(marginRadius: Double = 300) -> RegionLocator {
        cache.locator(marginRadius: marginRadius)
    }

    /// The locators built so far, by margin radius.
    private final class LocatorCache: @unchecked Sendable {
        private let lock = NSLock()
        private var locators: [Double: RegionLocator] = [:]

        func locator(marginRadius: Double) -> RegionLocator {
            lock.lock(); defer { lock.unlock() }
            if let known = locators[marginRadius] { return known }
            do {
                let made = try RegionLocator(tables: BundledTables.tables, marginRadius: marginRadius)
                locators[marginRadius] = made
                return made
            } catch {
                fatalError("cannot make a locator over \(Repository.tables): \(error)")
            }
        }
    }
}
