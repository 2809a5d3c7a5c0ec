import TextFormats

/// Reads NMEA 0183 logs (what GPS loggers and receivers write, one sentence a line) as a stream.
///
/// What it delivers (see `docs/input-formats.md`, "NMEA 0183"):
/// - one ``TrackPoint`` per fix: `RMC` gives date, time and position; `GGA` gives time,
///   position, HDOP (accuracy = HDOP × 5 m, as for GPX) and altitude. An RMC and a GGA of the
///   same time of day (in any order, from any talker) make one point, never two.
/// - Talkers `GP`, `GN`, `GL`, `GA`, `BD`, `GB`; other talkers and sentences are ignored.
/// - A sentence that is not a fix (RMC status `V` or mode `N`/`E`/`M`/`S`; GGA quality 0, 6, 7
///   or 8) is passed over and counted (``Summary/sentencesWithoutFix``), not unreadable:
///   receivers write one every second while they search. RMC's NMEA 4.10 navigational status
///   (`V`, "not provided", on every fix of u-blox M9/F9 and Quectel receivers) says nothing
///   about the fix and is not read.
/// - An RMC or GGA whose checksum is wrong, or whose fields do not parse, is an unreadable
///   point with its line.
/// - GGA carries no date: it takes the date of the latest RMC or ZDA, rolled on by a day when
///   the time of day goes back by more than 12 hours (midnight passed). GGA before any date
///   gives points without a time.
///
/// Text before the `$` on a line (some loggers stamp lines) is ignored; lines starting with `#`
/// are comments (gpsd's regression logs open with a few). The file is one segment. Lines are
/// read by ``LineReader``: a line longer than its limit stops the file, and the fix read before
/// it is still delivered.
public enum NMEAReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// RMC and GGA sentences of the talkers read (fixes or not).
        public var sentences = 0
        /// RMC and GGA sentences that said there was no fix.
        public var sentencesWithoutFix = 0
        /// RMC and GGA sentences with a wrong checksum (each also an unreadable point).
        public var badChecksums = 0
        /// ZDA sentences whose date was read (GGA takes its date from them).
        public var dateSentences = 0
        /// Other sentences, ignored.
        public var otherSentences = 0

        public init() {}
    }

    /// Reads the NMEA log in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` when the file holds no NMEA sentence at all (it is something
    ///   else) or a line is too long; points delivered before it stay delivered.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(UBXFrameFilter(source), path: path)
        defer { reader.close() }
        var log = NMEALog(path: path)
        var firstText: Int?
        do {
            try reader.forEachLine { line, number in
                if line.contains(0) && log.summary.sentences + log.summary.otherSentences == 0 {
                    throw InputError(path: path, line: number, reason: "zero bytes in the text: UTF-16 or binary data, not an NMEA 0183 log (re-save it as ASCII/UTF-8)")
                }
                if !log.line(line, number, &sink), firstText == nil, !Self.isComment(line), line.contains(where: { !XMLMarkup.isSpace($0) }) {
                    firstText = number
                }
            }
        } catch {
            log.flush(&sink)  // the fix read before the line that stops the file
            throw error
        }
        log.flush(&sink)
        if log.summary.sentences + log.summary.otherSentences == 0, let firstText {
            throw InputError(path: path, line: firstText, reason: "not an NMEA 0183 log: no line holds a $-sentence")
        }
        return log.summary
    }

    /// Whether `line` is a comment: `#` first, after any white space (gpsd's logs).
    static func isComment(_ line: UnsafeRawBufferPointer) -> Bool {
        line.first { !XMLMarkup.isSpace($0) } == UInt8(ascii: "#")
    }

    /// Whether a file beginning with `prefix` is an NMEA log: past comment lines (`#`) and blank
    /// lines, one of the first 5 lines is a sentence (`$`, a talker and a sentence type in
    /// capitals or digits, a comma). Loggers may write a line of their own first (`Start log
    /// …`), and gpsd's regression logs open with 6–12 comment lines.
    public static func recognizes<Prefix: Collection<UInt8>>(_ prefix: Prefix) -> Bool {
        var lines = 0
        var text = Array(prefix)
        if text.contains(0xB5) { text = UBXFrameFilter<MemorySource>.removingFrames(text) }
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let text = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
            if text.isEmpty || text.first == UInt8(ascii: "#") { continue }
            lines += 1
            if lines > 5 { return false }
            guard text.count >= 7, text.first == UInt8(ascii: "$") else { continue }
            let address = text.dropFirst().prefix(5)
            if address.allSatisfy({ ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }),
               text[text.startIndex + 6] == UInt8(ascii: ",") {
                return true
            }
        }
        return false
    }
}

