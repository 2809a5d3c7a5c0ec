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
///   receivers write one every second while they search.
/// - An RMC or GGA whose checksum is wrong, or whose fields do not parse, is an unreadable
///   point with its line.
/// - GGA carries no date: it takes the date of the latest RMC, rolled on by a day when the
///   time of day goes back by more than 12 hours (midnight passed). GGA before any RMC gives
///   points without a time.
///
/// Text before the `$` on a line (some loggers stamp lines) is ignored. The file is one
/// segment. Lines are read by ``LineReader`` (a line longer than its limit stops the file).
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
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var log = NMEALog(path: path)
        var firstText: Int?
        try reader.forEachLine { line, number in
            if line.contains(0) && log.summary.sentences + log.summary.otherSentences == 0 {
                throw InputError(path: path, line: number, reason: "zero bytes in the text: UTF-16 or binary data, not an NMEA 0183 log (re-save it as ASCII/UTF-8)")
            }
            if !log.line(line, number, &sink), firstText == nil, line.contains(where: { !XMLScanner.isSpace($0) }) {
                firstText = number
            }
        }
        log.flush(&sink)
        if log.summary.sentences + log.summary.otherSentences == 0, let firstText {
            throw InputError(path: path, line: firstText, reason: "not an NMEA 0183 log: no line holds a $-sentence")
        }
        return log.summary
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

    /// Reads one line; false when it holds no sentence (`$…`).
    mutating func line<Sink: TrackSink>(_ line: UnsafeRawBufferPointer, _ number: Int, _ sink: inout Sink) -> Bool {
        guard let dollar = line.firstIndex(of: UInt8(ascii: "$")) else { return false }
        var stop = line.count
        while stop > dollar, XMLScanner.isSpace(line[stop - 1]) { stop -= 1 }
        let sentence = UnsafeRawBufferPointer(rebasing: line[(dollar + 1)..<stop])
        let star = sentence.lastIndex(of: UInt8(ascii: "*"))
        let body = UnsafeRawBufferPointer(rebasing: sentence[..<(star ?? sentence.count)])
        let fields = body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard let address = fields.first, address.count == 5 else {
            summary.otherSentences += 1
            return true
        }
        let talker = String(decoding: address.prefix(2), as: UTF8.self)
        let type = String(decoding: address.suffix(3), as: UTF8.self)
        guard ["GP", "GN", "GL", "GA", "BD", "GB"].contains(talker), type == "RMC" || type == "GGA" else {
            summary.otherSentences += 1
            return true
        }
        summary.sentences += 1
        let name = talker + type
        if let star {
            let written = sentence[(star + 1)...]
            let computed = body.reduce(UInt8(0), ^)
            guard written.count == 2, let value = UInt8(String(decoding: written, as: UTF8.self), radix: 16), value == computed else {
                summary.badChecksums += 1
                unreadable("$\(name): checksum '\(String(decoding: written.prefix(4), as: UTF8.self))' does not match the sentence (\(hex(computed)) computed)", number, &sink)
                return true
            }
        }
        let values = fields.map { UnsafeRawBufferPointer(rebasing: $0) }
        do {
            if let fix = try type == "RMC" ? rmc(values) : gga(values) {
                add(fix, &sink)
            } else {
                summary.sentencesWithoutFix += 1
            }
        } catch let problem as FieldProblem {
            unreadable("$\(name): \(problem.reason)", number, &sink)
        } catch {}
        return true
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
    private func rmc(_ fields: [UnsafeRawBufferPointer]) throws -> Fix? {
        guard fields.count >= 10 else { throw FieldProblem(reason: "\(fields.count - 1) fields, at least 9 expected") }
        guard Self.text(fields[2]) == "A" else { return nil }
        if fields.count >= 13, let mode = fields[12].first, [UInt8(ascii: "N"), UInt8(ascii: "E"), UInt8(ascii: "M"), UInt8(ascii: "S")].contains(mode) {
            return nil
        }
        var fix = try Fix(timeOfDay: Self.timeOfDay(fields[1]),
                          latitude: Self.angle(fields[3], fields[4], degreeDigits: 2, positive: "N", negative: "S"),
                          longitude: Self.angle(fields[5], fields[6], degreeDigits: 3, positive: "E", negative: "W"))
        fix.day = try Self.date(fields[9])
        return fix
    }

    /// `$xxGGA,time,lat,N/S,lon,E/W,quality,satellites,hdop,altitude,M,separation,M,age,station`.
    private func gga(_ fields: [UnsafeRawBufferPointer]) throws -> Fix? {
        guard fields.count >= 10 else { throw FieldProblem(reason: "\(fields.count - 1) fields, at least 9 expected") }
        guard let quality = Int(Self.text(fields[6])) else { throw FieldProblem(reason: "fix quality '\(Self.text(fields[6]))' is not a number") }
        guard (1...5).contains(quality) else { return nil }
        var fix = try Fix(timeOfDay: Self.timeOfDay(fields[1]),
                          latitude: Self.angle(fields[2], fields[3], degreeDigits: 2, positive: "N", negative: "S"),
                          longitude: Self.angle(fields[4], fields[5], degreeDigits: 3, positive: "E", negative: "W"))
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

    /// `hhmmss[.sss]` → milliseconds since midnight.
    private static func timeOfDay(_ field: UnsafeRawBufferPointer) throws -> Int64 {
        let bad = FieldProblem(reason: "time '\(text(field))' is not hhmmss[.sss]")
        guard field.count >= 6, field.count <= 16 else { throw bad }
        var digits: [Int64] = []
        for k in 0..<6 {
            let byte = field[k]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw bad }
            digits.append(Int64(byte - UInt8(ascii: "0")))
        }
        let hours = digits[0] * 10 + digits[1], minutes = digits[2] * 10 + digits[3], seconds = digits[4] * 10 + digits[5]
        guard hours < 24, minutes < 60, seconds <= 60 else { throw bad }
        var milliseconds: Int64 = 0
        if field.count > 6 {
            guard field[6] == UInt8(ascii: "."), field.count > 7 else { throw bad }
            var scale: Int64 = 100
            for k in 7..<field.count {
                let byte = field[k]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw bad }
                milliseconds += Int64(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
        }
        let total = ((hours * 60 + minutes) * 60 + min(seconds, 59)) * 1000 + (seconds == 60 ? 999 : milliseconds)
        return total
    }

    /// `ddmmyy` → days since 1970; two-digit years 80–99 are 1980–1999, 00–79 are 2000–2079.
    private static func date(_ field: UnsafeRawBufferPointer) throws -> Int64 {
        let bad = FieldProblem(reason: "date '\(text(field))' is not ddmmyy")
        guard field.count == 6, field.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { throw bad }
        let n = field.map { Int64($0 - UInt8(ascii: "0")) }
        let day = n[0] * 10 + n[1], month = n[2] * 10 + n[3], shortYear = n[4] * 10 + n[5]
        let year = shortYear >= 80 ? 1900 + shortYear : 2000 + shortYear
        let monthDays: [Int64] = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= monthDays[Int(month) - 1] else { throw bad }
        return Timestamp.daysSinceEpoch(year: year, month: month, day: day)
    }

    /// `dddmm.mmmm` with its hemisphere letter → signed degrees. Degrees and minutes are read
    /// as written (`39` and `54.2520`), so `3954.2520` is exactly 39 + 54.252 / 60.
    private static func angle(_ field: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer, degreeDigits: Int,
                              positive: Unicode.Scalar, negative: Unicode.Scalar) throws -> Double {
        let which = degreeDigits == 2 ? "latitude" : "longitude"
        let point = field.firstIndex(of: UInt8(ascii: ".")) ?? field.count
        let digits = field[..<point].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits, point >= 2, point <= degreeDigits + 2,
              let minutes = DecimalNumber.parse(UnsafeRawBufferPointer(rebasing: field[(point - 2)...])), minutes >= 0 else {
            throw FieldProblem(reason: "\(which) '\(text(field))' is not a number")
        }
        let degrees = field[..<(point - 2)].reduce(0.0) { $0 * 10 + Double($1 - UInt8(ascii: "0")) }
        guard minutes < 60 else { throw FieldProblem(reason: "\(which) '\(text(field))' has 60 or more minutes") }
        let letter = text(hemisphere)
        guard letter == String(positive) || letter == String(negative) else {
            throw FieldProblem(reason: "\(which) hemisphere '\(letter)' is not \(positive) or \(negative)")
        }
        let signed = degrees + minutes / 60
        return letter == String(negative) ? -signed : signed
    }
}
