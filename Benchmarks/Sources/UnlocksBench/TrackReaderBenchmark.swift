import BoundaryBuild
import Tracks
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

/// Throughput of the GPX, CSV and FIT track readers alone (no pipeline), from a file in /tmp, against
/// a bare byte-counting loop over the same file (what the disk cache and one core can deliver).
enum TrackReaderBenchmark {
    /// Counts what the readers deliver, so their work cannot be optimised away.
    struct Tally: TrackSink {
        var points = 0
        var checksum = 0.0
        mutating func segmentBreak() {}
        mutating func point(_ point: TrackPoint) {
            points += 1
            checksum += point.latitude + Double(point.time ?? 0) * 1e-12
        }
        mutating func unreadablePoint(_ problem: InputError) {}
    }

    static func run(points count: Int, repeats: Int) throws -> [String] {
        var template = Array("/tmp/unlocks-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw InputError(path: "/tmp", reason: "cannot make a temporary directory") }
        let directory = String(cString: made)
        let gpxPath = directory + "/track.gpx", csvPath = directory + "/track.csv", fitPath = directory + "/track.fit"
        defer {
            unlink(gpxPath)
            unlink(csvPath)
            unlink(fitPath)
            rmdir(directory)
        }
        let (gpxBytes, csvBytes) = try write(points: count, gpx: gpxPath, csv: csvPath)
        let fitBytes = try writeFIT(points: count, to: fitPath)

        var tally = Tally()
        let gpx = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            tally = Tally()
            try GPXReader.read(try FileSource(path: gpxPath), path: gpxPath, into: &tally)
        }
        guard tally.points == count else { throw InputError(path: gpxPath, reason: "read \(tally.points) of \(count) points") }
        let csv = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            tally = Tally()
            try TrackCSVReader.read(try FileSource(path: csvPath), path: csvPath, into: &tally)
        }
        guard tally.points == count else { throw InputError(path: csvPath, reason: "read \(tally.points) of \(count) points") }
        let fit = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) {
            tally = Tally()
            try FITReader.read(try FileSource(path: fitPath), path: fitPath, into: &tally)
        }
        guard tally.points == count else { throw InputError(path: fitPath, reason: "read \(tally.points) of \(count) points") }
        var bytes = 0
        let scan = try Stopwatch.best(of: repeats, clock: CLOCK_THREAD_CPUTIME_ID) { bytes = try countAngleBrackets(gpxPath) }
        if bytes == 42 { print("") }

        let megabytes = { (size: Int, seconds: Double) in fixed(Double(size) / seconds / 1e6, 0) }
        return [
            "| reader (one core, CPU time, file in the page cache) | points/s | MB/s |",
            "|---|---|---|",
            "| GPX, \(count) `trkpt` with `ele` and `time` (\(gpxBytes / count) bytes each) | \(millions(Double(count) / gpx)) M | \(megabytes(gpxBytes, gpx)) |",
            "| CSV `lat,lon,time,accuracy`, same points | \(millions(Double(count) / csv)) M | \(megabytes(csvBytes, csv)) |",
            "| FIT, same points as `record` messages of a watch's layout (\(FITLayout.recordSize + 1) bytes each, CRC checked) | \(millions(Double(count) / fit)) M | \(megabytes(fitBytes, fit)) |",
            "| bare loop counting `<` in the GPX file (the ceiling) | | \(megabytes(gpxBytes, scan)) |",
        ]
    }

    /// A walk near Beijing, one point a second; returns the two files' sizes.
    static func write(points count: Int, gpx gpxPath: String, csv csvPath: String) throws -> (Int, Int) {
        guard let gpx = fopen(gpxPath, "w"), let csv = fopen(csvPath, "w") else {
            throw InputError(path: gpxPath, reason: "cannot write the benchmark files")
        }
        defer {
            fclose(gpx)
            fclose(csv)
        }
        var generator = SplitMix64(seed: 7)
        var latitude = 39.9, longitude = 116.4
        let start = Timestamp.parse("2024-03-01T00:00:00Z")!
        var gpxBytes = 0, csvBytes = 0
        func put(_ text: String, _ file: UnsafeMutablePointer<FILE>) -> Int {
            fputs(text, file)
            return text.utf8.count
        }
        gpxBytes += put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"UnlocksBench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n", gpx)
        csvBytes += put("lat,lon,time,accuracy\n", csv)
        for i in 0..<count {
            latitude += generator.uniform(-1e-4, 1e-4)
            longitude += generator.uniform(-1e-4, 1e-4)
            let time = String(Timestamp.format(start + Int64(i) * 1000).dropLast(5)) + "Z"  // whole seconds, as devices write
            let lat = fixed(latitude, 7), lon = fixed(longitude, 7)
            gpxBytes += put("  <trkpt lat=\"\(lat)\" lon=\"\(lon)\"><ele>\(fixed(43 + Double(i % 100) / 10, 1))</ele><time>\(time)</time></trkpt>\n", gpx)
            csvBytes += put("\(lat),\(lon),\(time),5\n", csv)
        }
        gpxBytes += put("</trkseg></trk>\n</gpx>\n", gpx)
        return (gpxBytes, csvBytes)
    }

    /// The record layout of a running watch (Garmin Fenix): timestamp, position_lat,
    /// position_long, distance, enhanced_speed, enhanced_altitude, heart_rate, cadence, temperature.
    enum FITLayout {
        static let fields: [(number: UInt8, size: UInt8, baseType: UInt8)] = [
            (253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (5, 4, 0x86), (73, 4, 0x86), (78, 4, 0x86), (3, 1, 0x02), (4, 1, 0x02), (13, 1, 0x01),
        ]
        static let recordSize = fields.reduce(0) { $0 + Int($1.size) }
    }

    /// The same walk as `write`, as one FIT activity file; returns its size.
    static func writeFIT(points count: Int, to path: String) throws -> Int {
        guard let file = fopen(path, "w") else { throw InputError(path: path, reason: "cannot write the benchmark file") }
        defer { fclose(file) }
        var crc = FITFileCRC()
        var written = 0
        func put(_ bytes: [UInt8]) {
            crc.update(bytes)
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            written += bytes.count
        }
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        var definition: [UInt8] = [0x40, 0, 0] + le(UInt16(20)) + [UInt8(FITLayout.fields.count)]
        for field in FITLayout.fields { definition += [field.number, field.size, field.baseType] }
        let dataSize = definition.count + count * (FITLayout.recordSize + 1)
        var header: [UInt8] = [14, 0x20] + le(UInt16(2132)) + le(UInt32(dataSize)) + Array(".FIT".utf8)
        var headerCRC = FITFileCRC()
        headerCRC.update(header)
        header += le(headerCRC.value)
        put(header)
        put(definition)
        var generator = SplitMix64(seed: 7)
        var latitude = 39.9, longitude = 116.4
        let start = UInt32(1_709_251_200 - 631_065_600)  // 2024-03-01T00:00:00Z in FIT seconds
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        for i in 0..<count {
            latitude += generator.uniform(-1e-4, 1e-4)
            longitude += generator.uniform(-1e-4, 1e-4)
            chunk.append(0)
            chunk += le(start + UInt32(i))
            chunk += le(Int32((latitude * 2_147_483_648 / 180).rounded()))
            chunk += le(Int32((longitude * 2_147_483_648 / 180).rounded()))
            chunk += le(UInt32(i * 140))  // distance, cm
            chunk += le(UInt32(1400))  // enhanced_speed, mm/s
            chunk += le(UInt32((43 + Double(i % 100) / 10 + 500) * 5))  // enhanced_altitude
            chunk += [UInt8(120 + i % 40), 85, 21]
            if chunk.count >= (1 << 16) - 64 {
                put(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        put(chunk)
        let fileCRC = crc.value
        put(le(fileCRC))
        return written
    }

    static func countAngleBrackets(_ path: String) throws -> Int {
        let source = try FileSource(path: path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        var count = 0
        while true {
            let n = try source.read(into: buffer)
            if n == 0 { return count }
            for i in 0..<n where buffer[i] == UInt8(ascii: "<") { count += 1 }
        }
    }
}
