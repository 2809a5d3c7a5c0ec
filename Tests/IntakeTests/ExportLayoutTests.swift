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
            XCTAssertEqual(records[prefix + name]?.skipReason?.description, metadata, name)
        }
        let activity = records[prefix + "Fit/Activities/2019-10-20T12_51_21.000+01_00_PT2H24M_Walking.tcx"]
        XCTAssertEqual(activity?.status, .read)
        XCTAssertEqual(activity?.pointsRead, 2275, "python-tcxparser's count")
        XCTAssertEqual(records[prefix + "Location History/Records.json"]?.status, .read)
        XCTAssertEqual(records[prefix + "Location History/Settings.json"]?.skipReason?.description, "not a known JSON track format")
        for name in ["Drive/empty-one.gpx", "Drive/empty-two.gpx"] {
            XCTAssertEqual(records[prefix + name]?.skipReason?.description, "empty file", name)
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
            XCTAssertEqual(records[dir + "/" + name]?.skipReason?.description, "not a track (text without coordinates)", name)
        }
        XCTAssertEqual(outcome.failedInputs, 0, "notes beside tracks never fail a run")
        let named = try IntakeHarness.run([.path(dir + "/README.txt")])
        XCTAssertEqual(named.failedInputs, 1, "named by the caller: read, and rejected")
    }

    // MARK: Strava, Garmin, Apple Health (moved from UnlocksCommandTests: rules of the intake)

    func python(_ script: String, in dir: String) throws {
        _ = try IntakeHarness.python(PythonTracks.helpers + script, in: dir)
    }

    func pointsRead(_ outcome: IntakeOutcome) -> Int64 {
        outcome.ledger.inputs.values.reduce(0) { $0 + $1.pointsRead }
    }

    /// A Strava bulk export, zipped and unpacked: GPX and GPX.gz read and labelled from
    /// activities.csv, FIT.gz and TCX.gz read, the VirtualRide skipped (read with includeVirtual),
    /// every metadata CSV skipped (they were rejected: exit 3), planned routes skipped, a folder
    /// Strava does not write read as usual. Every track point is counted; nothing fails.
    func testAStravaExportIsReadWithEveryFileAccounted() throws {
        let dir = try temporaryDirectory()
        try python("""
        activities = (
            'Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Filename,Distance\\r\\n'
            '101,"May 1, 2024, 9:00:00 AM","Morning ""Hutong"" Ride",Ride,"Through the lanes,\\nthen home",600,2.1,activities/101.gpx,2100\\r\\n'
            '102,"May 2, 2024, 9:00:00 AM",Lunch Run,Run,,300,1.0,activities/102.gpx.gz,1000\\r\\n'
            '103,"May 3, 2024, 9:00:00 AM",Garmin Ride,Ride,,300,1.0,activities/103.fit.gz,1000\\r\\n'
            '104,"May 4, 2024, 9:00:00 AM",Old Run,Run,,300,1.0,activities/104.tcx.gz,1000\\r\\n'
            '105,"May 5, 2024, 7:00:00 PM",Zwift - Watopia,VirtualRide,,1800,15.0,activities/105.gpx,15000\\r\\n'
            '106,"May 6, 2024, 7:00:00 PM",Manual entry,Workout,,1800,0,,0\\r\\n')
        entries = [
            ("activities.csv", activities.encode()),
            ("activities/101.gpx", gpx(40, 39.93, 116.39, 1714525200, waypoints=2)),
            ("activities/102.gpx.gz", gz(gpx(25, 39.95, 116.40, 1714611600))),
            ("activities/103.fit.gz", gz(fit([(1714698000 + i, 39.96 + i * 0.00001, 116.41) for i in range(12)]))),
            ("activities/104.tcx.gz", gz(tcx([(1714784400 + i, 39.97 + i * 0.00001, 116.42) for i in range(8)]))),
            ("activities/105.gpx", gpx(30, -11.63, 166.95, 1714906800)),
            ("profile.csv", b"Athlete ID,Email Address,First Name\\n1,a@b.c,A\\n"),
            ("bikes.csv", b"Bike Name,Bike Brand\\nRoad,Giant\\n"),
            ("shoes.csv", b"Shoe Name,Shoe Brand\\nFast,Asics\\n"),
            ("routes.csv", b"Route ID,Route Name,Filename\\n9,Loop,routes/9.gpx\\n"),
            ("segments.csv", b"Segment ID,Segment Name\\n7,Hill\\n"),
            ("comments.csv", b"Comment Date,Comment\\n2024,nice\\n"),
            ("media/abc.jpg", b"\\xff\\xd8\\xff"),
            ("routes/9.gpx", gpx(15, 39.99, 116.30)),
            ("my own/walk.gpx", gpx(11, 39.98, 116.31, 1715000000)),
        ]
        open("export_12345.zip", "wb").write(zipped(entries))
        import os
        os.makedirs("unpacked")
        for name, data in entries:
            os.makedirs(os.path.dirname("unpacked/" + name) or "unpacked", exist_ok=True)
            open("unpacked/" + name, "wb").write(data)
        """, in: dir)
        for (input, prefix) in [(dir + "/export_12345.zip", dir + "/export_12345.zip:"), (dir + "/unpacked", dir + "/unpacked/")] {
            let outcome = try IntakeHarness.run([.path(input)])
            XCTAssertEqual(outcome.failedInputs, 0, input)
            let records = IntakeHarness.records(outcome.ledger)
            let ride = records[prefix + "activities/101.gpx"]
            XCTAssertEqual(ride?.status, .read)
            XCTAssertEqual(ride?.activityType, "Ride")
            XCTAssertEqual(ride?.activityName, "Morning \"Hutong\" Ride")
            XCTAssertEqual(ride?.pins, 2)
            XCTAssertEqual(records[prefix + "activities/102.gpx.gz"]?.activityType, "Run")
            XCTAssertEqual(records[prefix + "my own/walk.gpx"]?.pointsRead, 11, "a folder Strava does not write is read as usual")
            XCTAssertEqual(records[prefix + "activities/103.fit.gz"]?.pointsRead, 12)
            XCTAssertEqual(records[prefix + "activities/104.tcx.gz"]?.pointsRead, 8)
            XCTAssertEqual(pointsRead(outcome), 40 + 25 + 11 + 12 + 8)
            let virtual = records[prefix + "activities/105.gpx"]
            XCTAssertEqual(virtual?.status, .skipped)
            XCTAssertEqual(virtual?.skipReason?.description, "virtual activity")
            XCTAssertEqual(virtual?.activityType, "VirtualRide")
            for name in ["activities.csv", "profile.csv", "bikes.csv", "shoes.csv", "routes.csv", "segments.csv", "comments.csv", "media/abc.jpg"] {
                XCTAssertEqual(records[prefix + name]?.skipReason?.description, "metadata of a Strava export", name)
            }
            XCTAssertEqual(records[prefix + "routes/9.gpx"]?.skipReason?.description, "planned route (not a recorded track)")
            XCTAssertFalse(records.values.contains { $0.status == .rejected || $0.status == .partial })

            var options = IntakeOptions()
            options.includeVirtual = true
            XCTAssertEqual(pointsRead(try IntakeHarness.run([.path(input)], options: options)), 40 + 25 + 11 + 12 + 8 + 30)
        }
    }

    /// Garmin "Export Your Data": the FIT uploads sit in a zip inside the zip, read as a stream;
    /// a zip one level deeper is skipped with a reason; the JSON and CSV files are metadata.
    func testAGarminExportWithAZipInsideIsRead() throws {
        let dir = try temporaryDirectory()
        try python("""
        deeper = zipped([("deep.csv", csv(3, 39.90, 116.40))])
        uploads = zipped([
            ("u1.fit", fit([(1714525200 + i, 39.92 + i * 0.00001, 116.40) for i in range(10)])),
            ("u2.gpx", gpx(20, 39.93, 116.41, 1714611600)),
            ("u3.csv", csv(6, 39.94, 116.42, 1714698000)),
            ("too-deep.zip", deeper),
        ])
        open("garmin.zip", "wb").write(zipped([
            ("DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip", uploads),
            ("DI_CONNECT/DI-Connect-Fitness/user_summarizedActivities.json", b'[{"summarizedActivitiesExport": []}]'),
            ("DI_CONNECT/DI-Connect-User/user_profile.json", b'{"userName": "a"}'),
            ("DI_CONNECT/DI-Connect-Wellness/sleep.csv", b"date,minutes\\n2024-05-01,480\\n"),
        ]))
        """, in: dir)
        let outcome = try IntakeHarness.run([.path(dir + "/garmin.zip")])
        XCTAssertEqual(outcome.failedInputs, 0)
        let records = IntakeHarness.records(outcome.ledger)
        let inner = dir + "/garmin.zip:DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip:"
        XCTAssertEqual(records[inner + "u1.fit"]?.pointsRead, 10)
        XCTAssertEqual(records[inner + "u2.gpx"]?.pointsRead, 20)
        XCTAssertEqual(records[inner + "u3.csv"]?.pointsRead, 6)
        XCTAssertEqual(pointsRead(outcome), 36)
        XCTAssertEqual(records[inner + "too-deep.zip"]?.skipReason?.description, "nested archive too deep")
        for name in ["DI-Connect-Fitness/user_summarizedActivities.json", "DI-Connect-User/user_profile.json", "DI-Connect-Wellness/sleep.csv"] {
            XCTAssertEqual(records[dir + "/garmin.zip:DI_CONNECT/" + name]?.skipReason?.description, "metadata of a Garmin export", name)
        }
    }

    /// Apple Health's export.zip: workout routes read, export.xml and the ECG CSVs skipped as
    /// metadata (the CSVs were rejected: exit 3).
    func testAnAppleHealthExportReadsItsWorkoutRoutes() throws {
        let dir = try temporaryDirectory()
        try python("""
        open("export.zip", "wb").write(zipped([
            ("apple_health_export/export.xml", b'<?xml version="1.0"?><HealthData locale="en_US"></HealthData>'),
            ("apple_health_export/export_cda.xml", b'<?xml version="1.0"?><ClinicalDocument/>'),
            ("apple_health_export/workout-routes/route_2024-05-01_9.30am.gpx", gpx(33, 39.90, 116.40)),
            ("apple_health_export/electrocardiograms/ecg_2024-05-01.csv", b"Name,Test\\nDate of Birth,1990-01-01\\nRecorded Date,2024-05-01 09:00:00 +0800\\n\\n-12.3\\n-11.9\\n"),
        ]))
        """, in: dir)
        let outcome = try IntakeHarness.run([.path(dir + "/export.zip")])
        XCTAssertEqual(outcome.failedInputs, 0)
        XCTAssertEqual(pointsRead(outcome), 33)
        let records = IntakeHarness.records(outcome.ledger)
        let root = dir + "/export.zip:apple_health_export/"
        XCTAssertEqual(records[root + "workout-routes/route_2024-05-01_9.30am.gpx"]?.status, .read)
        for name in ["export.xml", "export_cda.xml", "electrocardiograms/ecg_2024-05-01.csv"] {
            XCTAssertEqual(records[root + name]?.skipReason?.description, "metadata of an Apple Health export", name)
        }
    }
}
