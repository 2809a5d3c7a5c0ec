import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import Tracks
import UnlocksTestSupport

/// Reads `text` (in small chunks, so records straddle reads) and returns the sink and format.
private func read(_ text: String, chunk: Int = 13) throws -> (TrackEventRecorder, JSONTrackFormat) {
    var sink = TrackEventRecorder()
    let format = try JSONTrackReader.read(FedSource(text, feeding: .fixed(chunk)), path: "in.json", into: &sink)
    return (sink, format)
}

/// Reads `bytes` expecting an `InputError`; returns it with what was delivered before it.
private func failure(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> (InputError?, TrackEventRecorder) {
    var sink = TrackEventRecorder()
    do {
        let format = try JSONTrackReader.read(FedSource(bytes, feeding: .fixed(13)), path: "bad.json", into: &sink)
        XCTFail("read as \(format), expected an error", file: file, line: line)
        return (nil, sink)
    } catch let error as InputError {
        XCTAssertEqual(error.path, "bad.json", file: file, line: line)
        return (error, sink)
    } catch {
        XCTFail("unexpected error type: \(error)", file: file, line: line)
        return (nil, sink)
    }
}

private func failure(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> (InputError?, TrackEventRecorder) {
    failure(Array(text.utf8), file: file, line: line)
}

final class JSONTrackReaderTests: XCTestCase {
    // Shape: Google Takeout "Location History (Timeline)" Records.json, as documented by
    // locationhistoryformat.com ("Raw Location History Data") and seen in public test data
    // (GoCorona-org/App test_data/location_history.js uses the older timestampMs form).
    static let takeout = """
    {
      "locations": [{
        "latitudeE7": 399042000,
        "longitudeE7": 1164074000,
        "accuracy": 13,
        "altitude": 52,
        "verticalAccuracy": 3,
        "activity": [{
          "activity": [{ "type": "STILL", "confidence": 100 }, { "type": "ON_FOOT", "confidence": 2 }],
          "timestamp": "2022-01-12T17:18:19.472Z"
        }],
        "source": "WIFI",
        "deviceTag": 1234567890,
        "platformType": "ANDROID",
        "timestamp": "2022-01-12T17:18:24.190Z"
      }, {
        "timestampMs": "1389479257297",
        "latitudeE7": 4233738877,
        "longitudeE7": 1066510714,
        "accuracy": 20
      }, {
        "timestamp": "2022-01-12T17:20:00Z",
        "longitudeE7": 1164080000
      }, {
        "latitudeE7": 1e999,
        "longitudeE7": 1164080000
      }, {
        "latitudeE7": "399050000",
        "longitudeE7": 1164090000
      }, {
        "latitudeE7": 399050000,
        "longitudeE7": 1164090000,
        "timestamp": "12 January 2022"
      },
      17, {
        "timestamp": "2022-01-12T17:20:00Z",
        "accuracy": 5,
        "longitudeE7": 1164080000,
        "latitudeE7": 399044000
      }]
    }
    """

    func testTakeoutRecords() throws {
        let (sink, format) = try read(Self.takeout)
        XCTAssertEqual(format, .takeoutRecords)
        XCTAssertEqual(sink.points, [
            TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_642_007_904_190, accuracy: 13, elevation: 52),
            // 4233738877 is -61228419 written as an unsigned 32-bit integer.
            TrackPoint(latitude: -6.1228419, longitude: 106.6510714, time: 1_389_479_257_297, accuracy: 20),
            TrackPoint(latitude: 39.9044, longitude: 116.408, time: 1_642_008_000_000, accuracy: 5),
        ])
        XCTAssertEqual(sink.problems.map(\.reason), [
            "byte 574: location record without latitudeE7",
            "byte 652: latitudeE7 is out of range",
            "byte 714: latitudeE7 is not a number",
            "byte 782: timestamp is not an ISO-8601 time",
            "byte 886: location record is not an object",
        ])
        XCTAssertEqual(sink.events.first { if case .unreadable = $0 { return true } else { return false } },
                       .unreadable(InputError(path: "in.json", line: 21, reason: "byte 574: location record without latitudeE7")))
        XCTAssertFalse(sink.events.contains(.segmentBreak))
    }

    // Shape: the Android on-device Timeline export ("Timeline.json"), per the field list in
    // nabedroid/google-timeline-viewer's README and the Moshi models of hossain-khan's
    // timeline reader (semanticSegments, rawSignals, userLocationProfile).
    static let android = """
    {
      "semanticSegments": [{
        "startTime": "2024-05-01T08:00:00.000+08:00",
        "endTime": "2024-05-01T10:00:00.000+08:00",
        "timelinePath": [
          { "point": "39.9042000°, 116.4074000°", "time": "2024-05-01T08:04:00.000+08:00" },
          { "time": "2024-05-01T08:10:00.000+08:00", "point": "39.9100000°, 116.4200000°" }
        ]
      }, {
        "startTime": "2024-05-01T08:12:00.000+08:00",
        "endTime": "2024-05-01T09:30:00.000+08:00",
        "startTimeTimezoneUtcOffsetMinutes": 480,
        "endTimeTimezoneUtcOffsetMinutes": 480,
        "visit": {
          "hierarchyLevel": 0,
          "probability": 0.93,
          "topCandidate": {
            "placeId": "ChIJ3S-JXmauEmsRUcIaWtf4MzE",
            "semanticType": "HOME",
            "probability": 0.88,
            "placeLocation": { "latLng": "39.9500000°, 116.3000000°" }
          }
        }
      }, {
        "startTime": "2024-05-01T08:00:00.000+08:00",
        "endTime": "2024-05-01T08:12:00.000+08:00",
        "activity": {
          "start": { "latLng": "39.9042000°, 116.4074000°" },
          "end": { "latLng": "39.9100000°, 116.4200000°" },
          "distanceMeters": 1500.5,
          "topCandidate": { "type": "WALKING", "probability": 0.9 }
        }
      }, {
        "startTime": "2024-05-01T10:00:00.000+08:00",
        "endTime": "2024-05-01T12:00:00.000+08:00",
        "timelinePath": [{ "point": "39.9042°, 116.4074°", "time": "2024-05-01T10:04:00.000+08:00" }, { "point": "north", "time": "2024-05-01T10:05:00.000+08:00" }]
      }],
      "rawSignals": [{
        "position": {
          "LatLng": "39.9050000°, 116.4080000°",
          "accuracyMeters": 13,
          "altitudeMeters": 48.5,
          "source": "WIFI",
          "timestamp": "2024-05-01T08:05:00.000+08:00",
          "speedMetersPerSecond": 0.0
        }
      }, {
        "wifiScan": { "deliveryTime": "2024-05-01T08:05:01.000+08:00", "devicesRecords": [{ "mac": 123456789, "rawRssi": -50 }] }
      }, {
        "activityRecord": { "probableActivities": [{ "type": "STILL", "confidence": 0.9 }], "timestamp": "2024-05-01T08:05:02.000+08:00" }
      }],
      "userLocationProfile": {
        "frequentPlaces": [{ "placeId": "ChIJ3S-JXmauEmsRUcIaWtf4MzE", "placeLocation": "39.9500000°, 116.3000000°", "label": "HOME" }],
        "persona": { "travelModeAffinities": [{ "mode": "WALKING", "affinity": 0.5 }] }
      }
    }
    """

    static let androidPath = [
        TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_714_521_840_000),
        TrackPoint(latitude: 39.91, longitude: 116.42, time: 1_714_522_200_000),
    ]
    static let androidRaw = TrackPoint(latitude: 39.905, longitude: 116.408, time: 1_714_521_900_000, accuracy: 13, elevation: 48.5)
    static let androidLater = TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_714_529_040_000)

    func testGoogleTimelineAndroid() throws {
        let (sink, format) = try read(Self.android)
        XCTAssertEqual(format, .timelineAndroid)
        // Visits' place locations, activity ends and frequent places are not points; the raw
        // fix at 08:05 falls in the first path segment's window (08:00–10:00), so the path
        // speaks for that moment and the fix is not counted again (GoogleExportTests).
        XCTAssertEqual(sink.segments, [Self.androidPath, [Self.androidLater]])
        XCTAssertEqual(sink.problems.count, 1)
        XCTAssertTrue(sink.problems.map(\.reason)[0].hasSuffix("timelinePath point without a readable \"point\""), sink.problems.map(\.reason)[0])
    }

    /// Key order is not guaranteed in real files: the raw signals and profile may come first.
    func testGoogleTimelineKeyOrderIndependence() throws {
        let reordered = """
        {"userLocationProfile": {"frequentPlaces": []}, "rawSignals": [{"position": {"timestamp": "2024-05-01T08:05:00.000+08:00",
          "speedMetersPerSecond": 0.0, "source": "WIFI", "altitudeMeters": 48.5, "accuracyMeters": 13, "LatLng": "39.9050000°, 116.4080000°"}}],
         "semanticSegments": [{"timelinePath": [{"time": "2024-05-01T08:04:00.000+08:00", "point": "39.9042000°, 116.4074000°"},
          {"point": "39.9100000°, 116.4200000°", "time": "2024-05-01T08:10:00.000+08:00"}], "endTime": "2024-05-01T10:00:00.000+08:00",
          "startTime": "2024-05-01T08:00:00.000+08:00"}]}
        """
        let (sink, format) = try read(reordered)
        XCTAssertEqual(format, .timelineAndroid)
        // Raw signals first: they are read, and the path point within a minute of the fix
        // (08:04) is passed over as the same moment.
        XCTAssertEqual(sink.segments, [[Self.androidRaw], [Self.androidPath[1]]])
    }

    // Shape: the iOS on-device Timeline export, a top-level array whose values are all strings;
    // points as "geo:lat,lon" with durationMinutesOffsetFromStartTime (as modelled by GeoPulse's
    // GoogleTimelinePath and the iOS fork of google-maps-timeline-viewer).
    func testGoogleTimelineIOS() throws {
        let ios = """
        [{
          "endTime": "2024-05-01T10:00:00.000+08:00",
          "startTime": "2024-05-01T08:00:00.000+08:00",
          "visit": {"hierarchyLevel": "0", "topCandidate": {"probability": "0.900000", "semanticType": "Unknown",
            "placeID": "ChIJ3S-JXmauEmsRUcIaWtf4MzE", "placeLocation": "geo:39.950000,116.300000"}, "probability": "0.800000"}
        }, {
          "endTime": "2024-05-01T10:30:00.000+08:00",
          "startTime": "2024-05-01T10:00:00.000+08:00",
          "activity": {"end": "geo:39.910000,116.420000", "topCandidate": {"type": "walking", "probability": "0.900000"},
            "distanceMeters": "1500.000000", "start": "geo:39.904200,116.407400"}
        }, {
          "endTime": "2024-05-01T12:00:00.000+08:00",
          "startTime": "2024-05-01T10:00:00.000+08:00",
          "timelinePath": [
            {"point": "geo:39.904200,116.407400", "durationMinutesOffsetFromStartTime": "4"},
            {"durationMinutesOffsetFromStartTime": "10", "point": "geo:39.910000,116.420000"},
            {"point": "geo:39.910000,116.420000"}
          ]
        }]
        """
        let (sink, format) = try read(ios)
        XCTAssertEqual(format, .timelineIOS)
        XCTAssertEqual(sink.segments, [[
            TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_714_529_040_000),
            TrackPoint(latitude: 39.91, longitude: 116.42, time: 1_714_529_400_000),
        ]])
        XCTAssertEqual(sink.problems.count, 1)
    }

    // The app backup, docs/backup-format.md.
    static let backup = """
    {
      "format": "adminunlocks-backup",
      "formatVersion": 1,
      "exportedAt": "2024-03-02T08:00:00Z",
      "tracks": [{
        "id": "6F1C2B7E",
        "name": "Morning walk",
        "segments": [
          {"points": [
            {"time": "2024-03-02T06:00:00Z", "lat": 39.9042, "lon": 116.4074, "accuracy": 4.5, "ele": 44.2},
            {"ele": 45, "accuracy": 6, "lon": 116.4075, "lat": 39.9043, "time": "2024-03-02T06:00:05Z", "speed": 1.3}
          ]},
          {"points": [{"lat": 39.91, "lon": 116.42}, {"lat": 39.91}, {"lat": 39.91, "lon": 1e999}]}
        ]
      }, {
        "segments": [{"points": []}, {"points": [{"lon": 114.1694, "lat": 22.3193, "time": "2024-03-03T01:00:00+08:00"}]}],
        "name": "Hong Kong"
      }]
    }
    """

    func testAppBackup() throws {
        let (sink, format) = try read(Self.backup)
        XCTAssertEqual(format, .backup)
        XCTAssertEqual(sink.segments, [
            [TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_709_359_200_000, accuracy: 4.5, elevation: 44.2),
             TrackPoint(latitude: 39.9043, longitude: 116.4075, time: 1_709_359_205_000, accuracy: 6, elevation: 45)],
            [TrackPoint(latitude: 39.91, longitude: 116.42)],
            [TrackPoint(latitude: 22.3193, longitude: 114.1694, time: 1_709_398_800_000)],
        ])
        XCTAssertEqual(sink.problems.map(\.reason).map { $0.drop(while: { $0 != ":" }) }, [": backup point without \"lon\"", ": \"lon\" is not a finite number"])
        XCTAssertEqual(sink.events.filter { $0 == .segmentBreak }.count, 4)
    }

    /// Encoders that sort keys write format, formatVersion, tracks: the header still comes first.
    func testAppBackupWithSortedKeysAndNoTracks() throws {
        let (sink, format) = try read(#"{"format":"adminunlocks-backup","formatVersion":1,"tracks":[{"segments":[{"points":[{"lat":1,"lon":2}]}]}]}"#)
        XCTAssertEqual(format, .backup)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 1, longitude: 2)])
        XCTAssertEqual(try read(#"{"formatVersion": 1, "format": "adminunlocks-backup"}"#).1, .backup)
    }

    func testAppBackupVersionAndHeaderErrors() {
        let (error, sink) = failure(#"{"format": "adminunlocks-backup", "formatVersion": 2, "tracks": [{"segments": [{"points": [{"lat": 1, "lon": 2}]}]}]}"#)
        XCTAssertEqual(error?.reason, "byte 51: backup formatVersion 2 is not supported (this reader reads version 1)")
        XCTAssertTrue(sink.events.isEmpty)
        XCTAssertEqual(failure(#"{"formatVersion": 3, "format": "adminunlocks-backup"}"#).0?.reason,
                       "byte 18: backup formatVersion 3 is not supported (this reader reads version 1)")
        XCTAssertEqual(failure(#"{"format": "adminunlocks-backup", "formatVersion": "1.0"}"#).0?.reason,
                       "byte 51: backup: formatVersion must be a whole number")
        let (late, lateSink) = failure(#"{"tracks": [{"segments": [{"points": [{"lat": 1, "lon": 2}]}]}], "format": "adminunlocks-backup", "formatVersion": 1}"#)
        XCTAssertEqual(late?.reason, "byte 11: \"tracks\" without a backup header before it (\"format\": \"adminunlocks-backup\" and \"formatVersion\" must come first)")
        XCTAssertTrue(lateSink.events.isEmpty)
        XCTAssertEqual(failure(#"{"tracks": []}"#).0?.reason, late?.reason)
        // Another format may have a member called "tracks": it is skipped there.
        XCTAssertEqual(try read(#"{"tracks": 3, "type": "Point", "coordinates": [116.4, 39.9]}"#).0.points, [TrackPoint(latitude: 39.9, longitude: 116.4)])
    }

    // Shapes: GeoJSON (RFC 7946) as written by togeojson (coordTimes aligned with coordinates,
    // nested per line for a MultiLineString) and by exporters that write "times" or a Point "time".
    static let geoJSON = """
    {
      "features": [
        {"type": "Feature", "properties": {"name": "walk", "coordTimes": ["2024-03-02T06:00:00Z", "2024-03-02T06:00:05Z"]},
         "geometry": {"type": "LineString", "coordinates": [[116.4074, 39.9042, 44.2], [116.4075, 39.9043, 45]]}},
        {"geometry": {"coordinates": [[[114.1, 22.3], [114.2, 22.4]], [[113.9, 22.5]]], "type": "MultiLineString"},
         "properties": {"coordTimes": [["2024-03-02T06:00:00Z", 1709359205000], [null]]}, "type": "Feature"},
        {"type": "Feature", "properties": {"time": "2024-03-02T06:00:00Z"}, "geometry": {"type": "Point", "coordinates": [121.47, 31.23]}},
        {"type": "Feature", "properties": {"times": ["2024-03-02T06:00:00Z"]}, "geometry": {"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]}},
        {"type": "Feature", "properties": null, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}},
        {"type": "Feature", "properties": {}, "geometry": null},
        {"type": "Feature", "properties": {"coordTimes": ["yesterday", "2024-03-02T06:00:00Z", "2024-03-02T06:00:05Z"]}, "geometry": {"type": "LineString", "coordinates": [[1, 2], [1e999, 3], [5]]}},
        {"type": "Point", "coordinates": [0, 0]}
      ],
      "type": "FeatureCollection"
    }
    """

    func testGeoJSON() throws {
        let (sink, format) = try read(Self.geoJSON)
        XCTAssertEqual(format, .geoJSON)
        XCTAssertEqual(sink.segments, [
            [TrackPoint(latitude: 39.9042, longitude: 116.4074, time: 1_709_359_200_000, elevation: 44.2),
             TrackPoint(latitude: 39.9043, longitude: 116.4075, time: 1_709_359_205_000, elevation: 45)],
            [TrackPoint(latitude: 22.3, longitude: 114.1, time: 1_709_359_200_000), TrackPoint(latitude: 22.4, longitude: 114.2, time: 1_709_359_205_000)],
            [TrackPoint(latitude: 22.5, longitude: 113.9)],
            [TrackPoint(latitude: 31.23, longitude: 121.47, time: 1_709_359_200_000)],
            // One time for two points: not aligned, so not trusted.
            [TrackPoint(latitude: 2, longitude: 1), TrackPoint(latitude: 4, longitude: 3)],
        ])
        XCTAssertEqual(sink.problems.map(\.reason).map { $0.drop(while: { $0 != ":" }) }, [
            ": time 0 is not an ISO-8601 time or milliseconds", ": position with a number out of range", ": position with 1 number",
            ": element of \"features\" is not a Feature",
        ])
    }

    func testGeoJSONFeatureAndBareGeometry() throws {
        let feature = #"{"properties": {"coordTimes": ["2024-03-02T06:00:00Z"]}, "geometry": {"type": "LineString", "coordinates": [[116.4, 39.9]]}, "type": "Feature"}"#
        let (sink, format) = try read(feature)
        XCTAssertEqual(format, .geoJSON)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 39.9, longitude: 116.4, time: 1_709_359_200_000)])
        let bare = #"{"coordinates": [[116.4, 39.9, 10], [116.5, 40.0, 12]], "type": "LineString"}"#
        XCTAssertEqual(try read(bare).0.segments, [[TrackPoint(latitude: 39.9, longitude: 116.4, elevation: 10), TrackPoint(latitude: 40, longitude: 116.5, elevation: 12)]])
    }

    // MARK: Bad input, file by file

    func testTruncatedFileKeepsWhatWasRead() {
        let full = Self.takeout
        let cut = full.range(of: "}, {\n    \"timestampMs\"")!.lowerBound
        let truncated = String(full[..<cut]) + "}, "
        let (error, sink) = failure(truncated)
        XCTAssertEqual(error?.reason, "byte \(truncated.utf8.count): unexpected end of input, expected a value")
        XCTAssertEqual(truncated.utf8.count, 451)
        XCTAssertEqual(error?.line, 16)
        XCTAssertEqual(sink.points.count, 1)
    }

    func testSyntaxErrorAtKnownOffset() {
        let (error, sink) = failure(#"{"locations": [{"latitudeE7": 1, "longitudeE7": 2} {"latitudeE7": 3, "longitudeE7": 4}]}"#)
        XCTAssertEqual(error?.reason, "byte 51: expected ',' or ']' in array")
        XCTAssertEqual(error?.line, 1)
        XCTAssertEqual(sink.points, [TrackPoint(latitude: 1e-7, longitude: 2e-7)])
    }

    func testDeepNesting() {
        XCTAssertEqual(failure([UInt8](repeating: UInt8(ascii: "["), count: 100_000)).0?.reason, "byte 512: nesting deeper than 512")
        XCTAssertEqual(failure("{\"locations\": [" + String(repeating: "{\"a\":", count: 1000)).0?.reason, "byte \(15 + 5 * 510): nesting deeper than 512")
    }

    func testHugeStringToken() {
        let source = LazyFillSource(prefix: "{\"locations\": [{\"source\": \"", filler: "x", count: 100_000_000)
        var sink = TrackEventRecorder()
        XCTAssertThrowsError(try JSONTrackReader.read(source, path: "big.json", into: &sink)) { error in
            XCTAssertEqual((error as? InputError)?.reason, "byte 26: string longer than 1048576 bytes")
        }
        XCTAssertLessThan(source.delivered, 3 << 20)
    }

    func testBinaryGarbage() {
        var generator = SplitMix64(seed: 1002)
        var garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        garbage[0] = 0x89  // as a PNG starts
        XCTAssertEqual(failure(garbage).0?.reason, "byte 0: unexpected character '\\u{89}', expected a value")
        // Garbage after a plausible start.
        let (error, _) = failure(Array(#"{"locations": ["#.utf8) + [0x00, 0xFF, 0x13])
        XCTAssertEqual(error?.reason, "byte 15: unexpected character '\\u{0}', expected a value")
        XCTAssertEqual(failure(Array("[\"\u{4e2d}".utf8) + [0xE4, 0xB8] + Array("\"]".utf8)).0?.reason, "byte 1: string is not valid UTF-8")
    }

    func testUnknownStructures() {
        let unknown = JSONTrackReader.unknownStructure
        XCTAssertEqual(failure(#"{"foo": [1, 2], "bar": {"locations": []}}"#).0?.reason, "byte 0: \(unknown)")
        XCTAssertEqual(failure("  \"just a string\"").0?.reason, "byte 2: \(unknown)")
        XCTAssertEqual(failure("[1, 2]").0?.reason, "byte 1: \(unknown)")
        XCTAssertEqual(failure(#"{"type": "Topology", "objects": {}}"#).0?.reason, "byte 0: \(unknown)")
        XCTAssertEqual(failure("").0?.reason, "byte 0: unexpected end of input, expected a value")
        XCTAssertEqual(failure(#"{"locations": []} {"#).0?.reason, "byte 18: unexpected data after the JSON value")
        // A Semantic Location History file whose entries hold no recorded path: no points.
        XCTAssertEqual(try read(#"{"timelineObjects": [{"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 2}}}]}"#).1, .takeoutSemanticHistory)
    }

    // MARK: Constant memory

    /// Generates a Records.json of `count` records as it is read.
    final class GeneratedRecords: ByteSource {
        let count: Int
        private var next = 0
        private var pending: [UInt8] = Array("{\"locations\": [".utf8)
        private var pendingOffset = 0
        private(set) var bytes = 0
        private(set) var latitudeSum = 0.0

        init(count: Int) { self.count = count }

        static func record(_ i: Int) -> String {
            let latitudeE7 = 390_000_000 + (i * 7919) % 10_000_000
            return """
            {
                "latitudeE7": \(latitudeE7),
                "longitudeE7": \(1_160_000_000 + (i * 104_729) % 10_000_000),
                "accuracy": \(3 + i % 40),
                "activity": [{
                  "activity": [{ "type": "STILL", "confidence": \(i % 100) }, { "type": "WALKING", "confidence": 3 }],
                  "timestamp": "2022-01-12T17:18:19.472Z"
                }],
                "source": "WIFI",
                "deviceTag": -1234567890,
                "platformType": "ANDROID",
                "timestamp": "2022-01-\(10 + i % 20)T17:\(10 + i % 50):24.190Z"
              }
            """
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            if pendingOffset == pending.count {
                guard next <= count else { return 0 }
                if next == count {
                    pending = Array("]}\n".utf8)
                } else {
                    let text = Self.record(next)
                    latitudeSum += Double(390_000_000 + (next * 7919) % 10_000_000) / 1e7
                    pending = Array(((next == 0 ? "" : ", ") + text).utf8)
                }
                next += 1
                pendingOffset = 0
            }
            let n = min(buffer.count, pending.count - pendingOffset)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[pendingOffset..<pendingOffset + n])) }
            pendingOffset += n
            bytes += n
            return n
        }
    }

    /// Text made of `count` pieces, each generated as it is read.
    final class GeneratedText: ByteSource {
        private let count: Int
        private let piece: (Int) -> String
        private var next = 0
        private var pending: [UInt8] = []
        private var pendingOffset = 0

        init(count: Int, piece: @escaping (Int) -> String) {
            self.count = count
            self.piece = piece
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            while pendingOffset == pending.count {
                guard next < count else { return 0 }
                pending = Array(piece(next).utf8)
                pendingOffset = 0
                next += 1
            }
            let n = min(buffer.count, pending.count - pendingOffset)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[pendingOffset..<pendingOffset + n])) }
            pendingOffset += n
            return n
        }
    }

    /// GeoJSON features are built one at a time: a collection many times the per-feature cap
    /// reads whole, while a single feature over the cap is refused at its first byte.
    func testGeoJSONFeaturesAreBuiltOneAtATime() throws {
        let cap = 64 << 10
        let positions = 200
        func feature(_ i: Int) -> String {
            let coordinates = (0..<positions).map { "[\(116 + $0), \(39 + i % 10)]" }
            let times = (0..<positions).map { "\"2024-03-02T06:\(10 + $0 / 60):\(10 + $0 % 50)Z\"" }
            return "{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\", \"coordinates\": [\(coordinates.joined(separator: ", "))]}, \"properties\": {\"coordTimes\": [\(times.joined(separator: ", "))]}}"
        }
        let count = 10 * cap / feature(0).utf8.count
        let collection = GeneratedText(count: count + 2) { i in
            i == 0 ? "{\"type\": \"FeatureCollection\", \"features\": [" : i == count + 1 ? "]}" : (i > 1 ? ", " : "") + feature(i - 1)
        }
        var counter = MemorySampler()
        XCTAssertEqual(try JSONTrackReader.read(collection, path: "big.geojson", into: &counter, recordBytes: cap, featureBytes: cap), .geoJSON)
        XCTAssertEqual(counter.points, count * positions)
        XCTAssertEqual(counter.unreadable, 0)

        let lineCount = cap / 20
        let huge = GeneratedText(count: lineCount + 2) { i in
            i == 0 ? "{\"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\", \"coordinates\": [[0, 0]" : i == lineCount + 1 ? "]}}]}" : ", [116.40740, 39.90420]"
        }
        var sink = TrackEventRecorder()
        XCTAssertThrowsError(try JSONTrackReader.read(huge, path: "huge.geojson", into: &sink, recordBytes: cap, featureBytes: cap)) { error in
            XCTAssertEqual((error as? InputError)?.reason, "byte 14: value larger than \(cap) bytes")
        }
        XCTAssertTrue(sink.events.isEmpty)
    }

    /// Timeline segments likewise: many segments read, one over the cap is refused.
    func testTimelineSegmentsAreBuiltOneAtATime() throws {
        let cap = 16 << 10
        let point = #"{"point": "39.9042°, 116.4074°", "time": "2024-05-01T10:04:00.000+08:00"}"#
        let segment = #"{"startTime": "2024-05-01T10:00:00.000+08:00", "timelinePath": ["# + Array(repeating: point, count: 20).joined(separator: ", ") + "]}"
        let count = 10 * cap / segment.utf8.count
        let timeline = GeneratedText(count: count + 2) { i in
            i == 0 ? #"{"semanticSegments": ["# : i == count + 1 ? "]}" : (i > 1 ? ", " : "") + segment
        }
        var counter = MemorySampler()
        XCTAssertEqual(try JSONTrackReader.read(timeline, path: "Timeline.json", into: &counter, recordBytes: cap, featureBytes: cap), .timelineAndroid)
        XCTAssertEqual(counter.points, count * 20)
        let oversized = #"{"semanticSegments": [{"timelinePath": ["# + String(repeating: point + ", ", count: cap / 40) + "{}]}]}"
        var sink = TrackEventRecorder()
        XCTAssertThrowsError(try JSONTrackReader.read(FedSource(oversized), path: "Timeline.json", into: &sink, recordBytes: cap, featureBytes: cap)) { error in
            XCTAssertEqual((error as? InputError)?.reason, "byte 22: value larger than \(cap) bytes")
        }
    }

    /// Counts points and samples resident memory as they arrive.
    struct MemorySampler: TrackSink {
        var points = 0
        var latitudeSum = 0.0
        var unreadable = 0
        var lowest = Int.max
        var highest = 0

        mutating func segmentBreak() {}
        mutating func unreadablePoint(_ problem: InputError) { unreadable += 1 }
        mutating func point(_ point: TrackPoint) {
            points += 1
            latitudeSum += point.latitude
            if points % 5000 == 0 {
                let resident = residentBytes()
                lowest = min(lowest, resident)
                highest = max(highest, resident)
            }
        }

        func residentBytes() -> Int {
            guard let file = fopen("/proc/self/statm", "r") else { return 0 }
            defer { fclose(file) }
            var text = [CChar](repeating: 0, count: 128)
            guard fgets(&text, 128, file) != nil else { return 0 }
            let fields = String(cString: text).split(separator: " ")
            guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }

    /// A multi-megabyte Records.json streams in constant memory: resident memory does not grow
    /// with the input, and every record arrives.
    func testBigRecordsFileStreamsInConstantMemory() throws {
        let count = 100_000
        let source = GeneratedRecords(count: count)
        var sink = MemorySampler()
        XCTAssertEqual(try JSONTrackReader.read(source, path: "Records.json", into: &sink), .takeoutRecords)
        XCTAssertEqual(sink.points, count)
        XCTAssertEqual(sink.unreadable, 0)
        XCTAssertEqual(sink.latitudeSum, source.latitudeSum, accuracy: 1e-6)
        XCTAssertGreaterThan(source.bytes, 30_000_000)
        XCTAssertGreaterThan(sink.lowest, 0)
        XCTAssertLessThan(sink.highest - sink.lowest, 8 << 20, "resident memory grew while streaming \(source.bytes) bytes")
    }
}
