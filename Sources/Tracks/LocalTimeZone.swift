import Foundation

/// The zone local times are in: a fixed offset (`--utc-offset ±HH:MM`) or an IANA zone
/// (`--time-zone America/New_York`; by default the system's, ``system``), whose
/// offset follows its daylight-saving rules through Foundation's `TimeZone` (the system's tz
/// database: /usr/share/zoneinfo, Debian's `tzdata`, on Linux; the OS's on Apple platforms).
///
/// It answers both ways: the offset in force at an instant (days, streaks, printed times) and the
/// instant a wall-clock time names (times written without an offset, e.g. in CSV). Offsets are in
/// whole minutes: a zone's offset with seconds (local mean time before about 1900) is truncated
/// toward zero, the same for days and for printed times.
public struct LocalTimeZone: Equatable, Hashable, Sendable, CustomStringConvertible {
    private enum Rule: Equatable, Hashable, Sendable {
        case fixed(minutes: Int)
        case named(TimeZone)
    }
    private let rule: Rule

    /// A fixed offset, minutes east of UTC (no daylight saving).
    public static func fixed(minutesEast: Int) -> LocalTimeZone { LocalTimeZone(rule: .fixed(minutes: minutesEast)) }

    /// UTC.
    public static let utc = LocalTimeZone.fixed(minutesEast: 0)

    /// +08:00, China's clock (Asia/Shanghai's since 1991).
    public static let china = LocalTimeZone.fixed(minutesEast: 480)

    /// The person's own clock, the default of every command and of ``ClassifyOptions``: the zone
    /// `TZ` names (`Europe/Paris`, `GB`, `:Europe/Paris`, or a path ending `zoneinfo/Europe/Paris`),
    /// else the system's setting (`/etc/localtime` on Linux, the OS's on Apple platforms, through
    /// Foundation's `TimeZone.current`), else UTC. Always a zone of the tz database, with its
    /// daylight-saving rules: never the offset of the day of the run. A `TZ` that names no zone
    /// (a POSIX rule such as `CET-1CEST`) is not guessed at: ``systemProblem(environment:)`` says so.
    public static var system: LocalTimeZone { system(environment: ProcessInfo.processInfo.environment) }

    /// ``system`` for the environment `environment` (tests pass their own).
    public static func system(environment: [String: String]) -> LocalTimeZone {
        if let name = zoneName(environment), let zone = LocalTimeZone(identifier: name) { return zone }
        return LocalTimeZone(identifier: TimeZone.current.identifier) ?? .utc
    }

    /// Why ``system(environment:)`` is not the zone `TZ` asks for (a POSIX rule, a name of no
    /// tz database zone), or nil: for a command to say before counting days in another zone.
    public static func systemProblem(environment: [String: String]) -> String? {
        guard let name = zoneName(environment), LocalTimeZone(identifier: name) == nil else { return nil }
        return "TZ='\(environment["TZ"]!)' names no time zone of the tz database (\(TimeZoneNames.release)); days are counted in "
            + "\(system(environment: environment)) (give --time-zone NAME, e.g. Europe/London, or --utc-offset ±HH:MM)"
    }

    /// The zone name `TZ` gives (without a leading `:` or a path up to `zoneinfo/`), or nil when unset.
    private static func zoneName(_ environment: [String: String]) -> String? {
        guard var name = environment["TZ"], !name.isEmpty else { return nil }
        if name.hasPrefix(":") { name.removeFirst() }
        if let range = name.range(of: "zoneinfo/") { name = String(name[range.upperBound...]) }
        return name
    }

    private init(rule: Rule) { self.rule = rule }

    /// The zone of the tz database named `identifier` (`Europe/Berlin`, `GB`, `EST5EDT`, `UTC`),
    /// or nil when there is none of that name (or the system lacks it). The one resolver of zone
    /// names (`--time-zone`, `TZ`, a state's zone): a name is a zone or link of the tz database
    /// (``TimeZoneNames``, from tzdata; a name with a `/` of a newer release than that list is
    /// taken too), never an abbreviation (`PST`, `CEST`) or an offset (`GMT+8`), which Foundation
    /// would also take and which are no zone.
    public init?(identifier: String) {
        guard TimeZoneNames.all.contains(identifier) || identifier.contains("/"), let zone = TimeZone(identifier: identifier) else { return nil }
        rule = .named(zone)
    }

    /// The fixed offset in minutes, or nil for a named zone.
    public var fixedMinutes: Int? {
        if case .fixed(let minutes) = rule { return minutes }
        return nil
    }

    /// `Europe/Berlin` for a named zone, `+08:00` (`±HH:MM`) for a fixed offset.
    public var description: String {
        switch rule {
        case .fixed(let minutes): return Self.offsetText(minutes)
        case .named(let zone): return zone.identifier
        }
    }

