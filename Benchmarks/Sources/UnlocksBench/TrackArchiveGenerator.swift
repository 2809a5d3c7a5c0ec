import BoundaryBuild
import Foundation
import Tracks
import SeededRandom

/// Writes a synthetic track archive for the classify benchmark: one GPX file per day (a walk of
/// 1 Hz fixes with correlated noise, elevation, time and hdop, about 120 bytes per `trkpt`, as
/// phones and watches write them) in cities across China and the world, and the same points as
/// one CSV per day. Deterministic (fixed seed).
enum TrackArchiveGenerator {
    /// Real city centres (WGS-84): most footprints are in China, some abroad.
    static let cities: [(Double, Double)] = [
        (39.9042, 116.4074), (31.2304, 121.4737), (23.1291, 113.2644), (22.5431, 114.0579), (30.5728, 104.0668),
        (34.3416, 108.9398), (36.0671, 120.3826), (29.5630, 106.5516), (30.2741, 120.1551), (32.0603, 118.7969),
        (38.0428, 114.5149), (39.1255, 117.1901), (41.8057, 123.4315), (45.8038, 126.5349), (22.3193, 114.1694),
        (24.4798, 118.0894), (25.0389, 102.7183), (43.8256, 87.6168), (29.6520, 91.1721), (20.0440, 110.1999),
        (35.6762, 139.6503), (37.5665, 126.9780), (1.3521, 103.8198), (13.7563, 100.5018), (48.8566, 2.3522),
        (51.5072, -0.1276), (40.7128, -74.0060), (-33.8688, 151.2093), (41.0082, 28.9784), (55.7558, 37.6173),
    ]

    /// Roughly normal (Irwin–Hall of four uniforms), enough for GPS noise and heading drift.
    static func gaussian(_ random: inout SplitMix64) -> Double {
        (random.uniform(0, 1) + random.uniform(0, 1) + random.uniform(0, 1) + random.uniform(0, 1) - 2) * 1.7320508
    }

