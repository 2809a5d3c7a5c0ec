import Foundation
import XCTest
@testable import Intake
import Unlocks
import UnlocksTestSupport

/// Exports as people hold them (issue 22, item 5): a Google Takeout with its own metadata beside
/// the tracks, text files beside tracks, empty files. Nothing of the export's own is rejected, so
/// the run does not fail; every file is accounted for with its reason.
final class ExportLayoutTests: XCTestCase {
    /// The header Google Fit writes in `Takeout/Fit/Daily activity metrics/` (a real export:
    /// github.com/athrvakulkarni11/medical_apis at 85adc860, `2025-02-13.csv` and
    /// `Daily activity metrics.csv`); the rows below are made up in the same columns. The
    /// bounding-box columns (`Low latitude (deg)`…) are not a latitude and a longitude column.
    static let dailyHeader = "Start time,End time,Move Minutes count,Calories (kcal),Distance (m),Heart Points,Heart Minutes,Low latitude (deg),Low longitude (deg),High latitude (deg),High longitude (deg),Average speed (m/s),Max speed (m/s),Min speed (m/s),Step count,Average weight (kg),Max weight (kg),Min weight (kg),Walking duration (ms)"
    static let summaryHeader = "Date,Move Minutes count,Calories (kcal),Distance (m),Heart Points,Heart Minutes,Low latitude (deg),Low longitude (deg),High latitude (deg),High longitude (deg),Average speed (m/s),Max speed (m/s),Min speed (m/s),Step count,Average weight (kg),Max weight (kg),Min weight (kg),Walking duration (ms),Running duration (ms)"

    /// A real Garmin Connect TCX (2,275 trackpoints by python-tcxparser: TracksTests' expected.json)
    /// and the sample Takeout `Records.json`.
    static let tcx = Repository.fixtures("TracksTests") + "/tcx/tcx2gpx-2019-10-20.tcx"
    static let records = Repository.samples + "/takeout/Records.json"

