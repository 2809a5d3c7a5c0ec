import Foundation
import XCTest
@testable import UnlocksCommand
import UnlocksTestSupport

/// Issue 35, item 2: `map` and `audit` wrote and deleted outside their output folder. Each test
/// plants what the attack planted (a link as a staging file, links named like a dead run's
/// staging or commit folder, a killed run's commit folder under this process's own PID) and
/// checks that nothing outside `OUT` is written, moved or removed, and that the run ends well.
final class OutputFolderLinkTests: XCTestCase {
    static let tables = ClassifyCommandTests.tables
    static let walk = Repository.samples + "/2024-05-01-beijing-walk.gpx"

    /// Every file under `folder` with its bytes (links as `-> target`), for before/after checks.
    func snapshot(_ folder: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let manager = FileManager.default
        for name in try manager.subpathsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            if let target = try? manager.destinationOfSymbolicLink(atPath: path) { files[name] = "-> " + target; continue }
            var isFolder: ObjCBool = false
            if manager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                files[name] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            }
        }
        return files
    }

    /// A folder beside `OUT` holding what the links lead to: notes and an earlier audit's files.
    func plantedNeighbour(_ root: String) throws -> String {
        let other = root + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        for name in OutputFileSet.auditNames + MapCommand.names + ["notes.txt"] { try "keep \(name)".write(toFile: other + "/" + name, atomically: false, encoding: .utf8) }
        try "precious".write(toFile: root + "/notes.txt", atomically: false, encoding: .utf8)
        return other
    }

    /// A staging folder this process's PID names, left by a killed run (PID reuse), holding a
    /// link `footprint.html → ../../notes.txt` as the attack planted it: the set is staged in a
    /// folder made new, the link is removed (never written through), `notes.txt` is untouched.
    func testAPlantedLinkInTheStagingFolderIsNeverWrittenThrough() throws {
        let root = try temporaryDirectory(), out = root + "/out"
        _ = try plantedNeighbour(root)
        let staging = out + "/.map-\(getpid())"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for name in MapCommand.names { try FileManager.default.createSymbolicLink(atPath: staging + "/" + name, withDestinationPath: "../../notes.txt") }
        let before = try snapshot(root + "/other")
        let set = try OutputFileSet(out: out, names: MapCommand.names, stagingMarker: ".map-")
        for name in MapCommand.names { try set.write(Array("new \(name)".utf8), as: name) }
        try set.commit()
        XCTAssertEqual(try String(contentsOfFile: root + "/notes.txt", encoding: .utf8), "precious")
        XCTAssertEqual(try snapshot(root + "/other"), before)
        for name in MapCommand.names { XCTAssertEqual(try String(contentsOfFile: out + "/" + name, encoding: .utf8), "new \(name)") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), MapCommand.names.sorted())
    }

    /// Links named like a dead run's staging folder (`.audit-<dead PID>`) and commit folder
    /// (`.audit-commit-<dead PID>`), leading to a folder that holds audit files: `unlocks audit`
    /// neither deletes those files (the cleanup followed the first) nor moves them into OUT
    /// (the roll-forward followed the second); the links themselves are left, not being the run's.
    func testLinksNamedLikeADeadRunsFoldersAreNotFollowed() throws {
        let root = try temporaryDirectory(), out = root + "/out"
        let other = try plantedNeighbour(root)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // Above Linux's and Darwin's largest PID: no such process.
        try FileManager.default.createSymbolicLink(atPath: out + "/.audit-2000000001", withDestinationPath: "../other")
        try FileManager.default.createSymbolicLink(atPath: out + "/.audit-commit-2000000002", withDestinationPath: "../other")
        try FileManager.default.createSymbolicLink(atPath: out + "/.map-commit-2000000003", withDestinationPath: other)
        let before = try snapshot(other)
        let audit = try CommandRunner.run(["audit", "--tables", Self.tables, "--source", "", Self.walk, "--out", out])
        XCTAssertEqual(audit.status, 0, audit.stderr)
        let map = try CommandRunner.run(["map", "--tables", Self.tables, Self.walk, "--out", out])
        XCTAssertEqual(map.status, 0, map.stderr)
        XCTAssertEqual(try snapshot(other), before)
        XCTAssertEqual(try String(contentsOfFile: root + "/notes.txt", encoding: .utf8), "precious")
        let audited = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/audit.json"))) as? [String: Any])
        XCTAssertNotNil(audited["episodes"] ?? audited["inputs"], "the audit's own audit.json, not the planted one")
        XCTAssertTrue(try String(contentsOfFile: out + "/footprint.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let left = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") }.sorted()
        XCTAssertEqual(left, [".audit-2000000001", ".audit-commit-2000000002", ".map-commit-2000000003"])
    }

    /// A killed run's commit folder named with this process's PID (PID 1 in a container, again and
    /// again): it is rolled forward (its complete set moved into OUT), not left to fail every later
    /// commit of this PID with "Directory not empty". A link among its files is not moved.
    func testAKilledCommitOfThisPIDIsRolledForward() throws {
        let root = try temporaryDirectory(), out = root + "/out"
        _ = try plantedNeighbour(root)
        let commit = out + "/.audit-commit-\(getpid())"
        try FileManager.default.createDirectory(atPath: commit, withIntermediateDirectories: true)
        for name in OutputFileSet.auditNames { try "old \(name)".write(toFile: out + "/" + name, atomically: false, encoding: .utf8) }
        try "killed \(OutputFileSet.auditNames[0])".write(toFile: commit + "/" + OutputFileSet.auditNames[0], atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: commit + "/" + OutputFileSet.auditNames[1], withDestinationPath: "../../notes.txt")
        let set = try OutputFileSet(out: out)
        XCTAssertEqual(try String(contentsOfFile: out + "/" + OutputFileSet.auditNames[0], encoding: .utf8), "killed \(OutputFileSet.auditNames[0])")
        XCTAssertEqual(try String(contentsOfFile: out + "/" + OutputFileSet.auditNames[1], encoding: .utf8), "old \(OutputFileSet.auditNames[1])")
        for name in OutputFileSet.auditNames { try set.write(Array("new \(name)".utf8), as: name) }
        try set.commit()
        for name in OutputFileSet.auditNames { XCTAssertEqual(try String(contentsOfFile: out + "/" + name, encoding: .utf8), "new \(name)") }
        XCTAssertEqual(try String(contentsOfFile: root + "/notes.txt", encoding: .utf8), "precious")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), OutputFileSet.auditNames.sorted())
    }

    /// What cannot be proven the run's own is left, and said: a link named like this run's own
    /// staging folder is in the way, and the run stops naming it (it never writes through it).
    func testALinkInTheWayOfThisRunsStagingIsRefusedNamingIt() throws {
        let root = try temporaryDirectory(), out = root + "/out"
        let other = try plantedNeighbour(root)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/.audit-\(getpid())", withDestinationPath: other)
        let before = try snapshot(other)
        XCTAssertThrowsError(try OutputFileSet(out: out)) { error in
            XCTAssertTrue("\(error)".contains(".audit-\(getpid()): is in the way"), "\(error)")
        }
        XCTAssertEqual(try snapshot(other), before)
    }
}
