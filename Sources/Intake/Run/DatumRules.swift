import ChinaDatum

/// The datum each input's coordinates are read in, by its path (`--datum-for GLOB=DATUM`,
/// repeatable); an input no pattern matches is read in the fallback (`--datum`, WGS-84 by
/// default).
///
/// A path is the input's as reports show it: a file as found (`exports/amap/day1.gpx`), an
/// archive member as `archive.zip:member` (`tracks.zip:amap/day1.gpx`). In a pattern `*` matches
/// any run of characters but `/`, `**` any run including `/`, `?` one character but `/`; nothing
/// else is special. A pattern with no `/` or `:` is matched against the last part of the path (after
/// its last `/` or `:`), as in .gitignore; any other against the whole path. The first pattern
/// given that matches wins.
public struct DatumRules: Sendable {
    struct Rule: Sendable {
        let pattern: [Character]
        let wholePath: Bool
        let datum: Datum
    }
    private(set) var rules: [Rule] = []
    public let fallback: Datum

    /// A value that is not `GLOB=DATUM`; `message` says what is wrong with it.
    public struct Problem: Error, Sendable {
        public let message: String
    }

    /// No patterns: every input in `fallback`.
    public init(fallback: Datum) {
        self.fallback = fallback
    }

    /// Reads `--datum-for` values.
    public init(_ values: [String], fallback: Datum) throws(Problem) {
        self.fallback = fallback
        for value in values {
            guard let equals = value.lastIndex(of: "="), equals != value.startIndex else {
                throw Problem(message: "--datum-for '\(value)' is not GLOB=DATUM (e.g. 'amap/**=gcj02')")
            }
            let name = String(value[value.index(after: equals)...])
            guard let datum = Datum(rawValue: name.lowercased()) else {
                throw Problem(message: "--datum-for '\(value)': '\(name)' is not one of \(Datum.allCases.map(\.rawValue).joined(separator: "|"))")
            }
            let glob = value[..<equals]
            rules.append(Rule(pattern: Array(glob), wholePath: glob.contains("/") || glob.contains(":"), datum: datum))
        }
    }

    /// The datum of the input at `path`.
    public func datum(for path: String) -> Datum {
        guard !rules.isEmpty else { return fallback }
        let whole = Array(path)
        let base = whole.lastIndex(where: { $0 == "/" || $0 == ":" }).map { Array(whole[(whole.index(after: $0))...]) } ?? whole
        return rules.first { Self.matches($0.pattern[...], $0.wholePath ? whole[...] : base[...]) }?.datum ?? fallback
    }

    /// Glob matching as the type describes, by backtracking over the (short) pattern.
    static func matches(_ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == "*" {
            let anySlash = pattern.dropFirst().first == "*"
            let rest = pattern.dropFirst(anySlash ? 2 : 1)
            var remaining = text
            while true {
                if matches(rest, remaining) { return true }
                guard let next = remaining.first, anySlash || next != "/" else { return false }
                remaining = remaining.dropFirst()
            }
        }
        guard let character = text.first else { return false }
        if first == "?" ? character != "/" : first == character { return matches(pattern.dropFirst(), text.dropFirst()) }
        return false
    }
}