    func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func copy(_ from: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: from, toPath: path)
    }

    /// Takeout's layout: its browser page, Fit's metrics CSVs, sessions and data sources beside
    /// Fit's TCX activities, the location history, and empty files in another product's folder.
    func makeTakeout(in dir: String) throws {
        let root = dir + "/Takeout"
        try write("<!DOCTYPE html><html><head><title>Google Takeout</title></head><body>Archive</body></html>\n", root + "/archive_browser.html")
        try write(Self.dailyHeader + "\n00:00:00.000+08:00,00:15:00.000+08:00,,14.16,,,,,,,,,,,,,,,\n10:45:00.000+08:00,11:00:00.000+08:00,13,46.75,1316.7,5.0,5,39.9054,116.3912,39.9081,116.3976,1.54,3.24,0.11,1121,,,,900000\n",
                  root + "/Fit/Daily activity metrics/2024-05-01.csv")
        try write(Self.summaryHeader + "\n2024-05-01,51,409.29,2652.31,9.0,9,,,,,0.49,3.07,0.26,3952,,,,3172589,\n",
                  root + "/Fit/Daily activity metrics/Daily activity metrics.csv")
        try write("{\"fitnessActivity\":\"walking\",\"startTime\":\"2024-05-01T09:00:00.000+08:00\",\"endTime\":\"2024-05-01T09:30:00.000+08:00\",\"duration\":\"1800s\"}\n",
                  root + "/Fit/All Sessions/2024-05-01T09_00_00.000+08_00_WALKING.json")
        try write("{\"Data Source\":\"derived:com.google.step_count.delta\",\"Data Points\":[]}\n", root + "/Fit/All Data/derived_com.google.step_count.delta.json")
        try copy(Self.tcx, root + "/Fit/Activities/2019-10-20T12_51_21.000+01_00_PT2H24M_Walking.tcx")
        try copy(Self.records, root + "/Location History/Records.json")
        try write("{\"createdTime\":\"2024-05-01T00:00:00Z\",\"deviceSettings\":[]}\n", root + "/Location History/Settings.json")
        try write("", root + "/Drive/empty-one.gpx")
        try write("", root + "/Drive/empty-two.gpx")
    }

    func checkTakeout(_ outcome: IntakeOutcome, prefix: String) {
        XCTAssertEqual(outcome.failedInputs, 0, "nothing of Takeout's own is rejected")
        let records = IntakeHarness.records(outcome.ledger)
        let metadata = "metadata of a Google Takeout export"
        for name in ["archive_browser.html", "Fit/Daily activity metrics/2024-05-01.csv", "Fit/Daily activity metrics/Daily activity metrics.csv",
                     "Fit/All Sessions/2024-05-01T09_00_00.000+08_00_WALKING.json", "Fit/All Data/derived_com.google.step_count.delta.json"] {
            XCTAssertEqual(records[prefix + name]?.status, .skipped, name)
            XCTAssertEqual(records[prefix + name]?.skipReason, metadata, name)
        }
        let activity = records[prefix + "Fit/Activities/2019-10-20T12_51_21.000+01_00_PT2H24M_Walking.tcx"]
        XCTAssertEqual(activity?.status, .read)
        XCTAssertEqual(activity?.pointsRead, 2275, "python-tcxparser's count")
        XCTAssertEqual(records[prefix + "Location History/Records.json"]?.status, .read)
        XCTAssertEqual(records[prefix + "Location History/Settings.json"]?.skipReason, "not a known JSON track format")
        for name in ["Drive/empty-one.gpx", "Drive/empty-two.gpx"] {
            XCTAssertEqual(records[prefix + name]?.skipReason, "empty file", name)
            XCTAssertNil(records[prefix + name]?.duplicateOf, "an empty file is no copy of another")
        }
        XCTAssertEqual(records.count, 10, records.keys.sorted().joined(separator: "\n"))
    }

    func testAGoogleTakeoutFolderAndZipAreReadWithoutRejectingItsMetadata() throws {
        let dir = try temporaryDirectory()
        try makeTakeout(in: dir + "/export")
        checkTakeout(try IntakeHarness.run([.path(dir + "/export")]), prefix: dir + "/export/Takeout/")
        // As Google delivers it: takeout-….zip, Takeout/ at its root.
        _ = try IntakeHarness.python("""
        import os, zipfile
        with zipfile.ZipFile("takeout-20240501T000000Z-001.zip", "w", zipfile.ZIP_DEFLATED) as z:
            for folder, _, files in sorted(os.walk("export")):
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    z.write(path, os.path.relpath(path, "export"))
        """, in: dir)
        let zip = dir + "/takeout-20240501T000000Z-001.zip"
        var options = IntakeOptions()
        for jobs in [1, 3] {
            options.jobs = jobs
            checkTakeout(try IntakeHarness.run([.path(zip)], options: options), prefix: zip + ":Takeout/")
        }
    }

    /// Without Takeout's layout the same CSV is a track file that names no coordinates: rejected.
    func testTheMetricsCSVOutsideTakeoutIsStillRejected() throws {
        let dir = try temporaryDirectory()
        try write(Self.dailyHeader + "\n00:00:00.000+08:00,00:15:00.000+08:00,,14.16,,,,,,,,,,,,,,,\n", dir + "/Fit/Daily activity metrics/2024-05-01.csv")
        let outcome = try IntakeHarness.run([.path(dir)])
        XCTAssertEqual(outcome.failedInputs, 1)
        XCTAssertEqual(IntakeHarness.records(outcome.ledger)[dir + "/Fit/Daily activity metrics/2024-05-01.csv"]?.status, .rejected)
    }

    /// Text beside tracks: a `.txt` is read when it begins like NMEA or a CSV of coordinates, and
    /// skipped as text otherwise (a README, notes, Huawei's description) — unless named by the
    /// caller, who asked for it to be read.
    func testTextFilesBesideTracksAreSkippedUnlessTheyHoldCoordinates() throws {
        let dir = try temporaryDirectory()
        _ = try IntakeHarness.python(IntakeHarness.csvWalk + """
        open("walk.csv", "wb").write(walk(60))
        open("walk-copy-as.txt", "wb").write(walk(30, lat=39.91))
        open("positional.txt", "wb").write(b"39.920000,116.400000,2024-05-01T01:00:00Z\\n39.920010,116.400000,2024-05-01T01:00:01Z\\n")
        open("utf16.txt", "wb").write(("lat,lon,time\\n39.93,116.40,2024-05-01T01:00:00Z\\n39.93001,116.40,2024-05-01T01:00:01Z\\n").encode("utf-16"))
        body = "GPRMC,010000,A,3954.000,N,11624.000,E,0.0,0.0,010524,,"
        checksum = 0
        for c in body.encode(): checksum ^= c
        open("gps.txt", "wb").write(("$%s*%02X\\n" % (body, checksum)).encode())
        open("README.txt", "wb").write(b"These are my walks, exported 2024-05-01.\\nSee walk.csv.\\n")
        open("notes.txt", "wb").write(b"12 apples, 3 pears\\n")
        open("description.txt", "wb").write(b"\\n\\nHuawei Health data export\\nmotion path: HiTrack files\\n")
        open("numbers.txt", "wb").write(b"123\\n456\\n")
        """, in: dir)
        let outcome = try IntakeHarness.run([.path(dir)])
        let records = IntakeHarness.records(outcome.ledger)
        for name in ["walk.csv", "walk-copy-as.txt", "positional.txt", "utf16.txt"] {
            XCTAssertEqual(records[dir + "/" + name]?.status, .read, name)
            XCTAssertEqual(records[dir + "/" + name]?.format, "csv", name)
        }
        XCTAssertEqual(records[dir + "/gps.txt"]?.format, "nmea")
        for name in ["README.txt", "notes.txt", "description.txt", "numbers.txt"] {
            XCTAssertEqual(records[dir + "/" + name]?.status, .skipped, name)
            XCTAssertEqual(records[dir + "/" + name]?.skipReason, "not a track (text without coordinates)", name)
        }
        XCTAssertEqual(outcome.failedInputs, 0, "notes beside tracks never fail a run")
        let named = try IntakeHarness.run([.path(dir + "/README.txt")])
        XCTAssertEqual(named.failedInputs, 1, "named by the caller: read, and rejected")
    }
}
