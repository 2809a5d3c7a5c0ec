import Foundation
import Intake
@testable import LogbookStore
import RegionTables
import Tracks
import UnlocksTestSupport
import Unlocks
import XCTest

/// A logbook's life through the library: imports, reopening, forgetting, merging, recording and
/// the map's viewport, each against an answer computed another way (the intake run directly, a
/// fresh logbook without the forgotten input, the cells filtered by the test's own bounds).
final class LogbookTests: XCTestCase {
    static let locator = BundledTables.locator(marginRadius: 120)
    static let rules: ClassifyOptions = {
        var rules = ClassifyOptions()
        rules.timeZone = LocalTimeZone(identifier: "Asia/Shanghai")!
        return rules
    }()
    var samples: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: Repository.samples).sorted().map { Repository.samples + "/" + $0 }) ?? []
    }

    func open(_ path: String, key: [UInt8]? = nil) throws -> Logbook {
        try Logbook(at: URL(fileURLWithPath: path), locator: Self.locator, configuration: Logbook.Configuration(rules: Self.rules, key: key))
    }

    /// The report JSON without `changes`.
    func json(_ report: ClassifyReport) -> String {
        var report = report
        report.changes = nil
        return report.json().rendered()
    }

    /// The report the intake gives for `paths` without any logbook: the reference.
    func directReport(_ paths: [String]) throws -> String {
        var run = IntakeRun(locator: Self.locator, options: IntakeOptions(classify: Self.rules))
        try run.take(paths.map { .path($0) })
        let outcome = run.finish()
        return json(try ClassifyReport(ledger: outcome.ledger, tables: Self.locator.tables, options: Self.rules, lenient: false))
    }

    func testAnImportReopensToTheReportOfOneRun() async throws {
        let folder = try temporaryDirectory()
        let store = folder + "/footprint.logbook"
        do {
            let logbook = try open(store)
            let result = try await logbook.importSources(samples.map { .path($0) })
            XCTAssertEqual(json(result.report), try directReport(samples))
            XCTAssertEqual(result.report.changes?.inputs, result.report.inputs.count, "everything is new to a new logbook")
        }
        let reopened = try open(store)
        let report = try await reopened.report()
        XCTAssertEqual(json(report), try directReport(samples))
        let check = try await reopened.integrityCheck()
        XCTAssertEqual(check, ["ok"])
    }

    func testImportsInAnyGroupingAndMergesGiveOneRunsReport() async throws {
        let folder = try temporaryDirectory()
        let expected = try directReport(samples)
        let oneByOne = try open(folder + "/one.logbook")
        for path in samples.reversed() { _ = try await oneByOne.importSources([.path(path)]) }
        let report = try await oneByOne.report()
        XCTAssertEqual(json(report), expected)

        let first = try open(folder + "/a.logbook"), second = try open(folder + "/b.logbook")
        _ = try await first.importSources(samples.prefix(3).map { .path($0) })
        _ = try await second.importSources(samples.dropFirst(2).map { .path($0) })
        let merged = try open(folder + "/merged.logbook")
        try await merged.merge(contentsOf: URL(fileURLWithPath: folder + "/b.logbook"))
        let afterOne = try await merged.merge(contentsOf: URL(fileURLWithPath: folder + "/a.logbook"))
        XCTAssertEqual(json(afterOne), expected)
    }

    func testForgettingAnInputLeavesWhatAnImportWithoutItGives() async throws {
        let folder = try temporaryDirectory()
        let logbook = try open(folder + "/f.logbook")
        _ = try await logbook.importSources(samples.map { .path($0) })
        let gone = samples[0]
        let result = try await logbook.forget([.path(gone)])
        XCTAssertEqual(result.inputs.map(\.path), [gone])
        XCTAssertEqual(json(result.report), try directReport(Array(samples.dropFirst())))
        XCTAssertLessThan(result.report.changes?.inputs ?? 0, 0)

        // Forgotten content stays forgotten: importing it again skips it, undo brings it back.
        let again = try await logbook.importSources([.path(gone)])
        XCTAssertEqual(again.inputs.first?.skipReason, .forgotten)
        _ = try await logbook.unforget([.path(gone)])
        let back = try await logbook.importSources([.path(gone)])
        XCTAssertEqual(json(back.report), try directReport(samples))
    }

    func testForgetFindsInputsByFolderFromAnotherFolderAndByContent() async throws {
        let folder = try temporaryDirectory()
        let copies = folder + "/tracks"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        for path in samples where !path.hasSuffix("takeout") {
            try FileManager.default.copyItem(atPath: path, toPath: copies + "/" + (path as NSString).lastPathComponent)
        }
        let logbook = try open(folder + "/g.logbook")
        let original = FileManager.default.currentDirectoryPath
        defer { FileManager.default.changeCurrentDirectoryPath(original) }
        FileManager.default.changeCurrentDirectoryPath(folder)
        _ = try await logbook.importSources([.path("tracks")])
        // From another folder, the folder as a relative path from there.
        let elsewhere = folder + "/elsewhere/deeper"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        FileManager.default.changeCurrentDirectoryPath(elsewhere)
        let result = try await logbook.forget([.path("../../tracks/2024-05-01-beijing-walk.gpx")])
        XCTAssertEqual(result.inputs.map(\.path), ["tracks/2024-05-01-beijing-walk.gpx"])
        // By content: a copy elsewhere of a file read.
        try FileManager.default.copyItem(atPath: copies + "/2024-05-04-qingdao-coast.geojson", toPath: elsewhere + "/renamed.geojson")
        let byContent = try await logbook.forget([.path("renamed.geojson")])
        XCTAssertEqual(byContent.inputs.map(\.path), ["tracks/2024-05-04-qingdao-coast.geojson"])
        // A whole folder; then a path that names nothing changes nothing.
        let all = try await logbook.forget([.path("../../tracks")])
        XCTAssertFalse(all.inputs.isEmpty)
        let remaining = await logbook.inputs.filter { $0.status != .skipped }
        XCTAssertEqual(remaining, [])
        do {
            _ = try await logbook.forget([.path("no-such-thing.gpx")])
            XCTFail("a path that names no input is an error")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .nothingMatched)
        }
    }

    func testARecordingSurvivesReopeningAndEndsAsOneFeedGives() async throws {
        let folder = try temporaryDirectory()
        let store = folder + "/live.logbook"
        var recorder = TrackEventRecorder()
        try GPXReader.read(try FileSource(path: samples[0]), path: samples[0], into: &recorder)
        let points = recorder.points
        XCTAssertGreaterThan(points.count, 200)

        // The reference: a live ledger fed every point without a pause.
        var reference = try LiveLedger(locator: Self.locator, options: Self.rules)
        try reference.beginRecording(id: "live/1", name: "walk")
        for point in points { _ = try reference.feed(point) }
        try reference.endRecording()
        let expected = json(try ClassifyReport(ledger: reference.ledger, tables: Self.locator.tables, options: Self.rules, lenient: false))

        let half = points.count / 2
        do {
            let logbook = try open(store)
            try await logbook.beginRecording(id: "live/1", name: "walk")
            var start = 0
            while start < half {
                _ = try await logbook.record(Array(points[start..<min(start + 100, half)]))
                start += 100
            }
        }
        let reopened = try open(store)
        let id = await reopened.recordingID
        XCTAssertEqual(id, "live/1")
        _ = try await reopened.record(Array(points[half...]))
        try await reopened.endRecording()
        let report = try await reopened.report()
        XCTAssertEqual(json(report), expected)
        let recordingAfter = await reopened.recordingID
        XCTAssertNil(recordingAfter)
    }

    func testChangesSinceAMomentAreTheReportAgainstThatMomentsFigures() async throws {
        let folder = try temporaryDirectory()
        let logbook = try open(folder + "/c.logbook")
        _ = try await logbook.importSources([.path(samples[0])])
        let first = try await logbook.report()
        try await Task.sleep(nanoseconds: 5_000_000)
        let moment = Date()
        try await Task.sleep(nanoseconds: 5_000_000)
        _ = try await logbook.importSources(samples.dropFirst().map { .path($0) })
        let now = try await logbook.report()
        // Reopened (the figures are in the store, not in memory).
        let reopened = try open(folder + "/c.logbook")
        let since = try await reopened.changes(since: moment)
        XCTAssertEqual(since, ClassifyReport.Changes(from: ClassifyReport.Baseline(first), to: now))
        XCTAssertFalse(since.unlocked.isEmpty)
        // Before anything was imported: everything counted now is new.
        let all = try await reopened.changes(since: Date(timeIntervalSince1970: 0))
        let counted = now.unlocks.mapValues { $0.filter { $0.counts(lenient: false, includePassedThrough: false) }.count }
        XCTAssertEqual(all.unlocked.mapValues(\.count), counted.filter { $0.value > 0 })
        XCTAssertEqual(all.exploredCells, now.metrics.exploredCellCount)
    }

    func testTheViewportHoldsExactlyTheCellsWhoseBoundsMeetIt() async throws {
        let folder = try temporaryDirectory()
        let logbook = try open(folder + "/v.logbook")
        _ = try await logbook.importSources(samples.map { .path($0) })
        let combined = try await logbook.ledger.combined()
        // The test's own bounds: a row is 25 m of meridian arc, its columns split 360° evenly.
        func bounds(_ key: Int64) -> (south: Double, north: Double, west: Double, east: Double) {
            let (row, column) = ExploredGrid.cell(ofKey: key)
            let width = 360 / Double(ExploredGrid.columnCount(row: row))
            return (ExploredGrid.latitude(meridianDistance: 25 * Double(row)), ExploredGrid.latitude(meridianDistance: 25 * Double(row + 1)),
                    -180 + width * Double(column), -180 + width * Double(column + 1))
        }
        let boxes = [GeoBox(south: 39.90, west: 116.38, north: 39.92, east: 116.41),  // Tiananmen
                     GeoBox(south: 22.27, west: 114.14, north: 22.29, east: 114.18),  // Hong Kong
                     GeoBox(south: -90, west: -180, north: 90, east: 180)]
        for box in boxes {
            let expected = combined.cells.keys.filter { key in
                let b = bounds(key)
                return b.north >= box.south && b.south <= box.north && b.east >= box.west && b.west <= box.east
            }
            let found = try await logbook.cells(in: box)
            XCTAssertEqual(found.map(\.key), expected, "\(box)")
            XCTAssertFalse(expected.isEmpty, "\(box) holds cells")
        }
    }

    func testASignedLogbookChangedWithoutTheKeyIsRefused() async throws {
        let folder = try temporaryDirectory()
        let store = folder + "/signed.logbook"
        let key = Array("a key only the app knows".utf8)
        do {
            let logbook = try open(store, key: key)
            _ = try await logbook.importSources([.path(samples[0])])
        }
        _ = try open(store, key: key)  // reopens with its key
        for (attempt, kind) in [(nil, LogbookError.Kind.keyRequired), (Array("another key".utf8), .signatureMismatch)] {
            do {
                _ = try open(store, key: attempt)
                XCTFail("opened with \(String(describing: attempt))")
            } catch let error as LogbookError {
                XCTAssertEqual(error.kind, kind)
                XCTAssertTrue(error.description.hasPrefix(store), error.description)
            }
        }
        // A figure changed behind the key's back (as a person with sqlite3 would).
        let database = try SQLiteDatabase(path: store)
        try database.execute("UPDATE inputs SET points_kept = points_kept - 1, points_read = points_read - 1 WHERE status = 'read'")
        do {
            _ = try open(store, key: key)
            XCTFail("a tampered logbook opened")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .signatureMismatch)
            XCTAssertTrue(error.reason.contains("import your tracks into a new logbook"), error.reason)
        }
    }

    func testOtherRulesAndWorldviewsAreRefused() async throws {
        let folder = try temporaryDirectory()
        let store = folder + "/rules.logbook"
        _ = try open(store)
        var other = Self.rules
        other.exploreMaxSpeed = 20 / 3.6
        do {
            _ = try Logbook(at: URL(fileURLWithPath: store), locator: Self.locator, configuration: .init(rules: other))
            XCTFail("opened with other rules")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .rulesDiffer)
            XCTAssertTrue(error.reason.contains("--explore-max-speed"), error.reason)
        }
        let international = try RegionLocator(tables: try TableSet(directory: Repository.tables, worldview: .international), marginRadius: 120)
        do {
            _ = try Logbook(at: URL(fileURLWithPath: store), locator: international)
            XCTFail("opened in the other worldview")
        } catch let error as LogbookError {
            XCTAssertEqual(error.kind, .worldviewDiffers)
        }
        // Nil rules take the logbook's own.
        let own = try Logbook(at: URL(fileURLWithPath: store), locator: Self.locator)
        XCTAssertEqual(own.rules.timeZone, Self.rules.timeZone)
    }

    func testANonLogbookIsRefusedByKind() throws {
        let folder = try temporaryDirectory()
        let text = folder + "/notes.txt"
        try "not a database".write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try open(text)) { error in
            XCTAssertEqual((error as? LogbookError)?.kind, .notALogbook)
        }
        let other = try SQLiteDatabase(path: folder + "/other.sqlite")
        try other.execute("CREATE TABLE t(x)")
        XCTAssertThrowsError(try open(folder + "/other.sqlite")) { error in
            XCTAssertEqual((error as? LogbookError)?.kind, .notALogbook)
        }
        let newer = try SQLiteDatabase(path: folder + "/newer.logbook")
        try newer.execute("PRAGMA application_id = \(LogbookSchema.applicationID); PRAGMA user_version = 99; CREATE TABLE meta(key, value)")
        XCTAssertThrowsError(try open(folder + "/newer.logbook")) { error in
            XCTAssertEqual((error as? LogbookError)?.kind, .newerFormat)
        }
    }
}

