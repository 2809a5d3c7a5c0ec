import Intake
import LogbookStore
import Tracks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process exit codes of the CLI contract.
enum ExitCode: Int32 {
    /// Everything succeeded.
    case success = 0
    /// The job failed (unreadable input, write error).
    case failure = 1
    /// The command was called wrongly.
    case usage = 2
    /// The job finished, but some inputs were rejected (reported on standard error).
    case inputsRejected = 3
}

/// `unlocks`: the command-line entry point. Dispatches to a subcommand.
@main
enum Unlocks {
    static let commands: [(spec: CommandSpec, run: @Sendable (ParsedArguments) async throws -> ExitCode)] = [
        (ConvertCommand.spec, ConvertCommand.run),
        (LocateCommand.spec, LocateCommand.run),
        (ClassifyCommand.spec, ClassifyCommand.run),
        (ShowCommand.spec, ShowCommand.run),
        (MergeCommand.spec, MergeCommand.run),
        (ForgetCommand.spec, ForgetCommand.run),
        (AuditCommand.spec, AuditCommand.run),
        (MapCommand.spec, MapCommand.run),
        (BuildCommand.spec, BuildCommand.run),
        (InfoCommand.spec, InfoCommand.run),
    ]

    static var overview: String {
        var text = "unlocks: GPS points in, administrative unlocks out.\n\nUsage: unlocks <command> [options]\n\nCommands:\n"
        let width = commands.map(\.spec.name.count).max() ?? 0
        for command in commands {
            text += "  \(command.spec.name.padded(to: width))  \(command.spec.abstract)\n"
        }
        text += "\nRun 'unlocks <command> --help' for a command's options, 'unlocks --version' for the version and the tables in use.\n"
        return text
    }

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        exit(await run(Array(CommandLineBytes.text.dropFirst())).rawValue)
    }

    static func run(_ arguments: [String]) async -> ExitCode {
        guard let name = arguments.first else {
            writeToStandardError(overview)
            return .usage
        }
        if name == "--version" || name == "version" {
            print(VersionText.text(), terminator: "")
            return .success
        }
        if name == "-h" || name == "--help" || name == "help" {
            if arguments.count > 1, let command = commands.first(where: { $0.spec.name == arguments[1] }) {
                print(command.spec.help, terminator: "")
            } else {
                print(overview, terminator: "")
            }
            return .success
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            reportError("unknown command '\(name)'")
            writeToStandardError(overview)
            return .usage
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.wantsHelp {
                print(command.spec.help, terminator: "")
                return .success
            }
            return try await command.run(parsed)
        } catch let error as UsageError {
            reportError("\(command.spec.name): \(error.message)")
            writeToStandardError("Usage: unlocks \(command.spec.name) \(command.spec.usage)\nRun 'unlocks \(command.spec.name) --help' for details.\n")
            return .usage
        } catch let error as InputError {
            reportError(error.description)
            return .failure
        } catch let error as LogbookError {
            reportError(error.description + (LogbookAccess.hint(for: error.kind).map { " (\($0))" } ?? ""))
            return .failure
        } catch let error as CustomStringConvertible {
            reportError(error.description)
            return .failure
        } catch {
            reportError("\(error)")
            return .failure
        }
    }
}
