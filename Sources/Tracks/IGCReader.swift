/// Reads IGC files, the flight recorders' format of gliding and paragliding (FAI's "Technical
/// Specification for IGC-approved GNSS flight recorders", appendix A), one record a line.
///
/// What it delivers (see `docs/input-formats.md`, "IGC"):
/// - one ``TrackPoint`` per `B` record (fix): `HHMMSS`, latitude `DDMMmmm` + `N`/`S`, longitude
///   `DDDMMmmm` + `E`/`W`, validity, pressure altitude, GNSS altitude, then the extensions an `I`
///   record declares. The time is the UTC date of `HFDTE` plus the fix's time of day, rolled on
///   by a day when the time of day goes back by more than 12 hours (a flight across midnight
///   UTC). Elevation is the GNSS altitude of a 3-D fix (validity `A`); a `V` fix (2-D or no GNSS)
///   is still a position the recorder logged, without elevation. Accuracy is the fix's `FXA`
///   extension (estimated position error, metres) when an `I` record declares one.
/// - Before any `HFDTE`, fixes have no time (an IGC file without a date is not a valid one).
/// - A `B` record too short for its fields, with a time, coordinate, hemisphere, validity,
///   pressure or GNSS altitude (whatever the validity) or FXA that does not parse, or minutes of
///   60 or more, is an unreadable point with its line.
///
/// Every other record (`A`, other `H`, `C` task, `E` events, `F` satellites, `K`, `L` comments,
/// `G` security) is passed over. The file is one segment.
public enum IGCReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        public var points = 0
        public var unreadablePoints = 0
        /// `B` records with validity `V` (2-D fix or no GNSS data), delivered without elevation.
        public var twoDimensionalFixes = 0

        public init() {}
    }

    /// Whether a file beginning with `prefix` is an IGC file: its first line an `A` record
    /// (`A`, a three-character manufacturer code) and an `H` record among the first lines.
    public static func recognizes<Prefix: Collection<UInt8>>(_ prefix: Prefix) -> Bool {
        let lines = Array(prefix).split(separator: 0x0A, maxSplits: 8, omittingEmptySubsequences: true).map { line in
            line.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        }
        guard let first = lines.first, first.count >= 4, first.first == UInt8(ascii: "A"),
              first.dropFirst().prefix(3).allSatisfy({ isAlphanumeric($0) }) else { return false }
        return lines.dropFirst().prefix(7).contains { $0.count >= 5 && $0.first == UInt8(ascii: "H") }
    }

    /// Reads the IGC file in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` when a line is longer than ``LineReader``'s limit or the file
    ///   holds text but no IGC record; points delivered before stay delivered.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var flight = IGCFlight(path: path)
        try reader.forEachLine { line, number in
            flight.line(line, number, &sink)
        }
        if !flight.sawRecord, let firstText = flight.firstText {
            throw InputError(path: path, line: firstText, reason: "not an IGC file: no A, H or B record")
        }
        return flight.summary
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

/// The state of one IGC file between lines.
private struct IGCFlight {
    let path: String
    var summary = IGCReader.Summary()
    var sawRecord = false
    var firstText: Int?

    /// Days since 1970 of `HFDTE`, and the last fix's time of day (for the midnight roll-over).
    private var day: Int64?
    private var lastTimeOfDay: Int64?
    /// Where the `FXA` extension sits in a `B` record (0-based, end exclusive), per the `I` record.
    private var accuracyBytes: Range<Int>?

    private static let millisecondsPerDay: Int64 = 86_400_000

    init(path: String) {
        self.path = path
    }