/// The state of one log between lines: the fix being assembled and the running date.
private struct NMEALog {
    let path: String
    var summary = NMEAReader.Summary()

    private struct Fix {
        var timeOfDay: Int64
        var latitude: Double
        var longitude: Double
        var day: Int64?
        var hdop: Double?
        var altitude: Double?
    }

    /// The fix of the time of day being read (sentences of one epoch merge into it).
    private var pending: Fix?
    /// The date (days since 1970) and time of day of the last fix delivered.
    private var day: Int64?
    private var lastTimeOfDay: Int64?

    private static let millisecondsPerDay: Int64 = 86_400_000

    init(path: String) {
        self.path = path
    }

    /// The fields of the sentence being read (valid during `line`).
    private var fields: [UnsafeRawBufferPointer] = []

    /// Reads one line; false when it holds no sentence (`$…`).
    mutating func line<Sink: TrackSink>(_ line: UnsafeRawBufferPointer, _ number: Int, _ sink: inout Sink) -> Bool {
        guard !NMEAReader.isComment(line), let dollar = line.firstIndex(of: UInt8(ascii: "$")) else { return false }
        var stop = line.count
        while stop > dollar, XMLMarkup.isSpace(line[stop - 1]) { stop -= 1 }
        let sentence = UnsafeRawBufferPointer(rebasing: line[(dollar + 1)..<stop])
        let star = sentence.lastIndex(of: UInt8(ascii: "*"))
        let body = UnsafeRawBufferPointer(rebasing: sentence[..<(star ?? sentence.count)])
        guard body.count >= 6, body[5] == UInt8(ascii: ","), let talker = Self.talker(body[0], body[1]) else {
            summary.otherSentences += 1
            return true
        }
        let isRMC = body[2] == UInt8(ascii: "R") && body[3] == UInt8(ascii: "M") && body[4] == UInt8(ascii: "C")
        let isGGA = body[2] == UInt8(ascii: "G") && body[3] == UInt8(ascii: "G") && body[4] == UInt8(ascii: "A")
        let isZDA = body[2] == UInt8(ascii: "Z") && body[3] == UInt8(ascii: "D") && body[4] == UInt8(ascii: "A")
        if isZDA, Self.checksumHolds(sentence, body, star), zda(body, &sink) {
            summary.dateSentences += 1
            return true
        }
        guard isRMC || isGGA else {
            summary.otherSentences += 1
            return true
        }
        summary.sentences += 1
        if let star {
            let written = UnsafeRawBufferPointer(rebasing: sentence[(star + 1)...])
            var computed: UInt8 = 0
            for byte in body { computed ^= byte }
            guard written.count == 2, let high = Self.hexDigit(written[0]), let low = Self.hexDigit(written[1]), high << 4 | low == computed else {
                summary.badChecksums += 1
                unreadable("$\(talker)\(isRMC ? "RMC" : "GGA"): checksum '\(String(decoding: written.prefix(4), as: UTF8.self))' does not match the sentence (\(hex(computed)) computed)", number, &sink)
                return true
            }
        }
        fields.removeAll(keepingCapacity: true)
        var fieldStart = 0
        for i in 0...body.count where i == body.count || body[i] == UInt8(ascii: ",") {
            fields.append(UnsafeRawBufferPointer(rebasing: body[fieldStart..<i]))
            fieldStart = i + 1
        }
        do {
            if let fix = try isRMC ? rmc() : gga() {
                add(fix, &sink)
            } else {
                summary.sentencesWithoutFix += 1
            }
        } catch let problem as FieldProblem {
            unreadable("$\(talker)\(isRMC ? "RMC" : "GGA"): \(problem.reason)", number, &sink)
        } catch {}
        return true
    }