    /// `±HH:MM` for minutes east of UTC.
    public static func offsetText(_ minutes: Int) -> String {
        let magnitude = abs(minutes)
        let hours = magnitude / 60, rest = magnitude % 60
        return (minutes < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }

    /// The offset (minutes east of UTC) in force at `milliseconds` since 1970 UTC.
    public func offsetMinutes(at milliseconds: Int64) -> Int {
        switch rule {
        case .fixed(let minutes): return minutes
        case .named(let zone): return zone.secondsFromGMT(for: Self.date(milliseconds)) / 60
        }
    }

    /// The instant (milliseconds since 1970 UTC) of the wall-clock time `local` (milliseconds since
    /// 1970-01-01T00:00 on that clock). At a daylight-saving transition a wall-clock time may name
    /// two instants (the hour repeated when clocks go back): the earlier is taken, as the first
    /// time the clock showed it; or none (the hour skipped when clocks go forward): it is read at
    /// the offset before the transition, i.e. moved forward by the gap (as `java.time` and most
    /// loggers' clocks do). Both rules are deterministic and keep a file's times in order.
    public func utc(fromLocal local: Int64) -> Int64 {
        switch rule {
        case .fixed(let minutes):
            return local - Int64(minutes) * 60_000
        case .named:
            // A zone changes its offset at most once within a day around any instant (true of
            // every zone in the tz database), so the offsets a day before and a day after bracket it.
            let day: Int64 = 86_400_000
            let before = Int64(offsetMinutes(at: local - day)) * 60_000
            let after = Int64(offsetMinutes(at: local + day)) * 60_000
            let early = local - max(before, after), late = local - min(before, after)
            if Int64(offsetMinutes(at: early)) * 60_000 == local - early { return early }
            if Int64(offsetMinutes(at: late)) * 60_000 == local - late { return late }
            return local - before
        }
    }

    /// The offset at `milliseconds` and the first instant after it at which the offset may change
    /// (`Int64.max` when it never does), for callers that cache the offset between transitions.
    public func offsetMinutes(at milliseconds: Int64, until next: inout Int64) -> Int {
        switch rule {
        case .fixed(let minutes):
            next = .max
            return minutes
        case .named(let zone):
            let date = Self.date(milliseconds)
            if let transition = zone.nextDaylightSavingTimeTransition(after: date) {
                let t = transition.timeIntervalSince1970 * 1000
                next = t < 9.2e18 ? Int64(t.rounded(.down)) : .max
                if next <= milliseconds { next = milliseconds &+ 1 }
            } else {
                next = .max
            }
            return zone.secondsFromGMT(for: date) / 60
        }
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// The local day of each instant in a zone, fast for instants in order: the offset is asked of the
/// zone once per stretch between two transitions, not once per point.
package struct LocalDayClock: Sendable {
    package let zone: LocalTimeZone
    private var offsetMilliseconds: Int64 = 0
    /// The cached offset holds for instants in `validFrom..<validUntil`.
    private var validFrom = Int64.max
    private var validUntil = Int64.min
    /// `day(of:)` is `day` for instants in `dayFrom..<dayUntil`.
    private var day: Int64 = 0
    private var dayFrom = Int64.max
    private var dayUntil = Int64.min

    package init(zone: LocalTimeZone) { self.zone = zone }

    /// The offset (milliseconds east of UTC) in force at `milliseconds`.
    package mutating func offset(at milliseconds: Int64) -> Int64 {
        if milliseconds >= validFrom, milliseconds < validUntil { return offsetMilliseconds }
        var next = Int64.max
        offsetMilliseconds = Int64(zone.offsetMinutes(at: milliseconds, until: &next)) * 60_000
        validFrom = milliseconds
        validUntil = next
        return offsetMilliseconds
    }

    /// Days since 1970-01-01 on the local clock of the instant `milliseconds`. The instants of
    /// the last day found (under one offset) are remembered: a track's points share their day.
    package mutating func day(of milliseconds: Int64) -> Int64 {
        if milliseconds >= dayFrom, milliseconds < dayUntil { return day }
        let offset = offset(at: milliseconds)
        let local = milliseconds + offset
        let found = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        // The instants of that local day, where the offset holds (none remembered on overflow).
        let (start, startOverflow) = found.multipliedReportingOverflow(by: 86_400_000)
        let (from, fromOverflow) = start.subtractingReportingOverflow(offset)
        let (until, untilOverflow) = from.addingReportingOverflow(86_400_000)
        if startOverflow || fromOverflow || untilOverflow {
            dayFrom = .max
            dayUntil = .min
        } else {
            dayFrom = max(from, validFrom)
            dayUntil = min(until, validUntil)
        }
        day = found
        return found
    }
}