    mutating func line<Sink: TrackSink>(_ raw: UnsafeRawBufferPointer, _ number: Int, _ sink: inout Sink) {
        var count = raw.count
        while count > 0, raw[count - 1] == 0x20 || raw[count - 1] == 0x0D || raw[count - 1] == 0x09 { count -= 1 }
        var start = 0
        if number == 1, count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF { start = 3 }
        let line = UnsafeRawBufferPointer(rebasing: raw[start..<count])
        guard let kind = line.first else { return }
        switch kind {
        case UInt8(ascii: "A"), UInt8(ascii: "C"), UInt8(ascii: "D"), UInt8(ascii: "E"), UInt8(ascii: "F"), UInt8(ascii: "G"),
             UInt8(ascii: "J"), UInt8(ascii: "K"), UInt8(ascii: "L"):
            sawRecord = sawRecord || kind == UInt8(ascii: "A")
        case UInt8(ascii: "H"):
            sawRecord = true
            header(line)
        case UInt8(ascii: "I"):
            extensions(line)
        case UInt8(ascii: "B"):
            sawRecord = true
            fix(line, number, &sink)
        default:
            if firstText == nil { firstText = number }
        }
    }

    /// `HFDTEddmmyy` (IGC 1) or `HFDTEDATE:ddmmyy,nn` (IGC 2), also with spaces after the colon
    /// (`HFDTEDATE: ddmmyy`, as some flight software writes it, and as aerofiles and GPSBabel read
    /// it); other headers are passed over.
    private mutating func header(_ line: UnsafeRawBufferPointer) {
        guard line.count >= 11, line[1] == UInt8(ascii: "F") || line[1] == UInt8(ascii: "P") || line[1] == UInt8(ascii: "O"),
              line[2] == UInt8(ascii: "D"), line[3] == UInt8(ascii: "T"), line[4] == UInt8(ascii: "E") else { return }
        var at = 5
        if let colon = line[5...].firstIndex(of: UInt8(ascii: ":")) {
            // `DATE:` (or a long name before the colon): the date follows it, past any spaces.
            at = colon + 1
            while at < line.count, line[at] == UInt8(ascii: " ") { at += 1 }
        }
        guard line.count >= at + 6, let date = Self.date(UnsafeRawBufferPointer(rebasing: line[at..<(at + 6)])) else { return }
        day = date
        lastTimeOfDay = nil
    }

    /// `Inn` then `nn` × `SSFFCCC`: start and finish byte (1-based, inclusive) and code of each
    /// extension of the `B` records. Only `FXA` (fix accuracy) is read.
    private mutating func extensions(_ line: UnsafeRawBufferPointer) {
        accuracyBytes = nil
        guard line.count >= 3, let count = Self.number(line, 1, 2) else { return }
        for k in 0..<Int(count) {
            let at = 3 + k * 7
            guard at + 7 <= line.count, let first = Self.number(line, at, 2), let last = Self.number(line, at + 2, 2), first >= 1, last >= first else { return }
            if line[at + 4] == UInt8(ascii: "F"), line[at + 5] == UInt8(ascii: "X"), line[at + 6] == UInt8(ascii: "A") {
                accuracyBytes = Int(first - 1)..<Int(last)
            }
        }
    }

