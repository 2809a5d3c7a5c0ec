import Foundation
import XCTest
import UnlocksTestSupport

/// A clone must be complete on its own: every relative link in README.md and docs/*.md (Markdown
/// links, images, HTML `src`/`href`) names a file inside the repository that exists, and no link
/// or quoted file (`../…/NAME.EXT` in backticks) leaves the repository. (A quoted folder such as
/// an install's `../share/adminunlocks` is not a repository path and is not checked.)
final class DocumentLinkTests: XCTestCase {
    static let root = Repository.root

    /// A reference found in a document: the line it is on and its target as written.
    struct Reference: Equatable {
        var line: Int
        var target: String
    }

    /// Links and quoted relative paths of a Markdown text; fenced code blocks are skipped (their
    /// text is code, not links).
    static func references(in text: String) -> [Reference] {
        let patterns = [
            #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#,  // [text](target "title"), ![alt](target)
            #"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)"#,       // [label]: target
            #"(?:src|href)\s*=\s*"([^"]+)""#,               // <img src="…">, <a href="…">
            #"`(\.\./[^`\s]*\.[A-Za-z0-9]+)`"#,             // `../somewhere/FILE.md`: a file quoted as leaving
        ].map { try! NSRegularExpression(pattern: $0) }
        var found: [Reference] = []
        var fenced = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            let range = NSRange(line.startIndex..., in: line)
            let matches = patterns.flatMap { $0.matches(in: line, range: range) }.sorted { $0.range.location < $1.range.location }
            for match in matches {
                found.append(Reference(line: index + 1, target: String(line[Range(match.range(at: 1), in: line)!])))
            }
        }
        return found
    }

    /// Why a reference from the document at `document` (a path relative to `root`) is broken, or
    /// nil. Web addresses and in-page anchors are not checked.
    static func problem(_ reference: Reference, from document: String, root: String) -> String? {
        let target = reference.target
        if target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:") { return nil }
        let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
        if path.isEmpty { return nil }
        if path.hasPrefix("/") { return "'\(target)' is an absolute path: link relative to the document" }
        let folder = (document as NSString).deletingLastPathComponent
        let resolved = URL(fileURLWithPath: root).appendingPathComponent(folder).appendingPathComponent(path).standardized.path
        guard resolved == root || resolved.hasPrefix(root + "/") else { return "'\(target)' leaves the repository" }
        guard FileManager.default.fileExists(atPath: resolved) else { return "'\(target)' names no file in the repository" }
        return nil
    }

    func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/docs").filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + docs.map { "docs/" + $0 }
    }

    func testEveryLinkResolvesInsideTheRepository() throws {
        var problems: [String] = []
        var checked = 0
        for document in try documents() {
            let text = try String(contentsOfFile: Self.root + "/" + document, encoding: .utf8)
            for reference in Self.references(in: text) {
                checked += 1
                if let problem = Self.problem(reference, from: document, root: Self.root) {
                    problems.append("\(document):\(reference.line): \(problem)")
                }
            }
        }
        XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
        XCTAssertGreaterThan(checked, 10, "the documents link each other: finding almost no links means the parser is broken")
    }

    /// The checker itself, on planted text: what it must refuse and what it must accept.
    func testTheCheckerFindsBrokenAndLeavingLinks() throws {
        let text = """
        See [the design](../shared/DESIGN.md), the `../shared/DESIGN.md` file, ![shot](docs/none.png),
        [format](docs/report-format.md#state), [web](https://example.com/x.md), [here](#top),
        <img src="docs/audit-laptop.png"> and [abs](/etc/passwd), not `../share/adminunlocks`.
        ```
        [in code](../not/a/link.md)
        ```
        [ref]: docs/locator.md
        """
        let references = Self.references(in: text)
        XCTAssertEqual(references.map(\.target), ["../shared/DESIGN.md", "../shared/DESIGN.md", "docs/none.png",
                                                  "docs/report-format.md#state", "https://example.com/x.md", "#top",
                                                  "docs/audit-laptop.png", "/etc/passwd", "docs/locator.md"])
        let problems = references.map { Self.problem($0, from: "README.md", root: Self.root) }
        XCTAssertEqual(problems.map { $0 != nil }, [true, true, true, false, false, false, false, true, false])
        XCTAssertEqual(problems[0], "'../shared/DESIGN.md' leaves the repository")
        // From docs/, `../README.md` is inside and fine.
        XCTAssertNil(Self.problem(Reference(line: 1, target: "../README.md"), from: "docs/embedding.md", root: Self.root))
    }
}