    /// Appends `value` with `decimals` fixed decimals (String(format:) is far too slow for GBs).
    static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        var scaled = Int64((abs(value) * scale).rounded())
        if value < 0 && scaled != 0 { out.append(UInt8(ascii: "-")) }
        var digits: [UInt8] = []
        for position in 0... {
            digits.append(UInt8(ascii: "0") + UInt8(scaled % 10))
            scaled /= 10
            if position >= decimals && scaled == 0 { break }
            if position == decimals - 1 { digits.append(UInt8(ascii: ".")) }
        }
        out.append(contentsOf: digits.reversed())
    }

    static func append(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
    }

    /// `YYYY-MM-DDThh:mm:ssZ`.
    static func appendTime(_ milliseconds: Int64, to out: inout [UInt8]) {
        let seconds = milliseconds / 1000
        let date = Timestamp.civilDate(daysSinceEpoch: seconds / 86_400)
        let within = seconds % 86_400
        func two(_ v: Int64) { out.append(UInt8(ascii: "0") + UInt8(v / 10)); out.append(UInt8(ascii: "0") + UInt8(v % 10)) }
        two(date.year / 100); two(date.year % 100); out.append(UInt8(ascii: "-")); two(date.month); out.append(UInt8(ascii: "-")); two(date.day)
        out.append(UInt8(ascii: "T")); two(within / 3600); out.append(UInt8(ascii: ":")); two(within / 60 % 60); out.append(UInt8(ascii: ":")); two(within % 60)
        out.append(UInt8(ascii: "Z"))
    }

    /// Writes `days` GPX and CSV files of `pointsPerDay` fixes each into `directory`/gpx and
    /// `directory`/csv (CSV skipped when `csv` is false), and with `fit` the same points as FIT
    /// activities (a watch's `record` layout, ``TrackReaderBenchmark/FITLayout``) into
    /// `directory`/fit; returns the bytes written (GPX, CSV).
    static func write(directory: String, days: Int, pointsPerDay: Int, csv writeCSV: Bool = true, fit writeFIT: Bool = false) throws -> (Int, Int) {
        try FileManager.default.createDirectory(atPath: directory + "/gpx", withIntermediateDirectories: true)
        if writeCSV { try FileManager.default.createDirectory(atPath: directory + "/csv", withIntermediateDirectories: true) }
        if writeFIT { try FileManager.default.createDirectory(atPath: directory + "/fit", withIntermediateDirectories: true) }
        var fit = FITActivity()
        var random = SplitMix64(seed: 2024)
        var gpxBytes = 0, csvBytes = 0
        let start = Timestamp.parse("2024-01-01T00:00:00Z")!
        var gpx: [UInt8] = [], csv: [UInt8] = []
        for day in 0..<days {
            let city = cities[day % cities.count]
            var lat = city.0 + (random.uniform(0, 1) - 0.5) * 0.1, lon = city.1 + (random.uniform(0, 1) - 0.5) * 0.1
            var heading = random.uniform(0, 1) * 2 * .pi
            var noiseNorth = 0.0, noiseEast = 0.0
            gpx.removeAll(keepingCapacity: true)
            csv.removeAll(keepingCapacity: true)
            fit = FITActivity()
            append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"UnlocksBench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n <trk>\n  <name>day \(day)</name>\n  <trkseg>\n", to: &gpx)
            append("lat,lon,time,accuracy\n", to: &csv)
            let dayStart = start + Int64(day) * 86_400_000 + 7 * 3_600_000
            for i in 0..<pointsPerDay {
                heading += gaussian(&random) * 0.08
                lat += 1.4 * cos(heading) / 111_320
                lon += 1.4 * sin(heading) / (111_320 * cos(lat * .pi / 180))
                noiseNorth = 0.97 * noiseNorth + gaussian(&random) * 0.8
                noiseEast = 0.97 * noiseEast + gaussian(&random) * 0.8
                let pLat = lat + noiseNorth / 111_320, pLon = lon + noiseEast / (111_320 * cos(lat * .pi / 180))
                let hdop = 0.8 + random.uniform(0, 1) * 1.5
                let time = dayStart + Int64(i) * 1000
                append("   <trkpt lat=\"", to: &gpx); append(pLat, decimals: 7, to: &gpx)
                append("\" lon=\"", to: &gpx); append(pLon, decimals: 7, to: &gpx)
                append("\"><ele>", to: &gpx); append(40 + gaussian(&random) * 3, decimals: 1, to: &gpx)
                append("</ele><time>", to: &gpx); appendTime(time, to: &gpx)
                append("</time><hdop>", to: &gpx); append(hdop, decimals: 1, to: &gpx)
                append("</hdop></trkpt>\n", to: &gpx)
                if writeCSV {
                    append(pLat, decimals: 7, to: &csv); csv.append(UInt8(ascii: ","))
                    append(pLon, decimals: 7, to: &csv); csv.append(UInt8(ascii: ","))
                    appendTime(time, to: &csv); csv.append(UInt8(ascii: ","))
                    append(hdop * 5, decimals: 1, to: &csv); csv.append(UInt8(ascii: "\n"))
                }
                if writeFIT { fit.record(milliseconds: time, latitude: pLat, longitude: pLon, index: i) }
            }
            append("  </trkseg>\n </trk>\n</gpx>\n", to: &gpx)
            let name = "day-" + String(repeating: "0", count: max(0, 4 - String(day).count)) + String(day)
            try Data(gpx).write(to: URL(fileURLWithPath: "\(directory)/gpx/\(name).gpx"))
            gpxBytes += gpx.count
            if writeCSV {
                try Data(csv).write(to: URL(fileURLWithPath: "\(directory)/csv/\(name).csv"))
                csvBytes += csv.count
            }
            if writeFIT { try Data(fit.file()).write(to: URL(fileURLWithPath: "\(directory)/fit/\(name).fit")) }
        }
        return (gpxBytes, csvBytes)
    }

    /// One FIT activity being written: `record` messages of a watch's layout, then the header
    /// and both CRCs around them.
    struct FITActivity {
        private var records: [UInt8] = []
        private var count = 0

        mutating func record(milliseconds: Int64, latitude: Double, longitude: Double, index i: Int) {
            func le<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { records += $0 } }
            records.append(0)
            le(UInt32(milliseconds / 1000 - 631_065_600))
            le(Int32((latitude * 2_147_483_648 / 180).rounded()))
            le(Int32((longitude * 2_147_483_648 / 180).rounded()))
            le(UInt32(i * 140))  // distance, cm
            le(UInt32(1400))  // enhanced_speed, mm/s
            le(UInt32((43 + Double(i % 100) / 10 + 500) * 5))  // enhanced_altitude
            records += [UInt8(120 + i % 40), 85, 21]
            count += 1
        }

        func file() -> [UInt8] {
            func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
            var definition: [UInt8] = [0x40, 0, 0] + le(UInt16(20)) + [UInt8(TrackReaderBenchmark.FITLayout.fields.count)]
            for field in TrackReaderBenchmark.FITLayout.fields { definition += [field.number, field.size, field.baseType] }
            var header: [UInt8] = [14, 0x20] + le(UInt16(2132)) + le(UInt32(definition.count + records.count)) + Array(".FIT".utf8)
            var headerCRC = FITFileCRC()
            headerCRC.update(header)
            header += le(headerCRC.value)
            var out = header + definition + records
            var crc = FITFileCRC()
            crc.update(out)
            out += le(crc.value)
            return out
        }
    }
}