    /// `B HHMMSS DDMMmmm N DDDMMmmm E V PPPPP GGGGG [extensions]`.
    private mutating func fix<Sink: TrackSink>(_ line: UnsafeRawBufferPointer, _ number: Int, _ sink: inout Sink) {
        func unreadable(_ reason: String) {
            summary.unreadablePoints += 1
            sink.unreadablePoint(InputError(path: path, line: number, reason: "B record: \(reason)"))
        }
        guard line.count >= 35 else { return unreadable("\(line.count) characters, at least 35 expected") }
        guard let hours = Self.number(line, 1, 2), let minutes = Self.number(line, 3, 2), let seconds = Self.number(line, 5, 2),
              hours < 24, minutes < 60, seconds < 60 else { return unreadable("time '\(Self.text(line, 1, 6))' is not HHMMSS") }
        guard let latitude = Self.angle(line, 7, degreeDigits: 2, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S")) else {
            return unreadable("latitude '\(Self.text(line, 7, 8))' is not DDMMmmm and N or S")
        }
        guard let longitude = Self.angle(line, 15, degreeDigits: 3, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W")) else {
            return unreadable("longitude '\(Self.text(line, 15, 9))' is not DDDMMmmm and E or W")
        }
        let validity = line[24]
        guard validity == UInt8(ascii: "A") || validity == UInt8(ascii: "V") else { return unreadable("validity '\(Self.text(line, 24, 1))' is not A or V") }
        // Both altitudes must be numbers, whatever the validity: a record with letters where its
        // digits belong is damaged (aerofiles, the reference decoder, refuses it too).
        guard Self.signedNumber(line, 25, 5) != nil else { return unreadable("pressure altitude '\(Self.text(line, 25, 5))' is not a number") }
        guard let gnss = Self.signedNumber(line, 30, 5) else { return unreadable("GNSS altitude '\(Self.text(line, 30, 5))' is not a number") }
        var elevation: Double?
        if validity == UInt8(ascii: "A") {
            elevation = Double(gnss)
        } else {
            summary.twoDimensionalFixes += 1
        }
        var accuracy: Double?
        if let bytes = accuracyBytes, bytes.upperBound <= line.count {
            guard let metres = Self.number(line, bytes.lowerBound, bytes.count) else { return unreadable("FXA '\(Self.text(line, bytes.lowerBound, bytes.count))' is not a number") }
            accuracy = Double(metres)
        }
        let timeOfDay = ((hours * 60 + minutes) * 60 + seconds) * 1000
        var time: Int64?
        if var current = day {
            if let last = lastTimeOfDay, timeOfDay + Self.millisecondsPerDay / 2 < last { current += 1 }
            day = current
            lastTimeOfDay = timeOfDay
            time = current * Self.millisecondsPerDay + timeOfDay
        }
        summary.points += 1
        sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, elevation: elevation))
    }

    // MARK: Fields

    /// The unsigned decimal of `count` digits at `at`, or nil.
    static func number(_ line: UnsafeRawBufferPointer, _ at: Int, _ count: Int) -> Int64? {
        guard count > 0, at + count <= line.count else { return nil }
        var value: Int64 = 0
        for i in at..<(at + count) {
            let digit = line[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// A 5-character altitude: digits, or `-` and 4 digits.
    static func signedNumber(_ line: UnsafeRawBufferPointer, _ at: Int, _ count: Int) -> Int64? {
        guard at + count <= line.count else { return nil }
        if line[at] == UInt8(ascii: "-") { return number(line, at + 1, count - 1).map { -$0 } }
        return number(line, at, count)
    }

    static func text(_ line: UnsafeRawBufferPointer, _ at: Int, _ count: Int) -> String {
        String(decoding: line[min(at, line.count)..<min(at + count, line.count)], as: UTF8.self)
    }

    /// `DD(D)MMmmm` and a hemisphere letter at `at` → signed degrees; degrees and minutes (with
    /// thousandths) read as written.
    static func angle(_ line: UnsafeRawBufferPointer, _ at: Int, degreeDigits: Int, positive: UInt8, negative: UInt8) -> Double? {
        guard let degrees = number(line, at, degreeDigits), let minutes = number(line, at + degreeDigits, 2),
              let thousandths = number(line, at + degreeDigits + 2, 3), minutes < 60 else { return nil }
        let hemisphere = line[at + degreeDigits + 5]
        guard hemisphere == positive || hemisphere == negative else { return nil }
        let value = Double(degrees) + (Double(minutes) + Double(thousandths) / 1000) / 60
        return hemisphere == negative ? -value : value
    }

    /// `ddmmyy` → days since 1970; two-digit years 80–99 are 1980–1999, 00–79 2000–2079.
    static func date(_ field: UnsafeRawBufferPointer) -> Int64? {
        guard let dayOfMonth = number(field, 0, 2), let month = number(field, 2, 2), let shortYear = number(field, 4, 2) else { return nil }
        let year = shortYear >= 80 ? 1900 + shortYear : 2000 + shortYear
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: Int64
        switch month {
        case 2: monthDays = leap ? 29 : 28
        case 4, 6, 9, 11: monthDays = 30
        default: monthDays = 31
        }
        guard (1...12).contains(month), dayOfMonth >= 1, dayOfMonth <= monthDays else { return nil }
        return Timestamp.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
    }
}