    /// Whether the sentence has no checksum or a right one.
    private static func checksumHolds(_ sentence: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, _ star: Int?) -> Bool {
        guard let star else { return true }
        let written = UnsafeRawBufferPointer(rebasing: sentence[(star + 1)...])
        var computed: UInt8 = 0
        for byte in body { computed ^= byte }
        guard written.count == 2, let high = hexDigit(written[0]), let low = hexDigit(written[1]) else { return false }
        return high << 4 | low == computed
    }

    /// `$xxZDA,hhmmss[.ss],dd,mm,yyyy,zh,zm`: the UTC date of that time of day, for the GGA
    /// fixes of the same epoch and after (GGA carries no date). False when it holds no date
    /// (receivers write empty fields before their first fix) or does not parse: then it only
    /// counts as another sentence, since it is no point.
    private mutating func zda<Sink: TrackSink>(_ body: UnsafeRawBufferPointer, _ sink: inout Sink) -> Bool {
        var parts: [UnsafeRawBufferPointer] = []
        var fieldStart = 0
        for i in 0...body.count where i == body.count || body[i] == UInt8(ascii: ",") {
            parts.append(UnsafeRawBufferPointer(rebasing: body[fieldStart..<i]))
            fieldStart = i + 1
        }
        guard parts.count >= 5, parts[2].count == 2, parts[3].count == 2, parts[4].count == 4,
              let time = try? Self.timeOfDay(parts[1]),
              let d1 = Self.digit(parts[2], 0), let d2 = Self.digit(parts[2], 1),
              let m1 = Self.digit(parts[3], 0), let m2 = Self.digit(parts[3], 1),
              let y1 = Self.digit(parts[4], 0), let y2 = Self.digit(parts[4], 1), let y3 = Self.digit(parts[4], 2), let y4 = Self.digit(parts[4], 3)
        else { return false }
        let dayOfMonth = d1 * 10 + d2, month = m1 * 10 + m2, year = y1 * 1000 + y2 * 100 + y3 * 10 + y4
        guard (1...12).contains(month), dayOfMonth >= 1, dayOfMonth <= Self.monthDays(year: year, month: month) else { return false }
        let date = Timestamp.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        if var fix = pending, fix.timeOfDay == time {
            // The epoch's fix came first (ZDA closes the epoch on most receivers).
            if fix.day == nil { fix.day = date }
            pending = fix
        } else {
            flush(&sink)
            day = date
            lastTimeOfDay = time
        }
        return true
    }