/// A `--state` file written by the previous release opens as a logbook with nothing lost: its
/// report is the one that release printed for it (Scripts/fixtures/make-previous-release-state).
final class StateMigrationTests: XCTestCase {
    func canonical(_ json: String) throws -> NSDictionary {
        var object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        object["changes"] = nil
        return object as NSDictionary
    }

    func testAPreviousReleasesStateIsMigratedWithNothingLost() async throws {
        let fixtures = Repository.fixtures("LogbookStoreTests")
        let folder = try temporaryDirectory()
        let store = folder + "/samples.state"
        try FileManager.default.copyItem(atPath: fixtures + "/previous-release.state", toPath: store)
        let original = try Data(contentsOf: URL(fileURLWithPath: store))
        let catalog = try BadgeCatalog(json: Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path("Data/badges/example.json")))), path: "example.json")
        let logbook = try Logbook(at: URL(fileURLWithPath: store), locator: LogbookTests.locator)
        XCTAssertEqual(logbook.migratedFrom?.path, store + ".austate4")
        XCTAssertEqual(try Data(contentsOf: logbook.migratedFrom!), original, "the state is kept as it was")
        XCTAssertEqual(logbook.rules.timeZone, LocalTimeZone(identifier: "Asia/Shanghai"), "the state's zone")
        let report = try await logbook.report(ReportOptions(badges: catalog))
        // Nothing lost: the logbook reports what reading the state itself gives…
        let bytes = Array(original)
        var direct = try ClassifyReport(ledger: try LedgerState.decode(bytes, path: "state", options: logbook.rules, tables: LogbookTests.locator.tables),
                                        tables: LogbookTests.locator.tables, options: logbook.rules, lenient: false)
        var reported = try LedgerState.decode(bytes, path: "state", options: logbook.rules, tables: LogbookTests.locator.tables).reportedBadgePercents
        direct.badges = catalog.progress(in: direct, reported: &reported)
        XCTAssertEqual(try canonical(report.json().rendered()), try canonical(direct.json().rendered()))
        // …and what the previous release printed for it, but for what this release counts anew:
        // ground distance split by movement (version 4 never recorded it; docs/report-format.md).
        let expected = try canonical(try String(contentsOfFile: fixtures + "/previous-release-report.json", encoding: .utf8))
        let now = try canonical(report.json().rendered())
        // Every member the previous release wrote, as it wrote it (members added since aside, and
        // the figures of a region's whole outline, which follow the tables: its area, the share of
        // it explored, its tiles in all; the tables have been rebuilt since).
        let outlineFigures: Set<String> = ["areaKm2", "exploredPercent", "total"]
        func assertKept(_ old: Any?, _ new: Any?, _ path: String) {
            if let old = old as? [String: Any] {
                guard let new = new as? [String: Any] else { return XCTFail("\(path) is gone") }
                for (key, value) in old where !key.lowercased().contains("distance") && !outlineFigures.contains(key) {
                    assertKept(value, new[key], path + "." + key)
                }
            } else if let old = old as? [Any] {
                guard let new = new as? [Any], new.count == old.count else { return XCTFail("\(path) has another length") }
                for (index, value) in old.enumerated() { assertKept(value, new[index], path + "[\(index)]") }
            } else {
                XCTAssertEqual(new as? NSObject, old as? NSObject, path)
            }
        }
        assertKept(expected["unlocks"], now["unlocks"], "unlocks")
        assertKept(expected["inputs"], now["inputs"], "inputs")
        let was = try XCTUnwrap(expected["metrics"] as? [String: Any]), isNow = try XCTUnwrap(now["metrics"] as? [String: Any])
        for (key, value) in was where !key.lowercased().contains("distance") {
            XCTAssertEqual(isNow[key] as? NSObject, value as? NSObject, "metrics.\(key)")
        }
        let ground = (was["totalDistanceKilometers"] as! Double) - (was["flightDistanceKilometers"] as! Double)
        XCTAssertEqual((isNow["totalDistanceKilometers"] as! Double) + (isNow["vehicleDistanceKilometers"] as! Double), ground, accuracy: 0.002)
        let check = try await logbook.integrityCheck()
        XCTAssertEqual(check, ["ok"])

        // The forgotten input stays forgotten in the logbook.
        let again = try await logbook.importSources([.path(Repository.samples + "/2024-05-04-qingdao-coast.geojson")])
        XCTAssertEqual(again.inputs.first?.skipReason, .forgotten)
        // Reopened, it is a logbook: nothing is migrated twice.
        let reopened = try Logbook(at: URL(fileURLWithPath: store), locator: LogbookTests.locator)
        XCTAssertNil(reopened.migratedFrom)
    }

    /// The previous release located no subdivisions: its inputs, met again, are read again, so the
    /// migrated logbook unlocks the states and provinces a fresh logbook of the same files does
    /// (the same forgotten walk left out), and a later import adds nothing.
    func testInputsRecordedBeforeSubdivisionsAreReadAgain() async throws {
        let fixtures = Repository.fixtures("LogbookStoreTests")
        let folder = try temporaryDirectory()
        let store = folder + "/samples.state"
        try FileManager.default.copyItem(atPath: fixtures + "/previous-release.state", toPath: store)
        let migrated = try Logbook(at: URL(fileURLWithPath: store), locator: LogbookTests.locator)
        let before = try await migrated.report()
        XCTAssertEqual(before.unlocks[.subdivision] ?? [], [], "recorded before subdivisions")
        XCTAssertFalse((before.unlocks[.province] ?? []).isEmpty)

        // The state's files but its archive (the previous release keyed an archive's members
        // otherwise: met again, a member is another input, a limit of migrated archives).
        let files = ["2024-05-01-beijing-walk.gpx", "2024-05-02-hebei-tianjin.csv.gz", "2024-05-03-hongkong-shenzhen.backup.json", "takeout/Records.json"]
        let sources = files.map { IntakeSource.path(Repository.samples + "/" + $0) }
        let upgraded = try await migrated.importSources(sources)
        let fresh = try Logbook(at: URL(fileURLWithPath: folder + "/fresh.logbook"), locator: LogbookTests.locator,
                                configuration: Logbook.Configuration(rules: migrated.rules))
        let expected = try await fresh.importSources(sources).report
        let codes = Set((upgraded.report.unlocks[.subdivision] ?? []).map(\.code))
        XCTAssertTrue(codes.isSuperset(of: ["CN-BJ", "CN-TJ", "CN-HK"]), "\(codes)")
        XCTAssertEqual(codes, Set((expected.unlocks[.subdivision] ?? []).map(\.code)))
        XCTAssertEqual(upgraded.report.metrics.subdivisionCount, expected.metrics.subdivisionCount)
        XCTAssertEqual(Set((upgraded.report.changes?.unlocked[.subdivision] ?? []).map(\.code)),
                       Set((expected.unlocks[.subdivision] ?? []).filter(\.confirmed).map(\.code)), "the changes name the counted ones")
        let again = try await migrated.importSources(sources)
        XCTAssertEqual(again.report.changes?.isEmpty, true)
        let check = try await migrated.integrityCheck()
        XCTAssertEqual(check, ["ok"])
    }
}
