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

    /// Glob matching as the type describes, in time proportional to the pattern's length times
    /// the text's (the set of pattern positions reachable after each character, as a Thompson
    /// automaton walks it): a pattern of stars against a long member path never backtracks.
    static func matches(_ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>) -> Bool {
        enum Token { case literal(Character), one, star, globstar }
        var tokens: [Token] = []
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let character = pattern[index]
            index += 1
            switch character {
            case "*":
                if index < pattern.endIndex, pattern[index] == "*" {
                    index += 1
                    tokens.append(.globstar)
                } else {
                    tokens.append(.star)
                }
            case "?": tokens.append(.one)
            default: tokens.append(.literal(character))
            }
        }
        // active[i]: the text so far can be matched by the first i tokens.
        var active = [Bool](repeating: false, count: tokens.count + 1)
        var next = active
        func close(_ states: inout [Bool]) {
            for i in tokens.indices where states[i] {
                switch tokens[i] {
                case .star, .globstar: states[i + 1] = true
                default: break
                }
            }
        }
        active[0] = true
        close(&active)
        for character in text {
            for i in next.indices { next[i] = false }
            var any = false
            for i in tokens.indices where active[i] {
                switch tokens[i] {
                case let .literal(expected) where expected == character: next[i + 1] = true
                case .one where character != "/": next[i + 1] = true
                case .star where character != "/", .globstar: next[i] = true
                default: continue
                }
                any = true
            }
            guard any else { return false }
            close(&next)
            swap(&active, &next)
        }
        return active[tokens.count]
    }
}
