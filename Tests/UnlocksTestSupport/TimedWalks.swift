import Foundation

/// A generated track point: Unix seconds, latitude and longitude (WGS-84).
public typealias TimedPoint = (time: Int, lat: Double, lon: Double)

/// Walks the command tests generate and write as GPX, with the dates and distances they expect
/// computed by hand from the points themselves (never by the code under test).
public enum TimedWalks {
    /// Eastward along latitude `lat` at `speed` m/s, a point every `step` s, for `seconds` from `start`.
    public static func eastward(_ lat: Double, _ lon: Double, start: Int, seconds: Int, speed: Double = 1.4, step: Int = 5) -> [TimedPoint] {
        stride(from: 0, through: seconds, by: step).map { s in
            (start + s, lat, lon + speed * Double(s) / (111_320 * cos(lat * .pi / 180)))
        }
    }

    /// One GPX track segment holding `points`, times in ISO 8601 UTC, coordinates to 7 decimals.
    public static func gpx(_ points: [TimedPoint]) -> String {
        let formatter = ISO8601DateFormatter()
        return "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
            + points.map { String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n", $0.lat, $0.lon,
                                  formatter.string(from: Date(timeIntervalSince1970: TimeInterval($0.time)))) }.joined()
            + "</trkseg></trk></gpx>\n"
    }

    /// The local date (`yyyy-MM-dd`) of a Unix time at a fixed offset from UTC, through Foundation's calendar.
    public static func date(_ seconds: Int, utcOffsetHours: Int = 8) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: utcOffsetHours * 3600)
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
