import Foundation
@testable import BoundaryBuild

/// The pinned source (Scripts/test fetches it and sets ADMINUNLOCKS_SOURCE) for Beijing, Tianjin
/// and Hebei, read once for all the tests that use it: in a debug build, reading the source is
/// most of these tests' time. Without the source they fail, saying how to get it.
enum SourceSubset {
    static let provinces: Set<String> = ["11", "12", "13"]

    /// The wheel, unzipped once for every test that reads it.
    static let archive: Result<SourceArchive, Error> = Result {
        guard let path = ProcessInfo.processInfo.environment["ADMINUNLOCKS_SOURCE"] else {
            throw SourceError(path: "ADMINUNLOCKS_SOURCE", reason: "not set: run the tests through Scripts/test, which fetches the pinned source")
        }
        return try SourceArchive(location: path)
    }

    static let catalog: Result<SourceCatalog, Error> = Result {
        try SourceCatalog(try archive.get(), includeWorld: false, provinces: provinces)
    }
}
