/// A command-line option a subcommand accepts.
struct OptionSpec {
    /// Long name without dashes, e.g. "from".
    let name: String
    /// Placeholder shown in help for the value (nil for a flag that takes none).
    let valueName: String?
    let help: String
    /// The value may be left out (`--tables` alone, or followed by another option): the option
    /// is then recorded as a flag.
    var valueOptional = false

    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }

    static func optionalValue(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, valueOptional: true)
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }
}

/// What a subcommand is and accepts: enough to parse its arguments and print its help.
struct CommandSpec {
    let name: String
    let abstract: String
    /// The arguments part of the usage line, e.g. "--from DATUM --to DATUM [FILE|-]".
    let usage: String
    let options: [OptionSpec]
    /// Longer explanation printed after the options in `--help`.
    let discussion: String

    var help: String {
        var text = "\(abstract)\n\nUsage: unlocks \(name) \(usage)\n\nOptions:\n"
        let rows = options.map { option -> (String, String) in
            ("--\(option.name)" + (option.valueName.map { " \($0)" } ?? ""), option.help)
        } + [("-h, --help", "Show this help.")]
        let width = rows.map(\.0.count).max() ?? 0
        for (left, right) in rows {
            text += "  \(left.padded(to: width))  \(right)\n"
        }
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        return text
    }
}

/// A mistake in how the command was called: printed with the usage line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    /// Splits `arguments` by `spec`: `--name value`, `--name=value`, flags, `--` and positionals.
    /// A lone `-` is a positional (standard input).
    init(_ arguments: [String], spec: CommandSpec) throws {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "-h" || argument == "--help" { wantsHelp = true; continue }
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "unknown option '\(argument)' (options are spelled --name)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option '--\(name)' for '\(spec.name)'")
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError(message: "option '--\(name)' takes no value") }
                flags.insert(name)
                continue
            }
            if let inlineValue {
                values[name, default: []].append(inlineValue)
            } else if option.valueOptional, index == arguments.count || (arguments[index].hasPrefix("-") && arguments[index] != "-") {
                flags.insert(name)
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "option '--\(name)' needs a value (\(option.valueName!))")
                }
                values[name, default: []].append(arguments[index])
                index += 1
            }
        }
    }

    /// The last value given for `name`, or nil.
    func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// The value of a required option, or a usage error naming it.
    func required(_ name: String) throws -> String {
        guard let value = value(name) else { throw UsageError(message: "missing required option '--\(name)'") }
        return value
    }

    /// The value parsed as one of an enum's raw values, in any case (`GCJ02`, `Json`), or a
    /// usage error listing the choices.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, as: T.Type) throws -> T? where T.RawValue == String {
        guard let text = value(name) else { return nil }
        guard let value = T.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: "|")
            throw UsageError(message: "'--\(name) \(text)': expected one of \(choices)")
        }
        return value
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (for aligned help columns).
    func padded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