    private static func monthDays(year: Int64, month: Int64) -> Int64 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        switch month {
        case 2: return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The talker of the two bytes when it is one read (`GP`, `GN`, `GL`, `GA`, `BD`, `GB`).
    private static func talker(_ first: UInt8, _ second: UInt8) -> String? {
        switch (first, second) {
        case (UInt8(ascii: "G"), UInt8(ascii: "P")): return "GP"
        case (UInt8(ascii: "G"), UInt8(ascii: "N")): return "GN"
        case (UInt8(ascii: "G"), UInt8(ascii: "L")): return "GL"
        case (UInt8(ascii: "G"), UInt8(ascii: "A")): return "GA"
        case (UInt8(ascii: "B"), UInt8(ascii: "D")): return "BD"
        case (UInt8(ascii: "G"), UInt8(ascii: "B")): return "GB"
        default: return nil
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Delivers the fix being assembled.
    mutating func flush<Sink: TrackSink>(_ sink: inout Sink) {
        guard let fix = pending else { return }
        pending = nil
        if let own = fix.day {
            day = own
        } else if var current = day {
            if let last = lastTimeOfDay, fix.timeOfDay + Self.millisecondsPerDay / 2 < last { current += 1 }
            day = current
        }
        lastTimeOfDay = fix.timeOfDay
        let time = day.map { $0 * Self.millisecondsPerDay + fix.timeOfDay }
        summary.points += 1
        sink.point(TrackPoint(latitude: fix.latitude, longitude: fix.longitude, time: time,
                              accuracy: fix.hdop.map { $0 * 5 }, elevation: fix.altitude))
    }

    private mutating func add<Sink: TrackSink>(_ fix: Fix, _ sink: inout Sink) {
        if var merged = pending, merged.timeOfDay == fix.timeOfDay {
            merged.day = merged.day ?? fix.day
            merged.hdop = merged.hdop ?? fix.hdop
            merged.altitude = merged.altitude ?? fix.altitude
            pending = merged
            return
        }
        flush(&sink)
        pending = fix
    }

    private mutating func unreadable<Sink: TrackSink>(_ reason: String, _ number: Int, _ sink: inout Sink) {
        flush(&sink)
        summary.unreadablePoints += 1
        sink.unreadablePoint(InputError(path: path, line: number, reason: reason))
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }

    // MARK: Sentences

    private struct FieldProblem: Error {
        let reason: String
    }

    /// `$xxRMC,time,status,lat,N/S,lon,E/W,speed,course,ddmmyy,magvar,E/W[,mode[,navstatus]]`.
    private func rmc() throws -> Fix? {
        guard fields.count >= 10 else { throw FieldProblem(reason: "\(fields.count - 1) fields, at least 9 expected") }
        guard fields[2].count == 1, fields[2][0] == UInt8(ascii: "A") else { return nil }
        if fields.count >= 13, let mode = fields[12].first,
           mode == UInt8(ascii: "N") || mode == UInt8(ascii: "E") || mode == UInt8(ascii: "M") || mode == UInt8(ascii: "S") {
            return nil
        }
        var fix = try Fix(timeOfDay: Self.timeOfDay(fields[1]),
                          latitude: Self.angle(fields[3], fields[4], degreeDigits: 2, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S")),
                          longitude: Self.angle(fields[5], fields[6], degreeDigits: 3, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W")))
        fix.day = try Self.date(fields[9])
        return fix
    }

    /// `$xxGGA,time,lat,N/S,lon,E/W,quality,satellites,hdop,altitude,M,separation,M,age,station`.
    private func gga() throws -> Fix? {
        guard fields.count >= 10 else { throw FieldProblem(reason: "\(fields.count - 1) fields, at least 9 expected") }
        let qualityField = fields[6]
        guard qualityField.count == 1, qualityField[0] >= UInt8(ascii: "0"), qualityField[0] <= UInt8(ascii: "9") else {
            throw FieldProblem(reason: "fix quality '\(Self.text(qualityField))' is not a number")
        }
        let quality = qualityField[0] - UInt8(ascii: "0")
        guard (1...5).contains(quality) else { return nil }
        var fix = try Fix(timeOfDay: Self.timeOfDay(fields[1]),
                          latitude: Self.angle(fields[2], fields[3], degreeDigits: 2, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S")),
                          longitude: Self.angle(fields[4], fields[5], degreeDigits: 3, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W")))
        if !fields[8].isEmpty {
            guard let hdop = DecimalNumber.parse(fields[8]), hdop >= 0 else { throw FieldProblem(reason: "HDOP '\(Self.text(fields[8]))' is not a non-negative number") }
            fix.hdop = hdop
        }
        if !fields[9].isEmpty {
            guard let altitude = DecimalNumber.parse(fields[9]) else { throw FieldProblem(reason: "altitude '\(Self.text(fields[9]))' is not a number") }
            fix.altitude = altitude
        }
        return fix
    }

    private static func text(_ field: UnsafeRawBufferPointer) -> String {
        String(decoding: field.prefix(20), as: UTF8.self)
    }

    private static func digit(_ field: UnsafeRawBufferPointer, _ index: Int) -> Int64? {
        let byte = field[index]
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    /// `hhmmss[.sss]` → milliseconds since midnight. Spaces around it, and a `.` with no digits
    /// after it (`222509.`), are accepted, as GPSBabel reads them (some receivers write them).
    private static func timeOfDay(_ written: UnsafeRawBufferPointer) throws -> Int64 {
        func bad() -> FieldProblem { FieldProblem(reason: "time '\(text(written))' is not hhmmss[.sss]") }
        var lower = 0, upper = written.count
        while lower < upper, written[lower] == 0x20 { lower += 1 }
        while upper > lower, written[upper - 1] == 0x20 { upper -= 1 }
        if upper - lower == 7, written[upper - 1] == UInt8(ascii: ".") { upper -= 1 }
        let field = UnsafeRawBufferPointer(rebasing: written[lower..<upper])
        guard field.count >= 6, field.count <= 16,
              let h1 = digit(field, 0), let h2 = digit(field, 1), let m1 = digit(field, 2), let m2 = digit(field, 3),
              let s1 = digit(field, 4), let s2 = digit(field, 5) else { throw bad() }
        let hours = h1 * 10 + h2, minutes = m1 * 10 + m2, seconds = s1 * 10 + s2
        guard hours < 24, minutes < 60, seconds <= 60 else { throw bad() }
        var milliseconds: Int64 = 0
        if field.count > 6 {
            guard field[6] == UInt8(ascii: "."), field.count > 7 else { throw bad() }
            var scale: Int64 = 100
            for k in 7..<field.count {
                guard let d = digit(field, k) else { throw bad() }
                milliseconds += d * scale
                scale /= 10
            }
        }
        return ((hours * 60 + minutes) * 60 + min(seconds, 59)) * 1000 + (seconds == 60 ? 999 : milliseconds)
    }

    /// `ddmmyy` → days since 1970; two-digit years 80–99 are 1980–1999, 00–79 are 2000–2079.
    private static func date(_ field: UnsafeRawBufferPointer) throws -> Int64 {
        func bad() -> FieldProblem { FieldProblem(reason: "date '\(text(field))' is not ddmmyy") }
        guard field.count == 6, let d1 = digit(field, 0), let d2 = digit(field, 1), let m1 = digit(field, 2), let m2 = digit(field, 3),
              let y1 = digit(field, 4), let y2 = digit(field, 5) else { throw bad() }
        let day = d1 * 10 + d2, month = m1 * 10 + m2, shortYear = y1 * 10 + y2
        let year = shortYear >= 80 ? 1900 + shortYear : 2000 + shortYear
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: Int64
        switch month {
        case 2: monthDays = leap ? 29 : 28
        case 4, 6, 9, 11: monthDays = 30
        default: monthDays = 31
        }
        guard (1...12).contains(month), day >= 1, day <= monthDays else { throw bad() }
        return Timestamp.daysSinceEpoch(year: year, month: month, day: day)
    }

    /// `dddmm.mmmm` with its hemisphere letter → signed degrees. Degrees and minutes are read
    /// as written (`39` and `54.2520`), so `3954.2520` is exactly 39 + 54.252 / 60.
    private static func angle(_ field: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer, degreeDigits: Int,
                              positive: UInt8, negative: UInt8) throws -> Double {
        func which() -> String { degreeDigits == 2 ? "latitude" : "longitude" }
        let point = field.firstIndex(of: UInt8(ascii: ".")) ?? field.count
        guard point >= 2, point <= degreeDigits + 2, field[..<point].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let minutes = DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: field[(point - 2)...])), minutes >= 0 else {
            throw FieldProblem(reason: "\(which()) '\(text(field))' is not a number")
        }
        guard minutes < 60 else { throw FieldProblem(reason: "\(which()) '\(text(field))' has 60 or more minutes") }
        guard hemisphere.count == 1, hemisphere[0] == positive || hemisphere[0] == negative else {
            throw FieldProblem(reason: "\(which()) hemisphere '\(text(hemisphere))' is not \(Character(Unicode.Scalar(positive))) or \(Character(Unicode.Scalar(negative)))")
        }
        var degrees = 0.0
        for byte in field[..<(point - 2)] { degrees = degrees * 10 + Double(byte - UInt8(ascii: "0")) }
        let signed = degrees + minutes / 60
        return hemisphere[0] == negative ? -signed : signed
    }
}
