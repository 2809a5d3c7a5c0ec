import Foundation
import UnlocksTestSupport
import XCTest

/// The code the docs show is code the test run compiles: docs/embedding.md's tour of a logbook is
/// `Tests/EmbeddingPackage/Sources/LogbookTour/main.swift` (which Scripts/check-embedding builds
/// and runs), character for character, between its markers.
final class DocumentSnippetTests: XCTestCase {
    /// The fenced block between `<!-- NAME: begin -->` and `<!-- NAME: end -->` of `markdown`.
    static func snippet(_ name: String, in markdown: String) -> String? {
        guard let begin = markdown.range(of: "<!-- \(name): begin -->\n```swift\n"),
              let end = markdown.range(of: "```\n<!-- \(name): end -->", range: begin.upperBound..<markdown.endIndex) else { return nil }
        return String(markdown[begin.upperBound..<end.lowerBound])
    }

    func testTheEmbeddingTourIsTheCompiledFile() throws {
        let docs = try String(contentsOfFile: Repository.path("docs/embedding.md"), encoding: .utf8)
        let file = try String(contentsOfFile: Repository.path("Tests/EmbeddingPackage/Sources/LogbookTour/main.swift"), encoding: .utf8)
        let shown = try XCTUnwrap(Self.snippet("LogbookTour", in: docs), "docs/embedding.md lost the LogbookTour markers")
        XCTAssertEqual(shown, file, "docs/embedding.md shows another LogbookTour than the one the test run compiles")
    }

    func testTheSnippetFinderFindsOnlyAMarkedBlock() {
        XCTAssertEqual(Self.snippet("X", in: "a\n<!-- X: begin -->\n```swift\nlet x = 1\n```\n<!-- X: end -->\n"), "let x = 1\n")
        XCTAssertNil(Self.snippet("X", in: "```swift\nlet x = 1\n```\n"))
        XCTAssertNil(Self.snippet("X", in: "<!-- X: begin -->\n```swift\nlet x = 1\n```\n"))
    }
}
