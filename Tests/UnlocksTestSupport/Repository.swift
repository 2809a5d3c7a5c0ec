import Foundation

/// Paths inside this repository, found from this file's own place in it, so tests read the
/// committed tables, samples and fixtures wherever the checkout is.
public enum Repository {
    /// The repository's root folder.
    public static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().standardized.path

    /// `relative` (for example `Data/samples`) inside the repository.
    public static func path(_ relative: String) -> String {
        root + "/" + relative
    }

    /// The committed region tables (`world.bin`, `china.bin`, `manifest.json`).
    public static var tables: String { path("Data/regions") }

    /// The bundled sample archive the README classifies.
    public static var samples: String { path("Data/samples") }

    /// A test target's `Fixtures` folder: `fixtures("TracksTests")` is `Tests/TracksTests/Fixtures`.
    public static func fixtures(_ testTarget: String) -> String {
        path("Tests/\(testTarget)/Fixtures")
    }
}
