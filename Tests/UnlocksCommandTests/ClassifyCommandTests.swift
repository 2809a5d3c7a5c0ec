import Foundation
import XCTest
import UnlocksTestSupport

/// `unlocks classify` and `unlocks merge` end to end, as a user runs them.
final class ClassifyCommandTests: XCTestCase {
    static let root = Repository.root
    static let tables = Repository.tables
    static let samples = Repository.samples

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func classify(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.run(["classify", "--tables", Self.tables] + arguments)
    }

    /// The README's main command on the bundled archive, checked against facts the sample
    /// generator knows by construction (Scripts/fixtures/make_samples.py): points and drops per file,
    /// flights, days, duration exactly, distance by its own haversine sums, and the places the
    /// itinerary visits (and flies over without visiting).
    func testTheSampleArchiveGivesTheFactsItWasMadeWith() throws {
        let result = try classify([Self.samples])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result.stdout)
        let factsURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/sample-facts.json")
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: factsURL)) as? [String: Any])
        let files = try XCTUnwrap(facts["files"] as? [String: [String: Any]])

        let inputs = try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        XCTAssertEqual(inputs.count, files.count)
        var expectedRead = 0, expectedDrops: [String: Int] = [:], expectedFlight = 0, expectedDuration = 0
        var expectedDistance = 0.0, days = Set<Int>()
        for (name, fact) in files {
            let input = try XCTUnwrap(inputs.first { ($0["path"] as? String)?.hasPrefix(Self.samples + "/" + name) == true }, name)
            XCTAssertEqual(input["status"] as? String, "read", name)
            XCTAssertEqual(input["pointsRead"] as? Int, fact["points"] as? Int, name)
            expectedRead += fact["points"] as! Int
            for (reason, n) in fact["drops"] as! [String: Int] { expectedDrops[reason, default: 0] += n }
            expectedFlight += fact["inFlight"] as! Int
            expectedDuration += fact["durationMilliseconds"] as! Int
            expectedDistance += fact["distanceMetres"] as! Double
            days.formUnion(fact["localDays"] as! [Int])
        }
        let points = try XCTUnwrap(report["points"] as? [String: Any])
        XCTAssertEqual(points["read"] as? Int, expectedRead)
        let dropped = try XCTUnwrap(points["dropped"] as? [String: Int])
        for (reason, n) in expectedDrops { XCTAssertEqual(dropped[reason], n, reason) }
        XCTAssertEqual(points["kept"] as? Int, expectedRead - dropped.values.reduce(0, +))
        XCTAssertEqual(points["inFlight"] as? Int, expectedFlight)

        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        XCTAssertEqual(metrics["totalDurationHours"] as! Double, Double(expectedDuration) / 3.6e6, accuracy: 0.0006)
        // Haversine on a sphere against the ellipsoid's local radii: within 0.6%. The generator
        // sums every leg; the report splits them by movement (on foot, by vehicle, flown).
        let allDistance = ["totalDistanceKilometers", "vehicleDistanceKilometers", "flightDistanceKilometers"].map { metrics[$0] as! Double }.reduce(0, +)
        XCTAssertEqual(allDistance, expectedDistance / 1000, accuracy: expectedDistance / 1000 * 0.006)
        XCTAssertEqual(metrics["recordedDays"] as? Int, days.count)
        let sortedDays = days.sorted()
        var longest = 1, run = 1
        for i in 1..<sortedDays.count {
            run = sortedDays[i] == sortedDays[i - 1] + 1 ? run + 1 : 1
            longest = max(longest, run)
        }
        XCTAssertEqual(metrics["longestStreakDays"] as? Int, longest)
        XCTAssertEqual(metrics["currentStreakDays"] as? Int, run)

        let visits = try XCTUnwrap(facts["visits"] as? [String: Any])
        let unlocks = try XCTUnwrap(report["unlocks"] as? [String: [[String: Any]]])
        func evidence(_ level: String, _ key: String, _ kind: String) -> Set<String> {
            Set((unlocks[level] ?? []).filter { $0["evidence"] as? String == kind }.compactMap { $0[key] as? String })
        }
        func confirmed(_ level: String, _ key: String) -> Set<String> { evidence(level, key, "confirmed") }
        // The Hebei–Tianjin sample is a drive at motorway speed: the regions between its ends are
        // passed through, listed but not counted; together with the confirmed ones they are the
        // places the samples were made to cross.
        func reached(_ level: String, _ key: String) -> Set<String> { confirmed(level, key).union(evidence(level, key, "passedThrough")) }
        XCTAssertEqual(reached("countries", "code"), Set(visits["countries"] as! [String]))
        XCTAssertEqual(metrics["countryCount"] as? Int, confirmed("countries", "code").count)
        XCTAssertEqual(reached("provinces", "name"), Set(visits["provinces"] as! [String]))
        XCTAssertEqual(metrics["chinaProvinceCount"] as? Int, confirmed("provinces", "name").count)
        XCTAssertTrue(evidence("provinces", "name", "passedThrough").contains("河北省"), "the drive passes through Hebei without stopping")
        XCTAssertTrue(reached("counties", "name").isSuperset(of: visits["counties"] as! [String]),
                      "missing: \(Set(visits["counties"] as! [String]).subtracting(reached("counties", "name")))")
        let passedCounties = evidence("counties", "name", "passedThrough")
        let withPassed = try json(try classify([Self.samples, "--include-passed-through"]).stdout)
        XCTAssertEqual((withPassed["metrics"] as? [String: Any])?["countyUnlockCount"] as? Int, confirmed("counties", "name").count + passedCounties.count)
        // The fix that drifts across a district line unlocks it only tentatively: listed, not counted...
        let tentative = Set((unlocks["counties"] ?? []).filter { $0["evidence"] as? String == "tentative" }.compactMap { $0["name"] as? String })
        XCTAssertEqual(tentative, Set((visits["tentative"] as! [String: [String]])["counties"]!))
        XCTAssertEqual(metrics["countyUnlockCount"] as? Int, confirmed("counties", "name").count)
        // ...unless --lenient.
        let lenient = try json(try classify([Self.samples, "--lenient"]).stdout)
        XCTAssertEqual((lenient["metrics"] as? [String: Any])?["countyUnlockCount"] as? Int, confirmed("counties", "name").count + tentative.count)
        let notVisited = visits["notVisited"] as! [String: [String]]
        XCTAssertTrue(Set((unlocks["countries"] ?? []).compactMap { $0["code"] as? String }).isDisjoint(with: notVisited["countries"]!))
        XCTAssertTrue(Set((unlocks["provinces"] ?? []).compactMap { $0["name"] as? String }).isDisjoint(with: notVisited["provinces"]!))
        // Explored area: every cell is ~625 m², and the cells make up the global area.
        let cells = try XCTUnwrap(metrics["exploredCellCount"] as? Int)
        XCTAssertEqual(metrics["globalAreaKm2"] as! Double, Double(cells) * 625e-6, accuracy: Double(cells) * 625e-6 * 0.005)
        XCTAssertLessThan(metrics["chinaAreaKm2"] as! Double, metrics["globalAreaKm2"] as! Double)
    }

    /// One run, two runs through a state file, and two shards merged give byte-identical reports;
    /// a second run with the same state adds nothing.
    func testOneRunStateRunsAndMergedShardsAgree() throws {
        let dir = try temporaryDirectory()
        let all = try classify([Self.samples])
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.samples).sorted().map { Self.samples + "/" + $0 }
        let first = Array(names.prefix(3)), second = Array(names.dropFirst(3))

        XCTAssertEqual(try classify(first + ["--state", dir + "/state"]).status, 0)
        let resumed = try classify(second + ["--state", dir + "/state"])
        XCTAssertEqual(ReportText.withoutChanges(resumed.stdout), all.stdout)
        let again = try classify(names + ["--state", dir + "/state"])
        XCTAssertEqual(ReportText.withoutChanges(again.stdout), all.stdout)
        XCTAssertTrue(again.stderr.contains("already in the state"), again.stderr)

        XCTAssertEqual(try classify(second + ["--state", dir + "/b"]).status, 0)
        XCTAssertEqual(try classify(first + ["--state", dir + "/a"]).status, 0)
        let merged = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/b", dir + "/a", "--state", dir + "/ab"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertEqual(merged.stdout, all.stdout)
        // A shard given twice counts once (the union of inputs is idempotent)…
        let twice = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/a", dir + "/ab"])
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertEqual(twice.stdout, all.stdout)
        // …but the same content read differently (here in another datum) would make the result
        // depend on the states' order: refused.
        XCTAssertEqual(try classify(first + ["--state", dir + "/a-gcj", "--datum", "gcj02"]).status, 0)
        let differently = try CommandRunner.run(["merge", "--tables", Self.tables, dir + "/a", dir + "/a-gcj"])
        XCTAssertEqual(differently.status, 1)
        XCTAssertTrue(differently.stderr.contains("read differently there"), differently.stderr)

        let otherRules = try classify(first + ["--state", dir + "/a", "--utc-offset", "+00:00"])
        XCTAssertEqual(otherRules.status, 1)
        XCTAssertTrue(otherRules.stderr.contains("other classify options"), otherRules.stderr)
    }

    func testReportsAreDeterministicAndTheTextFormatSummarises() throws {
        let dir = try temporaryDirectory()
        XCTAssertEqual(try classify([Self.samples, "--out", dir + "/one.json"]).status, 0)
        XCTAssertEqual(try classify([Self.samples, "--out", dir + "/two.json"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/one.json")), try Data(contentsOf: URL(fileURLWithPath: dir + "/two.json")))
        let text = try classify([Self.samples, "--format", "text"])
        XCTAssertEqual(text.status, 0)
        for expected in ["Provinces", "北京市", "天津市", "Japan", "km²"] {
            XCTAssertTrue(text.stdout.contains(expected), "\(expected) missing from:\n\(text.stdout)")
        }
    }

    /// Bad files next to a good one: each is named with its line or byte offset on standard
    /// error and in the report, the good file is still read, and the exit code is 3.
    func testBadInputsAreReportedFileByFileAndTheRestIsRead() throws {
        let dir = try temporaryDirectory()
        let good = (0..<50).map { i in String(format: "39.91%02d,116.39,2024-05-01T01:00:%02dZ,5", i, i) }.joined(separator: "\n")
        let files: [(String, String)] = [
            ("good.csv", "lat,lon,time,accuracy\n" + good + "\n"),
            ("truncated.gpx", "<gpx><trk><trkseg>\n<trkpt lat=\"39.9\" lon=\"116.4\"><time>2024-05-02T01:00:00Z</time></trkpt>\n<trkpt lat=\"39.9"),
            ("laughs.gpx", "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<gpx>&b;</gpx>\n"),
            ("external.gpx", "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<gpx>&x;</gpx>\n"),
            ("broken.json", "{\"locations\": [{\"latitudeE7\": 399000000, \"longitudeE7\": 1164000000, \"timestamp\": \"2024-05-03T01:00:00Z\"}, {\"latitudeE7\": 39"),
            ("deep.json", String(repeating: "[", count: 100_000)),
            ("garbage.gpx", String(decoding: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }, as: UTF8.self)),
            ("badlines.csv", "lat,lon,time\n39.9,116.4,2024-05-04T01:00:00Z\nnot,a,point\n39.9,abc,2024-05-04T01:00:02Z\n"),
        ]
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
        // A JSON file that is not a track (as exports hold many) is skipped, not rejected.
        try "{\"settings\": {\"theme\": \"dark\"}}".write(toFile: dir + "/settings.json", atomically: false, encoding: .utf8)
        let result = try classify([dir])
        XCTAssertEqual(result.status, 3, result.stderr)
        for (name, _) in files where name != "good.csv" && name != "badlines.csv" {
            XCTAssertTrue(result.stderr.contains(dir + "/" + name + ":"), "\(name) not named in:\n\(result.stderr)")
        }
        XCTAssertTrue(result.stderr.contains(dir + "/badlines.csv:3:"), result.stderr)
        XCTAssertFalse(result.stderr.contains("settings.json"), result.stderr)
        XCTAssertTrue(result.stderr.contains("1 file skipped"), result.stderr)
        XCTAssertTrue(result.stderr.contains(dir + "/truncated.gpx:3:"), result.stderr)
        XCTAssertTrue(result.stderr.contains(dir + "/broken.json:1: byte"), result.stderr)
        let report = try json(result.stdout)
        let inputs = try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        func status(_ name: String) -> String? { inputs.first { $0["path"] as? String == dir + "/" + name }?["status"] as? String }
        XCTAssertEqual(status("good.csv"), "read")
        XCTAssertEqual(status("settings.json"), "skipped")
        XCTAssertEqual(status("badlines.csv"), "read")
        XCTAssertEqual(status("truncated.gpx"), "partial")
        XCTAssertEqual(status("broken.json"), "partial")
        XCTAssertEqual(status("laughs.gpx"), "rejected")
        XCTAssertEqual(status("external.gpx"), "rejected")
        XCTAssertEqual(status("garbage.gpx"), "rejected")
        let points = try XCTUnwrap(report["points"] as? [String: Any])
        // good 50 + truncated 1 + broken 1 + badlines 1 kept, 2 unreadable.
        XCTAssertEqual(points["kept"] as? Int, 53)
        XCTAssertEqual((points["dropped"] as? [String: Int])?["unreadable"], 2)
        let provinces = try XCTUnwrap((report["unlocks"] as? [String: [[String: Any]]])?["provinces"])
        XCTAssertEqual(provinces.map { $0["code"] as? String }, ["110000"])
    }

    /// `--out` to something that is not a regular file (here the standard-output pipe) is written
    /// in place, never renamed over.
    func testOutputToADeviceIsWrittenInPlace() throws {
        let result = try classify([Self.samples + "/takeout", "--out", "/dev/stdout"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\"adminunlocks-classify\""))
        var status = stat()
        XCTAssertEqual(lstat("/dev/stdout", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFLNK, "/dev/stdout must still be the symlink")
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try CommandRunner.run(["classify"]).status, 2)
        XCTAssertEqual(try classify([Self.samples, "--utc-offset", "8"]).status, 2)
        XCTAssertEqual(try classify([Self.samples, "--datum", "osgb"]).status, 2)
        let missing = try classify(["/nonexistent/archive"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/archive"), missing.stderr)
    }
}

/// `classify` reads TCX, KML, KMZ and NMEA files found in a folder, each with its own reader.
final class ClassifyOtherFormatsTests: XCTestCase {
    /// `count` positions a few metres apart from `latitude`, `longitude`, a second apart from 02:00 UTC.
    /// A walk from the hour `hour` (UTC) of 2024-05-01, a fix a second. Walks in different cities
    /// take different hours: one moment counts once, with its evidence.
    func walk(_ latitude: Double, _ longitude: Double, count: Int, hour: Int = 2) -> [(Double, Double, String)] {
        (0..<count).map { (k: Int) -> (Double, Double, String) in
            let step = Double(k) * 0.00002
            return (latitude + step, longitude + step, String(format: "2024-05-01T%02d:%02d:%02dZ", hour, k / 60, k % 60))
        }
    }

    func nmeaSentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", checksum)
    }

    func nmeaAngle(_ degrees: Double, digits: Int) -> String {
        let whole = Int(degrees)
        return String(format: "%0\(digits)d%07.4f", whole, (degrees - Double(whole)) * 60)
    }

    func testTCXKMLKMZAndNMEAAreRead() throws {
        let dir = try temporaryDirectory()
        // Beijing (TCX, timed), Shanghai (KML LineString, untimed), Hangzhou (KMZ gx:Track), Guangzhou (NMEA).
        let tcx = """
              <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running"><Lap><Track>
        \(walk(39.9042, 116.4074, count: 40).map { "<Trackpoint><Time>\($0.2)</Time><Position><LatitudeDegrees>\($0.0)</LatitudeDegrees><LongitudeDegrees>\($0.1)</LongitudeDegrees></Position></Trackpoint>" }.joined(separator: "\n"))
        <Trackpoint><Time>2024-05-01T03:00:00Z</Time><HeartRateBpm><Value>90</Value></HeartRateBpm></Trackpoint>
        </Track></Lap></Activity></Activities></TrainingCenterDatabase>
        """
        let kml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Bund</name><LineString><coordinates>
        \(walk(31.2400, 121.4900, count: 30).map { "\($0.1),\($0.0),4" }.joined(separator: " "))
        </coordinates></LineString></Placemark><Placemark><Point><coordinates>121.49,31.24</coordinates></Point></Placemark></Document></kml>
        """
        let points = walk(30.2590, 120.1480, count: 20, hour: 3)
        let doc = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><Placemark><gx:Track>
        \(points.map { "<when>\($0.2)</when>" }.joined(separator: "\n"))
        \(points.map { "<gx:coord>\($0.1) \($0.0) 10</gx:coord>" }.joined(separator: "\n"))
        </gx:Track></Placemark></Document></kml>
        """
        var nmea: [String] = []
        for (k, point) in walk(23.1291, 113.2644, count: 25, hour: 4).enumerated() {
            let time = String(format: "0400%02d.00", k)
            let lat = nmeaAngle(point.0, digits: 2), lon = nmeaAngle(point.1, digits: 3)
            nmea.append(nmeaSentence("GPGGA,\(time),\(lat),N,\(lon),E,1,08,0.9,20.0,M,-5.0,M,,"))
            nmea.append(nmeaSentence("GPRMC,\(time),A,\(lat),N,\(lon),E,1.0,45.0,010524,,,A"))
        }
        try tcx.write(toFile: dir + "/run.tcx", atomically: false, encoding: .utf8)
        try kml.write(toFile: dir + "/bund.kml", atomically: false, encoding: .utf8)
        try (nmea.joined(separator: "\r\n") + "\r\n").write(toFile: dir + "/logger.nmea", atomically: false, encoding: .utf8)
        // Some loggers write a line of their own first (Radio Mobile's GPS.TXT: "Start log …").
        try ("Start log 02:00:00 01-05-2024\n" + nmea.prefix(10).joined(separator: "\n") + "\n").write(toFile: dir + "/GPS0001.LOG", atomically: false, encoding: .utf8)
        try "2024-05-01 app started\n".write(toFile: dir + "/app.log", atomically: false, encoding: .utf8)
        try doc.write(toFile: dir + "/doc.kml.member", atomically: false, encoding: .utf8)
        let script = """
        import zipfile
        with zipfile.ZipFile("\(dir)/trip.kmz", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("files/photo.png", b"\\x89PNG not really")
            z.write("\(dir)/doc.kml.member", "doc.kml")
        with zipfile.ZipFile("\(dir)/named.kmz", "w") as z:
            z.write("\(dir)/doc.kml.member", "tracks/hangzhou.kml")
            z.writestr("tracks/other.kml", b"<kml><Document/></kml>")
        import gzip, shutil
        with open("\(dir)/run.tcx", "rb") as plain, gzip.open("\(dir)/strava-upload.tcx.gz", "wb") as packed:
            shutil.copyfileobj(plain, packed)
        with zipfile.ZipFile("\(dir)/takeout.zip", "w") as z:
            z.write("\(dir)/trip.kmz", "Takeout/My Maps/trip.kmz")
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        try FileManager.default.removeItem(atPath: dir + "/doc.kml.member")

        // Named on the command line, an .xml file is told by its root element (past the declaration and a comment).
        let other = try temporaryDirectory()
        try tcx.replacingOccurrences(of: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", with: "<?xml version=\"1.0\"?><!-- from a watch -->")
            .write(toFile: other + "/activity.xml", atomically: false, encoding: .utf8)

        let result = try CommandRunner.run(["classify", "--tables", ClassifyCommandTests.tables, dir, other + "/activity.xml"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let inputs = try XCTUnwrap((report["inputs"] as? [String: Any])?["files"] as? [[String: Any]])
        func input(_ name: String) -> [String: Any]? { inputs.first { $0["path"] as? String == dir + "/" + name } }
        XCTAssertEqual(input("run.tcx")?["format"] as? String, "tcx")
        XCTAssertEqual(input("run.tcx")?["pointsRead"] as? Int, 40)
        XCTAssertEqual(input("bund.kml")?["format"] as? String, "kml")
        XCTAssertEqual(input("bund.kml")?["pointsRead"] as? Int, 30)
        // The same KML bytes in three archives are one input wherever they sit: read at the path
        // first in byte order (named.kmz's), the others its duplicates.
        XCTAssertEqual(input("trip.kmz:doc.kml")?["reason"] as? String, "duplicate")
        XCTAssertEqual(input("trip.kmz:doc.kml")?["duplicateOf"] as? String, dir + "/named.kmz:tracks/hangzhou.kml")
        XCTAssertEqual(input("strava-upload.tcx.gz")?["format"] as? String, "tcx")
        XCTAssertEqual(input("strava-upload.tcx.gz")?["pointsRead"] as? Int, 40)
        // Every KML document of a KMZ is read, whatever its name.
        XCTAssertEqual(input("named.kmz:tracks/hangzhou.kml")?["pointsRead"] as? Int, 20)
        XCTAssertEqual(input("named.kmz:tracks/other.kml")?["pointsRead"] as? Int, 0)
        // A KMZ inside a zip (Takeout's My Maps) is opened like the zip inside a zip it is (its KML a copy).
        XCTAssertEqual(input("takeout.zip:Takeout/My Maps/trip.kmz:doc.kml")?["duplicateOf"] as? String, dir + "/named.kmz:tracks/hangzhou.kml")
        // Its picture is accounted for, as a file that is no track.
        XCTAssertEqual(input("trip.kmz:files/photo.png")?["reason"] as? String, "not a track format")
        XCTAssertEqual(input("logger.nmea")?["format"] as? String, "nmea")
        XCTAssertEqual(input("logger.nmea")?["pointsRead"] as? Int, 25)  // a GGA and an RMC per second: one point
        XCTAssertEqual(input("GPS0001.LOG")?["format"] as? String, "nmea")
        XCTAssertEqual(input("GPS0001.LOG")?["pointsRead"] as? Int, 5)
        XCTAssertEqual(input("app.log")?["status"] as? String, "skipped")
        XCTAssertEqual(input("app.log")?["reason"] as? String, "not a track format")
        let named = inputs.first { $0["path"] as? String == other + "/activity.xml" }
        XCTAssertEqual(named?["format"] as? String, "tcx")
        XCTAssertEqual(named?["pointsRead"] as? Int, 40)
        let skipped = Set(inputs.filter { $0["status"] as? String == "skipped" }.compactMap { $0["path"] as? String })
        XCTAssertEqual(skipped, [dir + "/app.log", dir + "/trip.kmz:files/photo.png", dir + "/takeout.zip:Takeout/My Maps/trip.kmz:files/photo.png",
                                 dir + "/trip.kmz:doc.kml", dir + "/takeout.zip:Takeout/My Maps/trip.kmz:doc.kml"])
        // The Bund line carries no times: a plan, its points counted, unlocking nothing (Shanghai).
        XCTAssertEqual(input("bund.kml")?["status"] as? String, "planned")
        XCTAssertEqual(input("bund.kml")?["pointsPlanned"] as? Int, 30)
        for file in inputs where file["status"] as? String != "skipped" && file["path"] as? String != dir + "/bund.kml" {
            XCTAssertEqual(file["status"] as? String, "read", "\(file)")
        }
        let provinces = try XCTUnwrap((report["unlocks"] as? [String: [[String: Any]]])?["provinces"])
        XCTAssertEqual(Set(provinces.compactMap { $0["code"] as? String }), ["110000", "330000", "440000"])
    }
}
