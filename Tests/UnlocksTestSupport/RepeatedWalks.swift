import Foundation

/// The same 5-minute walk repeated, for the familiarity tests: north-east through Dongcheng,
/// Beijing, at 1.4 m/s, a point every 2 s, so every cell it crosses gets one pass candidate per
/// walk at the same offset from the walk's start.
public enum RepeatedWalks {
    /// 2024-05-01T00:00:00Z, 08:00 in Beijing.
    public static let day = 1_714_521_600

    /// The walk as GPX track segments, one per start time (seconds after ``day``).
    public static func gpx(starts: [Int], creator: String = "test", decimals: Int = 7) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"\(creator)\"><trk>\n"
        for start in starts {
            text += "<trkseg>\n"
            for s in stride(from: 0, through: 300, by: 2) {
                let north = 0.6 * Double(s), east = 1.27 * Double(s)
                let lat = 39.9150 + north / 111_000, lon = 116.4000 + east / (111_320 * cos(39.915 * .pi / 180))
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(day + start + s)))
                text += String(format: "<trkpt lat=\"%.\(decimals)f\" lon=\"%.\(decimals)f\"><time>%@</time></trkpt>\n", lat, lon, time)
            }
            text += "</trkseg>\n"
        }
        return text + "</trk></gpx>\n"
    }
}
